#!/bin/bash
# GPU run 45 (eighth session, the review's mends on top of a4d2b84): test_sort (its new test sorts with groups of
# 32, 128 and 512, the group scans by shuffles and in local memory) and test_tuning on the GPU
RUN=${1:-run45}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
mkdir -p /tmp/$RUN/t && cp run7.sh /tmp/$RUN/command.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
for t in test_sort test_tuning; do timeout 250 ./tests/$t > /tmp/$RUN/t/$t.txt 2>&1; echo $t rc=$?; done
grep -h "PASSED\|FAILED\|SKIPPED \]\|OtherGroups" /tmp/$RUN/t/*.txt
cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .
