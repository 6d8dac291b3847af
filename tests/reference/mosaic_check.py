#!/usr/bin/env python3
"""Mosaic display options, checked by their pixels against numpy.

The coefficients are wavetool's own (.npz, equal to pywt.wavedec2 by the pywt
suites), so the display formulas are checked exactly, not through float32
rounding ties (haar coefficients of integers land on .5 often).

The default and the explicit plain style give the same bytes; --scale
level/global, --clip, --transfer sqrt/log, --colormap diverging follow the
formulas of DESIGN/README (|samples - numpy| <= 1: float32 coefficients, and
at most 0.5% of them off by one); --grid lines lie on the band borders;
--labels draw the built-in font's glyphs on a black box; --alpha opaque (the
default) / keep / only show the right channels.
Usage: mosaic_check.py WAVETOOL.  Exit 77 (skip) without numpy or PIL."""
import os
import subprocess
import sys
import tempfile

from check_common import modules_or_skip

np, Image = modules_or_skip("numpy", "PIL.Image")

WT = sys.argv[1]
FAILS = []
PEAK = 255.0
LEVELS = 2


def check(cond, what):
    print(("ok " if cond else "FAIL: ") + what)
    if not cond:
        FAILS.append(what)


def run(*args, ok=0):
    p = subprocess.run([WT, *args], capture_output=True, text=True)
    if p.returncode != ok:
        raise RuntimeError(f"{args}: exit {p.returncode}: {p.stderr}")
    return p


def make(path, channels, h=80, w=90, seed=1):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    planes = [np.clip(128 + 90 * np.sin(x / (4.0 + c) + y / 6.0) + rng.normal(0, 12, (h, w)), 0, 255)
              for c in range(channels)]
    if channels == 4:
        planes[3][:] = 255  # opaque
    a = np.rint(np.stack(planes, -1)).astype(np.uint8)
    Image.fromarray(a[..., 0] if channels == 1 else a).save(path)
    return a.astype(np.float64)


def coefficients(src, tmp):
    """Per channel: [(level, 'A'|'H'|'V'|'D', float64 array)] in wavetool's order."""
    npz = os.path.join(tmp, "c.npz")
    run("decompose", "-l", str(LEVELS), src, npz)
    z = np.load(npz)
    return [[(LEVELS, "A", z["cA"][c].astype(np.float64))] +
            [(lev, o, z[f"c{o}{lev}"][c].astype(np.float64))
             for lev in range(LEVELS, 0, -1) for o in "HVD"]
            for c in range(z["cA"].shape[0])]


def channel_mean(per_channel):
    """The coefficients of the channel mean, as wavetool computes them (float32)."""
    return [[(l, o, np.mean([bs[i][2] for bs in per_channel], axis=0).astype(np.float32)
              .astype(np.float64)) for i, (l, o, _) in enumerate(per_channel[0])]]


def positions(bs):
    """Top-left corner of each band in the mosaic (coeffs_to_array layout)."""
    pos, ah, aw = {}, *bs[0][2].shape
    pos[(LEVELS, "A")] = (0, 0)
    for lev in range(LEVELS, 0, -1):
        d = {o: a for l, o, a in bs if l == lev}
        pos[(lev, "H")], pos[(lev, "V")], pos[(lev, "D")] = (ah, 0), (0, aw), (ah, aw)
        ah, aw = ah + d["D"].shape[0], aw + d["D"].shape[1]
    return pos, (ah, aw)


def transfer(kind, u):
    return {"linear": u, "sqrt": np.sqrt(u), "log": np.log1p(255 * u) / np.log(256)}[kind]


def display_max(per_channel, lev, o, rng_kind, clip):
    """M of band (lev, o) over all channels for the range kind."""
    sel = [a for bs in per_channel for l, oo, a in bs if oo != "A" and
           (rng_kind == "global" or (l == lev and (rng_kind == "level" or oo == o)))]
    v = np.concatenate([np.abs(a).ravel() for a in sel])
    return v.max() if clip >= 100 else np.percentile(v, clip)


