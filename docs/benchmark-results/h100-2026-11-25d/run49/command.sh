#!/bin/bash
# GPU run 49 (ninth session, H100, 84e4656): test_scan alone, with room for its first builds (run 48 gave it 150 s)
RUN=${1:-run49}
mkdir -p /tmp/icd && echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 >/tmp/icd/nvidia.icd && export OCL_ICD_VENDORS=/tmp/icd
export LD_LIBRARY_PATH=$PWD/.gpu/s9/lib:$LD_LIBRARY_PATH CLALGO_DEVICE=NVIDIA CLALGO_CACHE_DIR=/tmp/c_$RUN
cd .gpu/s9
mkdir -p /tmp/$RUN/t && cp run3.sh /tmp/$RUN/command.sh
save() { (cd /tmp/$RUN && tar czf $OUT/$RUN.tgz .); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee /tmp/$RUN/gpu.txt
timeout 120 ./tests/test_scan --gtest_filter='ExclusiveScan.*' > /tmp/$RUN/t/test_scan_exclusive.txt 2>&1; echo exclusive rc=$?; tail -3 /tmp/$RUN/t/test_scan_exclusive.txt; save
timeout 400 ./tests/test_scan > /tmp/$RUN/t/test_scan.txt 2>&1; echo test_scan rc=$?; save
grep -h "PASSED\|FAILED\|SKIPPED \]" /tmp/$RUN/t/*.txt
grep "ms)" /tmp/$RUN/t/test_scan.txt | sort -t'(' -k2 -n -r | head -8
