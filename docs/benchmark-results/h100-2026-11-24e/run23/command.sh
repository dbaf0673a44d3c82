#!/bin/bash
# GPU run 23 (fifth session): the one-call reductions sum, min, max, dot (result to the host and into a device
# array) beside the equivalent ReductionKernel at 2^28, all in one command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r2/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c23
cd .gpu/r2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
A1="--benchmark_min_time=0.1 --benchmark_repetitions=1 --benchmark_out_format=json"
timeout 540 ./bench_array_algorithms $A1 --benchmark_filter='array/(clalgo|reduction_kernel)_(sum|min|max|dot)_float(_into)?/268435456/' --benchmark_out=/tmp/reductions3.json > /tmp/reductions3.txt 2>&1; echo reductions rc=$?
grep -E "^array" /tmp/reductions3.txt
python3 array_ratios.py /tmp/reductions3.json > /tmp/reductions3.md 2>&1; head -14 /tmp/reductions3.md
cp r5.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run23.tgz gpu.txt reductions3.* command.sh
