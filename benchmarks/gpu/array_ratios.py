#!/usr/bin/env python3
"""Prints the GPU goals of the one-call array algorithms from bench_array_algorithms's JSON (--benchmark_out), as
markdown tables, one column per size, with the verdict at the largest size:
  reductions: clalgo's sum, min, max, dot time / the hand-written ReductionKernel's time; goal <= 1.05 (within 5 %),
              with the result returned to the host and left on the device (_into);
  maps:       bytes per second of take (indices in order; scattered for information), fill and astype / those of a
              device copy (clEnqueueCopyBuffer; an ElementwiseKernel copy beside it); goal >= 0.9.
Medians where the run has repetitions (--benchmark_repetitions), else the one run (the mean of several).
Usage: array_ratios.py bench_array_algorithms.json"""
import json
import re
import statistics
import sys

runs = {}  # (name, n) -> (time in the run's unit, bytes per second)
medians = {}
for run in json.load(open(sys.argv[1]))["benchmarks"]:
    match = re.match(r"array/(\w+)/(\d+)", run["run_name"])
    if not match or run.get("error_occurred"):
        continue
    key = (match.group(1), int(match.group(2)))
    figures = (run["real_time"], run.get("bytes_per_second", 0.0))
    if run.get("run_type") == "aggregate":
        if run.get("aggregate_name") == "median":
            medians[key] = figures
    else:
        runs.setdefault(key, []).append(figures)
figures = {key: (statistics.mean(t for t, _ in values), statistics.mean(b for _, b in values)) for key, values in runs.items()}
figures.update(medians)
sizes = sorted({n for (_, n) in figures})
if not sizes:
    sys.exit("no array/ benchmarks in " + sys.argv[1])


def size_name(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


def table(title, rows, ratio, goal, passes):
    """rows: (label, mine, theirs) benchmark names; ratio(mine figures, theirs figures) -> float."""
    largest = sizes[-1]
    print(f"### {title} (goal {goal} at {size_name(largest)})\n")
    print("| | " + " | ".join(size_name(n) for n in sizes) + f" | at {size_name(largest)} |")
    print("|---" * (len(sizes) + 2) + "|")
    for label, mine, theirs in rows:
        cells = []
        for n in sizes:
            if (mine, n) in figures and (theirs, n) in figures:
                cells.append(f"{ratio(figures[(mine, n)], figures[(theirs, n)]):.3f}")
            else:
                cells.append("not run")
        verdict = "not run"
        if (mine, largest) in figures and (theirs, largest) in figures:
            verdict = "meets" if passes(ratio(figures[(mine, largest)], figures[(theirs, largest)])) else "MISSES"
        print(f"| {label} | " + " | ".join(cells) + f" | {verdict} |")
    print()


def time_ratio(mine, theirs):
    return mine[0] / theirs[0]


def bandwidth_ratio(mine, theirs):
    return mine[1] / theirs[1] if theirs[1] else float("nan")


reductions = []
for op in ("sum", "min", "max", "dot"):
    for form in ("", "_into"):
        reductions.append((f"{op}{form or ' (to host)'}", f"clalgo_{op}_float{form}", f"reduction_kernel_{op}_float{form}"))
table("clalgo time / ReductionKernel time", reductions, time_ratio, "<= 1.05", lambda r: r <= 1.05)

maps = [("take, indices in order", "clalgo_take_float_ordered"), ("take, scattered (not a goal)", "clalgo_take_float"),
        ("fill", "clalgo_fill_float"), ("astype int32 -> float", "clalgo_astype_int32_float"),
        ("astype float -> double", "clalgo_astype_float_double")]
table("bytes/s / clEnqueueCopyBuffer's bytes/s", [(label, name, "device_copy_float") for label, name in maps],
      bandwidth_ratio, ">= 0.9", lambda r: r >= 0.9)
table("bytes/s / an ElementwiseKernel copy's bytes/s", [(label, name, "elementwise_copy_float") for label, name in maps],
      bandwidth_ratio, ">= 0.9", lambda r: r >= 0.9)
