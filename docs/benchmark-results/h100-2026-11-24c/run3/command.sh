#!/bin/bash
# GPU run 3: old (b9f1bc2), A (unrolled scatter) and C (scatter loop, digits of the places in local memory), interleaved; CUB
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA
cd .gpu
ls -la cub_compare 2>/dev/null || (nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
CLALGO_CACHE_DIR=/tmp/cc3 timeout 150 ./test_sort > /tmp/test_sort.log 2>&1; echo "test_sort (C) rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/test_sort.log | tr '\n' ' ')"
grep -h -B3 -A12 "Failure" /tmp/test_sort.log | head -30
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo.*/(65536|1048576|16777216|268435456)/'
for round in 1 2; do
  for v in old a c; do
    CLALGO_CACHE_DIR=/tmp/c-$v timeout 60 ./bench_sort_$v $B --benchmark_filter="$S" --benchmark_out=/tmp/$v$round.json > /dev/null 2>>/tmp/err.txt; echo $v $round rc=$?
  done
done
timeout 150 ./cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for v in old1 a1 c1 old2 a2 c2; do echo "== $v"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$v.json | grep sort/ ; done
for v in old a c; do echo "== $v"; python3 ptx_regs.py /tmp/c-$v | grep -A3 "onesweep'" | grep Used; done
cd /tmp && tar czf $OUT/run3.tgz old?.json a?.json c?.json cub_compare.txt test_sort.log err.txt
