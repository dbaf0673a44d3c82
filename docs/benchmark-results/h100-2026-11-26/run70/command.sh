#!/bin/bash
# GPU run 70 (thirteenth session), on an H100: onesweep with early counts for keys of up to 32 bits (18eef47) against
# 1536fa1 (old), the defaults untuned; test_sort's onesweep tests on the GPU; sorts at every size 2^10-2^28, old and
# new in turn, twice; CUB (cub_sweep.cu) in the same command
RUN=${1:-run70}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s14/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s14
mkdir -p /tmp/$RUN/t && cp run4.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
timeout 150 ./tests/test_sort --gtest_filter='*Onesweep*:*Tile*:*Tier*:SortPolicy.*' > /tmp/$RUN/t/test_sort.txt 2>&1
echo test_sort rc=$?; grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/test_sort.txt; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
bench() {  # label program filter [early counts]
  local label=$1 prog=$2 filter=$3
  env ${4:+CLALGO_SORT_EARLY_COUNTS=$4} timeout 100 ./$prog $B \
    --benchmark_filter="$filter" --benchmark_out=/tmp/$RUN/${label}.json > /tmp/$RUN/${label}.txt 2>&1; echo $label rc=$?
}
ALL='sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/'
for r in 1 2; do
  bench bench_sort_old_$r bench_sort_old "$ALL"
  bench bench_sort_$r bench_sort "$ALL"
  save
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
for f in /tmp/$RUN/*.json; do
  l=$(basename $f .json); echo "## $l"; python3 sort_ratios.py $f /tmp/$RUN/cub_sweep.txt > /tmp/$RUN/ratios_$l.md
  tail -3 /tmp/$RUN/ratios_$l.md
done
save
