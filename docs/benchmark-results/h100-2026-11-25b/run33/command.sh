#!/bin/bash
# GPU run 33 (seventh session): inputs of a few tiles in smaller tiles. test_sort; the sorts at 2^14-2^20 with small
# tiles off (CLALGO_SORT_SMALL_KEYS=0) and with 8, 12 and 16 keys a work-item up to 2^21 keys, twice; CUB in the
# same command
RUN=${1:-run33}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s7/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
timeout 240 ./tests/test_sort > /tmp/t/test_sort.txt 2>&1; echo test_sort rc=$?
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/t/*.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint(32_keys|32_pairs|64_keys)/(16384|65536|262144|1048576)/'
for round in 1 2; do
  CLALGO_SORT_SMALL_KEYS=0 timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/off_$round.json > /dev/null 2>>/tmp/err.txt; echo off $round rc=$?
  for i in 8 12 16; do
    CLALGO_SORT_SMALL_ITEMS=$i CLALGO_SORT_SMALL_KEYS=2097152 timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/i${i}_$round.json > /dev/null 2>>/tmp/err.txt; echo i$i $round rc=$?
  done
done
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for f in off_1 i8_1 i12_1 i16_1 off_2 i8_2 i12_2 i16_2; do echo "## $f"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$f.json | grep sort | cut -d'|' -f1,2,5-8; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run4.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt t off_*.json i*_*.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
