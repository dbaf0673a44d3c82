#!/usr/bin/env python3
"""Tables and plots of clalgo's benchmark results, beside CUB/Thrust (GPU) or the std:: algorithms (CPU).

A result folder holds the JSON files of clalgo's benchmark programs (Google Benchmark's --benchmark_out) and,
for a GPU, `cub.txt`: the output of benchmarks/gpu/cub_compare.cu run in the same command. A folder may also
hold subfolders, each a result set of its own (its JSON beside its own cub.txt), and `excluded.txt`: one regular
expression a line, matching "<benchmark>/<size>" names to leave out (# starts a comment: say why there).

    benchmarks/results.py RESULTS [--out OUT] [--families sort,scan] [--no-plots]
        prints one Markdown table per family found, writes them to OUT/tables.md and plots OUT/<family>.png
        (OUT defaults to RESULTS)
    benchmarks/results.py --docs [--check]
        the tables of docs/performance.md (between its "<!-- results: DEVICE FAMILY -->" and
        "<!-- end results -->" lines) and the plots docs/images/<family>.png, made again from
        docs/benchmark-results/<device>/; --check writes nothing and fails where a table differs

Every figure is the time of one call: clalgo's and CUB's the time per call of calls back to back on the device
(median of the repetitions where there are several), std::'s the wall time of one call. A cell reads
"clalgo µs / peer µs (ratio)", the ratio being the peer's time over clalgo's (above 1: clalgo is faster); the
peer is CUB or Thrust where cub.txt is there, else the fastest of the std:: versions measured at that size
(the array family's peer is always the ReductionKernel a user would write, from the same program).
Needs only the standard library, and matplotlib for the plots (Debian: python3-matplotlib).
"""

import argparse
import difflib
import glob
import json
import os
import re
import math
import statistics
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}  # Google Benchmark's time units, in microseconds


@dataclass
class Row:
    label: str
    clalgo: str             # benchmark name without the size: "reduce/clalgo_sum_int32_into"
    cub: Optional[str]      # CUB's line name in cub.txt
    std: List[str] = field(default_factory=list)  # std:: baselines of the same program, the fastest is the peer


@dataclass
class Family:
    name: str
    title: str
    program: str            # the benchmark program that measures it
    rows: List[Row]
    baseline: str = ""      # where set, the peers are these benchmarks of the same program, on every device


def _std(prefix: str, *names: str) -> List[str]:
    return [f"{prefix}/{name}" for name in names]


