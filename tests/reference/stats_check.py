#!/usr/bin/env python3
"""`wavetool stats` against numpy on pywt.wavedec2 coefficients.

For each case an image is written (PIL), `wavetool stats --format json` and
`--format tsv` are run, and every figure of every band and channel is checked
against numpy on pywt.wavedec2 of the same samples: moments, extremes, energy
and share to 1e-5 relative (float32 coefficients); zero/near-zero fractions
and the entropy of the dead-zone quantiser indices exactly on wavetool's own
coefficients (decompose to .npz) and within float32 boundary effects on
pywt's; bpp from the entropies. Then --plot (bar heights parsed from the SVG),
roundtrip --qstep (PSNR of the quantised reconstruction, bpp) and errors.
--transform swt against numpy on pywt.swt2(trim_approx=True) and starlet
against a starlet built from scipy.ndimage.convolve1d (mode 'mirror'), every
figure of every full-size band.
Usage: stats_check.py WAVETOOL.  Exit 77 (skip) without numpy, pywt or PIL."""
import json
import math
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

try:
    import numpy as np
    import pywt
    import scipy.ndimage as ndi
    from PIL import Image
except ImportError:
    print("numpy, pywt, scipy or PIL missing: skipped")
    sys.exit(77)

from starlet_ref import starlet_planes  # noqa: E402 (after the skip)

WT = sys.argv[1]
MAD = 0.6744897501960817
FAILS = []

CASES = [  # wavelet, mode, levels, channels, bits, height, width, qstep, eps (None: default)
    ("haar", "symmetric", 3, 1, 8, 37, 29, None, None),
    ("db2", "periodization", 2, 3, 8, 40, 33, 4.0, 0.5),
    ("bior2.2", "zero", 1, 1, 16, 23, 31, None, None),
    ("sym3", "reflect", 2, 4, 8, 24, 20, 2.5, 3.0),
    ("haar", "symmetric", 0, 1, 8, 1, 1, None, None),
    ("db1", "symmetric", 4, 1, 8, 384, 512, 0.75, 0.0),
]


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def close(a, b, tol):
    return abs(a - b) <= tol


