#!/usr/bin/env python3
"""The Python equivalent of `wavetool decompose -l 3 --device cpu -O OUT DIR`.

For every .png/.jpg/.jpeg under DIR (walked recursively, like wavetool):
Pillow decode, pywt.wavedec2 per channel, pywt.coeffs_to_array, wavetool's
display scaling (src/mosaic.c, --scale auto: the approximation min..max to
full range; details |v| / max|v|, each band over all channels; rounded to
nearest, ties to even, like lrint), Pillow PNG save to OUT/STEM.png.
Defaults are wavetool's: -w haar, -m symmetric, -l 3.

Rerun the comparison (docs/performance.md; needs python3-pil, python3-pywt):

    build/bench/make-photos --count 60 --size 1920x1080 /tmp/photos
    /usr/bin/time -v build/cli/wavetool decompose -q -l 3 --device cpu -j 2 -O /tmp/out-wt /tmp/photos
    /usr/bin/time -v python3 bench/pywt_pillow.py --jobs 2 -O /tmp/out-py /tmp/photos
    build/cli/wavetool compare /tmp/out-wt/photo-0000.png /tmp/out-py/photo-0000.png

The mosaics agree with wavetool's to rounding (pywt computes in float64,
wavetool in float32): PSNR above 60 dB. Pillow writes PNG at --png-level
(default 1, wavetool's default zlib level) with its own adaptive filters.
"""
import argparse
import multiprocessing
import os
import sys
import time

import numpy as np
import pywt
from PIL import Image

EXTS = (".png", ".jpg", ".jpeg")


def find_inputs(paths):
    """Files as given; directories walked for .png/.jpg/.jpeg, sorted."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files)
                          if f.lower().endswith(EXTS)]
        else:
            found.append(path)
    return found


def load_planes(path):
    """(C, H, W) samples as float64, and the bit depth."""
    with Image.open(path) as im:
        if im.mode in ("P", "PA", "1", "CMYK", "YCbCr"):
            im = im.convert("RGBA" if "transparency" in im.info or im.mode == "PA" else "RGB")
        depth = 16 if im.mode.startswith("I") else 8
        a = np.asarray(im)
    if a.ndim == 2:
        a = a[:, :, None]
    return np.moveaxis(a, 2, 0).astype(np.float64), depth


def scale_band(band, approx, peak):
    """wavetool's --scale auto: band over all channels, (C, h, w)."""
    if approx:
        lo, hi = band.min(), band.max()
        if hi > lo:
            out = (band - lo) * (peak / (hi - lo))
        else:
            out = np.full(band.shape, peak / 2.0)
    else:
        out = np.abs(band)
        m = out.max()
        out = out * (peak / m) if m > 0 else np.zeros(band.shape)
    return np.clip(np.rint(out), 0, peak)


def mosaic(planes, wavelet, mode, level, peak):
    """Per-channel wavedec2 + coeffs_to_array, then per-band scaling."""
    arrays, slices = [], None
    for plane in planes:
        coeffs = pywt.wavedec2(plane, wavelet, mode=mode, level=level)
        arr, slices = pywt.coeffs_to_array(coeffs)
        arrays.append(arr)
    arr = np.stack(arrays)  # (C, Hm, Wm)
    out = np.zeros(arr.shape)
    out[(slice(None),) + slices[0]] = scale_band(arr[(slice(None),) + slices[0]], True, peak)
    for details in slices[1:]:
        for key in ("da", "ad", "dd"):
            s = (slice(None),) + details[key]
            out[s] = scale_band(arr[s], False, peak)
    return out


def save_png(path, out, depth, level):
    c = out.shape[0]
    if depth == 16:
        if c != 1:
            raise ValueError("16-bit mosaics: gray only (Pillow has no 16-bit RGB)")
        im = Image.fromarray(out[0].astype(np.uint16), "I;16")
    else:
        a = np.moveaxis(out.astype(np.uint8), 0, 2)
        im = Image.fromarray(a[:, :, 0] if c == 1 else a, {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}[c])
    tmp = path + ".tmp"
    im.save(tmp, format="PNG", compress_level=level)
    os.replace(tmp, path)


def decompose_one(job):
    path, outdir, args = job
    try:
        planes, depth = load_planes(path)
        level = min(args.level, pywt.dwtn_max_level(planes.shape[1:], args.wavelet))
        out = mosaic(planes, args.wavelet, args.mode, level, 65535.0 if depth == 16 else 255.0)
        stem = os.path.splitext(os.path.basename(path))[0]
        save_png(os.path.join(outdir, stem + ".png"), out, depth, args.png_level)
        return None
    except Exception as e:  # one failed file does not stop the others
        return f"{path}: {e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inputs", nargs="+", metavar="INPUT", help="files or directories")
    ap.add_argument("-O", "--outdir", required=True, help="output directory (created)")
    ap.add_argument("-w", "--wavelet", default="haar", help="wavelet (default haar, as wavetool)")
    ap.add_argument("-m", "--mode", default="symmetric", help="mode (default symmetric)")
    ap.add_argument("-l", "--level", type=int, default=3, help="levels (default 3)")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--png-level", type=int, default=1, help="zlib level (default 1)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    args = ap.parse_args()

    files = find_inputs(args.inputs)
    os.makedirs(args.outdir, exist_ok=True)
    jobs = [(f, args.outdir, args) for f in files]
    t0 = time.monotonic()
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as pool:
            errors = list(pool.imap_unordered(decompose_one, jobs, chunksize=1))
    else:
        errors = [decompose_one(j) for j in jobs]
    dt = time.monotonic() - t0
    failed = [e for e in errors if e]
    for e in failed:
        print(f"pywt_pillow: {e}", file=sys.stderr)
    if not args.quiet:
        print(f"pywt_pillow: {len(files) - len(failed)} of {len(files)} files in {dt:.2f} s "
              f"({len(files) / dt if dt > 0 else 0:.2f} images/s)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
