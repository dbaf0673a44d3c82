#!/bin/bash
# GPU run 6: every test program of the merged code; reduce_by_key with the look-back's 16-byte words and without,
# beside CUB; Euler 43 on one device and through the multi-device path with one device
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c6
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; ls tests/ | xargs -P 4 -I{} sh -c 'timeout 200 ./tests/{} > /tmp/t/{}.log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " /tmp/t/{}.log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -50
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for w in 1 0; do
  CLALGO_SCAN_WIDE_STATUS=$w timeout 60 ./bench_by_key $B --benchmark_filter='reduce_by_key/clalgo' --benchmark_out=/tmp/rbk_wide$w.json > /dev/null 2>>/tmp/err.txt; echo rbk wide=$w rc=$?
done
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for w in 1 0; do echo "== wide $w"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/rbk_wide$w.json | grep reduce_by_key; done | tee /tmp/ratios.md
for args in "--all" "--all --devices 1" "--all" "--all --devices 1"; do echo "== euler43 $args"; timeout 60 ./euler43 $args 2>&1 | grep -E "time|PASS|FAIL|way|devices" ; done > /tmp/euler43.txt 2>&1; cat /tmp/euler43.txt
cp run6.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run6.tgz t gpu.txt rbk_wide1.json rbk_wide0.json cub_compare.txt ratios.md euler43.txt err.txt command.sh
