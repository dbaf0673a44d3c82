#!/bin/bash
# GPU run 51 (ninth session, H100, 224c1b4): test_scan, test_sort and test_by_key on the final code; clalgo-tune,
# then test_tuning under its file; reduce, scans and copy_if at 2^20 and 2^28, beside CUB as measured by both the
# repository's benchmarks/gpu/cub_compare.cu and the anchor program (cub_sweep.cu), in the same command
RUN=${1:-run51}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s10/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s10
mkdir -p /tmp/$RUN/t && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1;
 nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep >> /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
timeout 300 ./tests/test_scan > /tmp/$RUN/t/test_scan.txt 2>&1; echo test_scan rc=$?; save
timeout 150 ./tests/test_sort > /tmp/$RUN/t/test_sort.txt 2>&1; echo test_sort rc=$?; save
timeout 100 ./tests/test_by_key > /tmp/$RUN/t/test_by_key.txt 2>&1; echo test_by_key rc=$?; save
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
timeout 100 ./clalgo-tune > /tmp/$RUN/tune.txt 2>&1; echo tune rc=$?; tail -4 /tmp/$RUN/tune.txt; save
timeout 100 ./tests/test_tuning > /tmp/$RUN/t/test_tuning.txt 2>&1; echo test_tuning rc=$?; grep -h "PASSED\|FAILED" /tmp/$RUN/t/test_tuning.txt; save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub_compare rc=$?; save
timeout 100 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in bench_reduce bench_scan bench_copy_if; do
  timeout 100 ./$b $B --benchmark_filter='clalgo.*/(1048576|268435456)/' --benchmark_out=/tmp/$RUN/$b.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $b rc=$?; save
done
for c in cub_compare cub_sweep; do
  python3 sweep_ratios.py /tmp/$RUN/$c.txt /tmp/$RUN/bench_reduce.json /tmp/$RUN/bench_scan.json /tmp/$RUN/bench_copy_if.json > /tmp/$RUN/ratios_$c.md 2>&1
  echo "## against $c"; cut -d'|' -f2,8,12 /tmp/$RUN/ratios_$c.md
done
save
