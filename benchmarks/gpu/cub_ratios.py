#!/usr/bin/env python3
"""clalgo's figures beside the CUDA peers' from one run (run_nvidia.sh): a Markdown table of throughput ratios,
peer time / clalgo time, so 1.00 means as fast as the peer and more is faster.

    python3 benchmarks/gpu/cub_ratios.py RESULTS_DIR --cub RESULTS_DIR/cuda_peers.txt

clalgo's time for each line is the fastest of its repetitions, each the mean of back-to-back runs on one queue
(bench_support.hpp, time_device); a peer's is the best of its runs timed with CUDA events (cuda_peers.cu).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import bench_results  # noqa: E402

SIZE = 1 << 28

# (what, clalgo benchmark (primitive, implementation, size), peer, goal (a ratio to reach) or None)
COMPARISONS = [
    ("reduce, int32 sum, result on the device", ("reduce", "clalgo_sum_int32_into", SIZE), "cub_reduce_sum", 0.95),
    ("inclusive scan, int32 sum", ("inclusive_scan", "clalgo_int32", SIZE), "cub_inclusive_scan", 0.85),
    ("exclusive scan, int32 sum (vs CUB's inclusive)", ("exclusive_scan", "clalgo_int32", SIZE),
     "cub_inclusive_scan", None),
    ("copy_if even int32, into kept arrays, cuda_peers' data", ("copy_if", "clalgo_even_int32_into_alternating", SIZE),
     "cub_select_if", 1.0),
    ("copy_if even int32, into kept arrays, random data", ("copy_if", "clalgo_even_int32_into", SIZE),
     "cub_select_if", None),
    ("copy_if even int32, allocating, random data", ("copy_if", "clalgo_even_int32", SIZE), "cub_select_if", None),
    ("Euler 43, all 1,111,111,112 candidates", ("euler43", "clalgo", "all"), "thrust_euler43", None),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the folder holding the clalgo benchmarks' JSON files")
    parser.add_argument("--cub", required=True, help="the output of cuda_peers from the same run")
    args = parser.parse_args()

    results = bench_results.load_results(args.results)
    peers, peer_device = bench_results.load_cuda_peers(args.cub)
    print(f"clalgo on {results.context.get('device', '?')}; peers on {peer_device}; {results.context.get('date', '')}\n")
    print("| primitive | clalgo, fastest (median) | peer | peer time | ratio: peer time / clalgo time | goal |")
    print("|---|---|---|---|---|---|")
    for what, key, peer_name, goal in COMPARISONS:
        figure = results.figures.get(key)
        peer = peers.get(peer_name)
        if figure is None or peer is None:
            missing = "clalgo's " + "/".join(map(str, key)) if figure is None else peer_name
            print(f"| {what} | | | | missing: {missing} | |")
            continue
        best = figure.best_seconds or figure.seconds
        ratio = peer.seconds / best
        verdict = "" if goal is None else f"≥ {goal:.2f} {'met' if ratio >= goal else 'NOT met'}"
        print(f"| {what} | {best * 1e3:.3f} ms ({figure.seconds * 1e3:.3f} ms) | {peer_name} | "
              f"{peer.seconds * 1e3:.3f} ms | {ratio:.2f} | {verdict} |")

    # saxpy moves 3 x 4 bytes an item, the copy 2 x 4: compare bandwidths, not times
    saxpy = results.figures.get(("elementwise", "clalgo_saxpy", SIZE))
    copy = peers.get("memcpy_d2d")
    if saxpy and copy:
        saxpy_bandwidth = 3 * 4 * SIZE / (saxpy.best_seconds or saxpy.seconds) / 1e9
        copy_bandwidth = 2 * 4 * copy.items / copy.seconds / 1e9
        print(f"| saxpy, float (reads 2, writes 1) | {(saxpy.best_seconds or saxpy.seconds) * 1e3:.3f} ms "
              f"({saxpy_bandwidth:.0f} GB/s) | memcpy_d2d | {copy.seconds * 1e3:.3f} ms ({copy_bandwidth:.0f} GB/s) | "
              f"{saxpy_bandwidth / copy_bandwidth:.2f} of the copy's bandwidth | |")


if __name__ == "__main__":
    main()
