#!/usr/bin/python3
"""wavetool denoise / sigma against scikit-image 0.19.3 (Debian 12's python3-skimage).

Synthetic clean images + Gaussian or Poisson noise of known sigma, and crops of
the photos in data/, at odd and tiny sizes, 8/16-bit, gray, gray+alpha, RGB
and RGBA, through the command line (-O batches, so few processes):
  - integer outputs equal to img_as_ubyte/img_as_uint(denoise_wavelet(...)) on
    >= 99.9% of the samples and never more than 1 LSB off; with --shrink hard
    on haar, integer images reconstruct to exact .5 ties, so there every
    difference must sit on a tie of the reference (|frac - 0.5| < 1e-6);
  - sigma within 1e-9 relative of estimate_sigma (and of denoise_wavelet's own);
  - 24 noisy photo-like crops through every output type (png, --depth 16|f32, tif, npy);
  - --cycle-spin N against skimage.restoration.cycle_spin(max_shifts=N);
  - --noise poisson and --level-scale against independent numpy/pywt code;
  - usage and per-file errors: exit codes and one-line messages.
Exit 77 (skip) when scikit-image is missing or not 0.19.3.

Usage: denoise_check.py WAVETOOL SOURCE_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    import pywt
    import skimage
    from PIL import Image
    from skimage import img_as_ubyte, img_as_uint
    from skimage.restoration import cycle_spin, denoise_wavelet, estimate_sigma
except ImportError as e:
    print(f"denoise_check: {e}: skipping")
    sys.exit(77)
if skimage.__version__ != "0.19.3":
    print(f"denoise_check: scikit-image {skimage.__version__}, not 0.19.3: skipping")
    sys.exit(77)
warnings.simplefilter("ignore")

WAVETOOL, ROOT = sys.argv[1], sys.argv[2]
TMP = tempfile.mkdtemp(prefix="denoise_check.")
failures = 0
checks = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(args, expect=0):
    p = subprocess.run([WAVETOOL] + args, capture_output=True, text=True)
    if p.returncode != expect:
        fail(f"wavetool {' '.join(args)}: exit {p.returncode} (expected {expect}): {p.stderr}")
    return p


def save(img, name):
    path = os.path.join(TMP, name)
    if img.dtype == np.uint16:  # PIL writes 16-bit gray only; go through our own encoder
        save_16(img, path)
    else:
        Image.fromarray(img).save(path)
    return path


def save_16(img, path):
    """16-bit PNG of any channel count, written with zlib (PIL cannot)."""
    import struct
    import zlib
    h, w = img.shape[:2]
    c = 1 if img.ndim == 2 else img.shape[2]
    ctype = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    raw = b"".join(b"\0" + img[y].astype(">u2").tobytes() for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, ctype, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def load(path):
    img = Image.open(path)
    if img.mode.startswith("I;16") or img.mode == "I":
        return np.asarray(img).astype(np.uint16)
    return np.asarray(img)


def load_any(path, dtype):
    if dtype == np.uint8:
        return load(path)
    import zlib  # our own 16-bit PNGs: one IDAT, filter 0 (what wavetool writes may filter)
    return load_png16(path)


def load_png16(path):
    """Decode a 16-bit PNG of any channel count (PIL cannot)."""
    import struct
    import zlib
    data = open(path, "rb").read()
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = hdr[0], hdr[1], hdr[2], hdr[3]
    c = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]
    bpp = c * depth // 8
    raw = zlib.decompress(idat)
    stride = w * bpp
    out = np.zeros((h, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)], np.uint8).astype(np.int32)
        cur = np.zeros(stride, np.int32)
        for x in range(stride):
            a = cur[x - bpp] if x >= bpp else 0
            b = prev[x]
            cc = prev[x - bpp] if x >= bpp else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
            cur[x] = (line[x] + p) & 255
        out[y] = cur
        prev = cur
    vals = out.reshape(h, w * c, 2)
    img = (vals[..., 0].astype(np.uint16) << 8) | vals[..., 1]
    return img.reshape(h, w, c) if c > 1 else img.reshape(h, w)


def to_depth(f, dtype):
    return img_as_ubyte(f) if dtype == np.uint8 else img_as_uint(f)


def compare(name, out, ref_float, dtype, ties_only=False, min_equal=0.999, tie=1e-6):
    """out (integers) against the reference's float result in [0, 1]; a tie: a
    reference within @tie LSB of .5 (float32 may round it either way)."""
    global checks
    checks += 1
    peak = 255.0 if dtype == np.uint8 else 65535.0
    ref = to_depth(ref_float, dtype).astype(np.int64)
    d = np.abs(out.astype(np.int64) - ref)
    equal = float((d == 0).mean())
    scaled = np.clip(ref_float, 0, 1) * peak
    off_tie = np.abs(scaled - np.floor(scaled) - 0.5) >= tie
    if d.max() > 1:
        fail(f"{name}: max difference {d.max()} LSB")
    elif ties_only and (d[off_tie] != 0).any():
        fail(f"{name}: {(d[off_tie] != 0).sum()} differences away from .5 ties")
    elif not ties_only and equal < min_equal and (d[off_tie] != 0).mean() > 1 - min_equal:
        fail(f"{name}: only {equal:.5%} equal (need {min_equal:.3%}, or every difference "
             f"on a .5 tie); {(d[off_tie] != 0).sum()} off ties")
    else:
        print(f"ok {name}: {equal:.4%} equal, {(d[off_tie] != 0).mean():.4%} off ties, "
              f"max {d.max()} LSB")


def channel_axis(img):
    return -1 if img.ndim == 3 else None


# ---- images -----------------------------------------------------------------

rng = np.random.default_rng(20261124)


def synthetic(h, w, c, dtype, sigma):
    """Smooth shapes (a disc, a ramp, a square) plus Gaussian noise of sigma
    (fraction of full scale), clipped, at the depth."""
    peak = 255 if dtype == np.uint8 else 65535
    yy, xx = np.mgrid[0:h, 0:w]
    base = 0.25 + 0.4 * (xx / max(w - 1, 1))
    base = base + 0.3 * (((yy - h / 2) ** 2 + (xx - w / 3) ** 2) < (min(h, w) / 3) ** 2)
    base = base - 0.2 * ((yy > h * 0.6) & (xx > w * 0.6))
    img = np.stack([np.roll(base, k * 3, axis=1) for k in range(c)], -1) if c > 1 else base
    noisy = img + sigma * rng.standard_normal(img.shape)
    return np.clip(np.rint(noisy * peak), 0, peak).astype(dtype)


def photo_crop(name, h, w, sigma):
    img = np.asarray(Image.open(os.path.join(ROOT, "data", name)))[:h, :w]
    noisy = img + sigma * 255 * rng.standard_normal(img.shape)
    return np.clip(np.rint(noisy), 0, 255).astype(np.uint8)


cases = {
    "gray_odd_8": synthetic(37, 53, 1, np.uint8, 0.08),
    "rgb_odd_8": synthetic(61, 45, 3, np.uint8, 0.1),
    "rgba_8": synthetic(32, 33, 4, np.uint8, 0.05),
    "graya_8": synthetic(29, 40, 2, np.uint8, 0.07),
    "gray_16": synthetic(40, 31, 1, np.uint16, 0.05),
    "rgb_16": synthetic(23, 50, 3, np.uint16, 0.05),
    "tiny_3x5": synthetic(3, 5, 1, np.uint8, 0.1),
    "tiny_1x7": synthetic(1, 7, 3, np.uint8, 0.1),
    "tiny_2x2": synthetic(2, 2, 1, np.uint8, 0.1),
    "camera": photo_crop("camera.png", 257, 203, 0.06),
    "astronaut": photo_crop("astronaut.png", 160, 211, 0.08),
    "coffee": photo_crop("coffee.jpg", 131, 190, 0.05),
}
paths = {k: save(v, k + ".png") for k, v in cases.items()}


def denoise_all(tag, args, names):
    """Run one -O batch over @names; returns {name: output array}, {name: [sigma]}."""
    outdir = os.path.join(TMP, tag)
    p = run(["denoise", "-v", "--device", "cpu"] + args + ["--base", TMP, "-O", outdir] +
            [paths[n] for n in names])
    sigmas = {}
    for line in p.stderr.splitlines():
        if ": levels " in line and ", sigma " in line:
            name = os.path.basename(line.split(": levels ")[0])[:-4]
            sigmas[name] = [float(v) for v in line.split(", sigma ")[1].split()]
    return ({n: load_any(os.path.join(outdir, n + ".png"), cases[n].dtype) for n in names},
            sigmas)


def check_skimage(tag, args, kw, names, ties_only=False, min_equal=0.999):
    """Against denoise_wavelet(**kw); the sigma wavetool estimates is scikit-image's
    (its float64 exact zeros included), so there is no other reference."""
    outs = denoise_all(tag, args, names)[0]
    for n in names:
        img = cases[n]
        ref = denoise_wavelet(img, channel_axis=channel_axis(img), rescale_sigma=True, **kw)
        compare(f"{tag} {n}", outs[n], ref, img.dtype, ties_only, min_equal)


ALL = list(cases)
ROWS1 = ["tiny_1x7"]
SK = [n for n in ALL if n not in ROWS1]
check_skimage("defaults", [], {}, SK)
check_skimage("visu", ["--rule", "visu"], dict(method="VisuShrink"), SK)
# one row: haar's diagonal band is all zero, so no sigma (scikit-image: NaN, a NaN
# image); wavetool leaves the channels as they are
out = denoise_all("onerow", [], ROWS1)[0]["tiny_1x7"]
checks += 1
if (out != cases["tiny_1x7"]).any():
    fail("1x7: a channel without sigma changed")
check_skimage("db2-hard-visu", ["-w", "db2", "--rule", "visu", "--shrink", "hard"],
              dict(wavelet="db2", method="VisuShrink", mode="hard"),
              ["gray_odd_8", "gray_16", "camera", "astronaut"])
check_skimage("haar-hard", ["--shrink", "hard"], dict(mode="hard"),
              ["gray_odd_8", "rgb_odd_8", "camera"], ties_only=True)
check_skimage("sym4-l2-sigma", ["-w", "sym4", "-l", "2", "--sigma", "12"],
              dict(wavelet="sym4", wavelet_levels=2, sigma=12.0),
              ["rgb_odd_8", "camera", "coffee"])
check_skimage("sigma16", ["--sigma", "3000"], dict(sigma=3000.0), ["gray_16", "rgb_16"])
check_skimage("ycbcr", ["--ycbcr"], dict(convert2ycbcr=True), ["rgb_odd_8", "astronaut", "coffee"])

# constant alpha: scikit-image's sigma is NaN there (no nonzero coefficient);
# wavetool leaves such a channel as it is
opaque = cases["rgba_8"].copy()
opaque[..., 3] = 255
paths["opaque"] = save(opaque, "opaque.png")
cases["opaque"] = opaque
out = denoise_all("opaque", [], ["opaque"])[0]["opaque"]
checks += 1
if (out[..., 3] != 255).any():
    fail("opaque RGBA: alpha changed")
ref = denoise_wavelet(opaque[..., :3], channel_axis=-1, rescale_sigma=True)
compare("opaque colour", out[..., :3], ref, np.uint8)

# ---- cycle spinning -------------------------------------------------------------
# db2: no exactly-zero coefficients, so the nine estimates are well defined
outs = denoise_all("spin", ["--cycle-spin", "2", "-w", "db2"], ["astronaut", "camera", "rgb_16"])[0]
for n, o in outs.items():
    img = cases[n]
    ca = channel_axis(img)
    ref = cycle_spin(img, denoise_wavelet, max_shifts=2, num_workers=1, channel_axis=ca,
                     func_kw=dict(channel_axis=ca, rescale_sigma=True, wavelet="db2"))
    compare(f"cycle-spin 2 {n}", o, ref, img.dtype)

# ---- sigma ------------------------------------------------------------------------
p = run(["sigma", "--format", "json", "--device", "cpu"] + [paths[n] for n in ALL])
for line, n in zip(p.stdout.splitlines(), ALL):
    checks += 1
    got = json.loads(line)
    img = cases[n]
    peak = 255.0 if img.dtype == np.uint8 else 65535.0
    ref = np.atleast_1d(estimate_sigma(img, channel_axis=channel_axis(img)))
    for c, (s, f) in enumerate(zip(got["sigma"], got["sigma_fraction"])):
        r = ref[c]
        if s is None and abs(r) < 1e-6 * peak:  # a band of rounding residues: no noise to measure
            print(f"ok sigma {n} channel {c}: none (scikit-image: rounding residue {r:.3g})")
            continue
        # 1e-6 of full scale absolute: a band of float rounding noise (one row)
        if not (abs(s - r) <= 1e-9 * abs(r) and abs(f - r / peak) <= 1e-9 * abs(r / peak)):
            fail(f"sigma {n} channel {c}: {s} ({f}) vs estimate_sigma {r}")
    print(f"ok sigma {n}: {got['sigma']}")
p = run(["sigma", "--average", "--format", "tsv", paths["rgb_odd_8"]])
checks += 1
rows = p.stdout.splitlines()
ref = estimate_sigma(cases["rgb_odd_8"], channel_axis=-1, average_sigmas=True)
if rows[0] != "file\tchannel\tsigma\tsigma_fraction\tpage" or len(rows) != 2 or \
        abs(float(rows[1].split("\t")[2]) - ref) > 1e-9 * ref:
    fail(f"sigma --average: {rows} vs {ref}")
else:
    print(f"ok sigma --average: {rows[1]}")

# ---- noisy photos, every output type ------------------------------------------------
# Photo-like crops where scikit-image's exact zeros matter: clipped highlights and
# shadows (gain past full scale), constant bars and patches pasted after the noise,
# gradients; gray and RGB, 8 and 16-bit, odd sizes, sigma 5-50 (8-bit units). Each
# runs one configuration into one output type; sigma must be scikit-image's to 1e-9.

SOURCES = {n: np.asarray(Image.open(os.path.join(ROOT, "data", n))).astype(float)
           for n in ("camera.png", "astronaut.png", "coffee.jpg")}


def photo_like(k, src, h, w, rgb, dtype, sigma):
    img = SOURCES[src]
    if img.ndim == 3 and not rgb:
        img = img @ [0.2125, 0.7154, 0.0721]
    elif img.ndim == 2 and rgb:
        img = np.stack([img, 0.8 * img + 30, np.roll(img, 7, axis=1)], -1)
    y0, x0 = (53 * k) % (img.shape[0] - h), (71 * k) % (img.shape[1] - w)
    crop = img[y0:y0 + h, x0:x0 + w] * (1.1 + 0.05 * (k % 5)) - 12  # highlights past 255
    ramp = np.linspace(-20, 20, w)[None, :]
    crop = crop + (ramp[..., None] if crop.ndim == 3 else ramp)          # a gradient
    noisy = np.clip(np.rint(crop + sigma * rng.standard_normal(crop.shape)), 0, 255)
    noisy[: 3 + k % 4] = 0                                               # a black bar
    noisy[h // 2:h // 2 + 9, w // 3:w // 3 + 11] = (k * 37) % 256         # a flat patch
    if dtype == np.uint16:
        noisy = np.clip(noisy * 257 + rng.integers(-40, 40, noisy.shape), 0, 65535)
        noisy[: 3 + k % 4] = 0
    return noisy.astype(dtype)


def read_result(path, sixteen):
    if path.endswith(".npy"):
        return np.load(path)
    if path.endswith(".tif"):
        import tifffile
        return tifffile.imread(path)
    return load_png16(path) if sixteen else load(path)


# (args, denoise_wavelet keywords); one per photo in turn
CONFIGS = [([], {}),
           (["--rule", "visu"], dict(method="VisuShrink")),
           (["-w", "db2", "--shrink", "hard"], dict(wavelet="db2", mode="hard")),
           (["-w", "sym4", "--rule", "visu", "--shrink", "hard"],
            dict(wavelet="sym4", method="VisuShrink", mode="hard")),
           (["-w", "db2"], dict(wavelet="db2")),
           (["--ycbcr"], dict(convert2ycbcr=True)),
           (["--cycle-spin", "1"], dict(spin=1)),
           (["--cycle-spin", "1", "-w", "db2"], dict(spin=1, wavelet="db2"))]
# output: (suffix, extra args, 'own' = the input's type | 'f32' | 'u16')
OUTPUTS = [(".png", [], "own"), (".png", ["--depth", "16"], "u16"),
           (".npy", ["--depth", "f32"], "f32"), (".tif", [], "own"), (".npy", [], "own"),
           (".tif", ["--depth", "f32"], "f32")]
PHOTOS = []
for k in range(24):
    rgb, dtype = k % 3 != 0, (np.uint16 if k % 4 == 3 else np.uint8)
    h, w = 97 + 2 * ((k * 29) % 61), 101 + 2 * ((k * 17) % 67)
    sigma = 5 + (k * 13) % 46
    PHOTOS.append((f"photo{k}", photo_like(k, list(SOURCES)[k % 3], h, w, rgb, dtype, sigma)))


def photo_reference(img, kw):
    ca = channel_axis(img)
    kw = dict(kw)
    if kw.pop("spin", 0):
        return cycle_spin(img, denoise_wavelet, max_shifts=1, num_workers=1, channel_axis=ca,
                          func_kw=dict(channel_axis=ca, rescale_sigma=True, **kw))
    return denoise_wavelet(img, channel_axis=ca, rescale_sigma=True, **kw)


def skimage_sigma(img, kw):
    """The sigma denoise_wavelet estimates of each channel: in sample units, or
    with convert2ycbcr of each YCbCr channel in rgb2ycbcr's units."""
    f = skimage.img_as_float(img)
    wavelet = kw.get("wavelet", "db1")
    levels = max(pywt.dwtn_max_level(img.shape[:2], wavelet) - 3, 1)
    scale = [255.0 if img.dtype == np.uint8 else 65535.0] * 3
    if kw.get("convert2ycbcr"):
        f = skimage.color.rgb2ycbcr(f)
        lo, hi = f.min(axis=(0, 1)), f.max(axis=(0, 1))
        f, scale = (f - lo) / (hi - lo), hi - lo
    chans = [f] if f.ndim == 2 else [f[..., c] for c in range(f.shape[2])]
    out = []
    for ch, sc in zip(chans, scale):
        dd = pywt.wavedecn(ch, wavelet, level=levels)[-1]["dd"]
        out.append(np.median(np.abs(dd[np.nonzero(dd)])) / 0.6744897501960817 * sc)
    return out


