#!/bin/bash
# GPU run H: the context check's driver call; host cost per call, three times; the histogram after reverting the index change
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/gpu/lib:$LD_LIBRARY_PATH CLALGO_CACHE_DIR=/tmp/clalgo-cache
cd gpu
./memquery | tee $OUT/memquery.txt
for r in 1 2 3; do timeout 60 ./host_cost > $OUT/host_cost_$r.txt 2>&1; done; paste $OUT/host_cost_1.txt $OUT/host_cost_2.txt $OUT/host_cost_3.txt | cut -c1-200
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o cub_compare > $OUT/nvcc.log 2>&1; echo nvcc $?)
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 200 ./bench_by_key $B --benchmark_filter=clalgo --benchmark_out=$OUT/bench_by_key.json > /dev/null 2>$OUT/bench_by_key.err; echo by_key rc=$?
timeout 150 ./cub_compare > $OUT/cub_compare.txt 2>&1; echo cub rc=$?
python3 sweep_ratios.py $OUT/cub_compare.txt $OUT/bench_by_key.json > $OUT/ratios.md; cat $OUT/ratios.md
cd $OUT && tar czf runH.tgz *.txt *.json *.md *.err && rm -f *.json *.err host_cost_*.txt && ls
