#!/bin/bash
# GPU run 68 (thirteenth session): onesweep with early counts, the look-back before the tile's stores to local
# memory (early) or after them (late; with 64-bit keys in halves, after the low halves), against 1536fa1 (old);
# test_sort's onesweep tests on the GPU both ways; sorts at 2^24 and 2^28, old and the variants in turn, twice, and
# 64-bit keys in groups of 384 x 24; CUB (cub_sweep.cu) in the same command
RUN=${1:-run68}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s14/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s14
mkdir -p /tmp/$RUN/t && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
CLALGO_SORT_LOOK_BACK=early timeout 100 ./tests/test_sort --gtest_filter='*Onesweep*:SortPolicy.*' > /tmp/$RUN/t/test_sort_early.txt 2>&1
echo test_sort early rc=$?
CLALGO_SORT_LOOK_BACK=late timeout 60 ./tests/test_sort --gtest_filter='*SixtyFour*:*OnesweepMovesValues*' > /tmp/$RUN/t/test_sort_late.txt 2>&1
echo test_sort late rc=$?; grep -h "PASSED\|FAILED" /tmp/$RUN/t/*.txt; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
bench() {  # label program filter [look_back group items]
  local label=$1 prog=$2 filter=$3
  env ${4:+CLALGO_SORT_LOOK_BACK=$4} ${5:+CLALGO_SORT_GROUP=$5} ${6:+CLALGO_SORT_ITEMS=$6} timeout 100 ./$prog $B \
    --benchmark_filter="$filter" --benchmark_out=/tmp/$RUN/${label}.json > /tmp/$RUN/${label}.txt 2>&1; echo $label rc=$?
}
ALL='sort/clalgo.*/(16777216|268435456)/'
U64='sort/clalgo_uint64_keys/(16777216|268435456)/'
for r in 1 2; do
  bench old_$r bench_sort_old "$ALL"
  bench early_$r bench_sort "$ALL" early
  bench late_$r bench_sort "$ALL" late
  bench u64_384x24_early_$r bench_sort "$U64" early 384 24
  bench u64_384x24_late_$r bench_sort "$U64" late 384 24
  save
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
for f in /tmp/$RUN/*.json; do
  l=$(basename $f .json); echo "## $l"; python3 sort_ratios.py $f /tmp/$RUN/cub_sweep.txt > /tmp/$RUN/ratios_$l.md
  sed 's/not run | //g' /tmp/$RUN/ratios_$l.md | tail -3
done
save
