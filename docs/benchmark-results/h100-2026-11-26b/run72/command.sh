#!/bin/bash
# GPU run 72 (fourteenth session, H200): test_sort and test_by_key of the final kernels; host_cost (raw launches
# of an empty kernel beside clalgo's calls); segmented_reduce's call against its kernel's raw launch, beside the
# benchmark of it, twice; clalgo-tune, then reduce, scans and copy_if at 2^20 and 2^28 (issue 11); the by-key
# family and the sorts at every size; CUB (cub_sweep.cu) in the same command
RUN=${1:-run72}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s15/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s15
mkdir -p /tmp/$RUN/t && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
for t in test_sort test_by_key; do
  timeout 150 ./tests/$t > /tmp/$RUN/t/$t.txt 2>&1; echo $t rc=$?
done
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt; save
timeout 150 ./host_cost > /tmp/$RUN/host_cost.txt 2>&1; echo host_cost rc=$?; grep "raw kernel, \(1\|4\) args: launch" /tmp/$RUN/host_cost.txt; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
bench() {  # label program filter
  timeout 100 ./$2 $B --benchmark_filter="$3" --benchmark_out=/tmp/$RUN/$1.json > /tmp/$RUN/$1.txt 2>&1; echo $1 rc=$?
}
for r in 1 2; do
  timeout 60 ./host_cost --segmented > /tmp/$RUN/segmented_floor_$r.txt 2>&1; echo host_cost rc=$?
  grep "call\|1 group n=1024\|trivial" /tmp/$RUN/segmented_floor_$r.txt | head -8
  bench bench_segmented_$r bench_by_key 'segmented_reduce/clalgo'; save
done
timeout 100 ./clalgo-tune > /tmp/$RUN/tune.txt 2>&1; echo tune rc=$?; tail -4 /tmp/$RUN/tune.txt; save
for b in bench_reduce bench_scan bench_copy_if; do
  bench $b $b 'clalgo.*/(1048576|268435456)/'; save
done
bench bench_by_key bench_by_key '(reduce_by_key|histogram)/clalgo'
bench bench_sort bench_sort 'sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/'; save
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
python3 sort_ratios.py /tmp/$RUN/bench_sort.json /tmp/$RUN/cub_sweep.txt > /tmp/$RUN/ratios_sort.md; tail -3 /tmp/$RUN/ratios_sort.md
python3 sweep_ratios.py /tmp/$RUN/cub_sweep.txt /tmp/$RUN/bench_reduce.json /tmp/$RUN/bench_scan.json /tmp/$RUN/bench_copy_if.json /tmp/$RUN/bench_by_key.json /tmp/$RUN/bench_segmented_1.json > /tmp/$RUN/ratios_sweep_1.md 2>&1
python3 sweep_ratios.py /tmp/$RUN/cub_sweep.txt /tmp/$RUN/bench_segmented_2.json > /tmp/$RUN/ratios_sweep_2.md 2>&1
cat /tmp/$RUN/ratios_sweep_1.md; tail -1 /tmp/$RUN/ratios_sweep_2.md
save