def compare_float(name, out, ref_float, peak):
    """Unrounded results: never 1 LSB off; on >= 99.9% within float32's reach
    (0.01 LSB of 8-bit samples, 1e-6 of full scale for 16-bit ones)."""
    global checks
    checks += 1
    d = np.abs(out.astype(float) - ref_float * peak)
    tol = max(0.01, 1e-6 * peak)
    close = float((d < tol).mean())
    if d.max() > 1 or close < 0.999:
        fail(f"{name}: float result max {d.max():.4g} LSB off, {close:.4%} within {tol:.3g} LSB")
    else:
        print(f"ok {name}: {close:.4%} within {tol:.3g} LSB, max {d.max():.3g} LSB")


def check_photo(k, name, img):
    global checks
    args, kw = CONFIGS[k % len(CONFIGS)]
    if "--ycbcr" in args and img.ndim == 2:
        args, kw = CONFIGS[0]
    suffix, extra, kind = OUTPUTS[k % len(OUTPUTS)]
    src, out = save(img, name + ".png"), os.path.join(TMP, name + ".out" + suffix)
    p = run(["denoise", "-v", "--device", "cpu"] + args + extra + [src, out])
    if p.returncode:
        return
    tag = f"photo {name} {img.shape} {img.dtype.name} {' '.join(args + extra) or 'defaults'} {suffix}"
    got = [float(v) for v in p.stderr.split(", sigma ")[1].split()]
    want = skimage_sigma(img, kw)
    checks += 1
    if not np.allclose(got, want, rtol=1e-9, atol=0):
        fail(f"{tag}: sigma {got}, scikit-image {want}")
    res, ref = read_result(out, kind == "u16" or img.dtype == np.uint16), photo_reference(img, kw)
    peak = 255.0 if img.dtype == np.uint8 else 65535.0
    if kind == "f32":
        compare_float(tag, res, ref, peak)
    elif kind == "u16" and img.dtype == np.uint8:  # 8-bit samples written as 16 bits keep 0-255
        checks += 1
        d = np.abs(res.astype(np.int64) - np.rint(ref * 255).astype(np.int64))
        if d.max() > 1 or (d == 0).mean() < 0.999:
            fail(f"{tag}: max {d.max()} LSB, {(d == 0).mean():.4%} equal")
        else:
            print(f"ok {tag}: {(d == 0).mean():.4%} equal, max {d.max()} LSB")
    else:  # 16-bit: float32's 1e-6 of full scale is 0.066 LSB, so near-ties may round either way
        compare(tag, res.astype(np.int64), ref, img.dtype, tie=1e-6 * (peak if peak > 255 else 1))


