#!/bin/bash
# GPU run 16: the scan and copy_if before (f04408d) and after, with the load loops of full and partial tiles
# written apart in the templates; hand-set policies (CLALGO_TUNING=0)
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/c/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c12 CLALGO_TUNING=0
cd .gpu/c
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for r in 1; do for v in old new; do
  timeout 60 ./bench_scan_$v $B --benchmark_filter='inclusive_scan/clalgo_int32/(1048576|16777216|268435456)/' --benchmark_out=/tmp/scan_${v}_$r.json > /dev/null 2>>/tmp/err.txt
  timeout 60 ./bench_copy_if_$v $B --benchmark_filter='copy_if/clalgo_even_int32_into/(1048576|16777216|268435456)/' --benchmark_out=/tmp/copy_if_${v}_$r.json > /dev/null 2>>/tmp/err.txt
  echo $v $r
done; done
python3 - <<'PY'
import json
for k in ["scan", "copy_if"]:
    for r in "1":
        for v in ["old", "new"]:
            for b in json.load(open(f"/tmp/{k}_{v}_{r}.json"))["benchmarks"]:
                if b.get("aggregate_name") == "median": print(v, r, b["run_name"], round(b["real_time"], 1), "us")
PY
cp run16.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run16.tgz scan_*.json copy_if_*.json err.txt command.sh
