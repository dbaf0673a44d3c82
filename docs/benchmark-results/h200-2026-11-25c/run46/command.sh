#!/bin/bash
# GPU run 46 (eighth session, H200, dc201d3 + values loaded before the look-back as CLALGO_SORT_VALUES=first):
# test_sort's value and group tests; the pass's registers under each way; uint32 pairs at 2^22-2^28 with the
# values loaded while the keys are written out (the default) and before the look-back, alternating twice; CUB
RUN=${1:-run46}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
mkdir -p /tmp/$RUN/t && cp run8.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1 &
NVCC=$!
timeout 200 ./tests/test_sort --gtest_filter='*Values*:*OtherGroups*:*Pairs*:*Tier*:*OneTile*' > /tmp/$RUN/t/test_sort.txt 2>&1; echo test_sort rc=$?
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
regs() { name=$1; shift; env "$@" CLALGO_CACHE_DIR=/tmp/regs_${RUN}_$name CLALGO_COMPILER_OUTPUT=1 CLALGO_BUILD_OPTIONS=-cl-nv-verbose timeout 40 ./bench_sort --benchmark_min_time=0.001 --benchmark_filter='clalgo_uint32_pairs/268435456/' > /dev/null 2> /tmp/$RUN/regs_$name.txt; echo "## $name"; grep -A2 "properties for clalgo_radix_onesweep" /tmp/$RUN/regs_$name.txt | grep Used; }
regs exchange X=1
regs first CLALGO_SORT_VALUES=first
save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint32_pairs/(4194304|16777216|67108864|268435456)/'
run() { name=$1; shift; env "$@" timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$RUN/$name.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/$RUN/cub_compare.txt /tmp/$RUN/$name.json | grep sort | cut -d'|' -f2,9-12 | sed "s/^/$name /" >> /tmp/$RUN/ratios.md; save; }
run exchange X=1
run first CLALGO_SORT_VALUES=first
run exchange2 X=1
run first2 CLALGO_SORT_VALUES=first
cat /tmp/$RUN/ratios.md
