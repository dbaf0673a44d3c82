#!/bin/bash
# GPU run 73 (fourteenth session): issue 12's primitives at every size 2^10-2^28 in both forms (reduce into the
# device and to the host, dot, scans, copy_if into kept arrays and allocating, saxpy), twice, beside CUB
# (cub_sweep.cu) in the same command; host_cost's raw launches of an empty kernel on the same host
RUN=${1:-run73}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s15/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s15
mkdir -p /tmp/$RUN && cp run3.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
bench() {  # label program filter
  timeout 120 ./$2 $B --benchmark_filter="$3" --benchmark_out=/tmp/$RUN/$1.json > /tmp/$RUN/$1.txt 2>&1; echo $1 rc=$?
}
for r in 1 2; do
  bench bench_reduce_$r bench_reduce 'reduce/clalgo_(sum_int32_into|sum_int32|dot_float_into)/'
  bench bench_scan_$r bench_scan '(inclusive|exclusive)_scan/clalgo_int32/'
  bench bench_copy_if_$r bench_copy_if 'copy_if/clalgo_even_int32(_into)?/'
  bench bench_elementwise_$r bench_elementwise 'elementwise/clalgo_saxpy/'
  save
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
timeout 150 ./host_cost > /tmp/$RUN/host_cost.txt 2>&1; echo host_cost rc=$?; grep "raw kernel, \(1\|4\) args: launch" /tmp/$RUN/host_cost.txt
for r in 1 2; do
  python3 sweep_ratios.py /tmp/$RUN/cub_sweep.txt /tmp/$RUN/bench_reduce_$r.json /tmp/$RUN/bench_scan_$r.json /tmp/$RUN/bench_copy_if_$r.json /tmp/$RUN/bench_elementwise_$r.json > /tmp/$RUN/ratios_$r.md 2>&1
  cat /tmp/$RUN/ratios_$r.md
done
save
