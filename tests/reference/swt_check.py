#!/usr/bin/python3
"""Undecimated transforms (src/undecimated.c) against their references.

SWT: pywt.swt2(x, w, level=L, start_level=S, trim_approx=True, norm=N) and
pywt.iswt2 (PyWavelets 1.1.1) where pywt takes the size (each axis a multiple
of 2^(S+L)); on any other size a direct numpy implementation of the same
periodic definition written here. Starlet: scipy.ndimage.convolve1d with the
B3-spline kernel and the same border mode. Float32 results within 1e-5 of the
largest reference magnitude; inverses of random (inconsistent) stacks too, so
the inverse is checked as an operator, not only as a round trip.

usage: swt_check.py SWT_PIPE   (exit 77 without numpy/pywt/scipy)
"""
import subprocess
import struct
import sys

try:
    import numpy as np
    import pywt
    import scipy.ndimage as ndi
except ImportError as e:
    print("skip: %s" % e)
    sys.exit(77)

from starlet_ref import starlet_planes  # noqa: E402 (after the skip)

TOL = 1e-5
rng = np.random.default_rng(15)
failures = []
cases = 0


class Pipe:
    def __init__(self, exe):
        self.p = subprocess.Popen([exe, "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, transform, wavelet, levels, start, norm, all_approx, border, x, direction,
            shape):
        c, h, w = shape
        line = "%s %s %d %d %d %d %s %d %d %d %s\n" % (
            transform, wavelet, levels, start, int(norm), int(all_approx), border, h, w, c,
            direction)
        self.p.stdin.write(line.encode() + np.ascontiguousarray(x, np.float32).tobytes())
        self.p.stdin.flush()
        st, nb = struct.unpack("<ii", self.p.stdout.read(8))
        if st != 0:
            return st, None
        n = (nb if direction == "f" else 1) * c * h * w
        y = np.frombuffer(self.p.stdout.read(4 * n), np.float32)
        return 0, (y.reshape(nb, c, h, w) if direction == "f" else y.reshape(c, h, w))


def check(name, got, ref):
    global cases
    cases += 1
    ref = np.asarray(ref, np.float64)
    scale = max(np.abs(ref).max(), 1e-30)
    err = np.abs(np.asarray(got, np.float64) - ref).max() / scale
    if not err <= TOL:
        failures.append("%s: relative error %.3g" % (name, err))


# ---- SWT: the periodic definition, any length -------------------------------

def swt_axis(x, f, step, shift, axis):
    """out[o] = sum_k f[k] * x[(o + shift - k*step) mod N] along axis."""
    n = x.shape[axis]
    out = np.zeros(x.shape)
    for k, fk in enumerate(f):
        idx = (np.arange(n) + shift - k * step) % n
        out += fk * np.take(x, idx, axis=axis)
    return out


def np_swt2(x, wav, levels, start, norm):
    """[cA_L, (cH_L, cV_L, cD_L), ..., (cH_1, cV_1, cD_1)] and the cA of each level."""
    g = 1 / np.sqrt(2) if norm else 1.0
    lo, hi = np.array(wav.dec_lo) * g, np.array(wav.dec_hi) * g
    F = len(lo)
    details, approx = [], []
    c = x.astype(np.float64)
    for j in range(start + 1, start + levels + 1):
        step = 1 << (j - 1)
        sh = F * step // 2
        L = swt_axis(c, lo, step, sh, -1)
        H = swt_axis(c, hi, step, sh, -1)
        c = swt_axis(L, lo, step, sh, -2)
        details.append((swt_axis(L, hi, step, sh, -2), swt_axis(H, lo, step, sh, -2),
                        swt_axis(H, hi, step, sh, -2)))
        approx.append(c)
    return [c] + details[::-1], approx


def np_iswt2(coeffs, wav, start, norm):
    g = 1 / (2 * (1 / np.sqrt(2) if norm else 1.0))
    lo, hi = np.array(wav.rec_lo) * g, np.array(wav.rec_hi) * g
    F = len(lo)
    c = np.asarray(coeffs[0], np.float64)
    levels = len(coeffs) - 1
    for i, (cH, cV, cD) in enumerate(coeffs[1:]):
        j = start + levels - i
        step = 1 << (j - 1)
        sh = (F - 1) * step - F * step // 2
        L = swt_axis(c, lo, step, sh, -2) + swt_axis(cH, hi, step, sh, -2)
        H = swt_axis(cV, lo, step, sh, -2) + swt_axis(cD, hi, step, sh, -2)
        c = swt_axis(L, lo, step, sh, -1) + swt_axis(H, hi, step, sh, -1)
    return c


def stack_of(coeffs, approx=None):
    bands = [coeffs[0]] + [b for lv in coeffs[1:] for b in lv]
    if approx:
        bands += approx
    return np.stack([np.asarray(b) for b in bands])


def coeffs_of(stack, levels):
    return [stack[0]] + [tuple(stack[1 + 3 * i + k] for k in range(3)) for i in range(levels)]


def swt_case(pipe, wname, shape, levels, start=0, norm=False, all_approx=False):
    c, h, w = shape
    wav = pywt.Wavelet(wname)
    x = rng.uniform(0, 255, shape).astype(np.float32)
    tag = "swt %s %dx%dx%d L%d S%d norm%d all%d" % (wname, c, h, w, levels, start, norm,
                                                    all_approx)
    st, got = pipe.run("swt", wname, levels, start, norm, all_approx, "periodic", x, "f", shape)
    if st != 0:
        failures.append("%s: status %d" % (tag, st))
        return
    pywt_size = h % (1 << (start + levels)) == 0 and w % (1 << (start + levels)) == 0
    for ch in range(c):
        if pywt_size:
            ref = pywt.swt2(x[ch].astype(np.float64), wav, level=levels, start_level=start,
                            trim_approx=not all_approx, norm=norm)
            if all_approx:  # [(cA_L, (H, V, D)), ..., (cA_1, ...)]
                approx = [a for a, _ in ref][::-1][:-1]
                ref = [ref[0][0]] + [d for _, d in ref]
                refstack = stack_of(ref, approx)
            else:
                refstack = stack_of(ref)
            check(tag + " vs pywt.swt2", got[:, ch], refstack)
        ref, approx = np_swt2(x[ch], wav, levels, start, norm)
        check(tag + " vs numpy", got[:, ch],
              stack_of(ref, approx[:-1] if all_approx else None))
    # inverse of a random stack: the same operator as pywt.iswt2 / the numpy synthesis
    rand = rng.normal(0, 50, got.shape).astype(np.float32)
    st, back = pipe.run("swt", wname, levels, start, norm, all_approx, "periodic", rand, "i",
                        shape)
    st2, rt = pipe.run("swt", wname, levels, start, norm, all_approx, "periodic", got, "i",
                       shape)
    if st or st2:
        failures.append("%s: inverse status %d %d" % (tag, st, st2))
        return
    if wname != "dmey":  # dmey's FIR approximation is not perfect reconstruction (pywt: 4e-3)
        check(tag + " round trip", rt, x)
    for ch in range(c):
        co = coeffs_of(rand[:, ch].astype(np.float64), levels)
        if pywt_size and start == 0:
            check(tag + " inverse vs pywt.iswt2", back[ch], pywt.iswt2(co, wav, norm=norm))
        check(tag + " inverse vs numpy", back[ch], np_iswt2(co, wav, start, norm))


# ---- starlet ------------------------------------------------------------------

def starlet_case(pipe, shape, levels, border):
    c, h, w = shape
    x = rng.uniform(0, 255, shape).astype(np.float32)
    tag = "starlet %dx%dx%d L%d %s" % (c, h, w, levels, border)
    st, got = pipe.run("starlet", "haar", levels, 0, 0, 0, border, x, "f", shape)
    if st != 0:
        failures.append("%s: status %d" % (tag, st))
        return
    for ch in range(c):
        ref = np.stack(starlet_planes(x[ch], levels, border))
        check(tag + " vs scipy.ndimage.convolve1d", got[:, ch], ref)
    rand = rng.normal(0, 50, got.shape).astype(np.float32)
    st, back = pipe.run("starlet", "haar", levels, 0, 0, 0, border, rand, "i", shape)
    check(tag + " inverse = sum", back, rand.astype(np.float64).sum(axis=0))
    st, rt = pipe.run("starlet", "haar", levels, 0, 0, 0, border, got, "i", shape)
    check(tag + " round trip", rt, x)


def refused(pipe, transform, wname, levels, start, shape, why):
    global cases
    cases += 1
    st, _ = pipe.run(transform, wname, levels, start, 0, 0, "mirror",
                     np.zeros(shape, np.float32), "f", shape)
    if st == 0:
        failures.append("%s %s accepted (%s)" % (transform, wname, why))


def main():
    pipe = Pipe(sys.argv[1])
    for wname in ("haar", "db2", "db3", "sym4", "coif1", "bior2.2", "bior4.4", "rbio3.1",
                  "db8", "dmey"):
        swt_case(pipe, wname, (1, 16, 24), 3)
    for norm in (False, True):
        swt_case(pipe, "db2", (3, 32, 64), 4, norm=norm)
        swt_case(pipe, "sym3", (1, 24, 16), 2, start=1, norm=norm)
    swt_case(pipe, "db2", (1, 16, 32), 3, all_approx=True)
    swt_case(pipe, "db2", (2, 128, 96), 5)
    swt_case(pipe, "db2", (1, 2, 2), 1)
    # any size: odd, prime, tiny, one row/column, levels whose filters wrap
    for shape, levels, wname in (((1, 1, 1), 1, "db2"), ((1, 1, 7), 2, "haar"),
                                 ((1, 5, 3), 3, "db3"), ((3, 13, 17), 3, "sym4"),
                                 ((1, 31, 1), 4, "db2"), ((1, 37, 53), 3, "bior4.4"),
                                 ((4, 9, 11), 2, "coif2"), ((1, 7, 6), 6, "db4"),
                                 ((1, 201, 127), 3, "db2")):
        swt_case(pipe, wname, shape, levels)
    swt_case(pipe, "db2", (1, 15, 9), 2, start=2, norm=True)
    swt_case(pipe, "db3", (1, 11, 13), 3, all_approx=True)
    for border in ("mirror", "periodic", "nearest"):
        for shape, levels in (((1, 1, 1), 2), ((1, 2, 3), 3), ((1, 3, 50), 4), ((3, 17, 9), 5),
                              ((1, 64, 64), 5), ((2, 101, 77), 4), ((1, 1, 40), 6)):
            starlet_case(pipe, shape, levels, border)
    refused(pipe, "swt", "cdf97", 1, 0, (1, 8, 8), "JPEG 2000 wavelet")
    refused(pipe, "swt", "db2", 0, 0, (1, 8, 8), "zero levels")
    refused(pipe, "swt", "db2", 20, 20, (1, 8, 8), "start + levels beyond 32")
    refused(pipe, "starlet", "haar", 33, 0, (1, 8, 8), "33 levels")
    pipe.p.stdin.close()
    pipe.p.wait()
    for f in failures:
        print("FAIL", f)
    print("%d checks, %d failed" % (cases, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
