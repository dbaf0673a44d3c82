#!/bin/bash
# GPU run 11: the array algorithms' goals at 2^28: sum, min, max, dot beside the ReductionKernel a user would
# write; take (in order), fill, astype beside a device copy
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/b/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c11
cd .gpu/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
A="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_out_format=json"
timeout 270 ./bench_array_algorithms $A --benchmark_filter='^array/(clalgo|reduction_kernel)_(sum|min|max|dot)_float(_into)?/268435456/' --benchmark_out=/tmp/array_reductions.json > /tmp/array_reductions.txt 2>&1; echo reductions rc=$?
timeout 270 ./bench_array_algorithms $A --benchmark_filter='^array/(clalgo_take_float_ordered|clalgo_fill_float|clalgo_astype_int32_float|clalgo_astype_float_double|device_copy_float|elementwise_copy_float)/268435456/' --benchmark_out=/tmp/array_maps.json > /tmp/array_maps.txt 2>&1; echo maps rc=$?
python3 - <<'PY'
import json
runs = []
for f in ["/tmp/array_reductions.json", "/tmp/array_maps.json"]:
    try: runs += json.load(open(f))["benchmarks"]
    except Exception as e: print("skip", f, e)
json.dump({"benchmarks": runs}, open("/tmp/array.json", "w"))
PY
python3 array_ratios.py /tmp/array.json
grep -E "^array" /tmp/array_reductions.txt /tmp/array_maps.txt | head -40
cp run11.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run11.tgz gpu.txt array*.json array*.txt command.sh
