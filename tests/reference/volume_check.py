#!/usr/bin/env python3
"""Volumes (--volume): a 3-D .npy or multi-page TIFF as one (z, y, x) array.

- decompose --volume = pywt.wavedecn, every member (KEY + LEVEL, (C, z, y, x))
  within 1e-5 of the level's largest reference: 20 wavelets x the 9 modes on
  17x33x40, levels 1 .. dwtn_max_level + 1, axes subsets and orders;
  reconstruct gives the 8-bit input back exactly (16-bit: a multi-page TIFF;
  dmey, not a perfect reconstruction: pywt.waverecn's, rounded, within 1);
- --method lifting (haar, db3) = pywt; cdf97 and dd137 lifting = their
  convolution; legall53 (int32 members) and the others exact through roundtrip;
- --transform swt = pywt.swtn (start_level, norm, trim_approx, axes) and
  reconstruct = the input (and = pywt.iswtn of pywt's bands); any size;
- --transform starlet = B3 a trous along each axis (scipy), layers sum back;
- a .npz written by numpy in that layout (3-D members, meta by json) is read;
- denoise --volume = skimage.restoration.denoise_wavelet of the 3-D array
  (sigma 10 and 25, 8 and 16-bit, BayesShrink/VisuShrink, soft/hard) within
  1 LSB on >= 99.9% of voxels; sigma --volume = estimate_sigma (1e-9); SWT and
  Poisson denoising against numpy/pywt code;
- decompose --volume OUT.png: each band at a slice or projected, in a grid;
- hostile stacks: pages of different sizes or types, 1-voxel axes, a
  1x1x100000 volume, a 70000-page .npy (= pywt), --max-pixels counting
  voxels, --max-memory, --axes and --volume misuse: exit 0 with the right numbers, or one line and no output.
Usage: volume_check.py WAVETOOL.  Exit 77 without numpy, pywt, scipy, tifffile,
scikit-image."""
import json
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    import pywt
    import scipy.ndimage  # noqa: F401 (starlet_ref)
    import tifffile
    from skimage.restoration import denoise_wavelet, estimate_sigma
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from starlet_ref import starlet_planes  # noqa: E402 (after the skip)

WT = sys.argv[1]
TOL = 1e-5
rng = np.random.default_rng(27)
failures = []
cases = 0
warnings.simplefilter("ignore", UserWarning)  # pywt's "level too high"

WAVELETS = ["haar", "db2", "db3", "db5", "db7", "sym2", "sym4", "sym5", "coif1", "coif3",
            "bior1.3", "bior2.2", "bior3.5", "bior4.4", "bior6.8", "rbio1.3", "rbio3.1",
            "rbio5.5", "dmey", "db1"]
MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth", "antisymmetric",
         "antireflect", "periodization"]
AXES = [(0, 1, 2), (0, 1, 2), (2, 0), (1,), (1, 2), (0,), (2, 1, 0)]


def check(ok, what):
    global cases
    cases += 1
    if not ok:
        failures.append(what)


def run(*args):
    return subprocess.run([WT, *args], capture_output=True, text=True)


def close(got, ref, scale):
    return got.shape == ref.shape and float(np.abs(got - ref).max()) <= TOL * max(scale, 1.0)


def axes_arg(axes):
    return ",".join(str(a) for a in axes)


def check_members(z, ref, axes, levels, name, channel=0):
    """Members of an .npz (KEY + LEVEL) against pywt.wavedecn's list ref."""
    a = "a" * len(axes)
    scale = max([float(np.abs(ref[0]).max())] +
                [float(np.abs(v).max()) for d in ref[1:] for v in d.values()])
    check(close(z[a + str(levels)][channel], ref[0], scale), "%s: %s%d" % (name, a, levels))
    for i, d in enumerate(ref[1:]):
        for key, v in d.items():
            member = key + str(levels - i)
            got = z[member][channel] if member in z.files else None
            check(got is not None and close(got, v, scale), "%s: %s" % (name, member))


