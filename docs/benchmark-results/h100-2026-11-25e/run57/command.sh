#!/bin/bash
# GPU run 57 (tenth session): host_cost (launch traits, the parts of a call, the device timeline, the driver calls alone), twice
RUN=${1:-run55}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s11/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s11
mkdir -p /tmp/$RUN && cp run2.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
for r in 1 2; do timeout 200 ./host_cost > /tmp/$RUN/host_cost_$r.txt 2>&1; echo rc=$?; save; done
grep -A10 "launch traits" /tmp/$RUN/host_cost_*.txt

