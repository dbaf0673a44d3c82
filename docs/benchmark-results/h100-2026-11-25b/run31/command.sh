#!/bin/bash
# GPU run 31 (seventh session): radix sort's one-tile inputs in the smallest tile that holds them, programs built
# at the first call that needs them. test_sort; first builds with the disk cache off, new and old (2d8a8c4);
# the sorts at 2^10-2^16 new and old alternating twice, 2^20 new and old, 2^28 new; CUB in the same command
RUN=${1:-run31}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s7/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
timeout 240 ./tests/test_sort > /tmp/t/test_sort.txt 2>&1; echo test_sort rc=$?
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/t/*.txt
for b in first_build first_build_old; do
  CLALGO_NO_CACHE=1 timeout 100 ./$b > /tmp/$b.txt 2>&1; echo $b rc=$?; grep -i "sort\|device" /tmp/$b.txt
done
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint(32_keys|32_pairs|64_keys)/(1024|4096|16384|65536)/'
for round in 1 2; do
  timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/small_new$round.json > /dev/null 2>>/tmp/err.txt; echo new $round rc=$?
  timeout 60 ./bench_sort_old $B --benchmark_filter="$S" --benchmark_out=/tmp/small_old$round.json > /dev/null 2>>/tmp/err.txt; echo old $round rc=$?
done
M='clalgo_uint(32_keys|32_pairs|64_keys)/1048576/'
timeout 60 ./bench_sort $B --benchmark_filter="$M" --benchmark_out=/tmp/mid_new.json > /dev/null 2>>/tmp/err.txt; echo mid new rc=$?
timeout 60 ./bench_sort_old $B --benchmark_filter="$M" --benchmark_out=/tmp/mid_old.json > /dev/null 2>>/tmp/err.txt; echo mid old rc=$?
timeout 150 ./bench_sort $B --benchmark_filter='clalgo_uint(32_keys|32_pairs|64_keys)/268435456/' --benchmark_out=/tmp/big_new.json > /dev/null 2>>/tmp/err.txt; echo big rc=$?
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for f in small_new1 small_old1 small_new2 small_old2 mid_new mid_old big_new; do echo "## $f"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$f.json | grep sort; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run1.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt t first_build*.txt small_*.json mid_*.json big_new.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