def dwt_grid(tmp):
    x = rng.integers(0, 256, (17, 33, 40)).astype(np.uint8)
    src, npz, back = (os.path.join(tmp, n) for n in ("v.npy", "c.npz", "b.npy"))
    np.save(src, x)
    for i, w in enumerate(WAVELETS):
        for j, mode in enumerate(MODES):
            axes = AXES[(i + j) % len(AXES)]
            top = pywt.dwtn_max_level(x.shape, w, axes=axes) + 1
            levels = 1 + (i + j) % top
            name = "%s %s -l %d --axes %s" % (w, mode, levels, axes_arg(axes))
            r = run("decompose", "--volume", "-q", "--axes", axes_arg(axes), "-w", w, "-m", mode,
                    "-l", str(levels), src, npz)
            if r.returncode:
                check(False, "%s: %s" % (name, r.stderr.strip()))
                continue
            ref = pywt.wavedecn(x.astype(np.float64), w, mode=mode, level=levels, axes=axes)
            with np.load(npz) as z:
                check_members(z, ref, axes, levels, name)
            r = run("reconstruct", "--volume", npz, back)
            got = np.load(back).astype(np.int64) if r.returncode == 0 else None
            if w == "dmey":  # not a perfect reconstruction, in pywt either: = waverecn
                rec = pywt.waverecn(ref, w, mode=mode, axes=axes)[:17, :33, :40]
                want = np.rint(np.clip(rec, 0, 255))
                check(got is not None and np.abs(got - want).max() <= 1,
                      "%s: reconstruct is not pywt.waverecn" % name)
            else:
                check(got is not None and np.array_equal(got, x),
                      "%s: reconstruct is not the input" % name)


def lifting(tmp):
    x = rng.integers(0, 65536, (9, 16, 15)).astype(np.uint16)
    src, a, b = (os.path.join(tmp, n) for n in ("l.npy", "a.npz", "b.npz"))
    np.save(src, x)
    for w in ("haar", "db3"):
        r = run("decompose", "--volume", "--method", "lifting", "-w", w, "-m", "periodization",
                "-l", "2", src, a)
        ref = pywt.wavedecn(x.astype(np.float64), w, mode="periodization", level=2)
        with np.load(a) as z:
            check(r.returncode == 0, "lifting %s: %s" % (w, r.stderr))
            check_members(z, ref, (0, 1, 2), 2, "lifting " + w)
    for w in ("cdf97", "dd137"):
        run("decompose", "--volume", "--method", "lifting", "-w", w, "-l", "2", src, a)
        run("decompose", "--volume", "--method", "conv", "-w", w, "-l", "2", src, b)
        with np.load(a) as za, np.load(b) as zb:
            scale = max(float(np.abs(zb[k]).max()) for k in zb.files if k != "meta")
            check(all(close(za[k], zb[k], scale) for k in zb.files if k != "meta"),
                  "%s: lifting and convolution differ" % w)
    for w in ("cdf97", "legall53", "dd137", "haar", "db3"):
        for axes in ("0,1,2", "1"):
            r = run("roundtrip", "--volume", "--method", "lifting", "-w", w, "--axes", axes,
                    "-l", "2", "--format", "json", src)
            check(r.returncode == 0 and json.loads(r.stdout)["psnr"] == "inf",
                  "lifting %s --axes %s: roundtrip not exact %s" % (w, axes, r.stdout + r.stderr))
    run("decompose", "--volume", "-w", "legall53", "-l", "2", src, a)
    with np.load(a) as z:
        check(z["aaa2"].dtype == np.int32, "legall53 members are not int32")


