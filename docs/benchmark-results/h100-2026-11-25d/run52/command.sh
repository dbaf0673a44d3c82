#!/bin/bash
# GPU run 52 (ninth session, same H100 machine as run 51, 224c1b4): why the reduction at 2^20 took 16 us in run
# 51's benchmark and 7.8 us in its tuner: the benchmark three times in a row, the host's launch costs (host_cost)
RUN=${1:-run52}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s10/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_run51
cd .gpu/s10
mkdir -p /tmp/$RUN && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true"
for k in 1 2 3; do timeout 60 ./bench_reduce $B --benchmark_filter='clalgo_sum_int32_into/(262144|1048576|4194304)/' 2>/dev/null | grep median | awk '{print $1, $2, $3}' | tee -a /tmp/$RUN/reduce.txt; done
CLALGO_TUNING=0 timeout 60 ./bench_reduce $B --benchmark_filter='clalgo_sum_int32_into/1048576/' 2>/dev/null | grep median | sed 's/^/untuned /' | tee -a /tmp/$RUN/reduce.txt
timeout 60 ./bench_scan $B --benchmark_filter='clalgo.*/1048576/' 2>/dev/null | grep median | awk '{print $1, $2, $3}' | tee -a /tmp/$RUN/reduce.txt
save
timeout 120 ./host_cost > /tmp/$RUN/host_cost.txt 2>&1; echo host_cost rc=$?; grep -i "reduc\|raw\|k1 \|k8 \|scan" /tmp/$RUN/host_cost.txt | head -20; save
