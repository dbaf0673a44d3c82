#!/bin/bash
# GPU run 48 (ninth session, H100, the chained CPU scan's tree): the scan, by-key, algorithm, checked, tuning and
# policy tests on NVIDIA (every scan algorithm forced, chained included); clalgo-tune; reduce, scans and copy_if
# at 2^20 and 2^28 beside CUB in the same command
RUN=${1:-run48}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s9/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s9
mkdir -p /tmp/$RUN/t && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1 &
NVCC=$!
for t in test_policy test_scan test_checked test_by_key test_algorithms; do
  timeout 150 ./tests/$t > /tmp/$RUN/t/$t.txt 2>&1; echo $t rc=$?; save
done
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
timeout 100 ./clalgo-tune --verbose > /tmp/$RUN/tune.txt 2>&1; echo tune rc=$?; tail -12 /tmp/$RUN/tune.txt; save
timeout 120 ./tests/test_tuning > /tmp/$RUN/t/test_tuning.txt 2>&1; echo test_tuning rc=$?; grep -h "PASSED\|FAILED" /tmp/$RUN/t/test_tuning.txt; save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub rc=$?; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for b in bench_reduce bench_scan bench_copy_if; do
  timeout 100 ./$b $B --benchmark_filter='clalgo.*/(1048576|268435456)/' --benchmark_out=/tmp/$RUN/$b.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $b rc=$?; save
done
python3 sweep_ratios.py /tmp/$RUN/cub_compare.txt /tmp/$RUN/bench_reduce.json /tmp/$RUN/bench_scan.json /tmp/$RUN/bench_copy_if.json > /tmp/$RUN/ratios.md 2>&1; cat /tmp/$RUN/ratios.md; save