def swt(tmp):
    src, odd, npz, back = (os.path.join(tmp, n) for n in ("s.npy", "o.npy", "s.npz", "sb.npy"))
    x = rng.integers(0, 256, (16, 24, 32)).astype(np.uint8)
    np.save(src, x)
    combos = [("haar", 2, 0, False, True, (0, 1, 2)), ("db2", 2, 1, True, True, (0, 1, 2)),
              ("sym3", 1, 0, False, False, (2, 1)), ("db1", 3, 0, False, False, (0, 1, 2)),
              ("coif1", 2, 0, True, True, (0,)), ("bior2.2", 2, 0, False, True, (1, 2))]
    for w, levels, start, norm, trim, axes in combos:
        name = "swt %s -l %d --start-level %d norm %d trim %d --axes %s" % (
            w, levels, start, norm, trim, axes_arg(axes))
        args = ["decompose", "--volume", "--transform", "swt", "-w", w, "-l", str(levels),
                "--start-level", str(start), "--axes", axes_arg(axes)]
        r = run(*(args + (["--norm"] if norm else []) + ([] if trim else ["--all-approx"])
                  + [src, npz]))
        if r.returncode:
            check(False, "%s: %s" % (name, r.stderr.strip()))
            continue
        ref = pywt.swtn(x.astype(np.float64), w, level=levels, start_level=start, axes=axes,
                        trim_approx=trim, norm=norm)
        a = "a" * len(axes)
        with np.load(npz) as z:
            if trim:
                check_members(z, ref, axes, levels, name)
            else:  # every level's dict has its approximation
                scale = max(float(np.abs(v).max()) for d in ref for v in d.values())
                for i, d in enumerate(ref):
                    for key, v in d.items():
                        check(close(z[key + str(levels - i)][0], v, scale),
                              "%s: %s%d" % (name, key, levels - i))
        r = run("reconstruct", "--volume", npz, back)
        got = np.load(back) if r.returncode == 0 else None
        check(got is not None and np.array_equal(got, x), "%s: reconstruct" % name)
        if start == 0 and got is not None:
            inv = pywt.iswtn(ref, w, axes=axes, norm=norm)
            check(np.abs(np.rint(np.clip(inv, 0, 255)) - got).max() == 0,
                  "%s: pywt.iswtn differs" % name)
        del a
    y = rng.integers(0, 256, (7, 13, 10)).astype(np.uint8)  # any size: periodic
    np.save(odd, y)
    r = run("roundtrip", "--volume", "--transform", "swt", "-w", "db2", "-l", "2", "--format",
            "json", odd)
    check(r.returncode == 0 and json.loads(r.stdout)["psnr"] == "inf", "swt on 7x13x10")


def starlet(tmp):
    src, npz = os.path.join(tmp, "st.npy"), os.path.join(tmp, "st.npz")
    x = rng.integers(0, 4096, (9, 20, 17)).astype(np.uint16)
    np.save(src, x)
    for axes in ((0, 1, 2), (1, 2)):
        r = run("decompose", "--volume", "--transform", "starlet", "-l", "3", "--axes",
                axes_arg(axes), src, npz)
        ref = starlet_planes(x, 3, "mirror", axes=axes)
        with np.load(npz) as z:
            got = [z["c3"][0]] + [z["w%d" % l][0] for l in (1, 2, 3)]
            scale = float(np.abs(x).max())
            check(r.returncode == 0 and all(close(g, f, scale) for g, f in zip(got, ref)),
                  "starlet --axes %s" % axes_arg(axes))
            check(close(sum(g.astype(np.float64) for g in got), x.astype(np.float64), scale),
                  "starlet layers do not sum back")


