#!/bin/bash
# GPU run F: by-key tests and benchmarks beside CUB; reduce_by_key's scan tile shapes tried by the tuning knobs
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache
cd gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_sweep.cu -o cub_sweep > $OUT/nvcc.log 2>&1; echo nvcc done $?) &
timeout 200 tests/test_by_key > $OUT/test_by_key.log 2>&1; echo "test_by_key rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_by_key.log | tr '\n' ' ')"; grep -B3 -A12 Failure $OUT/test_by_key.log | head -40
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_by_key $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_by_key.json > /dev/null 2>$OUT/bench_by_key.err; echo by_key rc=$?
for shape in "64 16" "128 16" "128 8" "256 8" "64 8" "32 32"; do
  set -- $shape
  CLALGO_SCAN_GROUP_SIZE=$1 CLALGO_SCAN_ITEMS=$2 timeout 60 ./bench_by_key $B --benchmark_filter='reduce_by_key/clalgo.*/(16777216|268435456)/' --benchmark_out=$OUT/rbk_$1_$2.json > /dev/null 2>>$OUT/bench_by_key.err
  echo "group $1 items $2: $(python3 -c "import json,sys; d=json.load(open('$OUT/rbk_$1_$2.json'))['benchmarks']; print(' '.join(f\"{b['run_name'].split('/')[2]}={b['real_time']:.0f}us\" for b in d if b.get('aggregate_name')=='median'))")"
done
timeout 150 ./cub_sweep > $OUT/cub_sweep.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py $OUT/cub_sweep.txt $OUT/bench_by_key.json > $OUT/ratios.md; cat $OUT/ratios.md
cd $OUT && tar czf runF.tgz *.log *.json *.err *.txt *.md && rm -f *.log *.json *.err && ls
