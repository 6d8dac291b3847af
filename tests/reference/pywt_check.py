#!/usr/bin/python3
"""Cross-check wavetool's engines against PyWavelets (python3-pywt).

For every wavelet x mode x method x level on random data of several sizes,
runs wt_pipe once over all cases and checks:
  - coefficients equal pywt.wavedec2 band for band (PyWavelets wavelets):
    max |err| <= 1e-5 * max |ref|;
  - inverse(forward(x)) == x (float: 1e-5 relative; legall53: exact);
  - lifting == convolution where both exist;
  - cdf97 / legall53 relate to bior4.4 / bior2.2 by fixed gains.
Exit 77 (skip) when pywt is missing, or with --cuda when no GPU works.

Usage: pywt_check.py WT_PIPE [--quick] [--cuda] [--seed N] [--large]
"""
import struct
import subprocess
import sys

try:
    import numpy as np
    import pywt
except ImportError:
    print("pywt_check: python3-pywt / numpy not installed: skipping")
    sys.exit(77)

MODES = ["zero", "constant", "symmetric", "reflect", "periodic", "smooth",
         "antisymmetric", "antireflect", "periodization"]
J2K = {"cdf97", "legall53", "dd137"}
TOL = 1e-5


class Pipe:
    def __init__(self, exe, device):
        args = [exe] + (["--cuda"] if device == "cuda" else [])
        self.device = device
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, wavelet, mode, method, levels, x):
        c, h, w = x.shape
        head = f"{wavelet} {mode} {method} {levels} {h} {w} {c} {self.device}\n"
        self.proc.stdin.write(head.encode() + x.astype(np.float32).tobytes())
        self.proc.stdin.flush()
        raw = self.proc.stdout.read(4)
        if len(raw) < 4:
            rc = self.proc.wait()
            if rc == 77:
                print("pywt_check: no usable GPU: skipping")
                sys.exit(77)
            raise RuntimeError(f"wt_pipe died (exit {rc})")
        (status,) = struct.unpack("<i", raw)
        if status != 0:
            return status, None, None
        (total,) = struct.unpack("<Q", self.proc.stdout.read(8))
        dtype = np.int32 if wavelet == "legall53" else np.float32
        coeffs = np.frombuffer(self.proc.stdout.read(4 * total), dtype=dtype)
        rec = np.frombuffer(self.proc.stdout.read(4 * x.size), dtype=np.float32)
        return 0, coeffs, rec.reshape(x.shape)


def split_bands(flat, ref_shapes, channels):
    """Cut the flat coefficient vector by the reference's band shapes."""
    out = []
    pos = 0
    for shape in ref_shapes:
        n = channels * shape[0] * shape[1]
        out.append(flat[pos:pos + n].reshape(channels, *shape))
        pos += n
    return out, pos


def dwt_axis(x, wavelet, mode, axis):
    """pywt.dwt along one axis. PyWavelets loops forever on reflect and
    antireflect of a single sample; wavetool defines both as constant there."""
    if x.shape[axis] == 1 and mode in ("reflect", "antireflect"):
        mode = "constant"
    return pywt.dwt(x, wavelet, mode=mode, axis=axis)


def wavedec2(x, wavelet, mode, levels):
    """pywt.wavedec2 (axis -2 first, then -1), built from pywt.dwt."""
    a = x
    details = []
    for _ in range(levels):
        lo, hi = dwt_axis(a, wavelet, mode, 0)
        aa, ad = dwt_axis(lo, wavelet, mode, 1)
        da, dd = dwt_axis(hi, wavelet, mode, 1)
        details.append((da, ad, dd))  # cH, cV, cD
        a = aa
    return [a] + details[::-1]


def idwt_axis(a, d, wavelet, mode, axis, n):
    """pywt.idwt along one axis, cropped to n samples (wavetool knows the size)."""
    if n == 1 and mode in ("reflect", "antireflect"):
        mode = "constant"
    r = pywt.idwt(a, d, wavelet, mode=mode, axis=axis)
    return r.take(range(n), axis=axis)


def waverec2(coeffs, wavelet, mode, shape):
    """pywt.waverec2 with every level cropped to its known size."""
    sizes = [shape]
    for _ in range(len(coeffs) - 1):
        h, w = sizes[-1]
        sizes.append((coeffs[len(coeffs) - len(sizes)][0].shape[0],
                      coeffs[len(coeffs) - len(sizes)][0].shape[1]))
    a = coeffs[0]
    levels = len(coeffs) - 1
    for lev in range(levels):
        ch, cv, cd = coeffs[lev + 1]
        h, w = sizes[levels - 1 - lev]
        lo = idwt_axis(a, cv, wavelet, mode, 1, w)
        hi = idwt_axis(ch, cd, wavelet, mode, 1, w)
        a = idwt_axis(lo, hi, wavelet, mode, 0, h)
    return a


