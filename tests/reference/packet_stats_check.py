#!/usr/bin/python3
"""`stats --transform packet` and `bench --transform packet` against numpy.

Stats: per leaf and channel of the basis, the JSON's mean, std, min, max,
energy, energy share (over the channel's leaves) and cost equal numpy's on
pywt.WaveletPacket2D's float64 nodes of the same samples, cost as MATLAB's
wentropy; the leaves are those of MATLAB's besttree rule (written here) on
the channels' summed costs, or the full tree, or one level. TSV and CSV carry
the same leaves, paths and costs; --plot's SVG is well-formed XML whose
leaves carry the paths, energy shares and costs over all channels. Bench:
the JSON and text rows parse, and bytes = 4 x the samples each level reads
(its nodes) and writes (their children).

usage: packet_stats_check.py WAVETOOL   (exit 77 without numpy or pywt)
"""
import csv
import io
import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

from check_common import modules_or_skip, runner

np, pywt = modules_or_skip("numpy", "pywt")

run = runner(sys.argv[1])
rng = np.random.default_rng(2028)
failures = []
SVG = "{http://www.w3.org/2000/svg}"
# wavelet, mode, levels, basis, cost, (height, width, channels)
CASES = [
    ("haar", "symmetric", 2, "full", "shannon", (32, 32, 1)),
    ("db2", "periodization", 2, "best", "logenergy", (40, 36, 1)),
    ("sym3", "zero", 2, "best", "threshold:0.8", (45, 51, 3)),
    ("bior2.2", "reflect", 3, "level:1", "norm:1.5", (64, 48, 1)),
    ("coif1", "symmetric", 2, "best", "shannon", (37, 51, 2)),
    ("db3", "smooth", 2, "best", "norm:1", (33, 70, 1)),
]


def fail(what):
    failures.append(what)


def close(a, b, rel, scale=1.0):
    return abs(a - b) <= rel * max(abs(b), scale)


def wentropy(c, cost):
    """MATLAB's wentropy of the coefficients @c (float64)."""
    s = c.ravel() ** 2
    if cost == "shannon":
        nz = s[s > 0]
        return float(-(nz * np.log(nz)).sum())
    if cost == "logenergy":
        return float(np.log(s[s > 0]).sum())
    name, value = cost.split(":")
    if name == "threshold":
        return float((np.abs(c) > float(value)).sum())
    return float((np.abs(c) ** float(value)).sum())


def besttree(costs, levels, path=""):
    """MATLAB's besttree below @path: (best cost, leaves depth first)."""
    if len(path) == levels:
        return costs[path], [path]
    total, leaves = 0.0, []
    for letter in "ahvd":
        c, below = besttree(costs, levels, path + letter)
        total += c
        leaves += below
    return (costs[path], [path]) if costs[path] <= total else (total, leaves)


def all_paths(levels):
    out = [""]
    for _ in range(levels):
        out = [p + a for p in out for a in "ahvd"]
    return out


def expected_leaves(trees, levels, basis, cost):
    """The leaves of @basis from the per-channel trees (costs summed)."""
    if basis == "full":
        return all_paths(levels)
    if basis.startswith("level:"):
        return all_paths(int(basis[6:]))
    costs = {}
    for n in range(levels + 1):
        for p in all_paths(n):
            costs[p] = sum(wentropy(t[p].data if p else t.data, cost) for t in trees)
    return besttree(costs, levels)[1]


def node(tree, path):
    return tree[path].data if path else tree.data


def check_band(name, b, ref, channel_energy, cost):
    scale = max(float(np.abs(ref).max()), 1.0)
    want = {"mean": ref.mean(), "std": ref.std(), "min": ref.min(), "max": ref.max()}
    for key, value in want.items():
        if not close(b[key], float(value), 1e-5, scale):
            fail(f"{name} {b['band']}[{b['channel']}] {key} {b[key]} vs {value}")
    energy = float((ref ** 2).sum())
    if not close(b["energy"], energy, 1e-5):
        fail(f"{name} {b['band']} energy {b['energy']} vs {energy}")
    share = 100.0 * energy / channel_energy
    if not close(b["energy_share"], share, 1e-5, 1e-3):
        fail(f"{name} {b['band']} energy_share {b['energy_share']} vs {share}")
    c = wentropy(ref, cost)
    if not close(b["cost"], c, 1e-4, 1.0):
        fail(f"{name} {b['band']} cost {b['cost']} vs {c}")
    if (b["rows"], b["cols"]) != ref.shape:
        fail(f"{name} {b['band']} shape {(b['rows'], b['cols'])} vs {ref.shape}")


