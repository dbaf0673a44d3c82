#!/bin/bash
# GPU run 9: key-value sorts with the values' loads early (exchange, the new default) and late, alternating
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c9
cd .gpu
B="--benchmark_min_time=0.05 --benchmark_repetitions=5 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
for v in exchange late exchange2 late2; do
  CLALGO_SORT_VALUES=${v%2} timeout 100 ./bench_sort $B --benchmark_filter='sort/clalgo_uint32_pairs/(65536|1048576|16777216|268435456)/' --benchmark_out=/tmp/pairs_$v.json > /dev/null 2>>/tmp/err.txt; echo $v rc=$?
done
python3 - <<'PY'
import json
for v in ["exchange","late","exchange2","late2"]:
    for r in json.load(open(f"/tmp/pairs_{v}.json"))["benchmarks"]:
        if r.get("aggregate_name")=="median": print(v, r["run_name"], round(r["real_time"],1), "us")
PY
cp run9.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run9.tgz pairs_*.json err.txt command.sh
