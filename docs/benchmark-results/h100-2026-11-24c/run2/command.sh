#!/bin/bash
# GPU run 2: the sort before (bench_sort_old, commit b9f1bc2) and after this session's kernel changes, interleaved;
# tile and value variants; register use; CUB in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA
cd .gpu
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > $OUT/nvcc.log 2>&1; echo nvcc done $?) &
CLALGO_CACHE_DIR=/tmp/cc timeout 200 ./test_sort > $OUT/test_sort.log 2>&1; echo "test_sort rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $OUT/test_sort.log | tr '\n' ' ')"
grep -h -B3 -A12 "Failure" $OUT/test_sort.log | head -40
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for round in 1 2; do
  CLALGO_CACHE_DIR=/tmp/c-old timeout 150 ./bench_sort_old $B --benchmark_filter=clalgo --benchmark_out=$OUT/old$round.json > /dev/null 2>>$OUT/err.txt; echo old $round rc=$?
  CLALGO_CACHE_DIR=/tmp/cc timeout 150 ./bench_sort $B --benchmark_filter=clalgo --benchmark_out=$OUT/new$round.json > /dev/null 2>>$OUT/err.txt; echo new $round rc=$?
done
S='/(16384|65536|1048576|16777216|268435456)/'
CLALGO_CACHE_DIR=/tmp/cc CLALGO_SORT_VALUES=gather timeout 60 ./bench_sort $B --benchmark_filter="clalgo_uint32_pairs$S" --benchmark_out=$OUT/gather.json > /dev/null 2>>$OUT/err.txt; echo gather rc=$?
for items in 16 20 24; do
  CLALGO_CACHE_DIR=/tmp/cc CLALGO_SORT_ITEMS=$items timeout 80 ./bench_sort $B --benchmark_filter="clalgo.*$S" --benchmark_out=$OUT/items$items.json > /dev/null 2>>$OUT/err.txt; echo items $items rc=$?
done
for r in 64 96; do
  CLALGO_CACHE_DIR=/tmp/c-r$r CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount=$r timeout 80 ./bench_sort $B --benchmark_filter="clalgo.*$S" --benchmark_out=$OUT/maxr$r.json > /dev/null 2>>$OUT/err.txt; echo maxrreg $r rc=$?
done
timeout 200 ./cub_compare > $OUT/cub_compare.txt 2>&1; echo cub rc=$?
for f in old1 new1 old2 new2 gather items16 items20 items24 maxr64 maxr96; do echo "== $f"; python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/$f.json | grep sort/ ; done
for c in /tmp/cc /tmp/c-old /tmp/c-r64 /tmp/c-r96; do echo "== $c"; python3 ptx_regs.py $c | grep -A3 "onesweep'" | grep Used; done > $OUT/regs.txt 2>&1; cat $OUT/regs.txt
cd $OUT && tar czf run2.tgz *.log *.json *.txt && rm -f *.log *.json && ls
