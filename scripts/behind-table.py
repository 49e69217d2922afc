#!/usr/bin/env python3
"""Issue 17's table ("where Loom is behind its peers") from the JSON reports of one
scripts/device.sh run, with the ratios the issue measured (main at 7110876) next to today's:

    scripts/behind-table.py OUT_DIR

A row whose report is missing or lacks the figure prints "-"."""
import json
import os
import sys

# (what, report, how to read Loom's time and the ratio to the peer out of it, issue's ratio)
# Ratios are peer time / Loom time: above 1 Loom is faster.


def spgemm(kind):
    """Repeated numeric ("reuse") or total time of the native kernel against cuSPARSE."""
    def read(report):
        loom = next(r for r in report["results"] if not r["peer"])
        key = "numeric_reuse" if kind == "reuse" else "total"
        return loom[key]["time_s"], loom[f"{key}_speedup_vs_peer"]
    return read


def spmv(report):
    loom = next(r for r in report["results"] if not r.get("peer"))
    return loom["time_s"], loom["speedup_vs_peer"]


def batched(n):
    def read(report):
        row = next(r for r in report["results"] if r["n"] == n)
        return row["time_s"], row["speedup_vs_peer"]
    return read


ROWS = [
    ("SpGEMM 27-point 100^3, repeated numeric", "spgemm-cuda-27pt-100", spgemm("reuse"), 0.71),
    ("SpGEMM 27-point 100^3, total", "spgemm-cuda-27pt-100", spgemm("total"), None),
    ("SpGEMM power-law 2M x 16, repeated numeric", "spgemm-cuda-powerlaw", spgemm("reuse"), 0.06),
    ("SpGEMM power-law 2M x 16, total", "spgemm-cuda-powerlaw", spgemm("total"), None),
    ("CSR SpMV power-law 2M x 16", "spmv-cuda-powerlaw-2M-16", spmv, 0.93),
    ("batched gemm n = 16", "batched-gemm", batched(16), 1.31),
    ("batched gemm n = 32", "batched-gemm", batched(32), 0.41),
    ("batched getrf n = 3", "batched-getrf", batched(3), 1.53),
    ("batched getrf n = 8", "batched-getrf", batched(8), 1.72),
    ("batched getrf n = 16", "batched-getrf", batched(16), 1.11),
    ("batched getrf n = 32", "batched-getrf", batched(32), 0.73),
]


def cells(out, name, read):
    try:
        with open(os.path.join(out, f"{name}.json")) as file:
            seconds, ratio = read(json.load(file))
        return f"{seconds * 1e3:.3f} ms", f"{ratio:.2f}x" if ratio else "-"
    except (OSError, ValueError, KeyError, StopIteration, TypeError):
        return "-", "-"


def main(out):
    table = [("kernel (issue 17)", "Loom today", "vs peer today", "vs peer at 7110876")]
    for what, name, read, then in ROWS:
        table.append((what, *cells(out, name, read), f"{then:.2f}x" if then else "-"))
    widths = [max(len(row[c]) for row in table) for c in range(4)]
    for i, row in enumerate(table):
        print("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w)
                        for c, (cell, w) in enumerate(zip(row, widths))).rstrip())
        if i == 0:
            print("-" * (sum(widths) + 6))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