FAMILIES = [
    Family("map", "Maps: saxpy z = a*x + y, float (ElementwiseKernel)",
           "bench_elementwise", [
               Row("saxpy float", "elementwise/clalgo_saxpy", "thrust_saxpy_float",
                   _std("elementwise", "std_transform_seq", "std_transform_par_unseq")),
           ]),
    Family("reduce", "Reductions (ReductionKernel)", "bench_reduce", [
        Row("sum int32 into a device array", "reduce/clalgo_sum_int32_into", "cub_reduce_sum_int32",
            _std("reduce", "std_reduce_seq", "std_reduce_par", "std_reduce_par_unseq")),
        Row("sum int32 to the host (blocking)", "reduce/clalgo_sum_int32", "cub_reduce_sum_int32_to_host",
            _std("reduce", "std_reduce_seq", "std_reduce_par", "std_reduce_par_unseq")),
        Row("sum float into a device array", "reduce/clalgo_sum_float_into", "cub_reduce_sum_float",
            _std("reduce", "std_reduce_float_seq", "std_reduce_float_par_unseq")),
        Row("dot float into a device array", "reduce/clalgo_dot_float_into", "cub_dot_float",
            _std("reduce", "std_transform_reduce_dot_float_seq", "std_transform_reduce_dot_float_par_unseq")),
    ]),
    Family("scan", "Scans: sums of int32",
           "bench_scan", [
               Row("inclusive scan int32", "inclusive_scan/clalgo_int32", "cub_inclusive_scan_int32",
                   _std("inclusive_scan", "std_inclusive_scan_seq", "std_inclusive_scan_par")),
               Row("exclusive scan int32", "exclusive_scan/clalgo_int32", "cub_exclusive_scan_int32",
                   _std("exclusive_scan", "std_exclusive_scan_seq", "std_exclusive_scan_par")),
           ]),
    Family("compaction", "Compaction: keep the even int32 values",
           "bench_copy_if", [
               Row("copy_if into kept arrays, random data", "copy_if/clalgo_even_int32_into", "cub_select_even_random",
                   _std("copy_if", "std_copy_if_seq", "std_copy_if_par")),
               Row("copy_if allocating its result, random data", "copy_if/clalgo_even_int32", "cub_select_even_random",
                   _std("copy_if", "std_copy_if_seq", "std_copy_if_par")),
               Row("copy_if into kept arrays, alternating parity", "copy_if/clalgo_even_int32_into_alternating",
                   "cub_select_even_alternating",
                   _std("copy_if", "std_copy_if_seq_alternating", "std_copy_if_par_alternating")),
               Row("partition, random data", "copy_if/clalgo_partition_even_int32", None,
                   _std("copy_if", "std_partition_copy_seq", "std_partition_copy_par")),
           ]),
    Family("sort", "Radix sorts of random keys", "bench_sort", [
        Row("uint32 keys", "sort/clalgo_uint32_keys", "cub_radix_sort_keys_uint32",
            _std("sort", "std_sort_seq_uint32_keys", "std_sort_par_uint32_keys")),
        Row("uint32 keys with uint32 values", "sort/clalgo_uint32_pairs", "cub_radix_sort_pairs_uint32", []),
        Row("uint64 keys", "sort/clalgo_uint64_keys", "cub_radix_sort_keys_uint64",
            _std("sort", "std_sort_seq_uint64_keys", "std_sort_par_uint64_keys")),
    ]),
    Family("by_key", "By key: reduce_by_key, histogram, segmented_reduce", "bench_by_key", [
               Row("reduce_by_key float, runs of 1-64 keys", "reduce_by_key/clalgo_float", "cub_reduce_by_key_float",
                   ["reduce_by_key/std_loop_float_seq"]),
               Row("histogram int32, 256 bins", "histogram/clalgo_256_int32", "cub_histogram_256_int32",
                   ["histogram/std_loop_256_int32_seq"]),
               Row("segmented_reduce float, segments of 256", "segmented_reduce/clalgo_256_float",
                   "cub_segmented_reduce_256_float", ["segmented_reduce/std_accumulate_256_float_seq"]),
           ]),
]
FAMILIES.append(Family(
    "array", "One-call array reductions against the ReductionKernel a user would write", "bench_array_algorithms",
    [Row(f"{op} float{' into a device array' if into else ' to the host'}", f"array/clalgo_{op}_float{into}", None,
         [f"array/reduction_kernel_{op}_float{into}"]) for op in ("sum", "min", "max", "dot") for into in ("", "_into")],
    baseline="ReductionKernel"))
FAMILY_NAMES = [f.name for f in FAMILIES]

# the devices of docs/performance.md: the folder under docs/benchmark-results, the name its tables give
DOC_DEVICES = [("h100", "H100"), ("h200", "H200"), ("pocl", "PoCL, 2 cores")]


@dataclass
class Cell:
    clalgo: float           # µs per call
    peer: Optional[float]   # µs per call
    peer_name: str = ""


@dataclass
class Results:
    device: str = ""
    cells: Dict[Tuple[str, int], Cell] = field(default_factory=dict)  # (clalgo benchmark, size) -> Cell
    sizes: Dict[str, List[int]] = field(default_factory=dict)        # family -> sizes measured


