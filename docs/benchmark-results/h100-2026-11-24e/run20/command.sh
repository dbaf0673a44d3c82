#!/bin/bash
# GPU run 20 (fifth session): maps in tiles with restrict arrays and fill by a kernel, before (old) and after;
# the array reductions max and dot beside ReductionKernel; look-and-say's build and speed before and after the
# scan's write loops stopped unrolling its output statement; copy_if at 2^20 by tile shape; saxpy at every size
# beside Thrust (before and after) in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r2/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c20
cd .gpu/r2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
A1="--benchmark_min_time=0.1 --benchmark_repetitions=1 --benchmark_out_format=json"
MAPS='array/(clalgo_take_float_ordered|clalgo_fill_float|clalgo_astype_int32_float|clalgo_astype_float_double|device_copy_float|elementwise_copy_float)/(16777216|268435456)/'
for v in "" _old; do
  timeout 150 ./bench_array_algorithms$v $A1 --benchmark_filter="$MAPS" --benchmark_out=/tmp/maps$v.json > /tmp/maps$v.txt 2>&1; echo maps$v rc=$?
done
timeout 120 ./bench_array_algorithms $A1 --benchmark_filter='array/(clalgo|reduction_kernel)_(max|dot)_float(_into)?/268435456/' --benchmark_out=/tmp/reductions.json > /tmp/reductions.txt 2>&1; echo reductions rc=$?
for v in "" _old; do
  echo "== look_and_say$v" >> /tmp/look_and_say.txt
  CLALGO_NO_CACHE=1 timeout 60 ./look_and_say$v --steps 50 >> /tmp/look_and_say.txt 2>&1
  timeout 60 ./look_and_say$v --steps 66 --repeat 5 >> /tmp/look_and_say.txt 2>&1; echo look_and_say$v rc=$?
done
CLALGO_NO_CACHE=1 timeout 120 ./first_build > /tmp/first_build.txt 2>&1; echo first_build rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for shape in "128 32" "128 16" "256 16" "128 8" "256 8" "64 32"; do
  set -- $shape
  CLALGO_SCAN_GROUP_SIZE=$1 CLALGO_SCAN_ITEMS=$2 timeout 40 ./bench_copy_if $B --benchmark_filter='copy_if/clalgo_even_int32_into/(1048576|4194304|268435456)/' --benchmark_out=/tmp/copy_if_$1_$2.json > /dev/null 2>>/tmp/err.txt; echo copy_if $1 $2 rc=$?
  python3 - /tmp/copy_if_$1_$2.json $1 $2 <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") == "median": print("copy_if group", sys.argv[2], "items", sys.argv[3], b["run_name"], "%.2f us" % b["real_time"])
PY
done
wait
for v in "" _old; do
  timeout 100 ./bench_elementwise$v $B --benchmark_filter='clalgo_saxpy' --benchmark_out=/tmp/bench_elementwise$v.json > /dev/null 2>>/tmp/err.txt; echo elementwise$v rc=$?
done
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_elementwise.json > /tmp/ratios.md 2>&1
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_elementwise_old.json > /tmp/ratios_old.md 2>&1
cat /tmp/ratios.md /tmp/ratios_old.md
for v in "" _old; do echo "== maps$v"; python3 array_ratios.py /tmp/maps$v.json; done
python3 array_ratios.py /tmp/reductions.json | head -14
grep -E "==|kernels|time" /tmp/look_and_say.txt; cat /tmp/first_build.txt
cp r2.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run20.tgz gpu.txt maps*.json maps*.txt reductions.* look_and_say.txt first_build.txt copy_if_*.json bench_elementwise*.json cub_compare.txt ratios*.md err.txt command.sh
