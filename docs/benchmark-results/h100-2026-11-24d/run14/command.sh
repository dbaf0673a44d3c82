#!/bin/bash
# GPU run 14: the generated sources and NVIDIA's compiler report (-cl-nv-verbose: registers, spills) of the scan
# and copy_if kernels before (f04408d) and after the scans' launch changes
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/c/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_NO_CACHE=1 CLALGO_TUNING=0
export CLALGO_BUILD_OPTIONS=-cl-nv-verbose CLALGO_COMPILER_OUTPUT=1 CLALGO_PRINT_SOURCE=1
cd .gpu/c
B="--benchmark_min_time=0.01 --benchmark_repetitions=1"
for v in old new; do
  timeout 60 ./bench_scan_$v $B --benchmark_filter='inclusive_scan/clalgo_int32/1048576/' > /tmp/scan_$v.out 2> /tmp/scan_$v.err; echo scan $v rc=$?
  timeout 60 ./bench_copy_if_$v $B --benchmark_filter='copy_if/clalgo_even_int32_into/1048576/' > /tmp/copy_if_$v.out 2> /tmp/copy_if_$v.err; echo copy_if $v rc=$?
done
grep -h -i -E "ptxas|registers|spill|Used|bytes stack|smem|cmem" /tmp/*_old.err | head -20; echo ----; grep -h -i -E "ptxas|registers|spill|Used|bytes stack|smem|cmem" /tmp/*_new.err | head -20
wc -l /tmp/*.err
cp run14.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run14.tgz scan_*.err copy_if_*.err command.sh