for k, (name, img) in enumerate(PHOTOS):
    check_photo(k, name, img)
# YCbCr of mostly one flat colour: the exact zeros of db2/sym4 depend on the very
# bits of rgb2ycbcr's float64 result, which wavetool computes in numpy's order
before = failures
for k in range(12):
    h, w = 9 + 4 * k, 61 - 3 * k
    flat = rng.integers(0, 256, (h, w, 3)).astype(np.uint8)
    flat[rng.random((h, w)) < 0.6] = rng.integers(0, 256, 3)
    src = save(flat, f"flat{k}.png")
    kw = dict(convert2ycbcr=True, wavelet=("db2", "sym4")[k % 2])
    p = run(["denoise", "-v", "--ycbcr", "-w", kw["wavelet"], src, os.path.join(TMP, "flat.png")])
    got = [float(v) for v in p.stderr.split(", sigma ")[1].split()]
    checks += 1
    if not np.allclose(got, skimage_sigma(flat, kw), rtol=1e-9, atol=0):
        fail(f"--ycbcr -w {kw['wavelet']} flat{k} {flat.shape}: sigma {got}, "
             f"scikit-image {skimage_sigma(flat, kw)}")
if failures == before:
    print("ok --ycbcr sigma of 12 mostly flat images")
p = run(["sigma", "--format", "json"] + [os.path.join(TMP, n + ".png") for n, _ in PHOTOS])
for line, (n, img) in zip(p.stdout.splitlines(), PHOTOS):
    checks += 1
    got = json.loads(line)["sigma"]
    ref = np.atleast_1d(estimate_sigma(img, channel_axis=channel_axis(img)))
    if not np.allclose(got, ref, rtol=1e-9, atol=0):
        fail(f"sigma {n}: {got} vs estimate_sigma {list(ref)}")
