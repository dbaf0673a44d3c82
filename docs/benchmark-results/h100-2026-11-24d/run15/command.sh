#!/bin/bash
# GPU run 15: the compiled programs (NVIDIA's binaries are PTX) of the scan and copy_if before and after, from
# the disk cache, to compare
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/c/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_TUNING=0
cd .gpu/c
B="--benchmark_min_time=0.01 --benchmark_repetitions=1"
for v in old new; do
  CLALGO_CACHE_DIR=/tmp/cache_$v timeout 60 ./bench_scan_$v $B --benchmark_filter='inclusive_scan/clalgo_int32/1048576/' > /dev/null 2>&1
  CLALGO_CACHE_DIR=/tmp/cache_$v timeout 60 ./bench_copy_if_$v $B --benchmark_filter='copy_if/clalgo_even_int32_into/1048576/' > /dev/null 2>&1
done
find /tmp/cache_old /tmp/cache_new -type f | head -20
cd /tmp && tar czf $OUT/run15.tgz cache_old cache_new
