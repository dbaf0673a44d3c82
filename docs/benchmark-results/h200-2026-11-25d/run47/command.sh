#!/bin/bash
# GPU run 47 (ninth session, H200, 55c1e4c): uint32 pairs at 2^24 and 2^28 in tiles of other shapes
# (CLALGO_SORT_GROUP x CLALGO_SORT_ITEMS), two rounds; each shape's registers; CUB in the same command
RUN=${1:-run47}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s9/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA
cd .gpu/s9
mkdir -p /tmp/$RUN && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1 &
NVCC=$!
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint32_pairs/(16777216|268435456)/'
run() { name=$1; shift; env "$@" CLALGO_CACHE_DIR=/tmp/c_${RUN}_$name CLALGO_COMPILER_OUTPUT=1 CLALGO_BUILD_OPTIONS=-cl-nv-verbose timeout 50 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$RUN/$name.json > /dev/null 2>/tmp/$RUN/err_$name.txt; echo $name rc=$? $(grep -A2 "properties for clalgo_radix_onesweep" /tmp/$RUN/err_$name.txt | grep -o "Used [0-9]* registers" | head -1);
        python3 -c "
import json,sys
d=json.load(open('/tmp/$RUN/$name.json'))
print('$name', ' '.join('%s=%.0f'%(b['name'].split('/')[2], b['real_time']) for b in d['benchmarks'] if b.get('aggregate_name')=='median'))" >> /tmp/$RUN/times.txt; save; }
for round in 1 2; do
  run d256x28_$round X=1
  run g256x24_$round CLALGO_SORT_ITEMS=24
  run g256x20_$round CLALGO_SORT_ITEMS=20
  run g256x16_$round CLALGO_SORT_ITEMS=16
  run g512x16_$round CLALGO_SORT_GROUP=512 CLALGO_SORT_ITEMS=16
  run g512x12_$round CLALGO_SORT_GROUP=512 CLALGO_SORT_ITEMS=12
  run g128x32_$round CLALGO_SORT_GROUP=128 CLALGO_SORT_ITEMS=32
done
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub rc=$?
grep "pairs_uint32 n=\(16777216\|268435456\)" /tmp/$RUN/cub_compare.txt
save
cat /tmp/$RUN/times.txt
