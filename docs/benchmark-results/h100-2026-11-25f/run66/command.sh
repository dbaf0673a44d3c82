#!/bin/bash
# GPU run 66 (eleventh session, binaries of 796d53c): the compaction tests on the GPU, every scan algorithm
# (chained, forced, runs the new chained compaction there)
RUN=${1:-run64}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s12/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s12
mkdir -p /tmp/$RUN/t && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
for t in test_algorithms test_array_algorithms; do
  timeout 300 ./tests/$t > /tmp/$RUN/t/$t.txt 2>&1; echo $t rc=$?; save
done
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
