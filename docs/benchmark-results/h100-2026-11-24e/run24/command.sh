#!/bin/bash
# GPU run 24 (fifth session): the changed test programs on the GPU; look-and-say and Euler 43 builds (disk cache
# off) and speed with the scans' and compaction's loops unrolled (old: d3137e2), write loops only not unrolled for
# heavy statements (mid: 916c5f6) and load loops too (new); first builds again
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/r6/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c24
cd .gpu/r6
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/gpu.txt
mkdir -p /tmp/t
ls tests | xargs -P 6 -I{} sh -c 'timeout 280 ./tests/{} > /tmp/t/{}.txt 2>&1; echo "{} rc=$?"'
grep -h -E "PASSED|FAILED|tests ran" /tmp/t/*.txt | head -30
for v in _old _mid ""; do
  echo "== look_and_say$v" >> /tmp/examples.txt
  CLALGO_NO_CACHE=1 timeout 60 ./look_and_say$v --steps 50 >> /tmp/examples.txt 2>&1
  timeout 60 ./look_and_say$v --steps 66 --repeat 5 >> /tmp/examples.txt 2>&1; echo look_and_say$v rc=$?
done
for v in _old ""; do
  echo "== euler43$v" >> /tmp/examples.txt
  CLALGO_NO_CACHE=1 timeout 60 ./euler43$v >> /tmp/examples.txt 2>&1; echo euler43$v rc=$?
done
CLALGO_NO_CACHE=1 timeout 120 ./first_build > /tmp/first_build.txt 2>&1; echo first_build rc=$?
grep -E "==|kernels|time|PASS|FAIL" /tmp/examples.txt; cat /tmp/first_build.txt
cp r6.sh /tmp/command.sh
cd /tmp && tar czf $OUT/run24.tgz gpu.txt t examples.txt first_build.txt command.sh
