#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: in one run, time clalgo's benchmarks at 2^28 items on the GPU (NVIDIA's OpenCL)
# and a CUDA program of the peers (CUB, Thrust) that you give, then print clalgo's ratios to them. Not part of
# CI. For CUB at every size from 2^10 to 2^28, use benchmarks/gpu/cub_compare.cu and sweep_ratios.py instead.
# The peers' program prints lines "device <name> SMs <n>" and "<name> <type> N=2^<k>: <ms> ms, ..." (with
# thrust_euler43 for Euler 43); benchmarks/bench_results.py reads them. docs/performance.md says how to read the figures; docs/troubleshooting.md what to do when OpenCL finds no GPU.
#
#   benchmarks/gpu/run_nvidia.sh BENCHMARKS CUDA_PEERS_CU [OUT]
#     BENCHMARKS     the folder holding bench_reduce, bench_scan, ... (a build folder or its benchmarks/ folder;
#                    default: build)
#     CUDA_PEERS_CU  the CUDA source of the peers (required)
#     OUT            where the JSON, the peers' output and the ratios go (default: gpu-results)
#   Environment, each with a default that suits the development GPU machine:
#     NVIDIA_OPENCL_LIB  NVIDIA's OpenCL driver, registered with the ICD loader when no NVIDIA platform is listed
#                        (default /usr/local/nvidia/lib64/libnvidia-opencl.so.1)
#     NVCC, CUDA_ARCH, CCCL_INCLUDE   the CUDA compiler, the GPU architecture (sm_90) and CCCL's headers
#     REPETITIONS        repetitions of each clalgo benchmark (default 5); the ratios use the fastest
#     FULL=1             run every clalgo benchmark at every size (with the std:: baselines on the host CPU) for
#                        plots, rather than only the figures compared with the peers
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repository="$(cd "$here/../.." && pwd)"
benchmarks="${1:-build}"
cuda_peers_cu="${2:?run_nvidia.sh: give the CUDA source of the peers as the second argument}"
out="${3:-gpu-results}"
nvidia_opencl_lib="${NVIDIA_OPENCL_LIB:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cuda_arch="${CUDA_ARCH:-sm_90}"
cccl_include="${CCCL_INCLUDE:-/usr/local/cuda/targets/x86_64-linux/include/cccl}"
repetitions="${REPETITIONS:-5}"

[ -x "$benchmarks/benchmarks/bench_reduce" ] && benchmarks="$benchmarks/benchmarks"
for program in bench_reduce bench_scan bench_copy_if bench_elementwise bench_euler43; do
  [ -x "$benchmarks/$program" ] || { echo "run_nvidia.sh: no $benchmarks/$program; build the benchmarks first" >&2; exit 1; }
done
[ -f "$cuda_peers_cu" ] || { echo "run_nvidia.sh: no $cuda_peers_cu (give the path to cuda_peers.cu)" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# NVIDIA's OpenCL: register the driver with the ICD loader where the machine has not (containers often do not)
if ! clinfo -l 2>/dev/null | grep -qi nvidia; then
  if [ ! -e "$nvidia_opencl_lib" ]; then
    echo "run_nvidia.sh: no NVIDIA OpenCL platform and no $nvidia_opencl_lib (set NVIDIA_OPENCL_LIB)" >&2; exit 1
  fi
  icd_dir="$(mktemp -d)"
  echo "$nvidia_opencl_lib" > "$icd_dir/nvidia.icd"
  export OCL_ICD_VENDORS="$icd_dir"
  echo "run_nvidia.sh: registered $nvidia_opencl_lib through OCL_ICD_VENDORS=$icd_dir"
fi
export CLALGO_DEVICE="${CLALGO_DEVICE:-NVIDIA}"  # the NVIDIA platform's first GPU

echo "== building cuda_peers with $nvcc"
"$nvcc" -O3 -arch="$cuda_arch" -std=c++17 -I"$cccl_include" "$cuda_peers_cu" -o "$out/cuda_peers" -lcurand

echo "== clalgo on the GPU"
size=268435456  # 2^28
declare -A filters=(
  [bench_reduce]="^reduce/clalgo_sum_int32_into/$size/"
  [bench_scan]="^(inclusive|exclusive)_scan/clalgo_int32/$size/"
  [bench_copy_if]="^copy_if/clalgo_even_int32(_into)?(_alternating)?/$size/"
  [bench_elementwise]="^elementwise/clalgo_saxpy/$size/"
  [bench_euler43]="^euler43/clalgo/all"
)
for program in bench_reduce bench_scan bench_copy_if bench_elementwise bench_euler43; do
  filter=()
  [ "${FULL:-0}" = 1 ] || filter=(--benchmark_filter="${filters[$program]}")
  "$benchmarks/$program" "${filter[@]}" --benchmark_repetitions="$repetitions" \
    --benchmark_display_aggregates_only=true --benchmark_out="$out/$program.json" --benchmark_out_format=json
done

echo "== the CUDA peers"
"$out/cuda_peers" | tee "$out/cuda_peers.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/nvidia-smi.txt" 2>/dev/null || true

echo "== ratios"
python3 "$here/cub_ratios.py" "$out" --cub "$out/cuda_peers.txt" | tee "$out/ratios.md"
echo "run_nvidia.sh: results in $out (plot them with: python3 $repository/benchmarks/plot.py $out --cub $out/cuda_peers.txt)"
