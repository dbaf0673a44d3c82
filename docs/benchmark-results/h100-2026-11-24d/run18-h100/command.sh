#!/bin/bash
# GPU run 18 (H100, then H200): after the templates' mend, the tuner, then reduce, scans, copy_if and saxpy at
# every size beside CUB and Thrust in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/d/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c18
cd .gpu/d
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
timeout 60 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?; grep -E "chosen|took" /tmp/tune.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in reduce scan copy_if elementwise; do
  timeout 150 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_$b.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
done
wait
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_*.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run18.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run18.tgz gpu.txt tune.txt bench_*.json cub_compare.txt ratios.md err.txt command.sh