def per_channel_coeffs(bands, channels, levels):
    return [[bands[0][c]] + [tuple(bands[1 + 3 * l + k][c] for k in range(3))
                             for l in range(levels)] for c in range(channels)]


def pywt_bands(x, wavelet, mode, levels):
    """Per channel wavedec2, flattened in wavetool's band order."""
    per_channel = [wavedec2(x[c].astype(np.float64), wavelet, mode, levels)
                   for c in range(x.shape[0])]
    bands = [np.stack([pc[0] for pc in per_channel])]
    for lev in range(1, levels + 1):
        for k in range(3):
            bands.append(np.stack([pc[lev][k] for pc in per_channel]))
    return bands


def self_test_wavedec2(rng):
    """Our reference loop equals pywt.wavedec2 where PyWavelets terminates."""
    x = rng.standard_normal((9, 14))
    for mode in MODES:
        want = pywt.wavedec2(x, "db2", mode=mode, level=2)
        got = wavedec2(x, "db2", mode, 2)
        assert np.allclose(want[0], got[0]) and all(
            np.allclose(a, b) for lw, lg in zip(want[1:], got[1:]) for a, b in zip(lw, lg))


class Report:
    def __init__(self):
        self.cases = 0
        self.failures = []

    def check(self, ok, what):
        self.cases += 1
        if not ok:
            self.failures.append(what)
            if len(self.failures) <= int(__import__("os").environ.get("WT_SHOW", "20")):
                print("FAIL", what)


def rel_err(a, b, scale=None):
    """max |a - b| / max |b| (or / scale: the largest coefficient of the
    whole decomposition, so near-zero bands are judged on the same scale)."""
    if scale is None:
        scale = np.abs(b).max() if b.size else 1.0
    scale = max(scale, 1e-30)
    return float(np.abs(a.astype(np.float64) - b).max() / scale) if a.size else 0.0


def max_level(h, w, wavelet):
    if wavelet in J2K:
        lv = 0
        n = min(h, w)
        while n > 1:
            n = (n + 1) // 2
            lv += 1
        return lv
    return pywt.dwt_max_level(min(h, w), pywt.Wavelet(wavelet).dec_len)


def has_lifting(name):
    out = subprocess.run(["grep", "-c", f"^static const wt_lifting {name.replace('.', '_')}_lifting",
                          SRC_TABLE], capture_output=True, text=True)
    return out.stdout.strip() not in ("", "0")


def check_pywt(pipe, rep, rng, sizes, wavelets, modes, extra_levels=1):
    for name in wavelets:
        methods = ["conv"] + (["lifting"] if has_lifting(name) else [])
        for mode in modes:
            for (c, h, w) in sizes:
                x = rng.uniform(-1.0, 1.0, size=(c, h, w)) * 100.0
                x = x.astype(np.float32)
                top = max_level(h, w, name)
                for levels in range(1, top + 1 + extra_levels):
                    ref = pywt_bands(x, name, mode, levels)
                    coeffs = {}
                    for method in methods:
                        st, flat, rec = pipe.run(name, mode, method, levels, x)
                        tag = f"{pipe.device} {name} {mode} {method} L{levels} {c}x{h}x{w}"
                        if st != 0:
                            rep.check(False, f"{tag}: status {st}")
                            continue
                        bands, used = split_bands(flat, [b.shape[1:] for b in ref], c)
                        scale = max(np.abs(r).max() for r in ref if r.size)
                        worst = max(rel_err(b, r, scale) for b, r in zip(bands, ref)) \
                            if used == flat.size else float("inf")
                        ok = worst <= TOL
                        rep.check(ok, f"{tag}: coefficients differ from pywt ({worst:.2e})")
                        # the inverse against pywt.waverec2 of the reference (dmey is not
                        # a perfect-reconstruction filter bank), cropped to x's size
                        want = np.stack([waverec2(pc, name, mode, x.shape[1:]) for pc in
                                         per_channel_coeffs(ref, c, levels)])
                        # judged on the scale of the inverse's input: float32 coefficients
                        # (up to 250x the samples, rbio3.1 smooth) carry that precision
                        err = rel_err(rec, want, max(np.abs(x).max(), scale))
                        rep.check(err <= TOL, f"{tag}: inverse differs from pywt ({err:.2e})")
                        coeffs[method] = flat
                    if len(coeffs) == 2:
                        rep.check(rel_err(coeffs["lifting"], coeffs["conv"]) <= TOL,
                                  f"{name} {mode} L{levels} {h}x{w}: lifting != conv")