def stacks(tmp):
    """Multi-page TIFFs, channels, numpy-written files."""
    t16, t_rgb, back = (os.path.join(tmp, n) for n in ("p16.tif", "rgb.tif", "b.tif"))
    npz, b2 = os.path.join(tmp, "t.npz"), os.path.join(tmp, "t.tif")
    x16 = rng.integers(0, 65536, (11, 18, 21)).astype(np.uint16)
    tifffile.imwrite(t16, x16)
    r = run("decompose", "--volume", "-w", "db2", "-l", "2", t16, npz)
    with np.load(npz) as z:
        check_members(z, pywt.wavedecn(x16.astype(np.float64), "db2", level=2), (0, 1, 2), 2,
                      "16-bit TIFF")
        meta = json.loads(bytes(z["meta"]).decode())
        check(meta.get("depth") == 11 and meta.get("axes") == "0,1,2", "meta: %s" % meta)
    r = run("reconstruct", "--volume", npz, back)
    check(r.returncode == 0 and np.array_equal(tifffile.imread(back), x16), "16-bit TIFF back")
    rgb = rng.integers(0, 256, (5, 12, 13, 3)).astype(np.uint8)
    tifffile.imwrite(t_rgb, rgb, photometric="rgb")
    run("decompose", "--volume", "-l", "1", "--axes", "0,2", t_rgb, npz)
    with np.load(npz) as z:
        for c in range(3):
            ref = pywt.wavedecn(rgb[..., c].astype(np.float64), "haar", level=1, axes=(0, 2))
            check_members(z, ref, (0, 2), 1, "RGB TIFF channel %d" % c, channel=c)
    r = run("reconstruct", "--volume", npz, b2)
    check(r.returncode == 0 and np.array_equal(tifffile.imread(b2), rgb), "RGB TIFF back")
    four = os.path.join(tmp, "four.npy")
    np.save(four, rgb)
    r = run("roundtrip", "--volume", "-w", "db3", "--format", "json", four, "-o",
            os.path.join(tmp, "four_back.npy"))
    check(r.returncode == 0 and np.array_equal(np.load(os.path.join(tmp, "four_back.npy")), rgb),
          "(z, y, x, C) .npy roundtrip")
    # docs/volumes.md's five lines rebuild pywt's list from a file
    r = run("decompose", "--volume", "-w", "db2", "-m", "periodic", "-l", "2", "--axes", "2,0",
            t16, npz)
    import re
    z = np.load(npz); meta = json.loads(z["meta"].tobytes()); L, c = meta["levels"], 0  # noqa: E702
    keys = [re.fullmatch(r"([ad]+)(\d+)", k).groups() for k in z.files if k != "meta"]
    coeffs = [z["a" * len(keys[0][0]) + str(L)][c]] + [{k: z[k + lv][c] for k, lv in keys if lv == str(l) and "d" in k} for l in range(L, 0, -1)]  # noqa: E501
    x = pywt.waverecn(coeffs, meta["wavelet"], mode=meta["mode"], axes=[int(a) for a in meta["axes"].split(",")])  # noqa: E501
    check(np.abs(x[:11, :18, :21] - x16).max() < 0.1, "docs' five lines")
    # numpy's own file in that layout: 3-D members for one channel, meta by json
    x = rng.integers(0, 256, (6, 10, 9)).astype(np.uint8)
    coeffs = pywt.wavedecn(x.astype(np.float64), "sym3", mode="reflect", level=2, axes=(0, 2))
    members = {"aa2": coeffs[0].astype(np.float32)}
    for i, d in enumerate(coeffs[1:]):
        members.update({k + str(2 - i): v.astype(np.float32) for k, v in d.items()})
    meta = {"wavelet": "sym3", "mode": "reflect", "method": "conv", "levels": 2, "width": 9,
            "height": 10, "depth": 6, "axes": "0,2", "channels": 1, "bit_depth": 8,
            "color": "gray"}
    mine = os.path.join(tmp, "numpy.npz")
    np.savez(mine, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), **members)
    out = os.path.join(tmp, "numpy_back.npy")
    r = run("reconstruct", "--volume", mine, out)
    check(r.returncode == 0 and np.array_equal(np.load(out), x),
          "numpy-written file: %s" % r.stderr.strip())


