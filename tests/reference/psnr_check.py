#!/usr/bin/env python3
"""PSNR's peak (--data-range) against scikit-image, and stats' default step.

compare and roundtrip with --data-range R|auto equal
skimage.metrics.peak_signal_noise_ratio(ref, test, data_range=R or
ref.max() - ref.min()), and without it the dtype's peak; stats' default
--qstep is 2^b/256, b the bits of a 16-bit image's largest sample (at least 8).
Usage: psnr_check.py WAVETOOL. Exit 77 without numpy/scikit-image/tifffile.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import tifffile
    from skimage.metrics import peak_signal_noise_ratio as psnr
except ImportError as e:
    print(f"SKIP {e}")
    sys.exit(77)

WT = os.path.abspath(sys.argv[1])
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("ok - " if ok else "FAIL - ") + what + ("" if ok else f": {detail}"))
    failed += not ok


def wavetool(*args):
    return subprocess.run([WT, *args], capture_output=True, text=True)


def report(*args):
    """The JSON report line of a command that must succeed."""
    p = wavetool(*args, "--format", "json")
    if p.returncode != 0:
        raise SystemExit(f"FAIL - wavetool {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout.splitlines()[0])


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-8, abs_tol=1e-9)


def check_compare(a, b, name_a, name_b, what):
    ref_range = float(a.max()) - float(a.min())
    for option, data_range in (([], None), (["--data-range", "auto"], ref_range),
                               (["--data-range", "5000"], 5000.0)):
        got = report("compare", *option, name_a, name_b)
        want = psnr(a, b) if data_range is None else psnr(a, b, data_range=data_range)
        mse = ((a.astype(float) - b.astype(float)) ** 2).reshape(-1, a.shape[-1] if a.ndim == 3 else 1)
        peak = data_range or float(np.iinfo(a.dtype).max)
        per = [10 * math.log10(peak ** 2 / m) for m in mse.mean(axis=0)]
        ok = close(got["psnr"], want) and all(close(g, w) for g, w in zip(got["psnr_channels"], per))
        check(ok, f"compare {' '.join(option) or '(default)'} {what} = skimage data_range={data_range}",
              f"{got['psnr']} {got['psnr_channels']} vs {want} {per}")


def main():
    os.chdir(tempfile.mkdtemp(prefix="psnr_check."))
    rng = np.random.default_rng(5)
    counts = rng.integers(132, 4695, (40, 37)).astype(np.uint16)
    noisy = np.clip(counts + rng.normal(0, 20, counts.shape), 0, 65535).astype(np.uint16)
    tifffile.imwrite("counts.tif", counts)
    tifffile.imwrite("noisy.tif", noisy)
    check_compare(counts, noisy, "counts.tif", "noisy.tif", "16-bit counts 132-4694")
    rgb = rng.integers(20, 200, (23, 30, 3)).astype(np.uint8)
    rgb2 = np.clip(rgb + rng.integers(-9, 10, rgb.shape), 0, 255).astype(np.uint8)
    np.save("rgb.npy", rgb)
    np.save("rgb2.npy", rgb2)
    check_compare(rgb, rgb2, "rgb.npy", "rgb2.npy", "8-bit RGB")

    got = report("roundtrip", "--keep", "0.1", "--data-range", "auto", "-o", "back.tif", "counts.tif")
    back = tifffile.imread("back.tif")
    want = psnr(counts, back, data_range=float(counts.max()) - float(counts.min()))
    check(close(got["psnr"], want), "roundtrip --data-range auto = skimage on what it wrote",
          f"{got['psnr']} vs {want}")

    p = wavetool("compare", "--data-range", "0", "counts.tif", "noisy.tif")
    check(p.returncode == 2 and "--data-range" in p.stderr, "--data-range 0: usage error", p.stderr)
    np.save("flat.npy", np.full((8, 9), 7, np.uint8))
    p = wavetool("roundtrip", "--data-range", "auto", "flat.npy")
    check(p.returncode == 1 and p.stderr.startswith("wavetool: flat.npy: --data-range auto: ")
          and p.stderr.count("\n") == 1, "--data-range auto of a flat image: one line, exit 1",
          p.stderr)

    full = rng.integers(0, 65536, (16, 16)).astype(np.uint16)
    full[0, 0] = 65535
    np.save("full.npy", full)
    for name, q in (("counts.tif", 32.0), ("full.npy", 256.0), ("rgb.npy", 1.0)):
        got = report("stats", "-l", "1", name)
        check(got["qstep"] == q and got["eps"] == q, f"stats {name}: default qstep and eps {q}",
              f"{got['qstep']} {got['eps']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