def check_stats(tmp, case):
    wavelet, mode, levels, basis, cost, (h, w, ch) = case
    name = f"{wavelet} {mode} L{levels} {basis} {cost} {h}x{w}x{ch}"
    x = rng.normal(120.0, 40.0, (h, w, ch) if ch > 1 else (h, w)).astype(np.float32)
    src = os.path.join(tmp, "x.npy")
    np.save(src, x)
    planes = x[None] if ch == 1 else np.moveaxis(x, -1, 0)
    trees = [pywt.WaveletPacket2D(p.astype(np.float64), wavelet, mode, levels) for p in planes]
    opts = ["--transform", "packet", "-w", wavelet, "-m", mode, "-l", str(levels),
            "--basis", basis, "--cost", cost]
    r = run("stats", "--format", "json", *opts, src)
    if r.returncode:
        return fail(f"{name}: exit {r.returncode}: {r.stderr.strip()}")
    rep = json.loads(r.stdout)
    if (rep["transform"], rep["basis"], rep["cost"]) != ("packet", basis, cost):
        fail(f"{name}: transform, basis, cost {rep['transform']} {rep['basis']} {rep['cost']}")
    leaves = expected_leaves(trees, levels, basis, cost)
    got = [b["path"] for b in rep["bands"] if b["channel"] == 0]
    if got != leaves:
        return fail(f"{name}: leaves {got} vs besttree {leaves}")
    energy = [sum(float((node(t, p) ** 2).sum()) for p in leaves) for t in trees]
    for b in rep["bands"]:
        if b["band"] != (b["path"] or "root") or b["level"] != len(b["path"]):
            fail(f"{name}: band {b['band']} level {b['level']} of path {b['path']}")
        c = b["channel"]
        check_band(name, b, node(trees[c], b["path"]), energy[c], cost)
    check_tables(name, opts, src, rep)
    check_plot(tmp, name, opts, src, rep)


def check_tables(name, opts, src, rep):
    """TSV and CSV: a row per leaf and channel, with the JSON's paths and costs."""
    want = [(b["path"], b["channel"], b["cost"]) for b in rep["bands"]]
    for fmt, delimiter in (("tsv", "\t"), ("csv", ",")):
        r = run("stats", "--format", fmt, *opts, src)
        rows = list(csv.DictReader(io.StringIO(r.stdout), delimiter=delimiter))
        got = [(row["path"], int(row["channel"]), float(row["cost"])) for row in rows]
        if len(got) != len(want) or any(
                g[:2] != w[:2] or not close(g[2], w[2], 1e-8, 1.0) for g, w in zip(got, want)):
            fail(f"{name}: {fmt} rows {got[:3]} vs json {want[:3]}")


def check_plot(tmp, name, opts, src, rep):
    """--plot: well-formed SVG, a leaf per leaf with its shares and costs."""
    svg = os.path.join(tmp, "tree.svg")
    r = run("stats", "-q", *opts, "--plot", svg, src)
    if r.returncode:
        return fail(f"{name}: --plot exit {r.returncode}: {r.stderr.strip()}")
    leaves = ET.parse(svg).getroot().findall(f".//{SVG}rect[@class='leaf']")
    total = sum(b["energy"] for b in rep["bands"])
    for leaf in leaves:
        bands = [b for b in rep["bands"] if b["path"] == leaf.get("data-path")]
        share = 100.0 * sum(b["energy"] for b in bands) / total
        cost = sum(b["cost"] for b in bands)
        if not (close(float(leaf.get("data-share")), share, 1e-6, 1e-6)
                and close(float(leaf.get("data-cost")), cost, 1e-6, 1.0)):
            fail(f"{name}: svg leaf {leaf.get('data-path')} share or cost")
    paths = [leaf.get("data-path") for leaf in leaves]
    if paths != [b["path"] for b in rep["bands"] if b["channel"] == 0]:
        fail(f"{name}: svg leaves {paths}")


def packet_bytes(shape, wavelet, mode, levels):
    """4 x the samples each level reads (its nodes) and writes (their children)."""
    x = np.zeros(shape)
    tree = pywt.WaveletPacket2D(x, wavelet, mode, levels)
    sizes = [x.size] + [4 ** n * node(tree, "a" * n).size for n in range(1, levels + 1)]
    return 4 * sum(sizes[n] + sizes[n + 1] for n in range(levels))


def check_bench():
    args = ["bench", "--device", "cpu", "--transform", "packet", "-w", "db2,cdf97", "-m",
            "periodization", "-l", "2", "--size", "40x33", "--repeat", "2"]
    r = run(*args, "--format", "json")
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    if r.returncode or [row["direction"] for row in rows] != ["forward", "inverse"]:
        return fail(f"bench json: exit {r.returncode}, {r.stdout[:200]} {r.stderr.strip()}")
    want = packet_bytes((33, 40), "db2", "periodization", 2)
    for row in rows:
        if float(row["bytes"]) != want or not row["ms"] > 0 or not row["copy_ms"] > 0:
            fail(f"bench json row {row}: bytes vs {want}")
    text = run(*args).stdout.splitlines()
    table = [line.split() for line in text if not line.startswith("#")]
    if table[0][:4] != ["wavelet", "mode", "method", "dir"] or len(table) != 3 or any(
            len(row) != 11 or not row[10].endswith("%") for row in table[1:]):
        fail(f"bench text: {text}")
    if "# skipped: --transform packet takes filter-bank wavelets, not cdf97" not in text:
        fail(f"bench text: cdf97 not skipped: {text}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            check_stats(tmp, case)
    check_bench()
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} stats cases, bench: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