print(f"ok sigma of {len(PHOTOS)} photos: estimate_sigma to 1e-9")

# ---- beyond scikit-image: independent numpy/pywt code ---------------------------------


def anscombe_inverse(y):
    """Makitalo and Foi (2011): closed-form approximation of the exact unbiased inverse."""
    y = np.maximum(y, 1e-9)
    s = np.sqrt(1.5)
    return 0.25 * y ** 2 + 0.25 * s / y - 11 / 8 / y ** 2 + 5 / 8 * s / y ** 3 - 1 / 8


def bayes_numpy(x, wavelet, levels, sigma, scales):
    """BayesShrink of one 2-D channel with pywt, thresholds of level l times scales[l-1]."""
    coeffs = pywt.wavedec2(x, wavelet, mode="symmetric", level=levels)
    out = [coeffs[0]]
    for i, bands in enumerate(coeffs[1:]):
        level = levels - i
        f = scales[level - 1] if level <= len(scales) else 1.0
        new = []
        for d in bands:
            t = sigma ** 2 / np.sqrt(max(np.mean(d * d) - sigma ** 2, np.finfo(float).eps))
            new.append(pywt.threshold(d, t * f, "soft"))
        out.append(tuple(new))
    return pywt.waverec2(out, wavelet, mode="symmetric")[:x.shape[0], :x.shape[1]]


