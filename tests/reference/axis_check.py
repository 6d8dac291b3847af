#!/usr/bin/python3
"""The n-D axis core (src/axis_view.h, src/axis_filter.h) against PyWavelets:
one level over every axis of random arrays of rank 1 to 3 with channels,
planar and channel-interleaved (strided views), through tests/axis_pipe.c.

DWT: pywt.dwtn(x, w, mode) band for band (conv and lifting), the inverse
= pywt.idwtn of the same bands cropped to the input's shape. SWT: pywt.swtn
(level 1 at start level LEVEL-1, norm as asked) and its inverse
pywt.iswtn where pywt has one (start level 0); otherwise the inverse of the
forward gives the input back. Float32 within 1e-5 of the largest reference (bands: of the whole level).

usage: axis_check.py AXIS_PIPE   (exit 77 without numpy/pywt)
"""
import itertools
import subprocess
import struct
import sys

try:
    import numpy as np
    import pywt
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

TOL = 1e-5
rng = np.random.default_rng(26)
failures = []
cases = 0


class Pipe:
    def __init__(self, exe):
        self.p = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, kind, wavelet, mode, method, level, norm, x, layout, band_shapes):
        c, shape = x.shape[0], x.shape[1:]
        n = list(shape) + [1] * (3 - len(shape))
        head = "%s %s %s %s %d %d %d %d %d %d %d %s\n" % (
            kind, wavelet, mode, method, level, int(norm), c, len(shape), *n, layout)
        self.p.stdin.write(head.encode() + x.astype(np.float32).tobytes())
        self.p.stdin.flush()
        (status,) = struct.unpack("<i", self.p.stdout.read(4))
        if status != 0:
            return None, None
        bands = []
        for s in band_shapes:
            count = c * int(np.prod(s))
            bands.append(np.frombuffer(self.p.stdout.read(4 * count), np.float32).reshape((c,) + s))
        back = np.frombuffer(self.p.stdout.read(4 * x.size), np.float32).reshape(x.shape)
        return bands, back


def check(name, got, ref, scale=None):
    """got within TOL of ref, on the scale of ref or (bands) of the whole level,
    so that near-zero bands are judged as pywt_check.py judges them."""
    global cases
    cases += 1
    scale = max(float(np.abs(ref).max()) if scale is None else scale, 1.0)
    if got is None or got.shape != ref.shape:
        failures.append("%s: shape %s, want %s" % (name, None if got is None else got.shape,
                                                   ref.shape))
        return
    err = float(np.abs(got.astype(np.float64) - ref).max())
    if err > TOL * scale:
        failures.append("%s: error %.3g (scale %.3g)" % (name, err, scale))


def check_bands(name, bands, refs, ks):
    """Each band against the per-channel references' key, on the level's scale;
    False when the pipe refused."""
    if bands is None:
        failures.append(name + ": refused")
        return False
    scale = max(float(np.abs(r[k]).max()) for r in refs for k in ks)
    for i, k in enumerate(ks):
        check("%s band %s" % (name, k), bands[i], np.stack([r[k] for r in refs]), scale)
    return True


def keys(rank):
    return ["".join(k) for k in itertools.product("ad", repeat=rank)]


def dwt_case(pipe, wavelet, mode, method, shape, channels, layout):
    x = rng.standard_normal((channels,) + shape) * 50
    refs = [pywt.dwtn(x[c], wavelet, mode=mode) for c in range(channels)]
    ks = keys(len(shape))
    shapes = [refs[0][k].shape for k in ks]
    bands, back = pipe.run("dwt", wavelet, mode, method, 1, 0, x, layout, shapes)
    name = "dwt %s %s %s %s C=%d %s" % (wavelet, mode, method, shape, channels, layout)
    if not check_bands(name, bands, refs, ks):
        return
    crop = tuple(slice(0, n) for n in shape)
    inv = np.stack([pywt.idwtn({k: bands[i][c].astype(np.float64) for i, k in enumerate(ks)},
                               wavelet, mode=mode)[crop] for c in range(channels)])
    check(name + " inverse", back, inv)


def swt_case(pipe, wavelet, level, norm, shape, channels, layout):
    x = rng.standard_normal((channels,) + shape) * 50
    axes = tuple(range(len(shape)))
    refs = [pywt.swtn(x[c], wavelet, level=1, start_level=level - 1, axes=axes, norm=norm)[0]
            for c in range(channels)]
    ks = keys(len(shape))
    bands, back = pipe.run("swt", wavelet, "periodization", "conv", level, norm, x, layout,
                           [shape] * len(ks))
    name = "swt %s level %d norm %d %s C=%d %s" % (wavelet, level, norm, shape, channels, layout)
    if not check_bands(name, bands, refs, ks):
        return
    if level == 1:
        inv = np.stack([pywt.iswtn([refs[c]], wavelet, axes=axes, norm=norm)
                        for c in range(channels)])
        check(name + " inverse", back, inv)
    else:
        check(name + " roundtrip", back, x)


def main():
    pipe = Pipe(sys.argv[1])
    for shape in [(5, 7, 9), (4, 4, 4), (1, 6, 3), (9, 2, 5), (11,), (6, 13)]:
        for wavelet, method in [("db2", "conv"), ("haar", "lifting"), ("db3", "lifting"),
                                ("sym4", "conv"), ("bior2.2", "conv"), ("coif1", "conv")]:
            for mode in ["symmetric", "periodization", "zero", "smooth", "antireflect"]:
                if mode == "antireflect" and min(shape) < 2:
                    continue  # pywt 1.1.1 loops forever on a 1-sample antireflect axis
                for layout in ["planar", "interleaved"]:
                    dwt_case(pipe, wavelet, mode, method, shape, int(rng.integers(1, 4)), layout)
    for shape, level in [((4, 8, 6), 1), ((8, 4, 12), 2), ((16,), 3), ((6, 10), 1)]:
        for wavelet in ["haar", "db2", "sym3"]:
            for norm in (False, True):
                for layout in ["planar", "interleaved"]:
                    swt_case(pipe, wavelet, level, norm, shape, int(rng.integers(1, 4)), layout)
    for f in failures[:20]:
        print("FAIL", f)
    print("%d checks, %d failed" % (cases, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
