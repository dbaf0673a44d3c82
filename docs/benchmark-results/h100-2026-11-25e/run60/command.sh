#!/bin/bash
# GPU run 60 (tenth session, binaries of 2ba815f, the final code; "old": 759857b): the touched tests on the GPU;
# the by-key family at 2^10-2^22, old and new in turn, beside CUB (cub_sweep.cu) in the same command
RUN=${1:-run60}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s11/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s11
mkdir -p /tmp/$RUN/t && cp run5.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
for t in test_arguments test_codegen test_by_key test_memory_pool test_algorithms test_elementwise; do
  timeout 150 ./tests/$t > /tmp/$RUN/t/$t.txt 2>&1; echo $t rc=$?; save
done
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
wait $NVCC; echo nvcc rc=$?
timeout 120 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
F='clalgo.*/(1024|4096|16384|65536|262144|1048576|4194304)/'
for r in 1 2; do
  for b in bench_by_key_old bench_by_key; do
    timeout 120 ./$b $B --benchmark_filter="$F" --benchmark_out=/tmp/$RUN/${b}_$r.json > /dev/null 2>>/tmp/$RUN/err.txt; echo $b $r rc=$?; save
  done
done
for r in 1 2; do for b in bench_by_key_old bench_by_key; do
  echo "## $b round $r"; python3 sweep_ratios.py /tmp/$RUN/cub_sweep.txt /tmp/$RUN/${b}_$r.json | tee /tmp/$RUN/ratios_${b}_$r.md | cut -d'|' -f2-9
done; done
save
