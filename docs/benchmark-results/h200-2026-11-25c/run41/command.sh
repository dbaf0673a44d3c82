#!/bin/bash
# GPU run 41 (eighth session, H200, the machine of run 40): the onesweep pass held to fewer registers
# (-cl-nv-maxrregcount) so that 3 or 4 work-groups of 256 fit an SM instead of 2 (128 registers), with and without
# the keys reloaded after the ranking; 2^16, 2^24 and 2^28; register counts and spills from the verbose build
RUN=${1:-run41}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
cp run3.sh /tmp/command3.sh
rm -f /tmp/*.json /tmp/ratios.md
save() { (cd /tmp && tar czf $OUT/$RUN.tgz command3.sh $(ls /tmp | grep -E '\.json$|^regs3_|^ratios|^err') 2>/dev/null); }
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint(32_keys|32_pairs|64_keys)/(65536|16777216|268435456)/'
run() { name=$1; shift; env "$@" timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$name.json > /dev/null 2>>/tmp/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/cub_compare.txt /tmp/$name.json | grep sort | sed "s/^/$name /" >> /tmp/ratios.md; save; }
regs() { name=$1; opts=$2; shift 2; env "$@" CLALGO_CACHE_DIR=/tmp/regs3_d_$name CLALGO_COMPILER_OUTPUT=1 CLALGO_BUILD_OPTIONS="-cl-nv-verbose $opts" timeout 40 ./bench_sort --benchmark_min_time=0.001 --benchmark_filter='clalgo_uint(32_keys|32_pairs|64_keys)/268435456/' > /dev/null 2> /tmp/regs3_$name.txt; echo "## $name"; grep -A2 "properties for clalgo_radix_onesweep" /tmp/regs3_$name.txt | grep -v "^--"; }
regs r80 -cl-nv-maxrregcount=80 X=1
regs r80reload -cl-nv-maxrregcount=80 CLALGO_SORT_RELOAD_KEYS=1
regs r64reload -cl-nv-maxrregcount=64 CLALGO_SORT_RELOAD_KEYS=1
run default X=1
run r80 CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount=80
run r80reload CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount=80 CLALGO_SORT_RELOAD_KEYS=1
run r64reload CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount=64 CLALGO_SORT_RELOAD_KEYS=1
run r80i20 CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount=80 CLALGO_SORT_ITEMS=20
run default2 X=1
cat /tmp/ratios.md
