#!/bin/bash
# GPU run 67 (thirteenth session): onesweep with early counts (count, publish, then place) and groups of whole warps
# (new) against 1536fa1 (old); test_sort's onesweep tests on the GPU (groups 32-512, 96 and 384 among them); sorts at
# 2^24 and 2^28 with the default tile 256x28 and with 384-wide groups (CUB's width), old and the variants in turn,
# twice; CUB (cub_sweep.cu) in the same command
RUN=${1:-run67}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s14/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s14
mkdir -p /tmp/$RUN/t && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
timeout 150 ./tests/test_sort --gtest_filter='*Onesweep*:*Tile*:*Tier*:SortPolicy.*' > /tmp/$RUN/t/test_sort.txt 2>&1
echo test_sort rc=$?; grep -h "PASSED\|FAILED" /tmp/$RUN/t/test_sort.txt; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
F='sort/clalgo.*/(16777216|268435456)/'
bench() {  # label program [group items]
  local label=$1 prog=$2
  env ${3:+CLALGO_SORT_GROUP=$3} ${4:+CLALGO_SORT_ITEMS=$4} timeout 100 ./$prog $B --benchmark_filter="$F" \
    --benchmark_out=/tmp/$RUN/${label}.json > /tmp/$RUN/${label}.txt 2>&1; echo $label rc=$?
}
for r in 1 2; do
  bench old_$r bench_sort_old
  bench new_$r bench_sort
  bench g384x20_$r bench_sort 384 20
  bench g384x24_$r bench_sort 384 24
  bench g512x18_$r bench_sort 512 18
  save
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
for f in /tmp/$RUN/*.json; do
  l=$(basename $f .json); echo "## $l"; python3 sort_ratios.py $f /tmp/$RUN/cub_sweep.txt | tee /tmp/$RUN/ratios_$l.md | tail -3
done
save
