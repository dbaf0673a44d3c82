#!/bin/bash
# GPU run 37 (seventh session, H200): uint32 pairs at 2^24-2^28 with the values moved each way
# (CLALGO_SORT_VALUES) and with 24 and 20 keys a work-item (CLALGO_SORT_ITEMS); CUB in the same command
RUN=${1:-run37}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s7/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s7
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint32_pairs/(16777216|67108864|268435456)/'
run() { name=$1; shift; env "$@" timeout 100 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$name.json > /dev/null 2>>/tmp/err.txt; echo $name rc=$?; }
run default X=1
run late CLALGO_SORT_VALUES=late
run gather CLALGO_SORT_VALUES=gather
run items24 CLALGO_SORT_ITEMS=24
run items20 CLALGO_SORT_ITEMS=20
run default2 X=1
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
for f in default late gather items24 items20 default2; do echo "## $f"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$f.json | grep sort | cut -d'|' -f1,2,9-12; done > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run7.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt default.json late.json gather.json items24.json items20.json default2.json cub_compare.txt ratios.md err.txt nvcc.log command.sh