def expected(coef, scale="abs", rng_kind="band", transfer_kind="linear", clip=100.0,
             colormap="gray"):
    per_channel = channel_mean(coef) if colormap == "diverging" and len(coef) > 1 else coef
    planes = per_channel
    pos, (mh, mw) = positions(per_channel[0])
    out = np.zeros((mh, mw, 3 if colormap == "diverging" else len(planes)))
    a_all = np.stack([per_channel[c][0][2] for c in range(len(planes))])
    lo, hi = a_all.min(), a_all.max()
    for c, bs in enumerate(per_channel):
        for lev, o, a in bs:
            y0, x0 = pos[(lev, o)]
            sl = (slice(y0, y0 + a.shape[0]), slice(x0, x0 + a.shape[1]))
            if o == "A":
                g = np.rint((a - lo) * (PEAK / (hi - lo)))
                if colormap == "diverging":
                    out[sl] = g[..., None]
                else:
                    out[sl + (c,)] = g
                continue
            m = display_max(per_channel, lev, o, rng_kind, clip)
            if transfer_kind == "linear" and colormap == "gray":
                s = PEAK / 2 + a * (PEAK / (2 * m)) if scale == "offset" else np.abs(a) * (PEAK / m)
                out[sl + (c,)] = np.rint(np.clip(s, 0, PEAK))
                continue
            t = np.sign(a) * transfer(transfer_kind, np.minimum(np.abs(a) / m, 1.0))
            if colormap == "diverging":
                fade = PEAK * (1 - np.abs(t))
                out[sl + (0,)] = np.rint(np.where(t < 0, fade, PEAK))
                out[sl + (1,)] = np.rint(fade)
                out[sl + (2,)] = np.rint(np.where(t > 0, fade, PEAK))
            elif scale == "offset":
                out[sl + (c,)] = np.rint(np.clip(PEAK / 2 + t * PEAK / 2, 0, PEAK))
            else:
                out[sl + (c,)] = np.rint(np.clip(np.abs(t) * PEAK, 0, PEAK))
    return out, pos, per_channel


def mosaic(tmp, src, *opts):
    out = os.path.join(tmp, "m.png")
    run("decompose", "-l", str(LEVELS), *opts, src, out)
    a = np.asarray(Image.open(out)).astype(np.float64)
    return a[..., None] if a.ndim == 2 else a


def matches(got, want, what):
    same_shape = got.shape == want.shape
    diff = np.abs(got - want) if same_shape else None
    ok = same_shape and diff.max() <= 1 and (diff > 0).mean() <= 0.001
    check(ok, f"{what}: " + (f"max |diff| {diff.max()}, {100 * (diff > 0).mean():.2f}% off"
                             if same_shape else f"shape {got.shape} vs {want.shape}"))