def check_jpeg2000(pipe, rep, rng, sizes):
    for name in ("cdf97", "dd137", "legall53"):
        for mode in ("symmetric", "reflect", "periodization"):
            for (c, h, w) in sizes:
                x = rng.integers(0, 256, size=(c, h, w)).astype(np.float32)
                for levels in range(1, max_level(h, w, name) + 2):
                    results = {}
                    for method in (("lifting",) if name == "legall53" else ("conv", "lifting")):
                        st, flat, rec = pipe.run(name, mode, method, levels, x)
                        tag = f"{pipe.device} {name} {mode} {method} L{levels} {c}x{h}x{w}"
                        if st != 0:
                            rep.check(False, f"{tag}: status {st}")
                            continue
                        if name == "legall53":
                            rep.check(np.array_equal(rec, x), f"{tag}: not exact")
                        else:
                            rep.check(rel_err(rec, x) <= TOL, f"{tag}: inverse != x")
                        results[method] = flat
                    if len(results) == 2:
                        rep.check(rel_err(results["lifting"], results["conv"]) <= TOL,
                                  f"{name} {mode} L{levels} {h}x{w}: lifting != conv")


def check_gains(pipe, rep, rng):
    """cdf97 ~ bior4.4 and legall53 ~ bior2.2 (periodization, even sizes):
    the same samples up to fixed gains (JPEG 2000 normalisation: low-pass DC
    gain 1, high-pass Nyquist gain 2; PyWavelets: sqrt(2) both)."""
    for name, ref_name in (("cdf97", "bior4.4"), ("legall53", "bior2.2")):
        for n in (8, 16, 34, 64):
            x = rng.integers(0, 256, size=(1, 1, n)).astype(np.float32)
            x2 = np.repeat(x, 2, axis=1)  # 2 rows: one level along y is trivial
            st, flat, _ = pipe.run(name, "periodization", "auto", 1, x2)
            if st != 0:
                rep.check(False, f"{name} periodization: status {st}")
                continue
            # band order: cA (2/2 x n/2), cH, cV (1 x n/2), cD
            half = n // 2
            ca = flat[:half].astype(np.float64)
            cv = flat[2 * half:3 * half].astype(np.float64)
            a, d = pywt.dwt(x[0, 0].astype(np.float64), ref_name, mode="periodization")
            # the y-pass of two equal rows multiplies by the DC gain: sqrt(2) / 1
            best = None
            for shift in range(-3, 4):
                for dshift in range(-3, 4):
                    ga = np.roll(a, shift) / np.where(ca == 0, np.nan, ca)
                    gd = np.roll(d, dshift) / np.where(cv == 0, np.nan, cv)
                    if np.nanstd(ga) < 1e-4 and np.nanstd(gd) < 1e-4:
                        best = (np.nanmean(ga), np.nanmean(gd))
            if name == "cdf97":
                want = (np.sqrt(2.0), -1.0 / np.sqrt(2.0))
                ok = best is not None and abs(best[0] - want[0]) < 1e-4 and \
                    abs(best[1] - want[1]) < 1e-4
                rep.check(ok, f"cdf97 vs bior4.4 n={n}: gains {best}, want {want}")
            else:  # integer lifting: only approximately linear
                rep.check(best is None or abs(best[0] - np.sqrt(2.0)) < 0.1,
                          f"legall53 vs bior2.2 n={n}")


SRC_TABLE = None


def main():
    global SRC_TABLE
    args = sys.argv[1:]
    exe = args[0]
    SRC_TABLE = args[args.index("--table") + 1] if "--table" in args else "src/core/wavelet_table.c"
    quick = "--quick" in args
    device = "cuda" if "--cuda" in args else "cpu"
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261122
    print(f"pywt_check: seed {seed} (replay with --seed {seed}), device {device}")
    rng = np.random.default_rng(seed)
    self_test_wavedec2(rng)
    pipe = Pipe(exe, device)
    rep = Report()
    # (1, 9, 48): the CPU engine's column pass over whole groups of 16-column batches
    sizes = [(1, 1, 1), (1, 1, 7), (1, 6, 1), (2, 5, 3), (1, 13, 17), (3, 32, 29), (1, 9, 48)]
    if quick:
        sizes = [(1, 1, 1), (1, 1, 5), (2, 7, 4), (1, 16, 19)]
    all_wavelets = pywt.wavelist(kind="discrete")
    check_pywt(pipe, rep, rng, sizes, all_wavelets, MODES)
    if "--large" in args:
        check_pywt(pipe, rep, rng, [(1, 257, 130)], ["haar", "db3", "bior4.4", "sym8"], MODES,
                   extra_levels=0)
    check_jpeg2000(pipe, rep, rng, sizes + [(1, 33, 64)])
    check_gains(pipe, rep, rng)
    pipe.proc.stdin.close()
    pipe.proc.wait()
    print(f"pywt_check: {rep.cases} checks, {len(rep.failures)} failures")
    sys.exit(1 if rep.failures else 0)


if __name__ == "__main__":
    main()