def default_levels(shape, wavelet):
    return max(pywt.dwtn_max_level(shape, wavelet) - 3, 1)


# Poisson: photon counts of a smooth scene (peak ~ 40 counts)
h, w = 67, 81
yy, xx = np.mgrid[0:h, 0:w]
lam = 5 + 35 * (((yy - 30) ** 2 + (xx - 40) ** 2) < 400) + 10 * (xx / w)
counts = rng.poisson(lam).astype(np.uint8)
paths["poisson"] = save(counts, "poisson.png")
cases["poisson"] = counts
out = denoise_all("poisson", ["--noise", "poisson"], ["poisson"])[0]["poisson"]
y = 2 * np.sqrt(counts + 3 / 8)
den = bayes_numpy(y, "db1", default_levels(y.shape, "db1"), 1.0, [])
ref = np.clip(anscombe_inverse(den), 0, 255) / 255
compare("poisson", out, ref, np.uint8)

# per-level threshold scaling
img = cases["camera"]
out = denoise_all("levelscale", ["--level-scale", "0.5,2,1.5"], ["camera"])[0]["camera"]
x = img.astype(float) / 255
coeffs_d1 = pywt.wavedec2(x, "db1", mode="symmetric", level=default_levels(x.shape, "db1"))[-1][2]
est = np.median(np.abs(coeffs_d1[np.nonzero(coeffs_d1)])) / 0.6744897501960817
ref = bayes_numpy(x, "db1", default_levels(x.shape, "db1"), est, [0.5, 2, 1.5])
compare("level-scale 0.5,2,1.5 camera", out, np.clip(ref, 0, 1), np.uint8)
plain = denoise_all("levelscale1", ["--level-scale", "1"], ["camera"])[0]["camera"]
checks += 1
if (plain != denoise_all("defaults2", [], ["camera"])[0]["camera"]).any():
    fail("--level-scale 1 differs from the default")

