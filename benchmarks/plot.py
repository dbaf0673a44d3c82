#!/usr/bin/env python3
"""Plots the clalgo benchmark results: one PNG per primitive, throughput against input size (log2 axis),
clalgo beside its std:: counterparts, and CUB where the output of a CUDA program of the peers is given (the format
benchmarks/bench_results.py reads: lines "<name> <type> N=2^<k>: <ms> ms").

    benchmarks/plot.py build/benchmarks/results                      # PNGs into build/benchmarks/results/plots
    benchmarks/plot.py build/benchmarks/results --out docs/images/pocl
    benchmarks/plot.py results --cub cuda_peers.txt --out plots      # adds CUB's point at its size (2^28)
    benchmarks/plot.py build/benchmarks/results --table              # Markdown tables at 2^26, no plots

The plots need matplotlib from Debian's python3-matplotlib. Where the running Python lacks it, the script runs
itself again under /usr/bin/python3, and installs the package with apt-get when it runs as root (else it prints
the command to run).
"""

import argparse
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_results  # noqa: E402  (next to this script)
from bench_results import size_label  # noqa: E402


@dataclass
class Series:
    implementation: str  # the middle part of the benchmark name: reduce/<implementation>/<size>
    label: str


@dataclass
class Plot:
    file: str            # PNG name, without .png
    title: str
    primitive: str       # the first part of the benchmark name
    metric: str          # "bytes" (GB/s) or "items" (G items/s)
    series: List[Series]
    peer: Optional[Tuple[str, str]] = None  # (cuda_peers name, label) to add as one point


# What each plot shows. clalgo's series come first and are drawn solid; the std:: ones dashed.
PLOTS = [
    Plot("reduce_int32", "reduce: sum of int32", "reduce", "bytes", [
        Series("clalgo_sum_int32_into", "clalgo ReductionKernel, result on the device (.into)"),
        Series("clalgo_sum_int32", "clalgo ReductionKernel, result read back (operator())"),
        Series("std_reduce_seq", "std::reduce"),
        Series("std_reduce_par", "std::reduce(par)"),
        Series("std_reduce_par_unseq", "std::reduce(par_unseq)"),
    ], ("cub_reduce_sum", "CUB DeviceReduce::Sum")),
    Plot("reduce_float", "reduce: float sum and dot product", "reduce", "bytes", [
        Series("clalgo_sum_float_into", "clalgo sum, float (.into)"),
        Series("clalgo_dot_float_into", "clalgo dot product, float (.into)"),
        Series("std_reduce_float_seq", "std::reduce, float"),
        Series("std_reduce_float_par_unseq", "std::reduce(par_unseq), float"),
        Series("std_transform_reduce_dot_float_seq", "std::transform_reduce dot, float"),
        Series("std_transform_reduce_dot_float_par_unseq", "std::transform_reduce(par_unseq) dot, float"),
    ]),
    Plot("inclusive_scan", "inclusive scan: sum of int32", "inclusive_scan", "bytes", [
        Series("clalgo_int32", "clalgo InclusiveScanKernel"),
        Series("std_inclusive_scan_seq", "std::inclusive_scan"),
        Series("std_inclusive_scan_par", "std::inclusive_scan(par)"),
    ], ("cub_inclusive_scan", "CUB DeviceScan::InclusiveSum")),
    Plot("exclusive_scan", "exclusive scan: sum of int32", "exclusive_scan", "bytes", [
        Series("clalgo_int32", "clalgo ExclusiveScanKernel"),
        Series("std_exclusive_scan_seq", "std::exclusive_scan"),
        Series("std_exclusive_scan_par", "std::exclusive_scan(par)"),
    ]),
    Plot("copy_if", "copy_if: keep the even values of random int32 (half of them)", "copy_if", "items", [
        Series("clalgo_even_int32_into", "clalgo copy_if into arrays kept between calls"),
        Series("clalgo_even_int32", "clalgo copy_if, allocating its result"),
        Series("std_copy_if_seq", "std::copy_if"),
        Series("std_copy_if_par", "std::copy_if(par)"),
    ]),
    Plot("copy_if_alternating", "copy_if: keep the even values of cuda_peers' int32 data (parity alternates)",
         "copy_if", "items", [
             Series("clalgo_even_int32_into_alternating", "clalgo copy_if into arrays kept between calls"),
             Series("std_copy_if_seq_alternating", "std::copy_if"),
             Series("std_copy_if_par_alternating", "std::copy_if(par)"),
         ], ("cub_select_if", "CUB DeviceSelect::If, the same data")),
    Plot("elementwise_saxpy", "elementwise: saxpy z = a*x + y, float", "elementwise", "bytes", [
        Series("clalgo_saxpy", "clalgo ElementwiseKernel"),
        Series("std_transform_seq", "std::transform"),
        Series("std_transform_par_unseq", "std::transform(par_unseq)"),
    ], ("memcpy_d2d", "cudaMemcpy device to device (the memory roof)")),
    Plot("euler43", "Project Euler 43: a reduction over an index range", "euler43", "items", [
        Series("clalgo", "clalgo ReductionKernel over clalgo::range"),
        Series("std_transform_reduce_seq", "std::transform_reduce"),
        Series("std_transform_reduce_par_unseq", "std::transform_reduce(par_unseq)"),
    ], ("thrust_euler43", "Thrust transform_reduce, counting iterator")),
]

