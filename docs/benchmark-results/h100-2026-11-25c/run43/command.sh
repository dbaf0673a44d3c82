#!/bin/bash
# GPU run 43 (eighth session, 533f55b): the group scans by warp shuffles against those in local memory
# (CLALGO_SORT_SHUFFLE_SCAN=0) at 2^10-2^18, three rounds alternating, then the radix sorts at every size again;
# CUB in the same command; the archive written as it goes
RUN=${1:-run43}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
cp run5.sh /tmp/command.sh
save() { (cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt command.sh $(ls /tmp | grep -E '\.json$|^cub_compare.txt|^ratios|^err|^nvcc') 2>/dev/null); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
run() { name=$1; filter=$2; shift 2; env "$@" timeout 150 ./bench_sort $B --benchmark_filter="$filter" --benchmark_out=/tmp/$name.json > /dev/null 2>>/tmp/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$name.json | grep sort | sed "s/^/$name /" >> /tmp/ratios.md; save; }
AB='clalgo_uint(32_keys|32_pairs|64_keys)/(1024|4096|16384|65536|262144)/'
for r in 1 2 3; do
  run noshuffle$r "$AB" CLALGO_SORT_SHUFFLE_SCAN=0
  run shuffle$r "$AB" X=1
done
run sort 'clalgo_uint' X=1
cat /tmp/ratios.md | cut -d'|' -f1-7
grep "^sort" /tmp/ratios.md