GLYPH_C = [0, 0, 14, 16, 16, 17, 14]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gray, rgb, rgba = (os.path.join(tmp, f) for f in ("g.png", "rgb.png", "rgba.png"))
        make(gray, 1)
        make(rgb, 3, seed=2)
        c4 = make(rgba, 4, seed=2)
        g, c3 = coefficients(gray, tmp), coefficients(rgb, tmp)

        base = os.path.join(tmp, "base.png")
        run("decompose", "-l", str(LEVELS), gray, base)
        explicit = os.path.join(tmp, "explicit.png")
        run("decompose", "-l", str(LEVELS), "--scale", "auto,band", "--transfer", "linear",
            "--colormap", "gray", "--clip", "100", "--alpha", "keep", gray, explicit)
        check(open(base, "rb").read() == open(explicit, "rb").read(),
              "explicit plain style = default bytes")
        matches(mosaic(tmp, gray), expected(g)[0], "default")

        for opts, kw in [
            (["--scale", "level"], dict(rng_kind="level")),
            (["--scale", "global,offset"], dict(rng_kind="global", scale="offset")),
            (["--clip", "99"], dict(clip=99.0)),
            (["--clip", "90", "--scale", "level"], dict(clip=90.0, rng_kind="level")),
            (["--transfer", "sqrt"], dict(transfer_kind="sqrt")),
            (["--transfer", "log", "--scale", "offset"], dict(transfer_kind="log", scale="offset")),
        ]:
            matches(mosaic(tmp, gray, *opts), expected(g, **kw)[0], " ".join(opts))
        matches(mosaic(tmp, rgb, "--scale", "level"), expected(c3, rng_kind="level")[0],
                "RGB --scale level")
        for src, img, name in [(gray, g, "gray"), (rgb, c3, "RGB (channel mean)")]:
            matches(mosaic(tmp, src, "--colormap", "diverging", "--transfer", "sqrt"),
                    expected(img, colormap="diverging", transfer_kind="sqrt")[0],
                    f"--colormap diverging of {name}")
        # a 16-bit input: the diverging map is 8-bit RGB all the same
        gray16 = os.path.join(tmp, "g16.png")
        Image.fromarray((make(os.path.join(tmp, "g8.png"), 1, seed=5)[..., 0] * 257)
                        .astype(np.uint16), mode="I;16").save(gray16)
        out16 = os.path.join(tmp, "d16.png")
        run("decompose", "-l", str(LEVELS), "--colormap", "diverging", gray16, out16)
        with open(out16, "rb") as f:
            ihdr = f.read(26)  # PIL shows 16-bit RGB as RGB: read the PNG header's depth, colour type
        check(ihdr[24] == 8 and ihdr[25] == 2,
              f"--colormap diverging of a 16-bit input: PNG depth {ihdr[24]}, colour type {ihdr[25]}, not 8-bit RGB")
        matches(mosaic(tmp, gray16, "--colormap", "diverging"),
                expected(coefficients(gray16, tmp), colormap="diverging")[0],
                "--colormap diverging of a 16-bit input")

        # grid: white lines over the first row/column of each level's details
        got = mosaic(tmp, gray, "--grid")[..., 0]
        want, pos, _ = expected(g)
        ah, aw = pos[(LEVELS, "H")][0], pos[(LEVELS, "V")][1]
        (h1, _), (_, w1) = pos[(1, "H")], pos[(1, "V")]
        lines = np.zeros(got.shape, bool)
        for y, x, ext_y, ext_x in [(ah, aw, h1, w1), (h1, w1, got.shape[0], got.shape[1])]:
            lines[y, :ext_x] = True
            lines[:ext_y, x] = True
        check(bool((got[lines] == 255).all()), "--grid: lines at the band borders are white")
        check(bool((got[~lines] == want[..., 0][~lines]).mean() > 0.995), "--grid: other pixels unchanged")

        # labels: black box, glyph 'c' of "cA2" in the corner, 'c' of "cD1" too
        got = mosaic(tmp, gray, "--labels")[..., 0]
        for (y0, x0), name in [((0, 0), "cA2"), (pos[(1, "D")], "cD1")]:
            box = got[y0:y0 + 9, x0:x0 + 19]
            c = [int("".join("1" if v else "0" for v in box[1 + r, 1:6] == 255), 2) for r in range(7)]
            check(set(np.unique(box)) <= {0.0, 255.0} and c == GLYPH_C and box[0].max() == 0,
                  f"--labels: {name} drawn with the built-in font")

        # alpha: default opaque = the RGB image's mosaic; only = the alpha's; keep = 4 channels
        rgb_m, rgba_m = mosaic(tmp, rgb), mosaic(tmp, rgba)
        check(rgba_m.shape[-1] == 3 and np.array_equal(rgba_m, rgb_m),
              "RGBA default (--alpha opaque): the colour channels' mosaic")
        alpha_png = os.path.join(tmp, "alpha.png")
        Image.fromarray(c4[..., 3].astype(np.uint8)).save(alpha_png)
        check(np.array_equal(mosaic(tmp, rgba, "--alpha", "only"), mosaic(tmp, alpha_png)),
              "--alpha only: the alpha plane's mosaic")
        check(mosaic(tmp, rgba, "--alpha", "keep").shape[-1] == 4, "--alpha keep: 4 channels")

        p = run("decompose", "--scale", "band,bogus", gray, os.path.join(tmp, "x.png"), ok=2)
        check("--scale" in p.stderr and not os.path.exists(os.path.join(tmp, "x.png")),
              "--scale band,bogus: usage error")
    print(f"{len(FAILS)} failures")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