def mosaics(tmp):
    """decompose --volume OUT.png: a grid of levels x keys, each band at the
    slice (or its projection) scaled as mosaics scale bands."""
    from PIL import Image
    src, npz, png = (os.path.join(tmp, n) for n in ("m.npy", "m.npz", "m.png"))
    x = rng.integers(0, 256, (12, 20, 18)).astype(np.uint8)
    np.save(src, x)
    run("decompose", "--volume", "-w", "db2", "-l", "2", src, npz)
    with np.load(npz) as z:
        bands = {k: z[k][0].astype(np.float64) for k in z.files if k != "meta"}
    for slice_arg in ("z=7", "mip"):
        r = run("decompose", "--volume", "-w", "db2", "-l", "2", "--slice", slice_arg, src, png)
        img = np.asarray(Image.open(png)).astype(np.int64) if r.returncode == 0 else None
        a, d = bands["aaa2"], bands["dad1"]
        if slice_arg == "mip":
            a_cut, d_cut = a.max(axis=0), np.abs(d).max(axis=0)
        else:
            a_cut, d_cut = a[7 * a.shape[0] // 12], d[7 * d.shape[0] // 12]
        want_a = np.rint((a_cut - a_cut.min()) / (a_cut.max() - a_cut.min()) * 255)
        want_d = np.rint(np.abs(d_cut) / np.abs(d_cut).max() * 255)
        # rows: level 2 (height of level 2's bands), level 1; columns: keys aaa..ddd
        h2, w1 = bands["ddd2"].shape[1], max(bands[k].shape[2] for k in bands if k.endswith("1"))
        x_dad = bands["aaa2"].shape[2] + 4 * w1  # column 5 ('dad'), after aaa and 4 of level 1
        ok = img is not None and img.shape == (h2 + bands["ddd1"].shape[1],
                                               bands["aaa2"].shape[2] + 7 * w1)
        ok = ok and np.abs(img[:a.shape[1], :a.shape[2]] - want_a).max() <= 1
        ok = ok and np.abs(img[h2:h2 + d.shape[1], x_dad:x_dad + d.shape[2]] - want_d).max() <= 1
        check(ok, "mosaic --slice %s: %s" % (slice_arg, r.stderr.strip()))
    refused(["decompose", "--volume", "--slice", "z=12", src, png + "2.png"], "--slice past the end",
            "12 pages", png + "2.png")


def within_lsb(got, ref, what):
    """got (integers) against the float reference in sample units, rounded:
    within 1 everywhere but 0.1% of voxels."""
    diff = np.abs(got.astype(np.int64) - np.rint(ref).astype(np.int64))
    check(got.shape == ref.shape and (diff > 1).mean() <= 1e-3,
          "%s: %.4f%% of voxels off by more than 1 (max %d)" % (
              what, 100 * (diff > 1).mean(), diff.max()))


def noisy_volume(bits, sigma):
    peak = 255 if bits == 8 else 65535
    z, y, x = np.mgrid[0:20, 0:32, 0:28]
    clean = (128 + 60 * np.sin(x / 5.0) * np.cos(y / 7.0) + 30 * np.sin(z / 4.0)) * peak / 255
    noise = rng.normal(0, sigma * peak / 255, clean.shape)
    return np.clip(np.rint(clean + noise), 0, peak).astype(np.uint8 if bits == 8 else np.uint16)


def denoise(tmp):
    src, out = os.path.join(tmp, "n.npy"), os.path.join(tmp, "d.npy")
    runs = [("BayesShrink", "soft", "db1"), ("VisuShrink", "hard", "db2"),
            ("BayesShrink", "hard", "sym4"), ("VisuShrink", "soft", "db1")]
    for i, (bits, sigma) in enumerate(((8, 10), (8, 25), (16, 10), (16, 25))):
        x = noisy_volume(bits, sigma)
        peak = 255 if bits == 8 else 65535
        np.save(src, x)
        r = run("sigma", "--volume", "--format", "json", src)
        check(r.returncode == 0 and np.allclose(json.loads(r.stdout)["sigma"],
                                                [estimate_sigma(x)], rtol=1e-9, atol=0),
              "sigma --volume %d-bit %d: %s" % (bits, sigma, r.stdout + r.stderr))
        for method, mode, w in runs[i:] + runs[:i][:1]:
            what = "denoise --volume %d-bit sigma %d %s %s %s" % (bits, sigma, method, mode, w)
            args = ["denoise", "--volume", "-w", w, "--shrink", mode]
            r = run(*(args + (["--rule", "visu"] if method == "VisuShrink" else []) + [src, out]))
            if r.returncode:
                check(False, "%s: %s" % (what, r.stderr))
                continue
            ref = denoise_wavelet(x, wavelet=w, method=method, mode=mode, rescale_sigma=True)
            within_lsb(np.load(out), ref * peak, what)
    # SWT: BayesShrink soft on pywt.swtn's trim_approx bands (sample units)
    x = noisy_volume(8, 20)[:, :16, :24]
    np.save(src, x)
    run("denoise", "--volume", "--transform", "swt", "-w", "db2", src, out)
    levels = max(pywt.swt_max_level(min(x.shape)) - 3, 1)
    coeffs = pywt.swtn(x.astype(np.float64), "db2", level=levels, trim_approx=True)
    d1 = coeffs[-1]["ddd"]
    sigma = np.median(np.abs(d1[np.abs(d1) >= 255 / 2 ** 20])) / 0.6744897501960817
    shrunk = [coeffs[0]] + [{k: pywt.threshold(d, sigma ** 2 / np.sqrt(max(
        np.mean(d * d) - sigma ** 2, np.finfo(float).eps * 255 ** 2)), "soft")
        for k, d in level.items()} for level in coeffs[1:]]
    within_lsb(np.load(out), np.clip(pywt.iswtn(shrunk, "db2"), 0, 255), "denoise --volume swt")
    # Poisson: Anscombe, BayesShrink with sigma 1, Makitalo-Foi's inverse
    lam = 5 + 30 * noisy_volume(8, 0)[:, :24, :20] / 255.0
    counts = rng.poisson(lam).astype(np.uint8)
    np.save(src, counts)
    run("denoise", "--volume", "--noise", "poisson", src, out)
    y = 2 * np.sqrt(counts + 3 / 8)
    coeffs = pywt.wavedecn(y, "db1", level=max(pywt.dwtn_max_level(y.shape, "db1") - 3, 1))
    shrunk = [coeffs[0]] + [{k: pywt.threshold(d, 1 / np.sqrt(max(np.mean(d * d) - 1,
                                                                 np.finfo(float).eps)), "soft")
                             for k, d in level.items()} for level in coeffs[1:]]
    den = np.maximum(pywt.waverecn(shrunk, "db1")[:y.shape[0], :y.shape[1], :y.shape[2]], 1e-9)
    s15 = np.sqrt(1.5)
    inv = 0.25 * den ** 2 + 0.25 * s15 / den - 11 / 8 / den ** 2 + 5 / 8 * s15 / den ** 3 - 1 / 8
    within_lsb(np.load(out), np.clip(inv, 0, 255), "denoise --volume --noise poisson")
    refused(["denoise", "--volume", "--cycle-spin", "2", src, out], "--cycle-spin", "--volume")


def refused(args, what, must_say, out=None):
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode != 0 and lines and must_say in lines[0] and
          (out is None or not os.path.exists(out)),
          "%s: exit %d, %r" % (what, r.returncode, r.stderr))


