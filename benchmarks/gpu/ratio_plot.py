#!/usr/bin/env python3
"""Plots clalgo's throughput as a fraction of CUB's (CUB time / clalgo time; above 1: clalgo faster) against the
input size, one line per primitive, from the same files sweep_ratios.py reads: the output of a CUB program run in
the same command (benchmarks/gpu/cub_compare.cu) and Google Benchmark JSON files of clalgo's benchmarks.

    benchmarks/gpu/ratio_plot.py CUB_OUTPUT OUT.png PREFIX[,PREFIX...] BENCHMARK_JSON... [--title TITLE]

PREFIX picks the clalgo benchmarks to draw by the start of their names (e.g. "sort/" or
"reduce_by_key/,histogram/,segmented_reduce/"). Needs matplotlib (Debian: python3-matplotlib)."""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweep_ratios import PAIRS  # noqa: E402  (beside this script)

parser = argparse.ArgumentParser()
parser.add_argument("cub")
parser.add_argument("out")
parser.add_argument("prefixes")
parser.add_argument("benchmarks", nargs="+")
parser.add_argument("--title", default="clalgo beside CUB")
args = parser.parse_args()

cub = {}
for line in open(args.cub):
    match = re.match(r"(\w+) n=(\d+): ([\d.]+) ms", line)
    if match:
        cub[(match.group(1), int(match.group(2)))] = float(match.group(3)) * 1000.0
clalgo = {}
for path in args.benchmarks:
    for run in json.load(open(path))["benchmarks"]:
        match = re.match(r"(.+)/(\d+)/manual_time", run["run_name"])
        if match and run.get("aggregate_name") == "median":
            clalgo[(match.group(1), int(match.group(2)))] = run["real_time"]

try:
    import matplotlib  # noqa: E402
except ImportError:  # Debian's matplotlib is for Debian's Python: run again under it
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

prefixes = args.prefixes.split(",")
figure, axes = plt.subplots(figsize=(7, 4))
for mine, theirs in PAIRS:
    if not any(mine.startswith(p) for p in prefixes):
        continue
    points = sorted((n, cub[(theirs, n)] / clalgo[(mine, n)]) for (name, n) in clalgo
                    if name == mine and (theirs, n) in cub)
    if points:
        axes.plot([n.bit_length() - 1 for n, _ in points], [r for _, r in points], marker="o",
                  label=mine.replace("clalgo_", ""))
axes.axhline(1.0, color="grey", linewidth=0.8)
axes.set_xlabel("log2 of the number of items")
axes.set_ylabel("CUB time / clalgo time")
axes.set_title(args.title)
axes.set_ylim(bottom=0)
axes.grid(True, alpha=0.3)
axes.legend(fontsize=8)
figure.tight_layout()
figure.savefig(args.out, dpi=110)
print(f"wrote {args.out}")
