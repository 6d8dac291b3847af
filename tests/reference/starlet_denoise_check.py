#!/usr/bin/python3
"""denoise --transform starlet against a numpy reference of Sparse2D mr_filter's
default (hard k-sigma thresholding of the starlet's scales), and denoising of
stacks.

  - ||psi_j|| of the B3-spline starlet from a Dirac through scipy's convolutions,
    against Sparse2D's table (0.889, 0.200, 0.086, 0.041, 0.020, rounded);
  - outputs of gray, RGB, 16-bit, --k, --sigma, -l and --noise poisson equal to
    the reference (1 LSB on >= 99.9% of the samples), -v's sigma and support;
  - stacks (multi-page TIFF): --transform starlet and --noise poisson
    --transform swt give, page by page, the page denoised alone;
  - the options that do not go together: exit 2, one line.

Usage: starlet_denoise_check.py WAVETOOL. Exit 77 without numpy, scipy, tifffile.
"""
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import tifffile
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from starlet_ref import starlet_planes
except ImportError as e:
    print(f"starlet_denoise_check: {e}: skipping")
    sys.exit(77)

WT = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="starlet_denoise.")
PPF75 = 0.6744897501960817
failures = checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print("FAIL:", what)


def run(*args, expect=0):
    p = subprocess.run([WT, *args], capture_output=True, text=True)
    check(p.returncode == expect, f"wavetool {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p


def path(name):
    return os.path.join(TMP, name)


def scale_norms(levels):
    """||w_j|| of a unit impulse far from the borders."""
    n = 8 * (1 << levels) + 1
    dirac = np.zeros((n, n))
    dirac[n // 2, n // 2] = 1.0
    return [float(np.sqrt((w ** 2).sum())) for w in starlet_planes(dirac, levels)[1:]]


def reference(x, levels, k=3.0, sigma=None, soft=False):
    """Sparse2D mr_filter -f1 on one channel (sample units): sigma from w1's MAD,
    scale j kept where |w_j| >= k sigma ||psi_j||; the support's share per scale."""
    planes = starlet_planes(x, levels)
    norms = scale_norms(levels)
    w1 = np.abs(planes[1])
    if sigma is None:
        sigma = np.median(w1[w1 >= x.max() * 2.0 ** -20]) / PPF75 / norms[0]
    out, support = planes[0].copy(), []
    for j, w in enumerate(planes[1:]):
        t = k * sigma * norms[j]
        keep = np.abs(w) >= t
        support.append(keep.mean())
        out += np.where(keep, w - np.sign(w) * t if soft else w, 0.0)
    return out, sigma, support


def anscombe_inverse(y):
    y = np.maximum(y, 1e-9)
    s = np.sqrt(1.5)
    return 0.25 * y * y + 0.25 * s / y - 1.375 / (y * y) + 0.625 * s / y ** 3 - 0.125


def close(out, ref, what):
    diff = np.abs(out.astype(np.float64) - ref)
    check((diff <= 1.0).mean() >= 0.999, f"{what}: {np.mean(diff > 1):.4%} of samples > 1 LSB off")


def scene(h, w, peak, noise, rng, channels=1):
    y, x = np.mgrid[0:h, 0:w]
    clean = peak * (0.3 + 0.4 * (((x - w / 2) ** 2 + (y - h / 2) ** 2) < (h / 3) ** 2) + 0.2 * x / w)
    img = clean[..., None] + rng.normal(0, noise, (h, w, channels))
    dtype = np.uint8 if peak < 256 else np.uint16
    return np.clip(np.rint(img), 0, peak).astype(dtype)[..., 0 if channels == 1 else slice(None)]


def norms_as_sparse2d():
    got = scale_norms(5)
    table = [0.889, 0.200, 0.086, 0.041, 0.020]
    check(all(abs(a - b) < 2.5e-3 for a, b in zip(got, table)), f"||psi_j|| {got} vs {table}")


def denoised(img, name, *opts):
    np.save(path(name + ".npy"), img)
    p = run("denoise", "-v", "--transform", "starlet", *opts, path(name + ".npy"),
            path(name + "_out.npy"))
    return np.load(path(name + "_out.npy")), p.stderr


def reported(stderr):
    m = re.search(r"sigma ([\d. e+-]+), support ([\d. ]+)", stderr)
    return [float(v) for v in m.group(1).split()], [float(v) for v in m.group(2).split()]


def against_reference(rng):
    gray = scene(83, 97, 255, 12, rng)
    for opts, kw in (([], {}), (["--k", "2.5"], {"k": 2.5}), (["--sigma", "9"], {"sigma": 9.0}),
                     (["-l", "5"], {"levels": 5}), (["--shrink", "soft"], {"soft": True})):
        out, err = denoised(gray, "gray", *opts)
        levels = kw.pop("levels", 3)
        ref, sigma, support = reference(gray.astype(np.float64), levels, **kw)
        close(out, np.clip(ref, 0, 255), f"gray {opts}")
        got_sigma, got_support = reported(err)
        check(abs(got_sigma[0] - sigma) <= 1e-5 * sigma, f"gray {opts}: sigma {got_sigma} vs {sigma}")
        check(len(got_support) == levels and
              all(abs(a - b) < 2e-3 for a, b in zip(got_support, support)),
              f"gray {opts}: support {got_support} vs {support}")
    rgb = scene(64, 75, 255, 20, rng, channels=3)
    out, _ = denoised(rgb, "rgb")
    for c in range(3):
        close(out[..., c], np.clip(reference(rgb[..., c].astype(np.float64), 3)[0], 0, 255),
              f"rgb channel {c}")
    deep = scene(50, 61, 4000, 80, rng)
    out, _ = denoised(deep, "deep")
    close(out, np.clip(reference(deep.astype(np.float64), 3)[0], 0, 65535), "16-bit")
    counts = rng.poisson(scene(60, 70, 40, 0, rng).astype(float)).astype(np.uint8)
    out, _ = denoised(counts, "poisson", "--noise", "poisson")
    den = reference(2 * np.sqrt(counts + 3 / 8), 3, sigma=1.0)[0]
    close(out, np.clip(anscombe_inverse(den), 0, 255), "poisson")


def stacks(rng):
    """Each page of a stack denoised as the page alone is."""
    pages = np.stack([scene(48, 56, 255, 15, rng) for _ in range(3)])
    counts = rng.poisson(pages.astype(float) / 6).astype(np.uint8)
    for name, stack, opts in (("starlet", pages, ["--transform", "starlet"]),
                              ("poisson-swt", counts, ["--noise", "poisson", "--transform", "swt"])):
        tifffile.imwrite(path(name + ".tif"), stack, photometric="minisblack")
        run("denoise", *opts, path(name + ".tif"), path(name + "_out.tif"))
        out = tifffile.imread(path(name + "_out.tif"))
        check(out.shape == stack.shape, f"{name} stack: shape {out.shape}")
        for k in range(len(stack)):
            np.save(path(f"{name}{k}.npy"), stack[k])
            run("denoise", *opts, path(f"{name}{k}.npy"), path(f"{name}{k}_out.npy"))
            alone = np.load(path(f"{name}{k}_out.npy"))
            check(out.shape == stack.shape and (out[k] == alone).all(),
                  f"{name} stack: page {k} differs from the page denoised alone")
            moved = np.abs(alone.astype(int) - stack[k]).mean()
            check(moved > 0, f"{name} stack: page {k} left as it was")


def refusals():
    np.save(path("r.npy"), np.zeros((16, 16), np.uint8))
    for opts in (["--k", "2"], ["--transform", "starlet", "--rule", "visu"],
                 ["--transform", "starlet", "--k", "0"], ["--transform", "starlet", "--ycbcr"]):
        p = run("denoise", *opts, path("r.npy"), path("r_out.npy"), expect=2)
        check(p.stderr.count("\n") == 2 and not os.path.exists(path("r_out.npy")),
              f"{opts}: {p.stderr!r}")


rng = np.random.default_rng(31)
norms_as_sparse2d()
against_reference(rng)
stacks(rng)
refusals()
print(f"starlet_denoise_check: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