METRIC = {"bytes": ("GB/s", "bytes_per_second"), "items": ("G items/s", "items_per_second")}


def value(figure, metric: str) -> Optional[float]:
    per_second = getattr(figure, METRIC[metric][1])
    return per_second / 1e9 if per_second else None


def peer_value(peer, metric: str) -> Optional[float]:
    """CUB's throughput counted as clalgo counts it (bytes per run as the matching benchmark defines them)."""
    if peer.items == 0:
        return None
    if metric == "items":
        return peer.items / peer.seconds / 1e9
    bytes_per_item = {"cub_reduce_sum": 4, "cub_inclusive_scan": 8, "memcpy_d2d": 8}.get(peer.name)
    return peer.items * bytes_per_item / peer.seconds / 1e9 if bytes_per_item else None


def device_title(results) -> str:
    device = results.context.get("device", "unknown device")
    date = results.context.get("date", "")[:10]
    return f"{device}, {date}" if date else device


def draw(plot: Plot, results, peers, device: str, out_dir: str) -> Optional[str]:
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullLocator

    unit = METRIC[plot.metric][0]
    lines = []
    for series in plot.series:
        sizes = bench_results.sizes_of(results, plot.primitive, series.implementation)
        points = [(s, value(results.figures[(plot.primitive, series.implementation, s)], plot.metric)) for s in sizes]
        points = [(s, v) for s, v in points if v]
        if points:
            lines.append((series, points))
    if not lines:
        return None

    fig, ax = plt.subplots(figsize=(9, 5.5))
    numeric = all(isinstance(s, int) for _, points in lines for s, _ in points)
    if numeric:
        for series, points in lines:
            is_clalgo = series.implementation.startswith("clalgo")
            ax.plot([s for s, _ in points], [v for _, v in points], marker="o" if is_clalgo else "s",
                    linestyle="-" if is_clalgo else "--", linewidth=2 if is_clalgo else 1.5, label=series.label)
        if plot.peer and plot.peer[0] in peers:
            peer = peers[plot.peer[0]]
            v = peer_value(peer, plot.metric)
            if v:
                ax.plot([peer.items], [v], marker="*", markersize=16, linestyle="none", color="black",
                        label=f"{plot.peer[1]} ({device})" if device else plot.peer[1])
        ax.set_xscale("log", base=2)
        ticks = sorted({s for _, points in lines for s, _ in points} |
                       ({peers[plot.peer[0]].items} if plot.peer and plot.peer[0] in peers else set()))
        ax.set_xticks(ticks)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "$" + size_label(int(round(x))).replace("^", "^{") + "}$"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("input size, items (log2 scale)")
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        ax.set_ylabel(f"throughput, {unit} (log scale)")
        ax.legend(fontsize=8, loc="best")
    else:
        # sizes that are labels (Euler 43's "slice" and "all"): one bar per implementation and part
        bars = [(f"{series.label}\n({size})", v, series.implementation.startswith("clalgo"))
                for series, points in lines for size, v in points]
        if plot.peer and plot.peer[0] in peers:
            v = peer_value(peers[plot.peer[0]], plot.metric)
            if v:
                bars.append((f"{plot.peer[1]}\n(all, {device})", v, False))
        positions = range(len(bars))
        ax.barh(list(positions), [v for _, v, _ in bars],
                color=["tab:blue" if clalgo else "tab:gray" for _, _, clalgo in bars])
        ax.set_yticks(list(positions))
        ax.set_yticklabels([label for label, _, _ in bars], fontsize=8)
        ax.invert_yaxis()
        values = [v for _, v, _ in bars]
        if max(values) > 50 * min(values):  # a GPU beside a CPU
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
            ax.set_xlim(right=max(values) * 2)
            unit += ", log scale"
        else:
            ax.set_xlim(0, max(values) * 1.12)  # room for the figures beside the bars
        ax.set_xlabel(f"throughput, {unit} (candidates tested per second)")
        for y, (_, v, _) in zip(positions, bars):
            ax.text(v, y, f" {v:.3g}", va="center", fontsize=8)
    ax.set_title(f"{plot.title}\n{device_title(results)}", fontsize=10)
    ax.grid(True, which="major", alpha=0.4)
    fig.tight_layout()
    path = os.path.join(out_dir, plot.file + ".png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def table(results, size: int) -> str:
    """Markdown: each benchmark at `size` (Euler 43 at its slice), with its ratio to the fastest std:: one."""
    out = []
    for plot in PLOTS:
        rows = []
        for series in plot.series:
            sizes = bench_results.sizes_of(results, plot.primitive, series.implementation)
            labels = [s for s in sizes if isinstance(s, str)]
            # Euler 43: the slice, which every implementation runs (the std:: ones do not run "all")
            chosen = size if size in sizes else ("slice" if "slice" in labels else next(iter(labels), None))
            if chosen is None:
                continue
            rows.append((series, chosen, results.figures[(plot.primitive, series.implementation, chosen)]))
        if not rows:
            continue
        std_times = [f.seconds for s, _, f in rows if s.implementation.startswith("std_")]
        fastest_std = min(std_times) if std_times else None
        unit = METRIC[plot.metric][0]
        out.append(f"\n**{plot.title}**, n = {size_label(rows[0][1])}\n")
        out.append(f"| implementation | time per run | {unit} | ratio to the fastest std:: (its time / this time) |")
        out.append("|---|---|---|---|")
        for series, _, figure in rows:
            ratio = f"{fastest_std / figure.seconds:.2f}" if fastest_std else ""
            out.append(f"| {series.label} | {figure.seconds * 1e3:.3f} ms | {value(figure, plot.metric):.3g} | {ratio} |")
    return "\n".join(out)


def ensure_matplotlib() -> None:
    """Imports matplotlib, or runs this script under Debian's Python, installing python3-matplotlib if need be."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        return
    except ImportError:
        pass
    system_python = "/usr/bin/python3"
    have = os.path.exists(system_python) and subprocess.run(
        [system_python, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0
    if not have:
        command = ["apt-get", "install", "-y", "--no-install-recommends", "python3-matplotlib"]
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            sys.exit("plot.py needs matplotlib: install it with\n  sudo apt-get update && sudo " + " ".join(command))
        print("plot.py: installing python3-matplotlib", file=sys.stderr)
        subprocess.run(["apt-get", "update"], check=True)
        subprocess.run(command, check=True)
    if os.path.realpath(sys.executable) == os.path.realpath(system_python):
        import matplotlib
        matplotlib.use("Agg")
        return
    os.execv(system_python, [system_python, os.path.abspath(__file__)] + sys.argv[1:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="directory holding the benchmark programs' JSON files")
    parser.add_argument("--out", help="where to write the PNGs (default: <results>/plots)")
    parser.add_argument("--cub", help="a file holding the output of cuda_peers, to add CUB's points")
    parser.add_argument("--table", action="store_true", help="print Markdown tables instead of plotting")
    parser.add_argument("--size", type=int, default=1 << 26, help="the size the tables show (default 2^26)")
    args = parser.parse_args()

    results = bench_results.load_results(args.results)
    if args.table:
        print(f"Device: {results.context.get('device', '?')}; date: {results.context.get('date', '?')}")
        print(table(results, args.size))
        return

    peers, device = bench_results.load_cuda_peers(args.cub) if args.cub else ({}, "")
    ensure_matplotlib()
    out_dir = args.out or os.path.join(args.results, "plots")
    os.makedirs(out_dir, exist_ok=True)
    for plot in PLOTS:
        path = draw(plot, results, peers, device, out_dir)
        if path:
            print(f"wrote {path}")
    covered = {p.primitive for p in PLOTS}
    for primitive in sorted({p for (p, _, _) in results.figures} - covered):
        print(f"plot.py: no plot is defined for '{primitive}' (add one to PLOTS)", file=sys.stderr)


if __name__ == "__main__":
    main()
