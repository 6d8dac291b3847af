#!/usr/bin/python3
"""Generate src/core/wavelet_table.c from PyWavelets (python3-pywt).

Writes every discrete wavelet of PyWavelets with its filters, lifting
factorisations (found by the Euclidean algorithm on the polyphase matrix and
verified to 1e-9) for the short ones, and the JPEG 2000 family (cdf97,
legall53, dd137) whose filters are derived from their lifting steps.

Usage: tools/gen_wavelets.py > src/core/wavelet_table.c
       tools/gen_wavelets.py --schemes > src/core/wavelet_schemes.h
(--schemes: the lifting structure of the wavelets with fast CUDA kernels as
compile-time structs, scheme_NAME, from the same factorisations.)
"""
import sys

import numpy as np
import pywt

# --------------------------------------------------------------------------
# Laurent polynomials: (low power, coefficient array in ascending powers).
# A coefficient c at power p stands for y[k] += c * x[k + p].

EPS = 1e-11


def lp(low, coeffs):
    c = np.array(coeffs, dtype=float)
    return trim((low, c))


def trim(p):
    low, c = p
    if c.size == 0:
        return (0, np.zeros(0))
    scale = max(1.0, np.abs(c).max())
    nz = np.nonzero(np.abs(c) > EPS * scale)[0]
    if nz.size == 0:
        return (0, np.zeros(0))
    return (low + nz[0], c[nz[0]:nz[-1] + 1].copy())


def is_zero(p):
    return p[1].size == 0


def span(p):
    return p[1].size


def add(p, q):
    if is_zero(p):
        return q
    if is_zero(q):
        return p
    low = min(p[0], q[0])
    high = max(p[0] + p[1].size, q[0] + q[1].size)
    c = np.zeros(high - low)
    c[p[0] - low:p[0] - low + p[1].size] += p[1]
    c[q[0] - low:q[0] - low + q[1].size] += q[1]
    return trim((low, c))


def mul(p, q):
    if is_zero(p) or is_zero(q):
        return (0, np.zeros(0))
    return trim((p[0] + q[0], np.convolve(p[1], q[1])))


def neg(p):
    return (p[0], -p[1])


def divmod_lp(u, v, from_top=True):
    """u = q v + r with span(r) < span(v): long division from the top power
    (or from the bottom power when from_top is False)."""
    q_terms = {}
    r = u
    while not is_zero(r) and span(r) >= span(v):
        if from_top:
            power = (r[0] + r[1].size - 1) - (v[0] + v[1].size - 1)
            coeff = r[1][-1] / v[1][-1]
        else:
            power = r[0] - v[0]
            coeff = r[1][0] / v[1][0]
        q_terms[power] = q_terms.get(power, 0.0) + coeff
        r = add(r, neg(mul((power, np.array([coeff])), v)))
    if not q_terms:
        return (0, np.zeros(0)), r
    low = min(q_terms)
    c = np.zeros(max(q_terms) - low + 1)
    for p, val in q_terms.items():
        c[p - low] = val
    return trim((low, c)), r


