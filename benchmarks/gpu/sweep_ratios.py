#!/usr/bin/env python3
"""Prints clalgo beside CUB at every size as markdown tables: clalgo's medians from Google Benchmark JSON files
(run with --benchmark_repetitions, aggregates) and CUB's times from lines of the form
'cub_radix_sort_keys_uint32 n=1024: 0.0102 ms, ...' printed by a CUB program that times CUB the way clalgo's
benchmarks time clalgo, in the same run. Usage: sweep_ratios.py CUB_OUTPUT BENCHMARK_JSON..."""
import json
import re
import sys

# clalgo benchmark (name before the size) -> CUB's line name
PAIRS = [
    ("reduce/clalgo_sum_int32_into", "cub_reduce_sum_int32"),
    ("reduce/clalgo_sum_int32", "cub_reduce_sum_int32_to_host"),
    ("reduce/clalgo_sum_float_into", "cub_reduce_sum_float"),
    ("reduce/clalgo_dot_float_into", "cub_dot_float"),
    ("inclusive_scan/clalgo_int32", "cub_inclusive_scan_int32"),
    ("exclusive_scan/clalgo_int32", "cub_exclusive_scan_int32"),
    ("copy_if/clalgo_even_int32_into", "cub_select_even_random"),
    ("copy_if/clalgo_even_int32_into_alternating", "cub_select_even_alternating"),
    ("copy_if/clalgo_even_int32", "cub_select_even_random"),
    ("elementwise/clalgo_saxpy", "thrust_saxpy_float"),
    ("sort/clalgo_uint32_keys", "cub_radix_sort_keys_uint32"),
    ("sort/clalgo_uint32_pairs", "cub_radix_sort_pairs_uint32"),
    ("sort/clalgo_uint64_keys", "cub_radix_sort_keys_uint64"),
    ("reduce_by_key/clalgo_float", "cub_reduce_by_key_float"),
    ("histogram/clalgo_256_int32", "cub_histogram_256_int32"),
    ("segmented_reduce/clalgo_256_float", "cub_segmented_reduce_256_float"),
]


def main():
    cub = {}
    for line in open(sys.argv[1]):
        match = re.match(r"(\w+) n=(\d+): ([\d.]+) ms", line)
        if match:
            cub[(match.group(1), int(match.group(2)))] = float(match.group(3)) * 1000.0
    clalgo = {}
    for path in sys.argv[2:]:
        try:
            runs = json.load(open(path))["benchmarks"]
        except (OSError, ValueError) as error:
            print(f"(skipping {path}: {error})")
            continue
        for run in runs:
            match = re.match(r"(.+)/(\d+)/manual_time", run["run_name"])
            if match and run.get("aggregate_name") == "median":
                clalgo[(match.group(1), int(match.group(2)))] = run["real_time"]  # microseconds
    sizes = sorted({n for (_, n) in cub})
    print("| clalgo µs / CUB µs (ratio: CUB time / clalgo time) | " + " | ".join(f"2^{n.bit_length() - 1}" for n in sizes) + " |")
    print("|---" * (len(sizes) + 1) + "|")
    for mine, theirs in PAIRS:
        if not any((mine, n) in clalgo for n in sizes):
            continue
        cells = []
        for n in sizes:
            if (mine, n) in clalgo and (theirs, n) in cub:
                a, b = clalgo[(mine, n)], cub[(theirs, n)]
                cells.append(f"{a:.0f} / {b:.0f} ({b / a:.2f})")
            else:
                cells.append("not run")
        print(f"| {mine} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
