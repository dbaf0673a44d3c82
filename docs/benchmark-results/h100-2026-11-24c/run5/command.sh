#!/bin/bash
# GPU run 5: test programs of the merged code (sort, memory pool, array algorithms, histogram loop), then the sort
# and by-key benchmarks at every size beside CUB in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c5
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; ls tests/ | xargs -P 4 -I{} sh -c 'timeout 240 ./tests/{} > /tmp/t/{}.log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " /tmp/t/{}.log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -60
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 120 ./bench_by_key $B --benchmark_filter=clalgo --benchmark_out=/tmp/bench_by_key.json > /dev/null 2>/tmp/err.txt; echo by_key rc=$?
timeout 150 ./bench_sort $B --benchmark_filter=clalgo --benchmark_out=/tmp/bench_sort.json > /dev/null 2>>/tmp/err.txt; echo sort rc=$?
timeout 150 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_sort.json /tmp/bench_by_key.json | tee /tmp/ratios.md
cp run5.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run5.tgz t gpu.txt bench_sort.json bench_by_key.json cub_compare.txt ratios.md err.txt command.sh
