#!/bin/bash
# GPU run 74 (fourteenth session): every unit test program of 799631d's code on the NVIDIA GPU, four at a time,
# each with its own kernel cache
RUN=${1:-run74}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s15t/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA
cd .gpu/s15t && tar xJf all_tests.tar.xz
mkdir -p /tmp/$RUN/t && cp run4.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
one() {
  local t=$1 start=$(date +%s)
  CLALGO_CACHE_DIR=/tmp/c_$RUN/$t timeout 500 ./all_tests/$t > /tmp/$RUN/t/$t.txt 2>&1
  echo "$t rc=$? $(( $(date +%s) - start )) s"
}
export -f one; export RUN
ls all_tests | xargs -P 4 -I{} bash -c 'one {}' | tee /tmp/$RUN/summary.txt
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt | sort | uniq -c
save
