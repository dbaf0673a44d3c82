#!/bin/bash
# GPU run 22 (fifth session): saxpy at 2^10, 2^16, 2^20: tiles of 4 items (new), tiles of 1 item
# (CLALGO_MAP_ITEMS=1), the grid-stride loop (old), alternating
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r2/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c22
cd .gpu/r2
B="--benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
F='clalgo_saxpy/(1024|65536|1048576|268435456)/'
for round in 1 2; do
  timeout 60 ./bench_elementwise $B --benchmark_filter="$F" --benchmark_out=/tmp/s_new_$round.json > /dev/null 2>>/tmp/err.txt
  CLALGO_MAP_ITEMS=1 timeout 60 ./bench_elementwise $B --benchmark_filter="$F" --benchmark_out=/tmp/s_one_$round.json > /dev/null 2>>/tmp/err.txt
  CLALGO_MAP_ITEMS=2 timeout 60 ./bench_elementwise $B --benchmark_filter="$F" --benchmark_out=/tmp/s_two_$round.json > /dev/null 2>>/tmp/err.txt
  timeout 60 ./bench_elementwise_old $B --benchmark_filter="$F" --benchmark_out=/tmp/s_old_$round.json > /dev/null 2>>/tmp/err.txt
done
python3 - <<'PY'
import json, glob, collections
t = collections.defaultdict(list)
for f in sorted(glob.glob("/tmp/s_*_*.json")):
    v = f.split("_")[1]
    for b in json.load(open(f))["benchmarks"]:
        if b.get("aggregate_name") == "median":
            t[(int(b["run_name"].split("/")[2]), v)].append(b["real_time"])
for n in sorted({k[0] for k in t}):
    print("saxpy n=%d " % n + "  ".join("%s %s" % (v, " ".join("%.2f" % x for x in t[(n, v)])) for v in ("new", "one", "two", "old")))
PY
cd /tmp && tar czf $OUT/run22.tgz s_*.json err.txt
