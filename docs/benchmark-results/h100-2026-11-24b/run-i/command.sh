#!/bin/bash
# GPU run I: every test program (four at a time); by-key benchmarks beside CUB (the repository's cub_compare)
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache
cd gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > $OUT/nvcc.log 2>&1; echo nvcc done $?) &
ls tests/test_* | xargs -P 4 -I{} sh -c 'timeout 400 ./{} > $OUT/$(basename {}).log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " $OUT/$(basename {}).log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" $OUT/test_*.log | head -60
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_by_key $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_by_key.json > /dev/null 2>$OUT/bench_by_key.err; echo by_key rc=$?
timeout 150 ./cub_compare > $OUT/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/bench_by_key.json > $OUT/ratios.md; cat $OUT/ratios.md
cd $OUT && tar czf runI.tgz *.log *.json *.err *.txt *.md && rm -f *.log *.json *.err && ls
