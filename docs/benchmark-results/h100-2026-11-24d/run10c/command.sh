#!/bin/bash
# GPU run 10 (c): the array algorithms at 2^28 beside a ReductionKernel and a device copy, checked mode's cost,
# Euler 43 on one queue and through MPI with one rank
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/b/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c10
cd .gpu/b
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
timeout 120 ./bench_array_algorithms --benchmark_filter='^array/(clalgo_(sum|min|max|dot|take|fill|astype)|reduction_kernel|device_copy|elementwise_copy)[a-z0-9_]*/268435456/' --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_out=/tmp/array.json --benchmark_out_format=json > /dev/null 2>>/tmp/err.txt; echo array rc=$?
for c in 0 1; do
  CLALGO_CHECKED=$c timeout 60 ./bench_elementwise $B --benchmark_filter='clalgo_saxpy/(1048576|268435456)/' --benchmark_out=/tmp/checked${c}_map.json > /dev/null 2>>/tmp/err.txt
  CLALGO_CHECKED=$c timeout 60 ./bench_reduce $B --benchmark_filter='clalgo_dot_float_into/(1048576|268435456)/' --benchmark_out=/tmp/checked${c}_reduce.json > /dev/null 2>>/tmp/err.txt
  CLALGO_CHECKED=$c timeout 60 ./bench_scan $B --benchmark_filter='inclusive_scan/clalgo_int32/(1048576|268435456)/' --benchmark_out=/tmp/checked${c}_scan.json > /dev/null 2>>/tmp/err.txt
  echo checked $c
done
# Euler 43 (all candidates) on one queue and through MPI with one rank (a singleton, no mpirun), alternating
(export LD_LIBRARY_PATH=$PWD/mpi/lib:$LD_LIBRARY_PATH OMPI_MCA_mca_base_component_path=$PWD/mpi/plugins \
   OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
 for r in 1 2; do
   echo "== euler43 --all"; timeout 60 ./euler43 --all 2>&1 | grep -E "time|PASS|FAIL|mpi"
   echo "== euler43_mpi --all (1 rank)"; timeout 60 ./euler43_mpi --all 2>&1 | grep -E "time|PASS|FAIL|mpi|rror"
 done) > /tmp/euler43_mpi.txt 2>&1; cat /tmp/euler43_mpi.txt
python3 array_ratios.py /tmp/array.json
python3 - <<'PY'
import json
for c in "01":
    for k in ["map", "reduce", "scan"]:
        for r in json.load(open(f"/tmp/checked{c}_{k}.json"))["benchmarks"]:
            if r.get("aggregate_name") == "median": print("checked", c, r["run_name"], round(r["real_time"], 1), "us")
PY
cp run10c.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run10c.tgz gpu.txt array.json checked*.json euler43_mpi.txt err.txt command.sh
