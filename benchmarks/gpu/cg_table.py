#!/usr/bin/env python3
"""The conjugate gradient table (and, where matplotlib is installed, the plot) of docs/examples.md.

    benchmarks/gpu/cg_table.py RESULTS [--plot FILE.png]

RESULTS holds `cg_sweep.txt` (`cg --sweep` on the GPU) and `cg_peer.txt` (benchmarks/gpu/cg_peer.cu, run in the same
command). Prints, in Markdown, the time per iteration of each form at each grid and the speedup of the fused form
with its scalars on the device over the stencil kernel + cuBLAS.
"""
import argparse
import pathlib
import re

FORMS = [("cuda_cg_cusparse", "cuSPARSE + cuBLAS"), ("cuda_cg_stencil", "stencil + cuBLAS"),
         ("clalgo_cg_textbook", "clalgo textbook"), ("clalgo_cg_fused", "clalgo fused"),
         ("clalgo_cg_fused_scalars_on_device", "clalgo fused, scalars on the device")]


def times(folder):
    """{form: {grid: µs per iteration}} from both logs."""
    found = {}
    for name in ("cg_sweep.txt", "cg_peer.txt"):
        text = (folder / name).read_text(errors="replace")
        for m in re.finditer(r"^(\w+) g=(\d+) n=\d+: ([0-9.]+) us/iteration", text, re.M):
            found.setdefault(m.group(1), {})[int(m.group(2))] = float(m.group(3))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=pathlib.Path)
    parser.add_argument("--plot", type=pathlib.Path)
    args = parser.parse_args()
    found = times(args.results)
    grids = sorted(found["cuda_cg_stencil"])
    print("| g (n) | " + " | ".join(label for _, label in FORMS) + " | speedup |")
    print("|---" * (len(FORMS) + 2) + "|")
    for g in grids:
        cells = [f"{found[form][g]:,.1f}" for form, _ in FORMS]
        speedup = found["cuda_cg_stencil"][g] / found["clalgo_cg_fused_scalars_on_device"][g]
        print(f"| {g} ({g * g:,}) | " + " | ".join(cells) + f" | {speedup:.2f} |")
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axes = plt.subplots(figsize=(7, 4))
        for form, label in FORMS:
            axes.plot(grids, [found[form][g] for g in grids], marker="o", label=label,
                      linestyle="--" if form.startswith("cuda") else "-")
        axes.set_xscale("log", base=2)
        axes.set_yscale("log")
        axes.set_xlabel("grid side g (n = g^2 unknowns)")
        axes.set_ylabel("µs per iteration")
        axes.set_title("Conjugate gradient, 2-D Poisson, doubles: time per iteration (lower is better)")
        axes.title.set_fontsize(9)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend(fontsize=8)
        figure.tight_layout()
        figure.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