def hostile(tmp):
    p = lambda n: os.path.join(tmp, n)  # noqa: E731
    with tifffile.TiffWriter(p("sizes.tif")) as t:
        t.write(np.zeros((8, 8), np.uint8))
        t.write(np.zeros((9, 8), np.uint8))
    with tifffile.TiffWriter(p("types.tif")) as t:
        t.write(np.zeros((8, 8), np.uint8))
        t.write(np.zeros((8, 8), np.uint16))
    for name in ("sizes.tif", "types.tif"):
        refused(["decompose", "--volume", p(name), p("h.npz")], name, "page 1", p("h.npz"))
    for shape in ((1, 1, 1), (1, 7, 1), (5, 1, 1), (1, 1, 100000), (3, 1, 9)):
        v = rng.integers(0, 256, shape).astype(np.uint8)
        np.save(p("thin.npy"), v)
        for kind in ("dwt", "swt", "starlet"):
            r = run("roundtrip", "--volume", "--transform", kind, "--format", "json",
                    p("thin.npy"))
            check(r.returncode == 0 and json.loads(r.stdout)["psnr"] == "inf",
                  "%s volume %s: %s" % (kind, shape, r.stderr.strip()))
    # .npy stacks have no page limit (TIFF's 65535 is not theirs)
    tall = rng.integers(0, 256, (70000, 1, 2)).astype(np.uint8)
    np.save(p("tall.npy"), tall)
    r = run("decompose", "--volume", "-w", "db2", "-l", "2", p("tall.npy"), p("tall.npz"))
    check(r.returncode == 0, "70000 pages: %s" % r.stderr.strip())
    if r.returncode == 0:
        with np.load(p("tall.npz")) as z:
            check_members(z, pywt.wavedecn(tall.astype(np.float64), "db2", mode="symmetric",
                                           level=2), (0, 1, 2), 2, "70000 pages")
        r = run("reconstruct", p("tall.npz"), p("tall2.npy"))
        check(r.returncode == 0 and np.array_equal(np.load(p("tall2.npy")), tall),
              "70000 pages back: %s" % r.stderr.strip())
    np.save(p("big.npy"), np.zeros((200, 40, 40), np.uint8))
    refused(["decompose", "--volume", "--max-pixels", "100000", p("big.npy"), p("h.npz")],
            "voxels over --max-pixels", "big.npy: a volume of 40x40x200 = 320000 voxels",
            p("h.npz"))
    refused(["decompose", "--volume", "--max-memory", "2M", p("big.npy"), p("h.npz")],
            "200 pages over --max-memory", "big.npy: a volume of 40x40x200", p("h.npz"))
    refused(["decompose", "--axes", "0", p("big.npy"), p("h.npz")], "--axes alone", "--volume")
    refused(["decompose", "--volume", "--axes", "1,1", p("big.npy"), p("h.npz")], "--axes 1,1",
            "invalid --axes")
    refused(["decompose", "--volume", "--transfer", "log", p("big.npy"), p("h.png")],
            "a mosaic's style", "--scale", p("h.png"))
    run("decompose", "--volume", p("big.npy"), p("h.npz"))
    r = run("reconstruct", p("h.npz"), p("h2.npy"))  # a volume's file without --volume
    check(r.returncode == 0 and np.load(p("h2.npy")).shape == (200, 40, 40),
          "a volume's file read without --volume: %s" % r.stderr)
    refused(["reconstruct", "--volume", p("h.npz"), p("h2.png")], "a volume into PNG",
            "200 pages", p("h2.png"))
    hostile_files(p)


