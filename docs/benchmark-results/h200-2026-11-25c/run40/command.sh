#!/bin/bash
# GPU run 40 (eighth session, H200): the onesweep pass's scans by warp shuffles (new default) against the scans in
# local memory; keys reloaded after the ranking; ballots scheduled freely. (Run 39's test_sort passed with the
# shuffles, and with reloaded keys and free ballots; its benchmarks ran past the time limit.) Register counts
# from the compiler's verbose output; CUB first, then the sorts, alternating; the archive written as it goes
RUN=${1:-run40}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
cp run2.sh /tmp/command.sh
save() { (cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt command.sh $(ls /tmp | grep -E '\.json$|^regs_|^registers|^cub_compare.txt|^ratios|^err|^nvcc') 2>/dev/null); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1 &
regs() { name=$1; shift; env "$@" CLALGO_CACHE_DIR=/tmp/regs_$name CLALGO_COMPILER_OUTPUT=1 CLALGO_BUILD_OPTIONS=-cl-nv-verbose timeout 40 ./bench_sort --benchmark_min_time=0.001 --benchmark_filter='clalgo_uint(32_keys|32_pairs|64_keys)/(4096|268435456)/' > /dev/null 2> /tmp/regs_$name.txt; echo "## $name"; grep -i "registers\|entry function\|built on\|spill" /tmp/regs_$name.txt | head -60; }
(regs noshuffle CLALGO_SORT_SHUFFLE_SCAN=0; regs shuffle X=1; regs reload CLALGO_SORT_RELOAD_KEYS=1) > /tmp/registers.txt 2>&1
wait; echo nvcc done
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint(32_keys|32_pairs|64_keys)/(4096|65536|16777216|268435456)/'
run() { name=$1; shift; env "$@" timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$name.json > /dev/null 2>>/tmp/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$name.json | grep sort | sed "s/^/$name /" >> /tmp/ratios.md; save; }
run noshuffle CLALGO_SORT_SHUFFLE_SCAN=0
run shuffle X=1
run reload CLALGO_SORT_RELOAD_KEYS=1
run free CLALGO_SORT_FREE_BALLOTS=1
run reload_free CLALGO_SORT_RELOAD_KEYS=1 CLALGO_SORT_FREE_BALLOTS=1
run noshuffle2 CLALGO_SORT_SHUFFLE_SCAN=0
run shuffle2 X=1
cat /tmp/registers.txt | grep -i registers | sort | uniq -c | head -30
cat /tmp/ratios.md
