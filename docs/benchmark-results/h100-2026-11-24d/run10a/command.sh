#!/bin/bash
# GPU run 10 (a): the merged code (scan launches with one struct argument, carry-in, reduce_by_key's tile kernel,
# onesweep's early values and split 64-bit keys): tests, host cost, the tuner, then every primitive at every
# size beside CUB, all in one command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/a/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c10
cd .gpu/a
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; ls tests/ | xargs -P 4 -I{} sh -c 'timeout 150 ./tests/{} > /tmp/t/{}.log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " /tmp/t/{}.log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -40
wait
timeout 60 ./host_cost > /tmp/host_cost.txt 2>&1; echo host_cost rc=$?
timeout 60 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in reduce scan copy_if elementwise; do
  timeout 150 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_$b.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
done
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_*.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
grep -E "n=|copy_if|scan|by_key|segmented|histogram|sort|20 args|1 args" /tmp/host_cost.txt | head -40
cp run10a.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run10a.tgz t gpu.txt bench_*.json cub_compare.txt ratios.md host_cost.txt tune.txt err.txt command.sh
