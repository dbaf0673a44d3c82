#!/bin/bash
# GPU run 36 (seventh session, the final code, on an H200): first builds with the disk cache and the driver's cache off, new
# then old (2d8a8c4), before anything else; test_sort, test_algorithms, test_comparison_sort; the radix sorts at
# every size; CUB in the same command
RUN=${1:-run36}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s7/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
for b in first_build first_build_old; do
  CUDA_CACHE_DISABLE=1 CLALGO_NO_CACHE=1 timeout 100 ./$b > /tmp/$b.txt 2>&1; echo $b rc=$?; grep -i "sort\|device" /tmp/$b.txt
done
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
for t in test_sort test_algorithms test_comparison_sort; do echo $t; done | xargs -P 3 -I{} sh -c 'timeout 200 ./tests/{} > /tmp/t/{}.txt 2>&1; echo "{} rc=$?"'
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/t/*.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 400 ./bench_sort $B --benchmark_filter='clalgo_uint' --benchmark_out=/tmp/sort.json > /dev/null 2>>/tmp/err.txt; echo sort rc=$?
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/sort.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run6.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt t first_build*.txt sort.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
