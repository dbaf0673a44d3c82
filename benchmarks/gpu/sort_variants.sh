#!/usr/bin/env bash
# On a machine with an NVIDIA GPU, in one command: the radix sort's variants timed in turn beside CUB, at 2^24 and
# 2^28 keys, then one table of their times and ratios. Not part of CI.
#
#   benchmarks/gpu/sort_variants.sh [DIR] [OUT]
#     DIR  holds bench_sort, first_build and test_sort built from this tree, cub_sort.cu, sort_variants.py, and
#          optionally bench_sort_base (the same benchmark built from the commit to compare with) and lib/ (shared
#          libraries the programs need). Default: this script's folder.
#     OUT  where the table (sort_variants.md) and every raw file (sort_variants.tgz) go. Default: $OUT, else
#          ./sort-variants.
#   Environment: ROUNDS (default 2) rounds of every variant, in turn; NVCC, CUDA_ARCH (sm_90), CCCL_INCLUDE;
#   NVIDIA_OPENCL_LIB, registered with the ICD loader when no NVIDIA platform is listed.
#
# What runs, in order (about 8 minutes on an H100):
#   1. first_build with clalgo's disk cache and NVIDIA's driver cache off: the first build of every kind of
#      kernel, the sorts at 2^20 (tiles of 16 keys a work-item) and 2^22 (the default tiles) among them; then the
#      registers and local memory of the passes, as NVIDIA's compiler reports them (-cl-nv-verbose), with the
#      atomic match and with ballots;
#   2. test_sort's cases of the onesweep passes and of argsort, with the default tiers, then in full tiles with
#      each form of the ranking;
#   3. ROUNDS rounds, each: every variant below in turn (bench_sort, medians of 3 repetitions), then CUB (the
#      default's other sorts in the first round only);
#   4. sort_variants.py: per variant and sort, the best round's median, CUB's time, and the ratio.
# Variants (each one process; the CLALGO_SORT_* variables are read when a sort kernel is made):
#   default        every sort: uint32, int32, float, uint64 keys, pairs, descending, 20-bit keys, argsort
#   ballots        CLALGO_SORT_MATCH=ballots CLALGO_SORT_RANK=sync: the ranking of pairs and 64-bit keys (eight
#                  ballots, warp barriers) for every sort, against the default's local atomics for 32-bit keys
#   keys_after     CLALGO_SORT_KEYS_BEFORE_LOOK_BACK=0: each tile's keys held in registers through the look-back
#   tiles_28       CLALGO_SORT_ITEMS=28: tiles of 256 x 28 for every sort (the defaults: 38, 36 and 30)
#   base           bench_sort_base, uint32 pairs: the commit before (values read through the new positions'
#                  branch), where DIR holds it
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
dir="$(cd "${1:-$here}" && pwd)"
out="${2:-${OUT:-sort-variants}}"
rounds="${ROUNDS:-2}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
cuda_arch="${CUDA_ARCH:-sm_90}"
cccl_include="${CCCL_INCLUDE:-/usr/local/cuda/targets/x86_64-linux/include/cccl}"
nvidia_opencl_lib="${NVIDIA_OPENCL_LIB:-/usr/local/nvidia/lib64/libnvidia-opencl.so.1}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
raw="$(mktemp -d)"
save() { (cd "$raw" && tar czf "$out/sort_variants.tgz" .); }

if ! clinfo -l 2>/dev/null | grep -qi nvidia && [ -e "$nvidia_opencl_lib" ]; then
  icd="$(mktemp -d)"
  echo "$nvidia_opencl_lib" > "$icd/nvidia.icd"
  export OCL_ICD_VENDORS="$icd"
fi
export CLALGO_DEVICE="${CLALGO_DEVICE:-NVIDIA}" CLALGO_CACHE_DIR="$(mktemp -d)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$raw/gpu.txt" 2>&1; cat "$raw/gpu.txt"

("$nvcc" -O3 -arch="$cuda_arch" -std=c++17 -I"$cccl_include" "$dir/cub_sort.cu" -o "$raw/cub_sort" > "$raw/nvcc.txt" 2>&1;
 echo "nvcc rc=$?" >> "$raw/nvcc.txt") &
nvcc_job=$!
# the programs' own libraries (Google Benchmark, TBB, the ICD loader), after nvcc has started with the machine's
[ -d "$dir/lib" ] && export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"

