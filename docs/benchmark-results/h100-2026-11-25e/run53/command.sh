#!/bin/bash
# GPU run 53 (tenth session): read_back with the polling variants, twice; host_cost
RUN=${1:-run53}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s11/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s11
mkdir -p /tmp/$RUN && cp run1.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
nproc; lscpu | grep "Model name" | tee /tmp/$RUN/cpu.txt
timeout 100 ./read_back > /tmp/$RUN/read_back.txt 2>&1; echo rc=$?; save
timeout 100 ./read_back >> /tmp/$RUN/read_back.txt 2>&1; echo rc=$?; save
timeout 200 ./host_cost > /tmp/$RUN/host_cost.txt 2>&1; echo rc=$?; save
cat /tmp/$RUN/read_back.txt
