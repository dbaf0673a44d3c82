#!/bin/bash
# GPU run: sort tests and benchmarks beside CUB in one command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache CLALGO_DEVICE=NVIDIA
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > $OUT/nvcc.log 2>&1; echo nvcc done $?) &
timeout 200 ./test_sort > $OUT/test_sort.log 2>&1; echo "test_sort rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_sort.log | tr '\n' ' ')"
grep -h -B3 -A12 "Failure" $OUT/test_sort.log | head -40
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_sort $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_sort.json > /dev/null 2>$OUT/bench_sort.err; echo sort rc=$?
CLALGO_SORT_VALUES=gather timeout 60 ./bench_sort $B --benchmark_filter='clalgo_uint32_pairs/(1048576|16777216|268435456)$' --benchmark_out=$OUT/pairs_gather.json > /dev/null 2>>$OUT/bench_sort.err; echo gather rc=$?
for items in 16 20 24 32; do
CLALGO_SORT_ITEMS=$items timeout 60 ./bench_sort $B --benchmark_filter='clalgo.*/(1048576|16777216|268435456)$' --benchmark_out=$OUT/items$items.json > /dev/null 2>>$OUT/bench_sort.err; echo items $items rc=$?
done
wait
timeout 200 ./cub_compare > $OUT/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/bench_sort.json > $OUT/ratios.md; cat $OUT/ratios.md
for f in pairs_gather items16 items20 items24 items32; do echo "== $f"; python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/$f.json | grep -v "^|--" ; done
python3 ptx_regs.py /tmp/clalgo-cache > $OUT/regs.txt 2>&1; cat $OUT/regs.txt | head -60
cd $OUT && tar czf run1.tgz *.log *.json *.err *.txt *.md && rm -f *.log *.json *.err && ls
