#!/bin/bash
# GPU run E: tests of the changed kernels; by-key and sort benchmarks beside CUB in the same run
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache
cd gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_sweep.cu -o cub_sweep > $OUT/nvcc.log 2>&1; echo nvcc done $?) &
ls tests/test_by_key tests/test_scan tests/test_algorithms tests/test_sort | xargs -P 4 -I{} sh -c 'timeout 300 ./{} > $OUT/$(basename {}).log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " $OUT/$(basename {}).log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" $OUT/test_*.log | head -60
wait
B="--benchmark_filter=clalgo --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_by_key $B --benchmark_out=$OUT/bench_by_key.json > /dev/null 2>$OUT/bench_by_key.err; echo by_key rc=$?
for items in 4 16; do
  CLALGO_SEGMENT_ITEMS=$items timeout 100 ./bench_by_key $B --benchmark_filter=segmented.*clalgo --benchmark_out=$OUT/seg_items$items.json > /dev/null 2>>$OUT/bench_by_key.err; echo seg items $items rc=$?
done
timeout 240 ./bench_sort $B --benchmark_out=$OUT/bench_sort.json > /dev/null 2>$OUT/bench_sort.err; echo sort rc=$?
timeout 150 ./cub_sweep > $OUT/cub_sweep.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py $OUT/cub_sweep.txt $OUT/bench_by_key.json $OUT/bench_sort.json > $OUT/ratios.md; cat $OUT/ratios.md
for items in 4 16; do echo "items $items"; python3 sweep_ratios.py $OUT/cub_sweep.txt $OUT/seg_items$items.json | tail -1; done
cd $OUT && tar czf runE.tgz *.log *.json *.err *.txt *.md && rm -f *.log *.json *.err && ls