def _median_times(paths: List[str], excluded: List[re.Pattern]) -> Tuple[Dict[Tuple[str, int], float], str]:
    """{(benchmark, size): µs} from Google Benchmark JSON files: the median of the repetitions (Google Benchmark's
    own median where only aggregates were written), runs that stopped with an error left out."""
    runs: Dict[Tuple[str, int], List[float]] = {}
    medians: Dict[Tuple[str, int], float] = {}
    device = ""
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        device = device or data.get("context", {}).get("device", "")
        for entry in data.get("benchmarks", []):
            match = re.match(r"(\w+/\w+)/(\d+)(/|$)", entry.get("run_name", entry["name"]))
            if not match or entry.get("error_occurred"):
                continue
            key = (match.group(1), int(match.group(2)))
            if any(pattern.search(f"{key[0]}/{key[1]}") for pattern in excluded):
                continue
            time = entry["real_time"] * UNITS[entry.get("time_unit", "ns")]
            if entry.get("run_type") == "aggregate":
                if entry.get("aggregate_name") == "median":
                    medians[key] = time
            else:
                runs.setdefault(key, []).append(time)
    times = {key: statistics.median(values) for key, values in runs.items()}
    times.update(medians)
    return times, device


def _cub_times(path: str) -> Dict[Tuple[str, int], float]:
    """{(name, size): µs} from cub_compare's lines "<name> n=<size>: <ms> ms, ..."."""
    times = {}
    with open(path) as f:
        for line in f:
            match = re.match(r"(\w+) n=(\d+): ([\d.]+) ms", line)
            if match:
                times[(match.group(1), int(match.group(2)))] = float(match.group(3)) * 1000.0
    return times


def _result_sets(folder: str) -> List[str]:
    """The folders under `folder` (itself included) that hold benchmark JSON files."""
    found = []
    for directory, subdirectories, files in os.walk(folder):
        subdirectories.sort()
        if any(name.endswith(".json") for name in files):
            found.append(directory)
    return found


def load(folder: str) -> Results:
    """Every result set under `folder`, merged: each clalgo figure with the peer of its own set."""
    results = Results()
    sets = _result_sets(folder)
    if not sets:
        sys.exit(f"results.py: no benchmark results (*.json) under {folder}")
    for directory in sets:
        excluded = []
        exclusions = os.path.join(directory, "excluded.txt")
        if os.path.exists(exclusions):
            with open(exclusions) as f:
                excluded = [re.compile(line.split("#")[0].strip()) for line in f if line.split("#")[0].strip()]
        times, device = _median_times(sorted(glob.glob(os.path.join(directory, "*.json"))), excluded)
        results.device = results.device or device
        cub_path = os.path.join(directory, "cub.txt")
        cub = _cub_times(cub_path) if os.path.exists(cub_path) else None
        for family in FAMILIES:
            for row in family.rows:
                for (name, size), mine in times.items():
                    if name != row.clalgo:
                        continue
                    if cub is not None and not family.baseline:
                        peer = cub.get((row.cub, size)) if row.cub else None
                        cell = Cell(mine, peer, "CUB" if peer is not None else "")
                    else:
                        peers = [(times[(s, size)], s) for s in row.std if (s, size) in times]
                        best = min(peers) if peers else None
                        cell = Cell(mine, best[0] if best else None, "std::" if best else "")
                    if (name, size) in results.cells:
                        print(f"results.py: {name}/{size} is in more than one set under {folder}; "
                              f"keeping {directory}'s", file=sys.stderr)
                    results.cells[(name, size)] = cell
                    sizes = results.sizes.setdefault(family.name, [])
                    if size not in sizes:
                        sizes.append(size)
    for sizes in results.sizes.values():
        sizes.sort()
    return results


def size_label(n: int) -> str:
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def microseconds(t: float) -> str:
    return f"{t:.1f}" if t < 100 else f"{t:,.0f}"


