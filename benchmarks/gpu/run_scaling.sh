#!/usr/bin/env bash
# The multi-device figures of docs/scaling.md on a host with several GPUs, in one run: the examples (pi, Euler 43)
# and benchmarks/gpu/scaling on 1, 2 and 4 devices (a DeviceSet in one process) and on 1, 2 and 4 MPI ranks (one
# GPU each), an uneven split and the calibrated weights, and what one array written by two devices costs.
#   benchmarks/gpu/run_scaling.sh BINARIES [OUT]
#     BINARIES  a folder holding euler43, pi, scaling and, for the MPI rows, euler43_mpi, pi_mpi, scaling_mpi
#               (a build folder's examples/ and benchmarks/ programs copied together); test_device_set,
#               test_split_array, test_split_algorithms and test_mpi run too where they are there
#     OUT       where the logs go (default: scaling-results); scaling_table.py reads them
#   Environment: DEVICES (how many GPUs to use at most; default: all the first platform has), MPIRUN (default:
#   mpirun from PATH; as root it is given --allow-run-as-root), SAMPLES (pi's Monte Carlo points, default 2^40).
set -uo pipefail

binaries="$(cd "${1:?run_scaling.sh: give the folder of the programs}" && pwd)"
out="${2:-scaling-results}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
samples="${SAMPLES:-2^40}"
mpirun="${MPIRUN:-mpirun}"
[ "$(id -u)" = 0 ] && mpirun="$mpirun --allow-run-as-root"

# the devices of the first platform: 0:0, 0:0,0:1, 0:0,...,0:3
available=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$available" -ge 1 ] || available=1
limit="${DEVICES:-$available}"
sets=()
for k in 1 2 4; do
  [ "$k" -le "$limit" ] || continue
  spec="0:0"
  for ((d = 1; d < k; ++d)); do spec="$spec,0:$d"; done
  sets+=("$spec")
done

run() {  # run NAME COMMAND...: the command's output into OUT/NAME.txt, and a line of its time
  local name="$1"
  shift
  local begin=$SECONDS
  { echo "\$ $*"; "$@"; echo "exit $?"; } >"$out/$name.txt" 2>&1
  echo "$name: $((SECONDS - begin)) s, $(tail -1 "$out/$name.txt")"
}

nvidia-smi -L >"$out/devices.txt" 2>&1
nvidia-smi topo -m >>"$out/devices.txt" 2>&1
nvidia-smi --query-gpu=driver_version --format=csv,noheader >>"$out/devices.txt" 2>&1

# one queue (no DeviceSet) beside a DeviceSet of one device: what the multi-device path costs on one GPU
run euler43-plain "$binaries/euler43" --all --repeat 5
run pi-plain "$binaries/pi" --samples "$samples" --repeat 3
for spec in "${sets[@]}"; do
  k=$(($(tr -cd ',' <<<"$spec" | wc -c) + 1))
  run "euler43-devices$k" "$binaries/euler43" --all --repeat 5 --devices "$spec"
  run "pi-devices$k" "$binaries/pi" --samples "$samples" --repeat 3 --devices "$spec"
  run "scaling-devices$k" "$binaries/scaling" --devices "$spec"
done
if [ "${#sets[@]}" -ge 2 ]; then
  run scaling-weights-3-1 "$binaries/scaling" --devices 0:0,0:1 --weights 3,1
  run scaling-calibrated "$binaries/scaling" --devices 0:0,0:1 --calibrate
  run shared-array "$binaries/scaling" --devices 0:0,0:1 --shared-array
fi
if [ -x "$binaries/euler43_mpi" ] && command -v "${MPIRUN:-mpirun}" >/dev/null; then
  for spec in "${sets[@]}"; do
    k=$(($(tr -cd ',' <<<"$spec" | wc -c) + 1))
    run "euler43-mpi$k" $mpirun -np "$k" "$binaries/euler43_mpi" --all --repeat 5
    run "pi-mpi$k" $mpirun -np "$k" "$binaries/pi_mpi" --samples "$samples" --repeat 3
    run "scaling-mpi$k" $mpirun -np "$k" "$binaries/scaling_mpi"
  done
fi
# the multi-device tests, where they were copied beside the programs: on one GPU (two queues) and over MPI ranks
for test in test_device_set test_split_array test_split_algorithms; do
  [ -x "$binaries/$test" ] && run "$test" "$binaries/$test"
done
if [ -x "$binaries/test_mpi" ] && command -v "${MPIRUN:-mpirun}" >/dev/null; then
  for spec in "${sets[@]}"; do
    k=$(($(tr -cd ',' <<<"$spec" | wc -c) + 1))
    run "test_mpi$k" $mpirun -np "$k" "$binaries/test_mpi"
  done
fi
echo "run_scaling.sh: logs in $out (benchmarks/gpu/scaling_table.py $out)"
