#!/usr/bin/env python3
"""The tables (and, where matplotlib is installed, the plot) of docs/scaling.md from the logs of run_scaling.sh.

    benchmarks/gpu/scaling_table.py RESULTS [--plot FILE.png]

Prints, in Markdown: each workload's time on 1, 2 and 4 devices (DeviceSet) and ranks (MPI) with the speedup over
one device; one GPU without and with a DeviceSet; the uneven and calibrated splits; the cost of one array written
by two devices.
"""
import argparse
import pathlib
import re
import sys

UNITS = {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}


def milliseconds(text):
    number, unit = text.split()
    return float(number) * UNITS[unit]


def example_times(path):
    """The best time of each timed part of an example's log, in order (ms), and whether it passed."""
    text = path.read_text(errors="replace")
    times = [milliseconds(m.group(1)) for m in re.finditer(r"^\s+time ([0-9.]+ (?:us|µs|ms|s))", text, re.M)]
    return times, "PASS:" in text


def scaling_lines(path):
    """{workload: (ms per call, check)} from a scaling log."""
    found = {}
    for m in re.finditer(r"^scaling (\S+) devices=(\d+) n=(\d+) ms=([0-9.]+) calls=(\d+) check=(\S+)",
                         path.read_text(errors="replace"), re.M):
        found[m.group(1)] = (float(m.group(4)), m.group(6))
    return found


def workloads(results, mode):
    """{workload: {devices: ms}} for mode 'devices' (DeviceSet) or 'mpi', with the checks that failed."""
    table, failed = {}, []
    for k in (1, 2, 4):
        euler = results / f"euler43-{mode}{k}.txt"
        if euler.exists():
            times, passed = example_times(euler)
            for way, ms in enumerate(times[:4], 1):
                table.setdefault(f"Euler 43 way {way}", {})[k] = ms
            if not passed:
                failed.append(euler.name)
        pi = results / f"pi-{mode}{k}.txt"
        if pi.exists():
            times, passed = example_times(pi)
            if len(times) >= 2:
                table.setdefault("pi Monte Carlo", {})[k] = times[0]
                table.setdefault("pi midpoint", {})[k] = times[1]
            if not passed:
                failed.append(pi.name)
        scaling = results / f"scaling-{mode}{k}.txt"
        if scaling.exists():
            for name, (ms, check) in scaling_lines(scaling).items():
                table.setdefault(f"{name} (2^31 int32)", {})[k] = ms
                if check != "ok":
                    failed.append(f"{scaling.name}: {name}")
    return table, failed


def format_ms(ms):
    return f"{ms * 1e3:.0f} µs" if ms < 1 else f"{ms:.3g} ms" if ms < 1000 else f"{ms / 1e3:.3g} s"


def speedup_table(table, label):
    lines = [f"| workload | 1 {label} | 2 {label}s | 4 {label}s |", "|---|---|---|---|"]
    for name, times in table.items():
        one = times.get(1)
        cells = []
        for k in (1, 2, 4):
            if k not in times:
                cells.append("")
            elif k == 1 or one is None:
                cells.append(format_ms(times[k]))
            else:
                cells.append(f"{format_ms(times[k])} ({one / times[k]:.2f} ×)")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--plot", type=pathlib.Path, help="write the speedups as a PNG here")
    arguments = parser.parse_args()
    results = arguments.results
    devices, failed = workloads(results, "devices")
    ranks, failed_mpi = workloads(results, "mpi")
    print("## DeviceSet (one process)\n")
    print(speedup_table(devices, "device"))
    if ranks:
        print("\n## MPI (one rank per GPU)\n")
        print(speedup_table(ranks, "rank"))
        print("\n| workload | ranks | MPI / DeviceSet |\n|---|---|---|")
        for name, times in ranks.items():
            for k, ms in times.items():
                if k in devices.get(name, {}):
                    print(f"| {name} | {k} | {ms / devices[name][k]:.3f} |")
    plain = {}
    for name, path in (("euler43", results / "euler43-plain.txt"), ("pi", results / "pi-plain.txt")):
        if path.exists():
            plain[name] = example_times(path)[0]
    if plain:
        print("\n## One GPU: a plain queue against a DeviceSet of one device\n")
        print("| workload | one queue | DeviceSet of one | ratio |\n|---|---|---|---|")
        labels = {"euler43": [f"Euler 43 way {w}" for w in (1, 2, 3, 4)], "pi": ["pi Monte Carlo", "pi midpoint"]}
        for name, times in plain.items():
            for label, ms in zip(labels[name], times):
                one = devices.get(label, {}).get(1)
                if one:
                    print(f"| {label} | {format_ms(ms)} | {format_ms(one)} | {one / ms:.3f} |")
    for name in ("scaling-weights-3-1", "scaling-calibrated"):
        path = results / f"{name}.txt"
        if path.exists():
            text = path.read_text(errors="replace")
            weights = re.search(r"^weights:\s+(.*)$", text, re.M)
            print(f"\n## {name} (weights {weights.group(1) if weights else '?'})\n")
            print("| workload | 2 devices | against the even split |\n|---|---|---|")
            for workload, (ms, check) in scaling_lines(path).items():
                even = devices.get(f"{workload} (2^31 int32)", {}).get(2)
                ratio = f"{ms / even:.2f} × the time" if even else ""
                print(f"| {workload} | {format_ms(ms)} ({check}) | {ratio} |")
                if check != "ok":
                    failed.append(f"{name}: {workload}")
    shared = results / "shared-array.txt"
    if shared.exists():
        print("\n## One array written by two devices\n\n| arrays | ms per round | check |\n|---|---|---|")
        for workload, (ms, check) in scaling_lines(shared).items():
            print(f"| {workload.replace('shared-array-', '')} | {ms:.3f} | {check} |")
    if failed or failed_mpi:
        print("\nFAILED: " + ", ".join(failed + failed_mpi), file=sys.stderr)
    if arguments.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("no matplotlib (apt-get install python3-matplotlib): no plot", file=sys.stderr)
            return 1 if failed or failed_mpi else 0
        figure, axes = plt.subplots(figsize=(8, 5))
        for name, times in devices.items():
            ks = sorted(times)
            if 1 in times and len(ks) > 1:
                axes.plot(ks, [times[1] / times[k] for k in ks], marker="o", label=name)
        axes.plot([1, 4], [1, 4], color="grey", linestyle="--", label="ideal")
        axes.plot([1, 2, 4], [1, 4 / 3, 8 / 3], color="grey", linestyle=":", label="a two-pass scan's bound (2D/3)")
        axes.set_xlabel("GPUs")
        axes.set_ylabel("speedup over one GPU")
        axes.set_xticks([1, 2, 4])
        axes.legend(fontsize=7)
        axes.grid(alpha=0.3)
        figure.tight_layout()
        figure.savefig(arguments.plot, dpi=110)
    return 1 if failed or failed_mpi else 0


if __name__ == "__main__":
    sys.exit(main())
