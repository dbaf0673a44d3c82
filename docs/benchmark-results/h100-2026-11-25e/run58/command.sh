#!/bin/bash
# GPU run 58 (tenth session): host_cost of the session's start (old) and with the lean call paths (new), in turn
RUN=${1:-run58}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s11/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s11
mkdir -p /tmp/$RUN && cp run3.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
for r in 1 2 3; do
  for b in host_cost_old host_cost; do timeout 200 ./$b > /tmp/$RUN/${b}_$r.txt 2>&1; echo $b rc=$?; done; save
done
for r in 1 2 3; do for b in host_cost_old host_cost; do echo "== $b $r"; grep -A12 "^n=1024" /tmp/$RUN/${b}_$r.txt | grep "enqueue" | grep -v "single pass\|direct\|sort" | awk '{printf "%s %s %s | ", $1, $2, $(NF-5)}'; echo; done; done
