#!/bin/bash
# GPU run 32 (seventh session): one-tile sorts with groups grown to 1024 (CLALGO_SORT_TILE_GROUP caps them).
# First builds with the disk cache and the driver's cache off, new then old (2d8a8c4), before anything else;
# test_sort; the sorts at 2^10 and 2^12 with the group capped at 256, 512 and not at all, twice, and old once;
# CUB in the same command
RUN=${1:-run32}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s7/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
for b in first_build first_build_old; do
  CUDA_CACHE_DISABLE=1 CLALGO_NO_CACHE=1 timeout 100 ./$b > /tmp/$b.txt 2>&1; echo $b rc=$?; grep -i "sort\|device" /tmp/$b.txt
done
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
timeout 240 ./tests/test_sort > /tmp/t/test_sort.txt 2>&1; echo test_sort rc=$?
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/t/*.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint(32_keys|32_pairs|64_keys)/(1024|4096)/'
for round in 1 2; do
  for g in 256 512 1024; do
    CLALGO_SORT_TILE_GROUP=$g timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/g${g}_$round.json > /dev/null 2>>/tmp/err.txt; echo g$g $round rc=$?
  done
done
timeout 60 ./bench_sort_old $B --benchmark_filter="$S" --benchmark_out=/tmp/old.json > /dev/null 2>>/tmp/err.txt; echo old rc=$?
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for f in g256_1 g512_1 g1024_1 g256_2 g512_2 g1024_2 old; do echo "## $f"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$f.json | grep sort | cut -d'|' -f1-4; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run2.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt t first_build*.txt g*.json old.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