def has_peer_kind(results: Results, family: Family) -> str:
    """What the family's peers are: 'CUB/Thrust' where they came from cub.txt, else 'fastest std::' (or the
    family's own baseline)."""
    if family.baseline:
        return family.baseline
    for row in family.rows:
        for size in results.sizes.get(family.name, []):
            cell = results.cells.get((row.clalgo, size))
            if cell and cell.peer_name == "CUB":
                return "CUB/Thrust"
    return "fastest std::"


def table(results: Results, family: Family, device: str) -> Optional[str]:
    sizes = results.sizes.get(family.name)
    if not sizes:
        return None
    lines = [f"| {device}: clalgo µs / {has_peer_kind(results, family)} µs (ratio) | " + " | ".join(size_label(n) for n in sizes) + " |",
             "|---" * (len(sizes) + 1) + "|"]
    for row in family.rows:
        cells = []
        for n in sizes:
            cell = results.cells.get((row.clalgo, n))
            if cell is None:
                cells.append("")
            elif cell.peer is None:
                cells.append(microseconds(cell.clalgo))
            else:
                cells.append(f"{microseconds(cell.clalgo)} / {microseconds(cell.peer)} ({cell.peer / cell.clalgo:.2f})")
        if any(cells):
            lines.append(f"| {row.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ensure_matplotlib():
    """matplotlib's pyplot, running this script again under Debian's Python where the current one lacks it."""
    try:
        import matplotlib
    except ImportError:
        system_python = "/usr/bin/python3"
        if os.path.exists(system_python) and os.path.realpath(sys.executable) != os.path.realpath(system_python):
            os.execv(system_python, [system_python, os.path.abspath(__file__)] + sys.argv[1:])
        sys.exit("results.py: the plots need matplotlib (Debian: apt-get install python3-matplotlib); "
                 "--no-plots writes the tables alone")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(family: Family, panels: List[Tuple[str, Results]], path: str) -> bool:
    """One PNG for the family: a panel per device, time per call against the size (both logarithmic), clalgo
    solid, its peer dashed in the same colour."""
    panels = [(device, results) for device, results in panels if results.sizes.get(family.name)]
    if not panels:
        return False
    plt = ensure_matplotlib()
    from matplotlib.ticker import FuncFormatter, NullLocator
    figure, axes_list = plt.subplots(1, len(panels), figsize=(max(6.0, 4.6 * len(panels) + 0.6), 3.9), squeeze=False)
    for axes, (device, results) in zip(axes_list[0], panels):
        peer = has_peer_kind(results, family)
        for index, row in enumerate(family.rows):
            points = [(n, results.cells[(row.clalgo, n)]) for n in results.sizes[family.name]
                      if (row.clalgo, n) in results.cells]
            if not points:
                continue
            colour = f"C{index}"
            axes.plot([n for n, _ in points], [c.clalgo for _, c in points], color=colour, marker="o",
                      markersize=3, label=f"clalgo {row.label}")
            peers = [(n, c.peer) for n, c in points if c.peer is not None]
            if peers:
                axes.plot([n for n, _ in peers], [t for _, t in peers], color=colour, linestyle="--",
                          linewidth=1, label=peer)
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xticks(results.sizes[family.name])
        axes.xaxis.set_minor_locator(NullLocator())
        axes.tick_params(labelsize=7)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"$2^{{{int(round(math.log2(x)))}}}$"))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        axes.set_xlabel("items")
        axes.set_ylabel("µs per call")
        axes.set_title(device.split(" (")[0], fontsize=9)
        axes.grid(True, which="major", alpha=0.3)
        handles, labels = axes.get_legend_handles_labels()
        unique = dict(zip(labels, handles))  # one legend entry for each peer kind
        axes.legend(unique.values(), unique.keys(), fontsize=6, loc="upper left")
    figure.suptitle(family.title, fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)
    return True