def hostile_files(p):
    """Coefficient files that lie: each refused in one line naming the file."""
    good = p("good.npz")
    run("decompose", "--volume", "-l", "1", p("thin.npy"), good)  # (3, 1, 9)
    with np.load(good) as z:
        members = {k: z[k] for k in z.files}
    meta = json.loads(members["meta"].tobytes())

    def variant(name, change_meta=None, change=None):
        m, d = dict(meta), dict(members)
        if change_meta:
            m.update(change_meta)
        if change:
            change(d)
        d["meta"] = np.frombuffer(json.dumps(m).encode(), np.uint8)
        path = p(name + ".npz")
        np.savez(path, **d)
        return path

    cases = [
        (variant("deep", {"depth": 100000}), "needs more data"),
        (variant("axes", {"axes": "0,0"}), "impossible volume"),
        (variant("noaxes", {"axes": ""}), "impossible volume"),
        (variant("type", change=lambda d: d.update(aaa1=d["aaa1"].astype(np.float64))),
         "float32"),
        (variant("shape", change=lambda d: d.update(aad1=d["aad1"][:, :, :, :1])), "shape"),
        (variant("missing", change=lambda d: d.pop("ddd1")), "missing"),
    ]
    np.save(p("image.npy"), np.zeros((6, 5), np.uint8))
    run("decompose", p("image.npy"), p("image.npz"))
    cases.append((p("image.npz"), "not a volume's"))
    for path, says in cases:
        refused(["reconstruct", "--volume", path, p("x.npy")], os.path.basename(path),
                os.path.basename(path) + ": ", p("x.npy"))
        r = run("reconstruct", "--volume", path, p("x.npy"))
        check(says in r.stderr, "%s: %r does not say %r" % (path, r.stderr, says))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for part in (dwt_grid, lifting, swt, starlet, stacks, mosaics, denoise, hostile):
            part(tmp)
    for f in failures[:40]:
        print("FAIL", f)
    print("%d checks, %d failed" % (cases, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
