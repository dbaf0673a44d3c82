#!/usr/bin/env python3
"""clalgo beside CUB and Thrust on an NVIDIA GPU, in one command: builds the CUB program
(benchmarks/gpu/cub_compare.cu) with nvcc, runs clalgo's benchmark programs and then CUB's on the same quiet
host (nothing else running: a compiler beside a small call's launch costs it 1 to 3 µs), and writes the tables (clalgo µs / CUB µs, ratio) and a plot per family. On a CPU device (PoCL), --no-cub --std compares
with the std:: algorithms instead.

    python3 benchmarks/gpu/compare.py [FAMILY ...] [--bin DIR] [--out DIR] [options]

    FAMILY      map, reduce, scan, compaction, sort, by_key, array (default: all of them)
    --bin DIR   the folder of the benchmark programs (bench_reduce, ...): a build folder, its benchmarks/
                folder, or any folder they were copied to (default: build)
    --out DIR   where the JSON, cub.txt, tables.md and the plots go (default: compare-results in --bin)

The benchmark programs are built by CMake (`cmake --build build --target bench_reduce ...`, where
CLALGO_BUILD_BENCHMARKS is on), here or on another machine. Options:
    --cub-binary FILE   a cub_compare built already (else it is built here, with --nvcc, --arch, --cccl)
    --no-cub            no CUB: a CPU device, or the GPU alone
    --std               the std:: baselines too (on the host's CPU; slow at GPU sizes)
    --tune FILE         run clalgo-tune (this path) first, so that the kernels use its tuned values
    --host-cost         run host_cost (beside the benchmark programs) too: what a small call costs, the floor of
                        a raw OpenCL launch
    --lib DIR           put DIR first on LD_LIBRARY_PATH (the shared libraries of programs built elsewhere)
    --repetitions N, --min-time S   Google Benchmark's repetitions (3) and minimum time of each (0.05 s)
Environment: CLALGO_DEVICE picks the device (default here: NVIDIA's first GPU, or the default device with
--no-cub). Where no NVIDIA OpenCL platform is listed, NVIDIA's driver (--nvidia-opencl, default
/usr/local/nvidia/lib64/libnvidia-opencl.so.1) is registered with the ICD loader for the run.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import results  # noqa: E402  (benchmarks/results.py)

DEFAULT_CCCL = "/usr/local/cuda/targets/x86_64-linux/include/cccl"


def find_program(folder: str, name: str) -> str:
    for candidate in (os.path.join(folder, name), os.path.join(folder, "benchmarks", name)):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    sys.exit(f"compare.py: no {name} in {folder} or {folder}/benchmarks: build it (cmake --build <build> "
             f"--target {name}) or give its folder with --bin")


def benchmark_filter(family: results.Family, with_std: bool) -> str:
    names = [row.clalgo for row in family.rows]
    if with_std or family.baseline:  # a family's own baselines (array: the ReductionKernel) always run
        names += [name for row in family.rows for name in row.std]
    return "^(" + "|".join(sorted(set(names))) + ")/"


def nvidia_environment(environment: dict, driver: str) -> dict:
    """The environment with NVIDIA's OpenCL driver registered where no NVIDIA platform is listed."""
    listed = ""
    if shutil.which("clinfo"):
        listed = subprocess.run(["clinfo", "-l"], capture_output=True, text=True, env=environment).stdout
    if "nvidia" not in listed.lower():
        if not os.path.exists(driver):
            sys.exit(f"compare.py: no NVIDIA OpenCL platform and no {driver} (give --nvidia-opencl, or --no-cub "
                     "for another device)")
        icd = tempfile.mkdtemp(prefix="clalgo-icd-")
        with open(os.path.join(icd, "nvidia.icd"), "w") as f:
            f.write(driver + "\n")
        environment["OCL_ICD_VENDORS"] = icd
        print(f"compare.py: registered {driver} through OCL_ICD_VENDORS={icd}")
    environment.setdefault("CLALGO_DEVICE", "NVIDIA")
    return environment


