#!/bin/bash
# GPU run 21 (fifth session): the array reductions max and dot beside ReductionKernel at 2^28; saxpy at
# 2^10-2^20 with the maps' tiles (new) and the grid-stride loop (old), alternating three times
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r2/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c21
cd .gpu/r2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for round in 1 2 3; do
  for v in "" _old; do
    timeout 60 ./bench_elementwise$v $B --benchmark_filter='clalgo_saxpy/(1024|4096|16384|65536|262144|1048576)/' --benchmark_out=/tmp/saxpy${v}_$round.json > /dev/null 2>>/tmp/err.txt; echo saxpy$v $round rc=$?
  done
done
python3 - <<'PY'
import json, glob, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob("/tmp/saxpy*_*.json")):
    v = "old" if "_old" in f else "new"
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            t[(b["run_name"].split("/")[2], v)].append(b["real_time"])
for n in sorted({k[0] for k in t}, key=int):
    print("saxpy n=%s new %s old %s" % (n, " ".join("%.2f" % x for x in t[(n, "new")]), " ".join("%.2f" % x for x in t[(n, "old")])))
PY
A1="--benchmark_min_time=0.1 --benchmark_repetitions=1 --benchmark_out_format=json"
timeout 330 ./bench_array_algorithms $A1 --benchmark_filter='array/(clalgo|reduction_kernel)_(max_float_into|dot_float|dot_float_into)/268435456/' --benchmark_out=/tmp/reductions2.json > /tmp/reductions2.txt 2>&1; echo reductions rc=$?
grep -E "^array" /tmp/reductions2.txt
python3 array_ratios.py /tmp/reductions2.json | head -14
cp r3.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run21.tgz gpu.txt saxpy*.json reductions2.* err.txt command.sh
