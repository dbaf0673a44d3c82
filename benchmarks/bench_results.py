"""Reading benchmark results: the JSON files the clalgo benchmark programs write (Google Benchmark's
--benchmark_out format) and the text a CUDA program of the peers prints (lines "<name> <type> N=2^<k>: <ms> ms"). Used by plot.py and
gpu/cub_ratios.py; needs only the standard library.

    results = load_results("build/benchmarks/results")   # {(primitive, implementation, size): Figure}
    peers = load_cuda_peers("cuda_peers.txt")              # {"cub_reduce_sum": Peer, ...}
"""

import glob
import json
import os
import re
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

# Time units of Google Benchmark, in seconds.
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}

Size = Union[int, str]  # a size in items, or a label such as "slice" or "all" (Euler 43)


@dataclass
class Figure:
    """One benchmark's figures: seconds per run, bytes and items per second (None where it reports none), the
    median of its repetitions; the fastest repetition's seconds; how many repetitions there were."""
    seconds: float
    bytes_per_second: Optional[float]
    items_per_second: Optional[float]
    repetitions: int
    best_seconds: float = 0.0
    label: str = ""


@dataclass
class Results:
    figures: Dict[Tuple[str, str, Size], Figure] = field(default_factory=dict)
    context: Dict[str, str] = field(default_factory=dict)  # device, date, host_name, ... of the first file


def split_name(name: str) -> Tuple[str, str, Size]:
    """'reduce/clalgo_sum_int32/1024/manual_time' -> ('reduce', 'clalgo_sum_int32', 1024)."""
    parts = [p for p in name.split("/") if p not in ("manual_time", "real_time")]
    if len(parts) < 3:
        parts += [""] * (3 - len(parts))
    primitive, implementation, size = parts[0], parts[1], "/".join(parts[2:])
    return primitive, implementation, int(size) if size.isdigit() else size


def _median_figure(runs: List[dict]) -> Figure:
    def median(key):
        values = [r[key] for r in runs if key in r]
        return statistics.median(values) if values else None

    unit = UNITS[runs[0].get("time_unit", "ns")]
    return Figure(seconds=median("real_time") * unit, bytes_per_second=median("bytes_per_second"),
                  items_per_second=median("items_per_second"), repetitions=len(runs),
                  best_seconds=min(r["real_time"] for r in runs) * unit, label=runs[0].get("label", ""))


def load_results(directory: str) -> Results:
    """Every *.json under `directory`. Where a benchmark ran several times (--benchmark_repetitions), its figures
    are the median of the repetitions (Google Benchmark's own median where only aggregates were written).
    Benchmarks that stopped with an error are left out."""
    results = Results()
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    if not files:
        raise SystemExit(f"no benchmark results (*.json) in {directory}: run the run_benchmarks target first")
    for path in files:
        with open(path) as f:
            data = json.load(f)
        if not results.context:
            results.context = data.get("context", {})
        runs: Dict[str, List[dict]] = {}
        medians: Dict[str, dict] = {}
        repetitions: Dict[str, int] = {}
        for entry in data.get("benchmarks", []):
            if entry.get("error_occurred"):
                continue
            name = entry.get("run_name", entry["name"])
            if entry.get("run_type") == "aggregate":
                if entry.get("aggregate_name") == "median":
                    medians[name] = entry
                    repetitions[name] = entry.get("repetitions", 0)
            else:
                runs.setdefault(name, []).append(entry)
        for name in set(runs) | set(medians):
            if name in medians and name not in runs:  # --benchmark_report_aggregates_only
                figure = _median_figure([medians[name]])
                figure.repetitions = repetitions[name] or 1
                figure.best_seconds = 0.0  # unknown
            else:
                figure = _median_figure(runs[name])
            results.figures[split_name(name)] = figure
    return results


def sizes_of(results: Results, primitive: str, implementation: str) -> List[Size]:
    found = [s for (p, i, s) in results.figures if p == primitive and i == implementation]
    return sorted(found, key=lambda s: (isinstance(s, str), s))


@dataclass
class Peer:
    """One line of cuda_peers' output: what ran, on how many items, in what time (best of its runs)."""
    name: str
    items: int
    seconds: float
    line: str


# "cub_reduce_sum int32 N=2^28: 0.245 ms, 4379 GB/s" ; "cub_select_if(even) int32 N=2^28: 0.585 ms, ..."
_PEER_LINE = re.compile(r"^(?P<name>\w+)[^:]*:\s*(?P<ms>[\d.]+)\s*ms\b")
_PEER_SIZE = re.compile(r"\bN=(?P<base>\d+)\^(?P<exp>\d+)")
EULER43_CANDIDATES = 1111111112  # what thrust_euler43 reduces over


def load_cuda_peers(path: str) -> Tuple[Dict[str, Peer], str]:
    """The timed lines of a cuda_peers output file by name, and the device line ("NVIDIA H200 SMs 132")."""
    peers: Dict[str, Peer] = {}
    device = ""
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("device "):
                device = re.sub(r"\s+SMs\s+\d+$", "", line[len("device "):])
                continue
            match = _PEER_LINE.match(line)
            if not match:
                continue
            name = match.group("name")
            size = _PEER_SIZE.search(line.split(":")[0])
            if size:
                items = int(size.group("base")) ** int(size.group("exp"))
            elif name == "thrust_euler43":
                items = EULER43_CANDIDATES
            else:
                items = 0
            peers[name] = Peer(name, items, float(match.group("ms")) * 1e-3, line)
    return peers, device


def size_label(size: Size) -> str:
    """1024 -> '2^10'; other sizes unchanged."""
    if isinstance(size, int) and size > 0 and size & (size - 1) == 0:
        return f"2^{size.bit_length() - 1}"
    return str(size)
