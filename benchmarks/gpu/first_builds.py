#!/usr/bin/env python3
"""The first build of every kind of kernel in several processes of `first_build`, each fresh with clalgo's
disk cache and NVIDIA's cache of compiled programs off (CLALGO_NO_CACHE=1, CUDA_CACHE_DISABLE=1), so that every
kernel is compiled from source. A compiler's time moves by a few tenths of a second from one run to the next, so
each kind is reported as the median of the processes, beside the fastest and the slowest.

    python3 benchmarks/gpu/first_builds.py [--bin DIR] [--processes N] [--out FILE]

    --bin DIR   the folder holding first_build (a build folder, its benchmarks/ folder, or a copy; default: build)
    --processes N  processes of first_build (default 5)
    --out FILE  where the table and every run's lines go (default: printed)
Environment: CLALGO_DEVICE picks the device, as for first_build itself.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

LINE = re.compile(r"^(.*?)\s+first call\s+([\d.]+) ms, second\s+([\d.]+) ms, build\s+([\d.]+) ms")


def find_program(folder: str) -> str:
    for candidate in (os.path.join(folder, "first_build"), os.path.join(folder, "benchmarks", "first_build")):
        if os.access(candidate, os.X_OK):
            return candidate
    sys.exit(f"first_builds.py: no first_build in {folder} or {folder}/benchmarks (build the first_build target)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build")
    parser.add_argument("--processes", type=int, default=5)
    parser.add_argument("--out")
    options = parser.parse_args()
    if options.processes < 1:
        sys.exit("first_builds.py: --processes must be at least 1")
    program = find_program(options.bin)
    environment = dict(os.environ, CLALGO_NO_CACHE="1", CUDA_CACHE_DISABLE="1")
    device, builds, outputs = "", {}, []
    for run in range(options.processes):
        done = subprocess.run([program], capture_output=True, text=True, env=environment)
        if done.returncode != 0:
            sys.exit(f"first_builds.py: run {run + 1} of first_build exited with {done.returncode}:\n{done.stdout}"
                     f"{done.stderr}")
        outputs.append(done.stdout)
        for line in done.stdout.splitlines():
            if line.startswith("device:"):
                device = line
            elif match := LINE.match(line):
                builds.setdefault(match.group(1), []).append(float(match.group(4)))
    lines = [device, f"first builds in {options.processes} processes of first_build, caches off (ms): median, fastest, "
             "slowest", ""]
    lines.append(f"{'kind':<36} {'median':>8} {'fastest':>8} {'slowest':>8}")
    for kind, times in builds.items():
        lines.append(f"{kind:<36} {statistics.median(times):8.1f} {min(times):8.1f} {max(times):8.1f}")
    for output in outputs:
        lines += ["", "one process of first_build:", output.rstrip()]
    text = "\n".join(lines) + "\n"
    if options.out:
        with open(options.out, "w") as out:
            out.write(text)
    print(text if not options.out else "\n".join(lines[: 4 + len(builds)]))


if __name__ == "__main__":
    main()
