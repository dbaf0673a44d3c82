#!/bin/bash
# GPU run 10 (b): the tests of the by-key family (their kernel fixed after run 10a), host cost, the tuner, the scans again, the by-key family, the sorts (64-bit keys in halves and whole)
# beside CUB in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/b/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c10
cd .gpu/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; ls tests/ | xargs -P 2 -I{} sh -c 'timeout 150 ./tests/{} > /tmp/t/{}.log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " /tmp/t/{}.log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -30
timeout 60 ./host_cost > /tmp/host_cost.txt 2>&1; echo host_cost rc=$?
timeout 60 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 100 ./bench_scan $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_scan.json > /dev/null 2>>/tmp/err.txt; echo scan rc=$?
for b in by_key sort; do
  timeout 150 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_$b.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
done
CLALGO_SORT_SPLIT_KEYS=0 timeout 60 ./bench_sort $B --benchmark_filter='clalgo_uint64_keys/(1048576|16777216|268435456)/' --benchmark_out=/tmp/sort_u64_whole.json > /dev/null 2>>/tmp/err.txt; echo u64 whole rc=$?
wait
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_*.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/sort_u64_whole.json | grep uint64
grep -E "n=|copy_if|scan|by_key|segmented|histogram|sort|copy|reduce|20 args|1 args" /tmp/host_cost.txt | head -40
cp run10b.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run10b.tgz t host_cost.txt tune.txt gpu.txt bench_*.json sort_u64_whole.json cub_compare.txt ratios.md err.txt command.sh
