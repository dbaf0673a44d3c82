#!/bin/bash
# GPU runs 29/30 (sixth session, the same command on an H200 and an H100): the changed tests; clalgo-tune; reduce,
# scans, copy_if, saxpy and the by-key family at every size; copy_if at 2^16-2^22 with the mid-size compaction
# kernel off (CLALGO_COMPACTION_MID_SIZE=0) and on (the default), alternating twice; CUB, all in one command
RUN=${1:-run29}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t
for t in test_algorithms test_policy test_event test_memory_pool test_scan; do echo $t; done | xargs -P 5 -I{} sh -c 'timeout 200 ./tests/{} > /tmp/t/{}.txt 2>&1; echo "{} rc=$?"'
grep -h "PASSED\|FAILED" /tmp/t/*.txt
/usr/bin/time -f "tune wall %e s" timeout 90 ./clalgo-tune > /tmp/tune.txt 2>&1; echo tune rc=$?; grep -E "hand-set|chosen|took|:" /tmp/tune.txt | tail -8
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in reduce scan copy_if elementwise by_key; do
  timeout 100 ./bench_$b $B --benchmark_filter='clalgo' --benchmark_out=/tmp/tuned_$b.json > /dev/null 2>>/tmp/err.txt; echo $b rc=$?
done
F='copy_if/clalgo_even_int32(_into)?/(65536|262144|1048576|4194304)/'
for round in 1 2; do
  CLALGO_COMPACTION_MID_SIZE=0 timeout 60 ./bench_copy_if $B --benchmark_filter="$F" --benchmark_out=/tmp/mid_off$round.json > /dev/null 2>>/tmp/err.txt; echo off $round rc=$?
  timeout 60 ./bench_copy_if $B --benchmark_filter="$F" --benchmark_out=/tmp/mid_on$round.json > /dev/null 2>>/tmp/err.txt; echo on $round rc=$?
done
wait
timeout 100 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/tuned_*.json > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
for m in off1 on1 off2 on2; do echo "## mid-size $m"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/mid_$m.json | grep copy_if; done > /tmp/mid.md 2>&1; cat /tmp/mid.md
cp run5.sh /tmp/command.sh
cd /tmp && tar czf $OUT/$RUN.tgz gpu.txt t tune.txt tuned_*.json mid_*.json cub_compare.txt ratios.md mid.md err.txt nvcc.log command.sh
