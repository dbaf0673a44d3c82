#!/bin/bash
# GPU run 19 (fifth session): map shapes against the DMA copy and fill; first builds from source; host cost;
# reduce, scans and copy_if at 2^20 and 2^28 (9 repetitions) beside CUB, after the tuner
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r1/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c19
cd .gpu/r1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
timeout 60 ./mapexp > /tmp/mapexp.txt 2>&1; echo mapexp rc=$?
CLALGO_NO_CACHE=1 timeout 120 ./first_build > /tmp/first_build.txt 2>&1; echo first_build rc=$?
for e in look_and_say euler43 pi; do echo "== $e" >> /tmp/examples.txt; CLALGO_NO_CACHE=1 timeout 60 ./$e >> /tmp/examples.txt 2>&1; echo $e rc=$?; done
timeout 60 ./host_cost > /tmp/host_cost.txt 2>&1; echo host_cost rc=$?
timeout 60 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?; grep -E "chosen|took" /tmp/tune.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=9 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
wait
for round in 1 2; do
  for b in reduce scan copy_if; do
    timeout 100 ./bench_$b $B --benchmark_filter='clalgo.*/(1048576|268435456)/' --benchmark_out=/tmp/bench_${b}_$round.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
  done
  timeout 120 /tmp/cub_compare > /tmp/cub_compare_$round.txt 2>&1; echo cub rc=$?
  python3 sweep_ratios.py /tmp/cub_compare_$round.txt /tmp/bench_*_$round.json > /tmp/ratios_$round.md 2>&1; cat /tmp/ratios_$round.md
done
cat /tmp/mapexp.txt /tmp/first_build.txt; grep -E "==|kernels" /tmp/examples.txt; tail -8 /tmp/host_cost.txt
cp r1.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run19.tgz gpu.txt mapexp.txt first_build.txt examples.txt host_cost.txt tune.txt bench_*.json cub_compare_*.txt ratios_*.md err.txt command.sh nvcc.log
