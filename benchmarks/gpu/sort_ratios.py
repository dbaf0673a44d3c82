#!/usr/bin/env python3
"""Prints clalgo's radix sort beside CUB's DeviceRadixSort as a markdown table: clalgo's medians from
bench_sort's JSON (--benchmark_repetitions, aggregates) and CUB's times from lines of the form
'cub_radix_sort_keys_uint32 n=1024: 0.0102 ms, ...' (keys_uint32, pairs_uint32, keys_uint64), timed the same way in
the same run. Usage: sort_ratios.py bench_sort.json cub_output.txt"""
import json
import re
import sys

clalgo = {}
for run in json.load(open(sys.argv[1]))["benchmarks"]:
    match = re.match(r"sort/clalgo_(uint32_keys|uint32_pairs|uint64_keys)/(\d+)", run["run_name"])
    if match and run.get("aggregate_name") == "median":
        clalgo[(match.group(1), int(match.group(2)))] = run["real_time"]  # microseconds
names = {"keys_uint32": "uint32_keys", "pairs_uint32": "uint32_pairs", "keys_uint64": "uint64_keys"}
cub = {}
for line in open(sys.argv[2]):
    match = re.match(r"cub_radix_sort_(keys_uint32|pairs_uint32|keys_uint64) n=(\d+): ([\d.]+) ms", line)
    if match:
        cub[(names[match.group(1)], int(match.group(2)))] = float(match.group(3)) * 1000.0
sizes = sorted({n for (_, n) in cub})
print("| clalgo µs / CUB µs (ratio: CUB time / clalgo time) | " + " | ".join(f"2^{n.bit_length() - 1}" for n in sizes) + " |")
print("|---" * (len(sizes) + 1) + "|")
for kind in ("uint32_keys", "uint32_pairs", "uint64_keys"):
    cells = []
    for n in sizes:
        if (kind, n) in clalgo:
            mine, theirs = clalgo[(kind, n)], cub[(kind, n)]
            cells.append(f"{mine:.0f} / {theirs:.0f} ({theirs / mine:.2f})")
        else:
            cells.append("not run")
    print(f"| {kind} | " + " | ".join(cells) + " |")
