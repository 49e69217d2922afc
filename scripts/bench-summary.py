#!/usr/bin/env python3
"""One table out of the JSON reports of `loom bench spmv`: scripts/bench-summary.py A.json ..."""
import json
import sys


def rows_of(report):
    run = f'{report["matrix"]["name"]} on {report["executor"]}'
    copy = f'{report["copy_bandwidth"]["gb_per_s"]:.0f}'
    for result in report["results"]:
        speedup = result.get("speedup_vs_peer")
        yield (run, result["kernel"], f'{result["time_s"] * 1e6:.1f}',
               f'{result["gb_per_s"]:.1f}', f'{100 * result["fraction_of_copy_bandwidth"]:.1f}%',
               copy, f"{speedup:.2f}x" if speedup else "-")


def main(paths):
    rows = [("run", "kernel", "time [us]", "GB/s", "of copy BW", "copy GB/s", "vs peer")]
    for path in paths:
        try:
            with open(path) as file:
                rows.extend(rows_of(json.load(file)))
        except (OSError, ValueError, KeyError) as error:
            print(f"{path}: skipped ({error})", file=sys.stderr)
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for i, row in enumerate(rows):
        cells = (cell.ljust(w) if c < 2 else cell.rjust(w)
                 for c, (cell, w) in enumerate(zip(row, widths)))
        print("  ".join(cells).rstrip())
        if i == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))


if __name__ == "__main__":
    main(sys.argv[1:])
