#!/bin/bash
# GPU run 30 (sixth session): the test programs the event and pool changes touch, built from e575b26, on the GPU
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c30
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
mkdir -p /tmp/t
ls tests | xargs -P 8 -I{} sh -c 'timeout 400 ./tests/{} > /tmp/t/{}.txt 2>&1; echo "{} rc=$?"'
grep -h "PASSED\|FAILED" /tmp/t/*.txt
cp run6.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run30.tgz gpu.txt t command.sh