# --transform swt: the same rules on pywt.swt2(trim_approx=True) bands
def swt_numpy(x, wavelet, levels):
    """BayesShrink soft on the SWT of one 2-D channel (sample units)."""
    coeffs = pywt.swt2(x, wavelet, level=levels, trim_approx=True)
    d1 = coeffs[-1][2]
    sigma = np.median(np.abs(d1[np.abs(d1) >= 255 / 2 ** 20])) / 0.6744897501960817
    out = [coeffs[0]]
    for bands in coeffs[1:]:
        out.append(tuple(pywt.threshold(d, sigma ** 2 / np.sqrt(max(np.mean(d * d) - sigma ** 2,
                                                                   np.finfo(float).eps * 255 ** 2)),
                                        "soft") for d in bands))
    return pywt.iswt2(out, wavelet)


swt_img = cases["camera"][:96, :128]
paths["swt"] = save(swt_img, "swt.png")
cases["swt"] = swt_img
for wavelet in ("db1", "db2"):
    out = denoise_all("swt-" + wavelet, ["--transform", "swt", "-w", wavelet], ["swt"])[0]["swt"]
    levels = max(pywt.swt_max_level(min(swt_img.shape)) - 3, 1)
    ref = swt_numpy(swt_img.astype(float), wavelet, levels)
    compare(f"swt {wavelet} camera 96x128", out, np.clip(ref, 0, 255) / 255, np.uint8)