def run_to_file(command, path: str, environment: dict) -> None:
    print("compare.py: " + " ".join(command), flush=True)
    with open(path, "w") as out:
        status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=environment).returncode
    if status != 0:
        print(f"compare.py: {os.path.basename(command[0])} exited with {status} (see {path})", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("families", nargs="*", metavar="FAMILY", help=", ".join(results.FAMILY_NAMES))
    parser.add_argument("--bin", default="build", help="the folder of the benchmark programs")
    parser.add_argument("--out", help="where the results go (default: compare-results in --bin)")
    parser.add_argument("--cub-source", default=os.path.join(HERE, "cub_compare.cu"))
    parser.add_argument("--cub-binary", help="a cub_compare built already")
    parser.add_argument("--no-cub", action="store_true", help="no CUB (a CPU device, or the GPU alone)")
    parser.add_argument("--nvcc", default=shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc")
    parser.add_argument("--arch", default="sm_90", help="nvcc's -arch (default sm_90: H100, H200)")
    parser.add_argument("--cccl", default=DEFAULT_CCCL, help="CCCL's headers, where nvcc does not find them")
    parser.add_argument("--nvidia-opencl", default="/usr/local/nvidia/lib64/libnvidia-opencl.so.1")
    parser.add_argument("--std", action="store_true", help="the std:: baselines too")
    parser.add_argument("--tune", help="clalgo-tune's path: run it first")
    parser.add_argument("--host-cost", action="store_true", help="run host_cost too")
    parser.add_argument("--lib", help="put this folder first on LD_LIBRARY_PATH")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", default="0.05")
    args = parser.parse_args()

    families = results.pick_families(",".join(args.families) if args.families else None)
    programs = {family.name: find_program(args.bin, family.program) for family in families}
    out = os.path.abspath(args.out or os.path.join(args.bin, "compare-results"))
    os.makedirs(out, exist_ok=True)
    environment = dict(os.environ)
    if args.lib:
        environment["LD_LIBRARY_PATH"] = os.path.abspath(args.lib) + (
            ":" + environment["LD_LIBRARY_PATH"] if environment.get("LD_LIBRARY_PATH") else "")
    if not args.no_cub:
        environment = nvidia_environment(environment, args.nvidia_opencl)

    # CUB's program is built before anything is timed: a small call's time is its host's, and a compiler beside it
    # slowed an H100's raw launches by 1 to 3 µs
    cub_binary = args.cub_binary
    if not args.no_cub and not cub_binary:
        cub_binary = os.path.join(out, "cub_compare")
        command = [args.nvcc, "-O3", f"-arch={args.arch}", "-std=c++17", "--extended-lambda"]
        if os.path.isdir(args.cccl):
            command.append(f"-I{args.cccl}")
        command += [args.cub_source, "-o", cub_binary]
        print("compare.py: " + " ".join(command), flush=True)
        with open(os.path.join(out, "nvcc.log"), "w") as compile_log:
            if subprocess.run(command, stdout=compile_log, stderr=subprocess.STDOUT).returncode != 0:
                sys.exit(f"compare.py: nvcc failed (see {os.path.join(out, 'nvcc.log')})")

    if args.tune:
        run_to_file([args.tune], os.path.join(out, "tune.txt"), environment)
    for family in families:
        program = programs[family.name]
        name = os.path.basename(program)
        run_to_file([program, f"--benchmark_filter={benchmark_filter(family, args.std)}",
                     f"--benchmark_repetitions={args.repetitions}", f"--benchmark_min_time={args.min_time}",
                     "--benchmark_display_aggregates_only=true", "--benchmark_out_format=json",
                     f"--benchmark_out={os.path.join(out, name + '.json')}"],
                    os.path.join(out, name + ".txt"), environment)
    if args.host_cost:
        run_to_file([find_program(args.bin, "host_cost")], os.path.join(out, "host_cost.txt"), environment)
    if cub_binary:
        run_to_file([cub_binary], os.path.join(out, "cub.txt"), environment)
    if shutil.which("nvidia-smi") and not args.no_cub:
        run_to_file(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                    os.path.join(out, "gpu.txt"), environment)

    try:
        import matplotlib  # noqa: F401
        plots = True
    except ImportError:
        plots = os.path.exists("/usr/bin/python3") and subprocess.run(
            ["/usr/bin/python3", "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0
    command = [sys.executable, os.path.join(os.path.dirname(HERE), "results.py"), out,
               "--families", ",".join(f.name for f in families)]
    if not plots:
        print("compare.py: no matplotlib (Debian: python3-matplotlib), so tables without plots")
        command.append("--no-plots")
    sys.exit(subprocess.run(command).returncode)


if __name__ == "__main__":
    main()
