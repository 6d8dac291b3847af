#!/usr/bin/env python3
"""The table of dev/gpu/policy_sweep.sh: one row per launch policy setting
(WT_CUDA_POLICY), one column per benchmarked case, from the sweep's folder
(NNN-GRID.json: `wavetool bench --format json` rows; NNN-GRID.json.policy:
the setting). Cells: % of the device copy of the same bytes measured in the
same run (median of the bench's runs); single images of at most 1024x1024:
microseconds. The best cell of each column is marked `**`. Standard library
only (the GPU machine has no numpy).

Usage: dev/gpu/policy_table.py SWEEP_DIR
"""
import glob
import json
import os
import sys


def case_of(r):
    size = "%sx%s" % (r["width"], r["height"])
    if r.get("batch", 1) > 1:
        size = "%dx%s" % (r["batch"], size)
    mode = {"symmetric": "sym", "periodization": "per"}.get(r["mode"], r["mode"])
    name = r["wavelet"] if mode == r["wavelet"] else "%s %s" % (r["wavelet"], mode)
    return "%s %s L%d %s" % (name, size, r["levels"], r["direction"][:3])


def in_us(r):
    return r.get("batch", 1) == 1 and r["width"] * r["height"] <= 1024 * 1024


def load(folder):
    """[(grid, policy, {case: (value, in_us)})], one per bench call, in the
    sweep's order."""
    out = []
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        grid = os.path.basename(path).split("-", 1)[1][:-5]
        with open(path + ".policy") as f:
            policy = f.read().strip()
        cells = {}
        with open(path) as f:
            for line in f:
                if line.startswith("{"):
                    r = json.loads(line)
                    us = in_us(r)
                    cells[case_of(r)] = (r["ms"] * 1e3 if us else r["pct_copy"], us)
        out.append((grid, policy, cells))
    return out


def merge_runs(rows):
    """Consecutive files of one grid and setting (swt + starlet) in one row;
    the repeated baseline at a grid's end stays its own row."""
    merged = []
    for grid, policy, cells in rows:
        if merged and merged[-1][0] == grid and merged[-1][1] == policy and \
                not (set(cells) & set(merged[-1][2])):
            merged[-1][2].update(cells)
        else:
            merged.append((grid, policy, dict(cells)))
    return merged


def table(grid, rows):
    cases = []
    for _, _, cells in rows:
        for c in cells:
            if c not in cases:
                cases.append(c)
    best = {}
    for c in cases:
        vals = [cells[c] for _, _, cells in rows if c in cells]
        lower = vals[0][1]
        best[c] = min(v for v, _ in vals) if lower else max(v for v, _ in vals)
    out = ["### %s" % grid, "",
           "| policy | " + " | ".join(c + (" (us)" if any(
               cells.get(c, (0, False))[1] for _, _, cells in rows) else " (%)") for c in cases) + " |",
           "| --- |" + " ---: |" * len(cases)]
    for _, policy, cells in rows:
        row = []
        for c in cases:
            if c not in cells:
                row.append("-")
                continue
            v = cells[c][0]
            text = "%.2f" % v if cells[c][1] else "%.1f" % v
            row.append("**%s**" % text if v == best[c] else text)
        out.append("| `%s` | %s |" % (policy, " | ".join(row)))
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = merge_runs(load(sys.argv[1]))
    grids = []
    for g, _, _ in rows:
        if g not in grids:
            grids.append(g)
    for g in grids:
        print(table(g, [r for r in rows if r[0] == g]))


if __name__ == "__main__":
    main()