def polyphase(h):
    """lo[k] = sum_j h[j] x[2k+1-j] = (Ho * xe)[k] + (He * xo)[k]."""
    he = {}
    ho = {}
    for j, val in enumerate(h):
        if j % 2 == 0:
            he[-(j // 2)] = val
        else:
            ho[-(j // 2)] = val

    def to_lp(d):
        low = min(d)
        c = np.zeros(max(d) - low + 1)
        for p, val in d.items():
            c[p - low] = val
        return trim((low, c))
    return to_lp(ho), to_lp(he)


def factor_path(dec_lo, dec_hi, choices):
    """One Euclidean factorisation of P = [[Ho, He], [Go, Ge]] acting on
    (xe, xo); choices[i] picks top or bottom division at step i."""
    ho, he = polyphase(dec_lo)
    go, ge = polyphase(dec_hi)
    m = [[ho, he], [go, ge]]
    ops = []  # (update, q): column ops applied to m, in order

    def col_op(update, q):
        # update=0: col1 -= q col2 (its inverse is a predict by q);
        # update=1: col2 -= q col1 (its inverse is an update by q)
        for row in m:
            if update == 0:
                row[0] = add(row[0], neg(mul(q, row[1])))
            else:
                row[1] = add(row[1], neg(mul(q, row[0])))
        ops.append((update, q))

    step = 0
    while True:
        u, v = m[0]
        if is_zero(u) or is_zero(v):
            break
        if step >= len(choices):
            return None
        top = choices[step] & 1
        prefer_col1 = choices[step] & 2
        step += 1
        if span(u) > span(v) or (span(u) == span(v) and prefer_col1):
            q, _ = divmod_lp(u, v, top)
            col_op(0, q)
        else:
            q, _ = divmod_lp(v, u, top)
            col_op(1, q)
    if is_zero(m[0][0]):
        v = m[0][1]
        col_op(0, (v[0] * 0, np.array([-1.0])))
        col_op(1, (0, np.array([1.0])))
    lo, zero = m[0]
    x, y = m[1]
    if not is_zero(zero) or span(lo) != 1 or span(y) != 1:
        return None
    # T = diag(lo, y) [[1, 0], [x / y, 1]]
    t = (x[0] - y[0], x[1] / y[1][0])
    # ops are column operations P R1 ... Rn = T, so P = T Rn^-1 ... R1^-1:
    # R1^-1 (a predict for a col1 op, an update for a col2 op) acts first.
    steps = list(ops)
    if not is_zero(t):
        steps.append((0, t))
    merged = []
    for upd, q in steps:  # merge neighbours of one kind, drop empty steps
        if merged and merged[-1][0] == upd:
            merged[-1] = (upd, add(merged[-1][1], q))
        else:
            merged.append((upd, q))
    merged = [(upd, q) for upd, q in merged if not is_zero(q)]
    return {
        "steps": [(upd, int(q[0]), [float(v) for v in q[1]]) for upd, q in merged],
        "scale_lo": float(lo[1][0]), "shift_lo": int(lo[0]),
        "scale_hi": float(y[1][0]), "shift_hi": int(y[0]),
    }


def conditioning(lift):
    """Worst-case growth of rounding errors: product of (1 + sum |taps|)."""
    g = 1.0
    for _, _, taps in lift["steps"]:
        g *= 1.0 + sum(abs(t) for t in taps)
    return g * max(abs(lift["scale_lo"]), abs(lift["scale_hi"]),
                   1 / abs(lift["scale_lo"]), 1 / abs(lift["scale_hi"]))


def factor(dec_lo, dec_hi):
    """The best-conditioned verified factorisation over all division choices."""
    import itertools
    best = None
    for choices in itertools.product(range(4), repeat=6):
        lift = factor_path(dec_lo, dec_hi, choices)
        if lift is None or any(len(s[2]) > 8 for s in lift["steps"]):
            continue
        if not verify(lift, dec_lo, dec_hi):
            continue
        key = (conditioning(lift), len(lift["steps"]))
        if best is None or key < best[0]:
            best = (key, lift)
    return None if best is None else best[1]


def apply_lifting(lift, x):
    """Forward lifting on a long signal (interior only) -> lo, hi arrays
    indexed like polyphase outputs, NaN where the margins are not valid."""
    a = x[0::2].astype(float).copy()
    d = x[1::2].astype(float).copy()
    n = min(a.size, d.size)
    a = a[:n]
    d = d[:n]
    for upd, off, taps in lift["steps"]:
        src = d if upd else a
        acc = np.full(n, np.nan)
        for k in range(n):
            idx = [k + off + i for i in range(len(taps))]
            if min(idx) >= 0 and max(idx) < n:
                acc[k] = sum(t * src[i] for t, i in zip(taps, idx))
        if upd:
            a = a + acc
        else:
            d = d + acc
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    for k in range(n):
        if 0 <= k + lift["shift_lo"] < n:
            lo[k] = lift["scale_lo"] * a[k + lift["shift_lo"]]
        if 0 <= k + lift["shift_hi"] < n:
            hi[k] = lift["scale_hi"] * d[k + lift["shift_hi"]]
    return lo, hi


def conv_forward(h, x):
    """lo[k] = sum_j h[j] x[2k+1-j], NaN where out of range."""
    n = x.size // 2
    out = np.full(n, np.nan)
    for k in range(n):
        idx = [2 * k + 1 - j for j in range(len(h))]
        if min(idx) >= 0 and max(idx) < x.size:
            out[k] = sum(h[j] * x[i] for j, i in enumerate(idx))
    return out


def verify(lift, dec_lo, dec_hi):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(200)
    lo, hi = apply_lifting(lift, x)
    rlo = conv_forward(dec_lo, x)
    rhi = conv_forward(dec_hi, x)
    ok = ~np.isnan(lo) & ~np.isnan(rlo) & ~np.isnan(hi) & ~np.isnan(rhi)
    if ok.sum() < 40:
        return False
    err = max(np.abs(lo[ok] - rlo[ok]).max(), np.abs(hi[ok] - rhi[ok]).max())
    return err < 1e-9


# --------------------------------------------------------------------------
# JPEG 2000 family: lifting steps (a = even samples, d = odd samples).

K97 = 1.230174104914001
JPEG2000 = {
    "cdf97": dict(
        family="JPEG 2000", integer=0, support=(9, 7),
        steps=[(0, 0, [-1.586134342059924] * 2), (1, -1, [-0.052980118572961] * 2),
               (0, 0, [0.882911075530934] * 2), (1, -1, [0.443506852043971] * 2)],
        scale_lo=1.0 / K97, scale_hi=K97),
    "legall53": dict(
        family="JPEG 2000", integer=1, support=(5, 3),
        steps=[(0, 0, [-0.5, -0.5]), (1, -1, [0.25, 0.25])],
        scale_lo=1.0, scale_hi=1.0),
    "dd137": dict(
        family="Deslauriers-Dubuc", integer=0, support=(13, 7),
        steps=[(0, -1, [1 / 16, -9 / 16, -9 / 16, 1 / 16]),
               (1, -2, [-1 / 32, 9 / 32, 9 / 32, -1 / 32])],
        scale_lo=1.0, scale_hi=1.0),
}


def jpeg2000_filters(spec):
    """Centered analysis filters (lo[k] = sum_t f[t] x[2k+t], hi[k] = sum_t g[t]
    x[2k+1+t]) and synthesis filters (x[i] = sum_t sl[t] y(i-t), y even = low,
    y odd = high), all odd-length, index 0 = t of -(len-1)/2."""
    lift = dict(steps=spec["steps"], scale_lo=spec["scale_lo"], shift_lo=0,
                scale_hi=spec["scale_hi"], shift_hi=0)
    n = 64
    R = 8
    lo_f = np.zeros(2 * R + 1)
    hi_f = np.zeros(2 * R + 1)
    for t in range(-R, R + 1):
        x = np.zeros(2 * n)
        x[n + t] = 1.0  # x[2k+t] with k = n/2
        lo, _ = apply_lifting(lift, x)
        lo_f[t + R] = lo[n // 2]
        x = np.zeros(2 * n)
        x[n + 1 + t] = 1.0
        _, hi = apply_lifting(lift, x)
        hi_f[t + R] = hi[n // 2]
    # synthesis: invert lifting on unit coefficient impulses
    syn_lo = np.zeros(2 * R + 1)
    syn_hi = np.zeros(2 * R + 1)
    for band in (0, 1):
        a = np.zeros(n)
        d = np.zeros(n)
        if band == 0:
            a[n // 2] = 1.0 / spec["scale_lo"]
        else:
            d[n // 2] = 1.0 / spec["scale_hi"]
        for upd, off, taps in reversed(spec["steps"]):
            src = d if upd else a
            acc = np.zeros(n)
            for k in range(n):
                for i, tap in enumerate(taps):
                    if 0 <= k + off + i < n:
                        acc[k] += tap * src[k + off + i]
            if upd:
                a = a - acc
            else:
                d = d - acc
        x = np.zeros(2 * n)
        x[0::2] = a
        x[1::2] = d
        center = n if band == 0 else n + 1
        target = syn_lo if band == 0 else syn_hi
        for t in range(-R, R + 1):
            target[t + R] = x[center + t]
    out = []
    for f in (lo_f, hi_f, syn_lo, syn_hi):
        nz = np.nonzero(np.abs(f) > 1e-14)[0]
        r = max(R - nz[0], nz[-1] - R)
        out.append(f[R - r:R + r + 1])
    return out


# --------------------------------------------------------------------------
# Output

def c_array(name, values):
    body = ",\n    ".join(
        ", ".join(repr(float(v)) for v in values[i:i + 4]) for i in range(0, len(values), 4))
    return f"static const double {name}[{len(values)}] = {{\n    {body}\n}};\n"


def c_lifting(name, lift):
    steps = []
    for upd, off, taps in lift["steps"]:
        assert len(taps) <= 8
        t = ", ".join(repr(float(v)) for v in taps)
        steps.append(f"        {{{upd}, {off}, {len(taps)}, {{{t}}}}}")
    return (f"static const wt_lifting {name} = {{\n    {len(steps)},\n    {{\n"
            + ",\n".join(steps) + "\n    },\n"
            f"    {lift['scale_lo']!r}, {lift['scale_hi']!r}, {lift['shift_lo']}, "
            f"{lift['shift_hi']}, 0,\n}};\n")


def ident(name):
    return name.replace(".", "_")


# Wavelets whose lifting structure the fast CUDA kernels take at compile time.
FAST_SCHEMES = ("cdf97", "legall53", "db3", "haar", "dd137")


def step_function(fname, values):
    """WT_HD constexpr int fname(int s): values[s], as a chain of conditionals
    (no arrays: device code can evaluate it)."""
    if len(set(values)) == 1:
        return f"    WT_HD static constexpr int {fname}(int) {{ return {values[0]}; }}\n"
    expr = str(values[-1])
    for s in range(len(values) - 2, -1, -1):
        expr = f"s == {s} ? {values[s]} : {expr}"
    return f"    WT_HD static constexpr int {fname}(int s) {{ return {expr}; }}\n"


def c_scheme(name, lift):
    steps = lift["steps"]
    return (f"struct scheme_{ident(name)} {{\n"
            f"    static constexpr int n = {len(steps)}, shift_lo = {lift['shift_lo']}, "
            f"shift_hi = {lift['shift_hi']};\n"
            + step_function("upd", [u for u, _, _ in steps])
            + step_function("off", [o for _, o, _ in steps])
            + step_function("nt", [len(t) for _, _, t in steps])
            + "};\n")


def lifting_of(name):
    """The lifting factorisation the table holds for @p name."""
    if name in JPEG2000:
        spec = JPEG2000[name]
        return dict(steps=spec["steps"], shift_lo=0, shift_hi=0)
    w = pywt.Wavelet(name)
    return factor(np.array(w.dec_lo), np.array(w.dec_hi))


def write_schemes(out):
    out.write("/* Generated by tools/gen_wavelets.py --schemes from PyWavelets "
              f"{pywt.__version__}. Do not edit. */\n"
              "/* The lifting structure (per step: which half it updates, the offset and\n"
              " * number of its taps; the shifts of the outputs) of the wavelets with fast\n"
              " * CUDA kernels, from the factorisations of src/core/wavelet_table.c, as\n"
              " * compile-time structs for cuda/cu_fast.cuh. C++ only; WT_HD from\n"
              " * dwt_geometry.h. */\n"
              "#ifndef WT_WAVELET_SCHEMES_H\n#define WT_WAVELET_SCHEMES_H\n\n"
              '#include "dwt_geometry.h" /* WT_HD */\n\n')
    for name in FAST_SCHEMES:
        out.write(c_scheme(name, lifting_of(name)))
    out.write("\n#endif\n")


def main():
    out = sys.stdout
    if sys.argv[1:] == ["--schemes"]:
        write_schemes(out)
        return
    out.write("/* Generated by tools/gen_wavelets.py from PyWavelets "
              f"{pywt.__version__}. Do not edit. */\n")
    out.write('#include "wavelet_table.h"\n\n')
    entries = []
    factored = []
    for name in pywt.wavelist(kind="discrete"):
        w = pywt.Wavelet(name)
        i = ident(name)
        for part in ("dec_lo", "dec_hi", "rec_lo", "rec_hi"):
            out.write(c_array(f"{i}_{part}", getattr(w, part)))
        lift_ref = "NULL"
        if w.dec_len <= 12:
            lift = factor(np.array(w.dec_lo), np.array(w.dec_hi))
            if lift is not None and conditioning(lift) < 100:
                out.write(c_lifting(f"{i}_lifting", lift))
                lift_ref = f"&{i}_lifting"
                factored.append(name)
        entries.append(
            f'    {{"{name}", "{w.family_name}", WT_KIND_FILTER_BANK, {int(w.orthogonal)}, 0, '
            f"{w.dec_len}, {i}_dec_lo, {i}_dec_hi, {i}_rec_lo, {i}_rec_hi, {lift_ref}, 0, 0}}")
    for name, spec in JPEG2000.items():
        lo, hi, slo, shi = jpeg2000_filters(spec)
        assert (len(lo), len(hi)) == spec["support"], (name, len(lo), len(hi))
        for part, vals in (("dec_lo", lo), ("dec_hi", hi), ("rec_lo", slo), ("rec_hi", shi)):
            out.write(c_array(f"{name}_{part}", vals))
        lift = dict(steps=spec["steps"], scale_lo=spec["scale_lo"], shift_lo=0,
                    scale_hi=spec["scale_hi"], shift_hi=0)
        out.write(c_lifting(f"{name}_lifting", lift))
        entries.append(
            f'    {{"{name}", "{spec["family"]}", WT_KIND_JPEG2000, 0, {spec["integer"]}, '
            f"{max(len(lo), len(hi))}, {name}_dec_lo, {name}_dec_hi, {name}_rec_lo, "
            f"{name}_rec_hi, &{name}_lifting, {len(lo)}, {len(hi)}}}")
    out.write("\nconst wt_wavelet wt_wavelet_table[] = {\n" + ",\n".join(entries) + "\n};\n")
    out.write(f"const size_t wt_wavelet_table_len = {len(entries)};\n")
    sys.stderr.write(f"{len(entries)} wavelets; lifting factored: {' '.join(factored)}\n")


if __name__ == "__main__":
    main()
