#!/bin/bash
# GPU run 27 (sixth session): the radix sorts at every size with events made only when asked for, and CUB in the
# same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c27
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 420 ./bench_sort $B --benchmark_filter='clalgo_uint' --benchmark_out=/tmp/lazy_sort.json > /dev/null 2>>/tmp/err.txt; echo lazy sort rc=$?
timeout 100 /tmp/cub_compare > /tmp/cub_compare3.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare3.txt /tmp/lazy_sort.json > /tmp/ratios3.md 2>&1; cat /tmp/ratios3.md
cp run3.sh /tmp/command3.sh
cd /tmp && tar czf $OUT/run27.tgz gpu.txt lazy_sort.json cub_compare3.txt ratios3.md err.txt command3.sh
