#!/bin/bash
# GPU run 7: reduce_by_key's tile kernel (items 8, 12, 16) and the scan of pairs, beside CUB
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c7
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; timeout 200 ./tests/test_by_key > /tmp/t/test_by_key.log 2>&1; echo "test_by_key rc=$? $(grep -E '^\[  (PASSED|FAILED) ' /tmp/t/test_by_key.log | tr '\n' ' ')"
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -40
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for v in tile:8 tile:12 tile:16 scan:12 tile:12b; do
  CLALGO_REDUCE_BY_KEY=${v%%:*} CLALGO_REDUCE_BY_KEY_ITEMS=$(echo ${v##*:} | tr -d b) timeout 60 ./bench_by_key $B --benchmark_filter='reduce_by_key/clalgo' --benchmark_out=/tmp/rbk_${v/:/_}.json > /dev/null 2>>/tmp/err.txt; echo rbk $v rc=$?
done
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for v in tile_8 tile_12 tile_16 scan_12 tile_12b; do echo "== $v"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/rbk_$v.json | grep reduce_by_key; done | tee /tmp/ratios.md
cp run7.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run7.tgz t gpu.txt rbk_*.json cub_compare.txt ratios.md err.txt command.sh
