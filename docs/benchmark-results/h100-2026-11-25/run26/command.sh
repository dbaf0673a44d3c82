#!/bin/bash
# GPU run 26 (sixth session): the by-key family at every size, each benchmark run with events made only
# when asked for (lazy, the new default) and right after with CLALGO_EAGER_EVENTS=1 (as before), and CUB in the
# same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c26
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in by_key; do
  timeout 170 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/lazy_$b.json > /dev/null 2>>/tmp/err.txt; echo lazy $b rc=$?
  CLALGO_EAGER_EVENTS=1 timeout 170 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/eager_$b.json > /dev/null 2>>/tmp/err.txt; echo eager $b rc=$?
done
timeout 60 ./host_cost > /tmp/host_cost.txt 2>&1; echo host_cost rc=$?
wait
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for m in lazy eager; do echo "## $m"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/${m}_*.json; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run2.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run26.tgz gpu.txt lazy*.json eager*.json cub_compare.txt host_cost.txt ratios.md err.txt nvcc.log command.sh
