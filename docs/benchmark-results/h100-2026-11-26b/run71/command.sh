#!/bin/bash
# GPU run 71 (fourteenth session): CUB's early counts in the onesweep sort (a histogram of the tile by local
# atomics before the ballots) against c5bcad7 (old): test_sort on the GPU, sorts at every size old and new in turn,
# twice, 64-bit keys with early counts forced; segmented_reduce's call against its kernel's raw launch; clalgo-tune,
# then reduce, scans and copy_if at 2^20 and 2^28 (issue 11); segmented_reduce at every size; CUB (cub_sweep.cu)
# in the same command
RUN=${1:-run71}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s15/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s15
mkdir -p /tmp/$RUN/t && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
timeout 150 ./tests/test_sort > /tmp/$RUN/t/test_sort.txt 2>&1
echo test_sort rc=$?; grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/test_sort.txt; save
timeout 60 ./host_cost --segmented > /tmp/$RUN/segmented_floor.txt 2>&1; echo host_cost rc=$?; cat /tmp/$RUN/segmented_floor.txt; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
bench() {  # label program filter [early counts]
  local label=$1 prog=$2 filter=$3
  env ${4:+CLALGO_SORT_EARLY_COUNTS=$4} timeout 100 ./$prog $B \
    --benchmark_filter="$filter" --benchmark_out=/tmp/$RUN/${label}.json > /tmp/$RUN/${label}.txt 2>&1; echo $label rc=$?
}
ALL='sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/'
U64='sort/clalgo_uint64_keys/(16777216|268435456)/'
for r in 1 2; do
  bench bench_sort_old_$r bench_sort_old "$ALL"
  bench bench_sort_$r bench_sort "$ALL"
  bench u64_early_counts_$r bench_sort "$U64" 1
  save
done
bench bench_segmented bench_by_key 'segmented_reduce/clalgo'
timeout 100 ./clalgo-tune > /tmp/$RUN/tune.txt 2>&1; echo tune rc=$?; tail -4 /tmp/$RUN/tune.txt; save
for b in bench_reduce bench_scan bench_copy_if; do
  bench $b $b 'clalgo.*/(1048576|268435456)/'; save
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
for f in /tmp/$RUN/*sort*.json; do
  l=$(basename $f .json); echo "## $l"; python3 sort_ratios.py $f /tmp/$RUN/cub_sweep.txt > /tmp/$RUN/ratios_$l.md
  tail -3 /tmp/$RUN/ratios_$l.md
done
python3 sweep_ratios.py /tmp/$RUN/cub_sweep.txt /tmp/$RUN/bench_reduce.json /tmp/$RUN/bench_scan.json /tmp/$RUN/bench_copy_if.json /tmp/$RUN/bench_segmented.json > /tmp/$RUN/ratios_sweep.md 2>&1
cat /tmp/$RUN/ratios_sweep.md
save
