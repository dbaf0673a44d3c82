#!/bin/bash
# GPU run 44 (eighth session, H200, 533f55b): does NVIDIA's OpenCL compiler take a register cap in another
# spelling (run 41's -cl-nv-maxrregcount=N left 128 registers)? Verbose build logs of the pairs' and keys' passes
# under each spelling, then uint32 keys and pairs at 2^24 and 2^28 under each cap, the default first and last;
# CUB in the same command
RUN=${1:-run44}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s8/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s8
mkdir -p /tmp/$RUN && cp run6.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda -I/usr/local/cuda/targets/x86_64-linux/include/cccl cub_compare.cu -o /tmp/cub_compare > /tmp/$RUN/nvcc.log 2>&1 &
NVCC=$!
regs() { name=$1; opts=$2; CLALGO_CACHE_DIR=/tmp/regs_${RUN}_$name CLALGO_COMPILER_OUTPUT=1 CLALGO_BUILD_OPTIONS="-cl-nv-verbose $opts" timeout 40 ./bench_sort --benchmark_min_time=0.001 --benchmark_filter='clalgo_uint32_(keys|pairs)/268435456/' > /dev/null 2> /tmp/$RUN/regs_$name.txt; echo "## $name: $opts"; grep -A2 "properties for clalgo_radix_onesweep" /tmp/$RUN/regs_$name.txt | grep Used; grep -i "warning\|error\|unknown\|invalid" /tmp/$RUN/regs_$name.txt | head -3; }
regs eq80 "-cl-nv-maxrregcount=80"
regs sp80 "-cl-nv-maxrregcount 80"
regs eq64 "-cl-nv-maxrregcount=64"
save
wait $NVCC; echo nvcc rc=$?
timeout 100 /tmp/cub_compare > /tmp/$RUN/cub_compare.txt 2>&1; echo cub rc=$?
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
S='clalgo_uint32_(keys|pairs)/(16777216|268435456)/'
run() { name=$1; shift; env "$@" timeout 60 ./bench_sort $B --benchmark_filter="$S" --benchmark_out=/tmp/$RUN/$name.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $name rc=$?;
        python3 sweep_ratios.py /tmp/$RUN/cub_compare.txt /tmp/$RUN/$name.json | grep sort | cut -d'|' -f2,10,12 | sed "s/^/$name /" >> /tmp/$RUN/ratios.md; save; }
run default X=1
run sp80 "CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount 80"
run sp80i24 "CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount 80" CLALGO_SORT_ITEMS=24
run sp80i20 "CLALGO_BUILD_OPTIONS=-cl-nv-maxrregcount 80" CLALGO_SORT_ITEMS=20
run default2 X=1
cat /tmp/$RUN/ratios.md
