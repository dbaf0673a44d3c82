#!/bin/bash
# GPU run 25 (sixth session): calls make no OpenCL event unless one is asked for (clalgo::Event). The changed
# tests on the GPU, then reduce, scans, copy_if and saxpy at every size, each benchmark run with events made only
# when asked for (lazy, the new default) and right after with CLALGO_EAGER_EVENTS=1 (every call makes its event at
# once, as before), twice in alternation, and CUB in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c25
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
ls tests | xargs -P 6 -I{} sh -c 'timeout 200 ./tests/{} > /tmp/t/{}.txt 2>&1; echo "{} rc=$?"'
grep -h "PASSED\|FAILED" /tmp/t/*.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for round in 1 2; do
for b in reduce scan copy_if elementwise; do
  timeout 100 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/lazy${round}_$b.json > /dev/null 2>>/tmp/err.txt; echo lazy $round $b rc=$?
  CLALGO_EAGER_EVENTS=1 timeout 100 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/eager${round}_$b.json > /dev/null 2>>/tmp/err.txt; echo eager $round $b rc=$?
done
done
wait
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for m in lazy1 eager1 lazy2 eager2; do echo "## $m"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/${m}_*.json; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run1.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run25.tgz gpu.txt t lazy*.json eager*.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
