#!/usr/bin/env python3
"""Reads what sort_variants.sh leaves in a folder and prints one markdown table a size: for each variant and sort,
clalgo's time (the best round's median, in µs, every round's median beside it), CUB's best time for the same sort
(cub_<round>.txt, cub_sort.cu's lines) and the ratio CUB time / clalgo time (above 1: clalgo faster); then, for the
default variant, each sort's time against uint32 keys' (the goals: int32, float, descending and argsort within 5 %;
20-bit keys by their bits at least 1.2 x as fast). Usage: sort_variants.py FOLDER"""
import glob
import json
import os
import re
import sys

folder = sys.argv[1]
clalgo = {}  # (variant, sort, n) -> [median of each round]
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    match = re.match(r"(.+)_(\d+)$", os.path.basename(path)[:-5])
    if not match:
        continue
    variant = match.group(1)
    try:
        runs = json.load(open(path))["benchmarks"]
    except (ValueError, KeyError):
        continue
    for run in runs:
        name = re.match(r"sort/clalgo_(\w+)/(\d+)", run["run_name"])
        if name and run.get("aggregate_name") == "median" and not run.get("error_occurred"):
            clalgo.setdefault((variant, name.group(1), int(name.group(2))), []).append(run["real_time"])

# cub_sort.cu's names against bench_sort's
cub_names = {"keys_uint32": "uint32_keys", "pairs_uint32": "uint32_pairs", "keys_uint64": "uint64_keys",
             "keys_int32": "int32_keys", "keys_float": "float_keys",
             "keys_uint32_descending": "uint32_keys_descending", "keys_uint32_20_bits": "uint32_keys_20_bits",
             "argsort_uint32": "uint32_argsort"}
cub = {}
for path in glob.glob(os.path.join(folder, "cub_*.txt")):
    for line in open(path):
        match = re.match(r"cub_radix_sort_(\w+) n=(\d+): ([\d.]+) ms", line)
        if match and match.group(1) in cub_names:
            key = (cub_names[match.group(1)], int(match.group(2)))
            cub[key] = min(cub.get(key, 1e30), float(match.group(3)) * 1000.0)

variants = sorted({v for (v, _, _) in clalgo}, key=lambda v: (v != "default", v))
sizes = sorted({n for (_, _, n) in clalgo})
for n in sizes:
    print(f"\n### 2^{n.bit_length() - 1} keys: clalgo µs (rounds) / CUB µs, ratio CUB / clalgo\n")
    print("| variant | sort | clalgo, best (each round) | CUB | ratio |")
    print("|---|---|---|---|---|")
    for variant in variants:
        for sort in cub_names.values():
            times = clalgo.get((variant, sort, n))
            if not times:
                continue
            best, theirs = min(times), cub.get((sort, n))
            rounds = ", ".join(f"{t:.0f}" for t in times)
            ratio = f"{theirs / best:.3f}" if theirs else "no CUB"
            print(f"| {variant} | {sort} | {best:.0f} ({rounds}) | {theirs:.0f} | {ratio} |" if theirs else
                  f"| {variant} | {sort} | {best:.0f} ({rounds}) | | {ratio} |")
    base = clalgo.get(("default", "uint32_keys", n))
    if base:
        print(f"\nDefault variant against its uint32 keys ({min(base):.0f} µs), uint32 keys time / this time:\n")
        for sort in ("int32_keys", "float_keys", "uint32_keys_descending", "uint32_argsort", "uint32_keys_20_bits",
                     "uint32_pairs"):
            times = clalgo.get(("default", sort, n))
            if times:
                print(f"- {sort}: {min(base) / min(times):.3f}")
