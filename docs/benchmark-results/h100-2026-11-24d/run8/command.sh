#!/bin/bash
# GPU run 8: the tests of the changed calls; by-key (reduce_by_key's tile kernel at 12 and 16 items, alternating),
# sorts and the array algorithms at every size, beside CUB in the same command
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c8
cd .gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/nvcc.log 2>&1; echo nvcc $?) &
mkdir -p /tmp/t; ls tests/ | xargs -P 4 -I{} sh -c 'timeout 200 ./tests/{} > /tmp/t/{}.log 2>&1; echo "{} rc=$? $(grep -E "^\[  (PASSED|FAILED) " /tmp/t/{}.log | tr "\n" " ")"'
grep -h -B3 -A12 "Failure" /tmp/t/*.log | head -40
wait
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for v in 12 16 12b 16b; do
  CLALGO_REDUCE_BY_KEY_ITEMS=${v%b} timeout 60 ./bench_by_key $B --benchmark_filter='reduce_by_key/clalgo' --benchmark_out=/tmp/rbk_$v.json > /dev/null 2>>/tmp/err.txt; echo rbk $v rc=$?
done
timeout 100 ./bench_by_key $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_by_key.json > /dev/null 2>>/tmp/err.txt; echo by_key rc=$?
timeout 150 ./bench_sort $B --benchmark_filter='clalgo' --benchmark_out=/tmp/bench_sort.json > /dev/null 2>>/tmp/err.txt; echo sort rc=$?
timeout 150 ./bench_array_algorithms --benchmark_filter='^array/(clalgo|reduction_kernel|device_copy|elementwise_copy)_[a-z0-9_]*/(1048576|16777216|268435456)/' --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_out=/tmp/array.json --benchmark_out_format=json > /dev/null 2>>/tmp/err.txt; echo array rc=$?
timeout 120 /tmp/cub_compare > /tmp/cub_compare.txt 2>&1; echo cub rc=$?
(for v in 12 16 12b 16b; do echo "== rbk items $v"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/rbk_$v.json | grep reduce_by_key; done
 echo "== by_key"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_by_key.json
 echo "== sort"; python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/bench_sort.json
 echo "== array"; python3 array_ratios.py /tmp/array.json) > /tmp/ratios.md 2>&1; cat /tmp/ratios.md
cp run8.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run8.tgz t gpu.txt rbk_*.json bench_by_key.json bench_sort.json array.json cub_compare.txt ratios.md err.txt command.sh
