#!/bin/bash
# GPU run 42 (eighth session, 533f55b): clalgo-tune first (every primitive, the radix sort now among them: its run
# time and choices), test_sort and test_tuning, then the radix sorts at every size under the tuned policies, the
# group scans by warp shuffles against those in local memory (CLALGO_SORT_SHUFFLE_SCAN=0) at 2^12, 2^24 and 2^28
# alternating, and CUB in the same command; the archive written as it goes
RUN=${1:-run42}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
cp run4.sh /tmp/command.sh
mkdir -p /tmp/t
save() { (cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt command.sh t $(ls /tmp | grep -E '\.json$|^tune|^cub_compare.txt|^ratios|^err|^nvcc') 2>/dev/null); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1 &
NVCC=$!
( time timeout 200 ./clalgo-tune --verbose ) > /tmp/tune.txt 2>&1; echo tune rc=$?
grep -A12 "^device:" /tmp/tune.txt; grep real /tmp/tune.txt
save
for t in test_sort test_tuning; do timeout 200 ./tests/$t > /tmp/t/$t.txt 2>&1; echo $t rc=$?; done
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/t/*.txt
save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
run() { name=$1; filter=$2; shift 2; env "$@" timeout 150 ./bench_sort $B --benchmark_filter="$filter" --benchmark_out=/tmp/$name.json > /dev/null 2>>/tmp/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$name.json | grep sort | sed "s/^/$name /" >> /tmp/ratios.md; save; }
run sort 'clalgo_uint' X=1
AB='clalgo_uint(32_keys|32_pairs|64_keys)/(4096|16777216|268435456)/'
run noshuffle "$AB" CLALGO_SORT_SHUFFLE_SCAN=0
run shuffle "$AB" X=1
run noshuffle2 "$AB" CLALGO_SORT_SHUFFLE_SCAN=0
run shuffle2 "$AB" X=1
cat /tmp/ratios.md
