"""What the Python checks of the formats and mosaics share (tiff_check.py,
npy_check.py, mosaic_check.py): their modules or a skip, running wavetool,
and the checks every image format gets (coefficients against
pywt.wavedec2, a roundtrip's samples, a refused file's one line).
Imports only the standard library: a check calls modules_or_skip first."""
import importlib
import os
import subprocess
import sys


def modules_or_skip(*names):
    """The modules named ("PIL.Image": the submodule), or exit 77 (skip),
    printing "numpy, pywt or PIL missing: skipped", when one is missing."""
    try:
        return tuple(importlib.import_module(n) for n in names)
    except ImportError:
        tops = [n.split(".")[0] for n in names]
        shown = f"{', '.join(tops[:-1])} or {tops[-1]}" if len(tops) > 1 else tops[0]
        print(f"{shown} missing: skipped")
        sys.exit(77)


def runner(wavetool):
    """run(*args): wavetool with those arguments, its output captured as text."""
    def run(*args):
        return subprocess.run([wavetool, *args], capture_output=True, text=True)
    return run


def planes(x):
    """(C, H, W) float64 planes of an (H, W) or (H, W, C) image."""
    import numpy as np
    x = np.asarray(x)
    return (x[None] if x.ndim == 2 else np.moveaxis(x, -1, 0)).astype(np.float64)


def check_coefficients(run, path, want, tmp):
    """`decompose -w db2 -l max PATH c.npz` equals pywt.wavedec2 of the samples
    @p want, channel by channel, within 1e-5 of the largest |cA| (at least 1)."""
    import numpy as np
    import pywt
    out = os.path.join(tmp, "c.npz")
    r = run("decompose", "-w", "db2", "-l", "max", path, out)
    assert r.returncode == 0, r.stderr
    z = np.load(out)
    x = planes(want)
    levels = pywt.dwtn_max_level(x.shape[1:], "db2")
    assert z["cA"].shape[0] == x.shape[0], (z["cA"].shape, x.shape)
    for c in range(x.shape[0]):
        ref = pywt.wavedec2(x[c], "db2", mode="symmetric", level=levels)
        got = [z["cA"][c]] + [(z[f"cH{l}"][c], z[f"cV{l}"][c], z[f"cD{l}"][c])
                              for l in range(levels, 0, -1)]
        scale = max(float(np.abs(ref[0]).max()), 1.0)
        err = max([float(np.abs(got[0] - ref[0]).max())] +
                  [float(np.abs(g - r).max()) for gl, rl in zip(got[1:], ref[1:])
                   for g, r in zip(gl, rl)])
        assert err <= 1e-5 * scale, f"channel {c}: error {err} vs {scale}"


def check_same_samples(back, want):
    """A roundtrip's samples: integers exact, floats (transformed in float32)
    within 1e-6 of the largest |sample|."""
    import numpy as np
    if want.dtype.kind == "f":
        err = float(np.abs(back.astype(np.float64) - want).max() / np.abs(want).max())
        assert err <= 1e-6, f"roundtrip relative error {err}"
    else:
        assert np.array_equal(back, want), "roundtrip differs"


def check_refused(run, name, path, reason, tmp):
    """`decompose PATH x.png` fails with exit 1 and one line naming the file
    and holding @p reason, and writes nothing. Prints ok/FAIL; 0 or 1 failure."""
    out = os.path.join(tmp, "x.png")
    r = run("decompose", path, out)
    lines = r.stderr.strip().split("\n")
    if r.returncode == 1 and len(lines) == 1 and reason in lines[0] and \
            os.path.basename(path) in lines[0] and not os.path.exists(out):
        print(f"ok - refused: {name}: {lines[0]}")
        return 0
    print(f"FAIL - refused: {name}: exit {r.returncode}: {r.stderr!r}")
    return 1
