#!/bin/bash
# GPU run 28/29 (sixth session, the same command on an H100 and an H200): clalgo-tune first, then reduce, scans,
# copy_if, saxpy and the by-key family at every size (events made only when asked for), and CUB, in one command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c28
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
/usr/bin/time -f "tune wall %e s" timeout 90 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?; tail -1 /tmp/tune.txt; grep -iE "chose|kept|took|s$" /tmp/tune.txt | tail -8
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in reduce scan copy_if elementwise by_key; do
  timeout 100 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/tuned_$b.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
done
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/tuned_*.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run4.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run28.tgz gpu.txt tune.txt tuned_*.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
