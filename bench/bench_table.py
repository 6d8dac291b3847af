#!/usr/bin/env python3
"""The table and plot of `wavetool bench --all` (issue 17 item 4).

Reads the bench's JSON lines (one object per wavelet, mode and direction) and
prints a Markdown table, one row per wavelet: ms and % of the floor for
symmetric and periodization, forward and inverse. The floor of a transform is
the larger of
  - its memory floor: the bench's bytes (each level's input read and written
    once) at the device-to-device copy rate measured in the same run, and
  - its arithmetic floor: 2 x taps FMAs per input sample per level at the
    GPU's FP32 FMA rate (--fma-rate; default 33.5e12/s, the H100 SXM's and
    H200's 67 TFLOP/s).
With --png FILE it also draws % of floor per wavelet (matplotlib). With
--gpu FILE (`nvidia-smi --query-gpu=... --format=csv` of the run's GPU, as
dev/gpu/bench_docs.sh records it) the header names the GPU, its driver and
clocks, and the copy rate of the run; -o FILE writes the table there.
bench/gpu_docs_tables.sh makes docs/'s tables from bench/results/.

Usage: bench/bench_table.py bench.json [--png plot.png] [--title TEXT]
                            [--fma-rate R] [--gpu gpu.csv] [-o table.md]
"""
import argparse
import json
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def floor_ms(row, fma_rate):
    mem = row["bytes"] / (row["copy_gbps"] * 1e6) if row["copy_gbps"] > 0 else 0.0
    samples = row["bytes"] / 8.0  # 8 bytes per sample of each level's input
    arith = 2.0 * row["taps"] * samples / fma_rate * 1e3
    return max(mem, arith), "mem" if mem >= arith else "fma"


def index(rows, fma_rate):
    """{wavelet: {(mode, direction): (ms, pct of floor, bound)}}, and taps/method."""
    table, info = {}, {}
    for r in rows:
        fl, bound = floor_ms(r, fma_rate)
        pct = 100.0 * fl / r["ms"] if r["ms"] > 0 else 0.0
        table.setdefault(r["wavelet"], {})[(r["mode"], r["direction"])] = (r["ms"], pct, bound)
        info[r["wavelet"]] = (r["taps"], r["method"])
    return table, info


COLUMNS = [("symmetric", "forward"), ("symmetric", "inverse"),
           ("periodization", "forward"), ("periodization", "inverse")]


def gpu_header(path, rows):
    """The GPU, driver and clocks of nvidia-smi's CSV (header line, value
    line) and the run's median copy rate, in one paragraph."""
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip()]
    keys = [k.strip() for k in lines[0].split(",")]
    vals = [v.strip() for v in lines[1].split(",")]
    g = dict(zip(keys, vals))

    def at(prefix):
        return next((v for k, v in g.items() if k.startswith(prefix)), "?")
    copies = sorted(r["copy_gbps"] for r in rows if r.get("copy_gbps", 0) > 0)
    copy = copies[len(copies) // 2] / 1e3 if copies else 0.0
    return ("GPU: %s (%s), driver %s; clocks: SM %s (max %s), memory %s (max %s), "
            "power limit %s; device copy %.2f TB/s (read + write, median of the run's rows)."
            % (at("name"), at("memory.total"), at("driver_version"), at("clocks.current.sm"),
               at("clocks.max.sm"), at("clocks.current.memory"), at("clocks.max.memory"),
               at("power.limit"), copy))


def markdown(rows, table, info, title, gpu=None):
    r0 = rows[0]
    out = [gpu_header(gpu, rows), ""] if gpu else []
    if r0.get("policy"):
        out += ["Launch policy (cuda/cu_policy.cu): `%s`." % r0["policy"], ""]
    out += ["%s: %s, %dx%d float32, %d levels, median of the bench's runs; "
           "%% of floor = max(memory floor at the copy rate of the same run, "
           "FP32 FMA floor) / time (`*`: the FMA floor is the larger)" %
           (title, r0["device"], r0["width"], r0["height"], r0["levels"]), "",
           "| wavelet | taps | method | sym. fwd | sym. inv | per. fwd | per. inv |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for w in sorted(table, key=lambda k: (info[k][0], k)):
        cells = []
        for c in COLUMNS:
            v = table[w].get(c)
            cells.append("—" if v is None else
                         "%.3f ms (%.0f%%%s)" % (v[0], v[1], "*" if v[2] == "fma" else ""))
        out.append("| %s | %d | %s | %s |" % (w, info[w][0], info[w][1], " | ".join(cells)))
    return "\n".join(out)


def plot(path, table, info, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = sorted(table, key=lambda k: (info[k][0], k))
    fig, ax = plt.subplots(figsize=(max(12, 0.16 * len(names)), 5))
    for (mode, direction), marker in zip(COLUMNS, ["o", "s", "^", "v"]):
        xs = [i for i, w in enumerate(names) if (mode, direction) in table[w]]
        ys = [table[names[i]][(mode, direction)][1] for i in xs]
        ax.plot(xs, ys, marker, markersize=3.5, label="%s %s" % (mode, direction))
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(["%s (%d)" % (w, info[w][0]) for w in names], rotation=90, fontsize=6)
    ax.set_ylabel("% of floor")
    ax.set_ylim(0, 105)
    ax.axhline(75, color="grey", linewidth=0.5, linestyle="--")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    ax.grid(axis="y", linewidth=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json")
    ap.add_argument("--png")
    ap.add_argument("--title", default="wavetool bench --all")
    ap.add_argument("--fma-rate", type=float, default=33.5e12)
    ap.add_argument("--gpu", help="nvidia-smi --format=csv of the run's GPU")
    ap.add_argument("-o", "--output", help="write the table to this file")
    a = ap.parse_args()
    rows = load(a.json)
    if not rows:
        sys.exit("bench_table.py: %s: no JSON rows" % a.json)
    table, info = index(rows, a.fma_rate)
    text = markdown(rows, table, info, a.title, a.gpu) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.png:
        plot(a.png, table, info, "%s: %s (%% of floor; wavelet (taps))" % (a.title, rows[0]["device"]))


if __name__ == "__main__":
    main()