def make_image(path, channels, bits, h, w, seed):
    """Smooth gradients, noise and a flat block (exact zero details)."""
    rng = np.random.default_rng(seed)
    peak = (1 << bits) - 1
    y, x = np.mgrid[0:h, 0:w]
    planes = []
    for c in range(channels):
        base = (0.5 + 0.4 * np.sin(x / (3.0 + c) + y / 5.0)) * peak
        base += rng.normal(0, peak / 20, (h, w))
        base[: h // 2, : w // 2] = peak * (0.3 + 0.1 * c)
        planes.append(np.clip(np.rint(base), 0, peak))
    a = np.stack(planes, axis=-1).astype(np.uint16 if bits == 16 else np.uint8)
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    if bits == 16:
        Image.fromarray(a[..., 0].astype(np.uint16), mode="I;16").save(path)
    else:
        Image.fromarray(a if channels > 1 else a[..., 0], mode=mode).save(path)
    return a.astype(np.float64)


def run(*args, ok=(0,)):
    p = subprocess.run([WT, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def pywt_bands(plane, wavelet, mode, levels):
    """(name, array) in wavetool's order: cA_L, then cH, cV, cD from the coarsest."""
    if levels == 0:
        return [("cA0", plane)]
    coeffs = pywt.wavedec2(plane, wavelet, mode=mode, level=levels)
    out = [(f"cA{levels}", coeffs[0])]
    for i, det in enumerate(coeffs[1:]):
        lev = levels - i
        out += [(f"c{o}{lev}", d) for o, d in zip("HVD", det)]
    return out


def entropy(c, q):
    idx = np.sign(c) * np.floor(np.abs(c) / q)
    _, counts = np.unique(idx, return_counts=True)
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def expected(c, q, eps):
    c = np.asarray(c, dtype=np.float64)
    return {"rows": c.shape[0], "cols": c.shape[1], "mean": c.mean(), "std": c.std(),
            "min": c.min(), "max": c.max(), "max_abs": np.abs(c).max(),
            "energy": float((c * c).sum()), "zero_fraction": float((c == 0).mean()),
            "tiny_fraction": float((np.abs(c) <= 1e-5 * max(1.0, np.abs(c).max())).mean()),
            "near_zero_fraction": float((np.abs(c) <= eps).mean()),
            "mad_sigma": float(np.median(np.abs(c)) / MAD), "entropy": entropy(c, q)}


def check_band(case, got, ref, own, scale):
    tag = f"{case} {got['band']} ch{got['channel']}"
    n = ref["rows"] * ref["cols"]
    check(got["rows"] == ref["rows"] and got["cols"] == ref["cols"], f"{tag}: shape")
    tol = 1e-5 * scale + 1e-9
    for k in ("mean", "std", "min", "max", "max_abs", "mad_sigma"):
        check(close(got[k], ref[k], tol), f"{tag}: {k} {got[k]} vs pywt {ref[k]}")
    check(close(got["energy"], ref["energy"], 1e-5 * ref["energy"] + 1e-6),
          f"{tag}: energy {got['energy']} vs {ref['energy']}")
    for k in ("zero_fraction", "near_zero_fraction", "entropy"):  # exact on its own coefficients
        check(close(got[k], own[k], 1e-9), f"{tag}: {k} {got[k]} vs numpy on .npz {own[k]}")
    # float32 vs float64: a few coefficients at the bound; and where a filter's
    # taps cancel on a flat block, either side may round to an exact 0 or to
    # +-1e-14, so wavetool's zeros are pywt's |c| within float32 rounding
    check(close(got["near_zero_fraction"], ref["near_zero_fraction"], 3.0 / n + 1e-3),
          f"{tag}: near_zero_fraction {got['near_zero_fraction']} vs pywt {ref['near_zero_fraction']}")
    check(got["zero_fraction"] <= ref["tiny_fraction"] + 1e-9,
          f"{tag}: zero_fraction {got['zero_fraction']} > pywt's |c| <= 1e-5 max|c| {ref['tiny_fraction']}")
    check(close(got["entropy"], ref["entropy"], 0.02 + 2 * math.log2(n + 1) * 3.0 / n),
          f"{tag}: entropy {got['entropy']} vs pywt {ref['entropy']}")


def check_tsv(name, opts, path, bands, transform=None):
    """`stats --format tsv` has one row per band, equal to the json's figures
    in @bands (and naming @transform where given)."""
    tsv = run("stats", "--format", "tsv", *opts, path).stdout.splitlines()
    head = tsv[0].split("\t")
    check(len(tsv) == 1 + len(bands), f"{name}: tsv has {len(tsv)} lines")
    for line in tsv[1:]:
        row = dict(zip(head, line.split("\t")))
        b = bands[(row["band"], int(row["channel"]))]
        if transform is not None:
            check(row["transform"] == transform, f"{name}: tsv transform")
        for k in ("mean", "std", "energy_share", "entropy", "mad_sigma"):
            check(close(float(row[k]), b[k], 1e-8 * max(1, abs(b[k]))), f"{name}: tsv {k}")


def check_case(tmp, i, case):
    wavelet, mode, levels, channels, bits, h, w, qstep, eps = case
    name = f"{wavelet}/{mode}/l{levels} {channels}ch {bits}-bit {w}x{h}"
    path = os.path.join(tmp, f"in{i}.png")
    img = make_image(path, channels, bits, h, w, i)
    q = qstep if qstep is not None else 2.0 ** bits / 256
    e = eps if eps is not None else q
    opts = ["-w", wavelet, "-m", mode, "-l", str(levels)]
    opts += ["--qstep", str(qstep)] if qstep is not None else []
    opts += ["--eps", str(eps)] if eps is not None else []
    rep = json.loads(run("stats", "--format", "json", *opts, path).stdout)
    npz = os.path.join(tmp, f"in{i}.npz")
    run("decompose", *opts[:6], path, npz)
    z = np.load(npz)
    check(rep["qstep"] == q and rep["eps"] == e and rep["levels"] == levels, f"{name}: header {rep}")
    bands = {(b["band"], b["channel"]): b for b in rep["bands"]}
    check(len(bands) == channels * (1 + 3 * levels), f"{name}: {len(bands)} bands")
    bits_total = 0.0
    for ch in range(channels):
        ref_bands = pywt_bands(img[..., ch], wavelet, mode, levels)
        total = sum(float((np.asarray(c) ** 2).sum()) for _, c in ref_bands)
        for bname, c in ref_bands:
            got = bands[(bname, ch)]
            member = "cA" if bname[1] == "A" else bname
            own = expected(z[member][ch].astype(np.float64), q, e)
            ref = expected(c, q, e)
            check_band(name, got, ref, own, max(1.0, np.abs(c).max()))
            share = 100 * ref["energy"] / total if total else 0.0
            check(close(got["energy_share"], share, 1e-5 * 100),
                  f"{name} {bname}: share {got['energy_share']} vs {share}")
            bits_total += own["entropy"] * own["rows"] * own["cols"]
    check(close(rep["bpp"], bits_total / (w * h), 1e-8 * rep["bpp"]), f"{name}: bpp {rep['bpp']}")
    check_tsv(name, opts, path, bands)
    run("stats", *opts, path)  # text
    return path, img


UCASES = [  # transform, wavelet, levels, channels, bits, height, width
    ("swt", "db2", 2, 3, 8, 40, 32),
    ("swt", "haar", 1, 1, 16, 23, 31),  # any size: not pywt's; cA still checked by definition
    ("starlet", "haar", 3, 1, 8, 37, 29),
    ("starlet", "haar", 2, 3, 8, 5, 6),
]


def np_starlet(x, levels):
    """c_L, w1..wL: B3-spline a trous, scipy.ndimage 'mirror' border."""
    c, *ws = starlet_planes(x, levels)
    return [("c", c)] + [(f"w{j}", w) for j, w in enumerate(ws, 1)]


def swt_bands(plane, wavelet, levels):
    coeffs = pywt.swt2(plane, wavelet, level=levels, trim_approx=True)
    out = [("cA", coeffs[0])]
    for i, det in enumerate(coeffs[1:]):
        out += [(f"c{o}{levels - i}", d) for o, d in zip("HVD", det)]
    return out


def check_undecimated(tmp, i, case):
    transform, wavelet, levels, channels, bits, h, w = case
    name = f"{transform} {wavelet} l{levels} {channels}ch {bits}-bit {w}x{h}"
    path = os.path.join(tmp, f"u{i}.png")
    img = make_image(path, channels, bits, h, w, 50 + i)
    q = 2.0 ** bits / 256
    opts = ["--transform", transform, "-w", wavelet, "-l", str(levels)]
    rep = json.loads(run("stats", "--format", "json", *opts, path).stdout)
    npz = os.path.join(tmp, f"u{i}.npz")
    run("decompose", *opts, path, npz)
    z = np.load(npz)
    check(rep["transform"] == transform and rep["levels"] == levels, f"{name}: header")
    bands = {(b["band"], b["channel"]): b for b in rep["bands"]}
    nb = 1 + (levels if transform == "starlet" else 3 * levels)
    check(len(bands) == channels * nb, f"{name}: {len(bands)} bands, want {channels * nb}")
    pywt_ok = h % (1 << levels) == 0 and w % (1 << levels) == 0
    bits_total = 0.0
    for ch in range(channels):
        x = img[..., ch]
        if transform == "starlet":
            ref_bands = np_starlet(x, levels)
        elif pywt_ok:
            ref_bands = swt_bands(x, wavelet, levels)
        else:  # only wavetool's own coefficients: the figures on them
            ref_bands = [(k, z[k][ch].astype(np.float64)) for k in z.files if k != "meta"]
        total = sum(float((np.asarray(c) ** 2).sum()) for _, c in ref_bands)
        for bname, c in ref_bands:
            got = bands[(bname, ch)]
            own = expected(z[bname][ch].astype(np.float64), q, q)
            check_band(name, got, expected(c, q, q), own, max(1.0, np.abs(c).max()))
            share = 100 * float((np.asarray(c) ** 2).sum()) / total if total else 0.0
            check(close(got["energy_share"], share, 1e-5 * 100), f"{name} {bname}: share")
            bits_total += own["entropy"] * h * w
    check(close(rep["bpp"], bits_total / (w * h), 1e-8 * rep["bpp"]), f"{name}: bpp {rep['bpp']}")
    check_tsv(name, opts, path, bands, transform)
    text = run("stats", *opts, path).stdout
    check(f" {transform}" in text.splitlines()[0], f"{name}: text head names the transform")
    svg = os.path.join(tmp, f"u{i}.svg")
    run("stats", *opts, "--plot", svg, path)
    _, _, bars, _ = svg_bars(svg)
    check(sorted(b[0] for b in bars) == sorted({k for k, _ in bands}),
          f"{name}: plot bands {[b[0] for b in bars]}")


def svg_bars(path):
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    plot = root.find(f".//{ns}g[@id='plot']")
    ymin, ymax = float(plot.get("data-ymin")), float(plot.get("data-ymax"))
    height = float(plot.get("data-height"))
    bars = [(r.get("data-band"), r.get("data-file"), float(r.get("data-value")),
             float(r.get("height"))) for r in plot.iter(f"{ns}rect") if r.get("class") == "bar"]
    texts = [t.text for t in root.iter(f"{ns}text")]
    check(plot.get("data-scale") == "log" and ymin > 0 and ymax == 100, f"plot axis {ymin}..{ymax}")
    return (ymin, ymax), height, bars, texts


def bar_height(v, axis, height):
    """Height of a bar of v percent on the log axis."""
    ymin, ymax = axis
    return height * min(1.0, max(0.0, math.log10(v / ymin) / math.log10(ymax / ymin))) if v > 0 else 0.0


def shares_all_channels(img, wavelet, levels):
    per = {}
    for ch in range(img.shape[-1]):
        for bname, c in pywt_bands(img[..., ch], wavelet, "symmetric", levels):
            per[bname] = per.get(bname, 0.0) + float((np.asarray(c, float) ** 2).sum())
    total = sum(per.values())
    return {k: 100 * v / total for k, v in per.items()}


def check_plot(tmp, inputs):
    svg = os.path.join(tmp, "e.svg")
    paths = [p for p, _ in inputs[:2]]
    run("stats", "-l", "2", "--plot", svg, *paths)
    axis, height, bars, texts = svg_bars(svg)
    check(len(bars) == 2 * 7, f"plot: {len(bars)} bars for 2 files x 7 bands")
    check("cH2" in texts and "cD1" in texts, "plot: band labels as SVG text")
    refs = {p: shares_all_channels(img, "haar", 2) for p, img in inputs[:2]}
    for band, f, value, h in bars:
        want = refs[f][band]
        check(close(value, want, 1e-4), f"plot: {f} {band} value {value} vs {want}")
        check(close(h, bar_height(want, axis, height), 1e-3), f"plot: {f} {band} height {h}")
    check(axis[0] <= min(v for _, _, v, _ in bars), "plot: every bar above the axis' bottom")
    # many files: the mean with its spread
    many = [os.path.join(tmp, f"m{k}.png") for k in range(7)]
    imgs = [make_image(p, 1, 8, 16 + k, 20, 100 + k) for k, p in enumerate(many)]
    run("stats", "-l", "1", "--plot", svg, *many)
    axis, height, bars, _ = svg_bars(svg)
    check(len(bars) == 4, f"plot of 7 files: {len(bars)} mean bars")
    shares = [shares_all_channels(im, "haar", 1) for im in imgs]
    for band, f, value, h in bars:
        want = float(np.mean([s[band] for s in shares]))
        check(close(value, want, 1e-4) and close(h, bar_height(want, axis, height), 1e-3),
              f"plot mean {band}: {value} vs {want}")


def check_roundtrip_qstep(tmp, path, img):
    """roundtrip --qstep Q: details quantised (cA kept), PSNR and bpp."""
    q = 6.0
    rep = json.loads(run("roundtrip", "-l", "2", "--qstep", str(q), "--psnr", "--format",
                         "json", path).stdout)
    coeffs = pywt.wavedec2(img[..., 0], "haar", mode="symmetric", level=2)
    quant = lambda c: np.where(np.abs(c) < q, 0.0, np.sign(c) * (np.floor(np.abs(c) / q) + 0.5) * q)
    rec = pywt.waverec2([coeffs[0]] + [tuple(quant(d) for d in det) for det in coeffs[1:]],
                        "haar", mode="symmetric")[: img.shape[0], : img.shape[1]]
    mse = float(((np.clip(np.rint(rec), 0, 255) - img[..., 0]) ** 2).mean())
    psnr = 10 * math.log10(255 ** 2 / mse)
    check(close(rep["psnr"], psnr, 0.05), f"roundtrip --qstep: PSNR {rep['psnr']} vs {psnr}")
    bpp = sum(entropy(np.asarray(c), q) * np.asarray(c).size
              for c in [coeffs[0]] + [d for det in coeffs[1:] for d in det]) / img[..., 0].size
    check(close(rep["bpp"], bpp, 0.02) and rep["qstep"] == q, f"roundtrip --qstep: bpp {rep}")
    finer = json.loads(run("roundtrip", "-l", "2", "--qstep", "1", "--psnr", "--format", "json",
                           path).stdout)
    check(finer["psnr"] > rep["psnr"] and finer["bpp"] > rep["bpp"],
          "roundtrip --qstep: a finer step costs bits and gains PSNR")


def check_errors(tmp, path):
    p = run("stats", path, os.path.join(tmp, "missing.png"), ok=(1,))
    lines = [l for l in p.stderr.splitlines() if "missing.png" in l]
    check(len(lines) == 1 and p.stdout.count("bpp") == 1, f"missing input: {p.stderr!r}")
    bad = os.path.join(tmp, "notimg.png")
    with open(bad, "w") as f:
        f.write("this is not an image\n")
    p = run("stats", "--format", "json", bad, ok=(1,))
    lines = [l for l in p.stderr.splitlines() if l.startswith("wavetool: ") and "notimg.png" in l]
    check(len(lines) == 1 and p.stdout == "", f"not an image: one line naming it, no report: {p.stderr!r}")
    p = run("stats", "--plot", os.path.join(tmp, "none.svg"), bad, ok=(1,))
    check(not os.path.exists(os.path.join(tmp, "none.svg")), "no chart when no input succeeded")
    check(run("stats", "--plot", os.path.join(tmp, "e.png"), path, ok=(2,)).returncode == 2,
          "--plot needs .svg")
    check(run("stats", "--qstep", "0", path, ok=(2,)).returncode == 2, "--qstep 0 refused")
    check(run("roundtrip", "--qstep", "1", "--keep", "0.1", path, ok=(2,)).returncode == 2,
          "--qstep with --keep refused")
    check(not os.path.exists(os.path.join(tmp, "e.png")), "no chart written on a usage error")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for i, case in enumerate(CASES):
            inputs.append(check_case(tmp, i, case))
            print(f"ok stats {case[:7]}")
        for i, case in enumerate(UCASES):
            check_undecimated(tmp, i, case)
            print(f"ok stats {case}")
        rgb = [inputs[1], inputs[3]]
        check_plot(tmp, [inputs[0], rgb[0]])
        print("ok --plot")
        check_roundtrip_qstep(tmp, *inputs[0])
        print("ok roundtrip --qstep")
        check_errors(tmp, inputs[0][0])
        print("ok errors")
    print(f"{len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