def pick_families(names: Optional[str]) -> List[Family]:
    if not names:
        return FAMILIES
    chosen = names.split(",")
    unknown = [n for n in chosen if n not in FAMILY_NAMES]
    if unknown:
        sys.exit(f"results.py: unknown families {unknown}; known: {', '.join(FAMILY_NAMES)}")
    return [f for f in FAMILIES if f.name in chosen]


def report(folder: str, out: str, families: List[Family], plots: bool) -> None:
    results = load(folder)
    device = results.device or folder
    os.makedirs(out, exist_ok=True)
    text = [f"clalgo on {device}. Cells: clalgo µs / peer µs per call (the peer's time over clalgo's; above 1: "
            "clalgo is faster)."]
    for family in families:
        t = table(results, family, family.name)
        if t:
            text += ["", f"## {family.title}", "", t]
            if plots and plot(family, [(device, results)], os.path.join(out, f"{family.name}.png")):
                text += ["", f"![{family.name}]({family.name}.png)"]
    with open(os.path.join(out, "tables.md"), "w") as f:
        f.write("\n".join(text) + "\n")
    print("\n".join(text))
    print(f"\nresults.py: wrote {os.path.join(out, 'tables.md')}" + (" and the plots" if plots else ""))


def docs(check: bool) -> None:
    """The tables of docs/performance.md and the plots in docs/images, made again from docs/benchmark-results."""
    loaded = {folder: load(os.path.join(REPOSITORY, "docs", "benchmark-results", folder))
              for folder, _ in DOC_DEVICES}
    page = os.path.join(REPOSITORY, "docs", "performance.md")
    with open(page) as f:
        text = f.read()

    def replace(match):
        folder, family_name = match.group(1), match.group(2)
        family = next(f for f in FAMILIES if f.name == family_name)
        name = dict(DOC_DEVICES)[folder]
        made = table(loaded[folder], family, name) or f"(no {family_name} results under {folder})"
        return f"{match.group(0).splitlines()[0]}\n{made}\n<!-- end results -->"

    marker = re.compile(r"<!-- results: (\w+) (\w+) -->\n.*?<!-- end results -->", re.S)
    made = marker.sub(replace, text)
    if check:
        if made != text:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), made.splitlines(True),
                                                       "docs/performance.md", "made from docs/benchmark-results"))
            sys.exit("results.py: docs/performance.md's tables differ from the raw results: run "
                     "`python3 benchmarks/results.py --docs`")
        print("results.py: docs/performance.md's tables agree with docs/benchmark-results")
        return
    with open(page, "w") as f:
        f.write(made)
    images = os.path.join(REPOSITORY, "docs", "images")
    os.makedirs(images, exist_ok=True)
    for family in FAMILIES:
        if f"{family.name} -->" not in made:
            continue  # a family the page does not show
        panels = [(name, loaded[folder]) for folder, name in DOC_DEVICES]
        if plot(family, panels, os.path.join(images, f"{family.name}.png")):
            print(f"results.py: wrote docs/images/{family.name}.png")
    print("results.py: docs/performance.md's tables made again")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="?", help="a result folder (JSON files, cub.txt)")
    parser.add_argument("--out", help="where tables.md and the plots go (default: the result folder)")
    parser.add_argument("--families", help=f"comma-separated, of {', '.join(FAMILY_NAMES)} (default: all)")
    parser.add_argument("--no-plots", action="store_true", help="tables only")
    parser.add_argument("--docs", action="store_true", help="remake docs/performance.md's tables and its plots")
    parser.add_argument("--check", action="store_true", help="with --docs: only check the tables")
    args = parser.parse_args()
    if (args.docs and not args.check) or (args.results and not args.no_plots):
        ensure_matplotlib()  # first, as it may run the script again under another Python
    if args.docs:
        docs(args.check)
    elif args.results:
        report(args.results, args.out or args.results, pick_families(args.families), not args.no_plots)
    else:
        parser.error("give a result folder, or --docs")


if __name__ == "__main__":
    main()
