#!/bin/bash
# GPU run 50 (ninth session, H200, 84e4656): clalgo-tune, then reduce, scans and copy_if at 2^20 and 2^28 in two
# rounds, and CUB in the same command (issue 11's check on the H200)
RUN=${1:-run50}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s9/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s9
mkdir -p /tmp/$RUN && cp run4.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1 &
NVCC=$!
timeout 120 ./clalgo-tune --verbose > /tmp/$RUN/tune.txt 2>&1; echo tune rc=$?; tail -9 /tmp/$RUN/tune.txt; save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub rc=$?; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for round in 1 2; do
  for b in bench_reduce bench_scan bench_copy_if; do
    timeout 100 ./$b $B --benchmark_filter='clalgo.*/(1048576|268435456)/' --benchmark_out=/tmp/$RUN/${b}_$round.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $b $round rc=$?; save
  done
  python3 sweep_ratios.py /tmp/$RUN/cub_compare.txt /tmp/$RUN/bench_reduce_$round.json /tmp/$RUN/bench_scan_$round.json /tmp/$RUN/bench_copy_if_$round.json | grep -v "not run |.*not run |.*not run | not run | not run$" > /tmp/$RUN/ratios_$round.md 2>&1
  cut -d'|' -f2,8,12 /tmp/$RUN/ratios_$round.md; save
done