# --noise poisson --transform swt: Anscombe, the SWT's BayesShrink with sigma 1, inverse
def swt_bayes(x, wavelet, levels, sigma):
    coeffs = pywt.swt2(x, wavelet, level=levels, trim_approx=True)
    out = [coeffs[0]]
    for bands in coeffs[1:]:
        out.append(tuple(pywt.threshold(d, sigma ** 2 / np.sqrt(max(np.mean(d * d) - sigma ** 2,
                                                                   np.finfo(float).eps)),
                                        "soft") for d in bands))
    return pywt.iswt2(out, wavelet)


counts_swt = counts[:64, :80]
paths["poisson_swt"] = save(counts_swt, "poisson_swt.png")
cases["poisson_swt"] = counts_swt
out = denoise_all("poisson-swt", ["--noise", "poisson", "--transform", "swt"],
                  ["poisson_swt"])[0]["poisson_swt"]
y = 2 * np.sqrt(counts_swt + 3 / 8)
den = swt_bayes(y, "db1", max(pywt.swt_max_level(min(y.shape)) - 3, 1), 1.0)
compare("poisson swt", out, np.clip(anscombe_inverse(den), 0, 255) / 255, np.uint8)

# ---- errors -----------------------------------------------------------------------------
checks += 1
p = run(["denoise", "--ycbcr", paths["gray_odd_8"], os.path.join(TMP, "x.png")], expect=1)
if "RGB" not in p.stderr or "gray_odd_8.png" not in p.stderr or os.path.exists(os.path.join(TMP, "x.png")):
    fail(f"--ycbcr on gray: {p.stderr!r}")
for bad in (["--rule", "sure"], ["--shrink", "x"], ["--level-scale", "1,,2"], ["--sigma", "-1"],
            ["--cycle-spin", "65"], ["--noise", "gauss"], ["-l", "0"],
            ["--k", "2"]):
    checks += 1
    p = run(["denoise"] + bad + [paths["gray_odd_8"], os.path.join(TMP, "x.png")], expect=2)
    if p.stderr.count("\n") != 2 or bad[0] not in p.stderr:
        fail(f"{bad}: {p.stderr!r}")
checks += 1
p = run(["denoise", paths["gray_odd_8"], os.path.join(TMP, "x.npz")], expect=2)
p = run(["sigma", os.path.join(TMP, "missing.png")], expect=1)
if "missing.png" not in p.stderr:
    fail(f"sigma of a missing file: {p.stderr!r}")

print(f"denoise_check: {checks} checks, {failures} failed")
sys.exit(1 if failures else 0)
