#!/bin/bash
# GPU run 62 (eleventh session): the onesweep scatter unrolled, digits in registers (new) against be3dfb0 (old);
# test_sort on the GPU; sorts at 2^22-2^28, old and new in turn, twice; CUB (cub_sweep.cu) in the same command
RUN=${1:-run62}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s12/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s12
mkdir -p /tmp/$RUN/t && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
CCCL=-I/usr/local/cuda/targets/x86_64-linux/include/cccl
(nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda $CCCL cub_sweep.cu -o /tmp/cub_sweep > /tmp/$RUN/nvcc.log 2>&1) &
NVCC=$!
B="--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true --benchmark_out_format=json"
F='sort/clalgo.*/(4194304|16777216|67108864|268435456)$'
for r in 1 2; do
  for b in bench_sort_old bench_sort; do
    timeout 150 ./$b $B --benchmark_filter="$F" --benchmark_out=/tmp/$RUN/${b}_$r.json > /tmp/$RUN/${b}_$r.txt 2>&1; echo $b $r rc=$?; save
  done
done
wait $NVCC; echo nvcc rc=$?
timeout 150 /tmp/cub_sweep > /tmp/$RUN/cub_sweep.txt 2>&1; echo cub_sweep rc=$?; save
for r in 1 2; do for b in bench_sort_old bench_sort; do
  echo "## $b round $r"; python3 sort_ratios.py /tmp/$RUN/${b}_$r.json /tmp/$RUN/cub_sweep.txt | tee /tmp/$RUN/ratios_${b}_$r.md
done; done
timeout 200 ./tests/test_sort > /tmp/$RUN/t/test_sort.txt 2>&1; echo test_sort rc=$?; grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt; save