echo "== first builds"
CLALGO_NO_CACHE=1 CUDA_CACHE_DISABLE=1 timeout 120 "$dir/first_build" > "$raw/first_build.txt" 2>&1
echo "first_build rc=$?"; grep -i "sort\|device" "$raw/first_build.txt"
save

echo "== registers and local memory of the passes (NVIDIA's compiler, -cl-nv-verbose)"
for variant in or ballots; do
  CLALGO_SORT_MATCH=$variant CLALGO_BUILD_OPTIONS=-cl-nv-verbose CLALGO_COMPILER_OUTPUT=1 CLALGO_NO_CACHE=1 \
    timeout 60 "$dir/bench_sort" --benchmark_min_time=0.001 \
    --benchmark_filter='^sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/16777216/' > "$raw/registers_$variant.txt" 2>&1
  echo "registers $variant rc=$?"; grep -h "ptxas info\|Used" "$raw/registers_$variant.txt" | sort | uniq -c | head -20
done; save

echo "== test_sort on the GPU"
tests='SortTyped/4.*:SortTyped/9.BitRanges*:Sort.Argsort*:Sort.RadixSort*:Sort.IntoOther*:Sort.Misuse*'
timeout 90 "$dir/test_sort" --gtest_filter="$tests" > "$raw/test_sort.txt" 2>&1
echo "test_sort rc=$?"; grep -h "PASSED\|FAILED" "$raw/test_sort.txt"
# every form of the ranking with every key width, in full tiles (no tiers)
for forms in "CLALGO_SORT_MATCH=or CLALGO_SORT_RANK=atomic" "CLALGO_SORT_MATCH=ballots CLALGO_SORT_RANK=sync" \
             "CLALGO_SORT_MATCH=or CLALGO_SORT_RANK=sync CLALGO_SORT_KEYS_BEFORE_LOOK_BACK=0"; do
  label=$(echo "$forms" | tr ' =' '_-')
  env $forms CLALGO_SORT_TIERS=none timeout 90 "$dir/test_sort" \
    --gtest_filter='SortTyped/*.Keys*:SortTyped/9.*:Sort.AMillion*:Sort.Argsort*' > "$raw/test_sort_$label.txt" 2>&1
  echo "test_sort $forms rc=$?"; grep -h "PASSED\|FAILED" "$raw/test_sort_$label.txt"
done; save

sizes='(4194304|16777216|268435456)'
options=(--benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_display_aggregates_only=true
         --benchmark_out_format=json)
bench() {  # label program filter [VARIABLE=value ...]
  local label=$1 program=$2 filter=$3
  shift 3
  env "$@" timeout 150 "$program" "${options[@]}" --benchmark_filter="$filter" \
    --benchmark_out="$raw/$label.json" > "$raw/$label.txt" 2>&1
  echo "$label rc=$?"
}
every="^sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys|int32_keys|float_keys|uint32_keys_descending|uint32_keys_20_bits|uint32_argsort)/$sizes/"
three="^sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/$sizes/"
wide="^sort/clalgo_uint64_keys/$sizes/"
wait "$nvcc_job"; cat "$raw/nvcc.txt"
for round in $(seq 1 "$rounds"); do
  echo "== round $round"
  # every sort in the first round; the three compared with CUB's goals in each
  if [ "$round" = 1 ]; then bench "default_$round" "$dir/bench_sort" "$every"; else bench "default_$round" "$dir/bench_sort" "$three"; fi
  bench "ballots_$round" "$dir/bench_sort" "$three" CLALGO_SORT_MATCH=ballots CLALGO_SORT_RANK=sync
  bench "keys_after_$round" "$dir/bench_sort" "$three" CLALGO_SORT_KEYS_BEFORE_LOOK_BACK=0
  bench "tiles_28_$round" "$dir/bench_sort" "$three" CLALGO_SORT_ITEMS=28
  [ -x "$dir/bench_sort_base" ] && bench "base_$round" "$dir/bench_sort_base" "^sort/clalgo_uint32_pairs/$sizes/"
  [ -x "$raw/cub_sort" ] && { timeout 120 "$raw/cub_sort" 4194304 16777216 268435456 > "$raw/cub_$round.txt" 2>&1; echo "cub rc=$?"; }
  save
done
python3 "$dir/sort_variants.py" "$raw" | tee "$out/sort_variants.md"
save
echo "sort_variants.sh: the table in $out/sort_variants.md, every raw file in $out/sort_variants.tgz"
