#!/bin/bash
# GPU run G: the tests of every changed kernel; host cost per call (the call checks); by-key and copy_if benchmarks beside CUB
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache
cd gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_sweep.cu -o cub_sweep > $OUT/nvcc.log 2>&1; echo nvcc done $?
 nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > $OUT/nvcc_compare.log 2>&1; echo nvcc compare done $?) &
ls tests/test_by_key tests/test_scan tests/test_algorithms tests/test_arguments tests/test_elementwise tests/test_reduction tests/test_sort | xargs -P 4 -I{} sh -c 'timeout 300 ./{} > $OUT/$(basename {}).log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " $OUT/$(basename {}).log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" $OUT/test_*.log | head -60
wait
timeout 60 ./host_cost > $OUT/host_cost.txt 2>&1; cat $OUT/host_cost.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_by_key $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_by_key.json > /dev/null 2>$OUT/bench_by_key.err; echo by_key rc=$?
timeout 200 ./bench_copy_if $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_copy_if.json > /dev/null 2>$OUT/bench_copy_if.err; echo copy_if rc=$?
timeout 150 ./cub_sweep > $OUT/cub_sweep.txt 2>&1; echo cub rc=$?
timeout 150 ./cub_compare > $OUT/cub_compare.txt 2>&1; echo cub_compare rc=$?; head -3 $OUT/cub_compare.txt; tail -3 $OUT/nvcc_compare.log
python3 sweep_ratios.py $OUT/cub_sweep.txt $OUT/bench_by_key.json $OUT/bench_copy_if.json > $OUT/ratios.md; cat $OUT/ratios.md
python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/bench_by_key.json $OUT/bench_copy_if.json > $OUT/ratios_compare.md; cat $OUT/ratios_compare.md
# the two CUDA programs side by side, primitive by primitive at 2^20 and 2^28
python3 - $OUT/cub_sweep.txt $OUT/cub_compare.txt <<'PY'
import re, sys
def read(p):
    d = {}
    for line in open(p):
        m = re.match(r"(\w+) n=(\d+): ([\d.]+) ms", line)
        if m: d[(m.group(1), int(m.group(2)))] = float(m.group(3))
    return d
a, b = read(sys.argv[1]), read(sys.argv[2])
for key in sorted(a):
    if key[1] in (1 << 20, 1 << 28) and key in b: print(f"{key[0]:34s} n=2^{key[1].bit_length()-1}: sweep {a[key]:.4f} ms, compare {b[key]:.4f} ms")
PY
cd $OUT && tar czf runG.tgz *.log *.json *.err *.txt *.md && rm -f *.log *.json *.err && ls
