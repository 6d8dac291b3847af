#!/usr/bin/env python3
"""The .npz coefficient files as NumPy and PyWavelets see them.

For each case, tests/npz_write.c writes a file (plain and with ZIP64 records,
members stored and deflated);
np.load(allow_pickle=False) must read it, the meta must describe it, and the
bands must be pywt.wavedec2's (1e-5 relative) whose waverec2 gives the input
back. legall53 (not in PyWavelets): int32 bands of the JPEG 2000 sizes.
Usage: npz_check.py NPZ_WRITE.  Exit 77 (skip) without numpy or pywt."""
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import pywt
except ImportError:
    print("numpy or pywt missing: skipped")
    sys.exit(77)

CASES = [  # wavelet, mode, levels, channels, height, width
    ("haar", "symmetric", 3, 3, 37, 50),
    ("db2", "periodization", 2, 1, 31, 17),
    ("sym3", "reflect", 2, 2, 20, 33),
    ("bior2.2", "zero", 1, 4, 9, 9),
    ("coif1", "smooth", 2, 1, 1, 40),
    ("db1", "symmetric", 0, 1, 5, 7),
    ("legall53", "symmetric", 3, 3, 29, 41),
]


def check_file(path, raw, wavelet, mode, levels, channels, h, w):
    z = np.load(path, allow_pickle=False)
    names = {"cA", "meta"} | {f"c{b}{l}" for l in range(1, levels + 1) for b in "HVD"}
    assert set(z.files) == names, sorted(z.files)
    meta = json.loads(bytes(z["meta"]).decode("utf-8"))
    want = {"wavelet": wavelet, "mode": mode, "levels": levels, "width": w, "height": h,
            "channels": channels, "bit_depth": 8, "wavetool": "0.1.0"}
    for key, value in want.items():
        assert meta[key] == value, (key, meta[key], value)
    x = np.fromfile(raw, dtype="<f4").reshape(channels, h, w)
    if wavelet == "legall53":
        ch, cw = h, w  # JPEG 2000: ceil(n/2) low, floor(n/2) high
        for l in range(1, levels + 1):
            lo_h, lo_w, hi_h, hi_w = (ch + 1) // 2, (cw + 1) // 2, ch // 2, cw // 2
            assert z[f"cH{l}"].shape == (channels, hi_h, lo_w), z[f"cH{l}"].shape
            assert z[f"cV{l}"].shape == (channels, lo_h, hi_w)
            assert z[f"cD{l}"].shape == (channels, hi_h, hi_w)
            assert z[f"cH{l}"].dtype == np.int32
            ch, cw = lo_h, lo_w
        assert z["cA"].shape == (channels, ch, cw) and z["cA"].dtype == np.int32
        return
    for c in range(channels):
        ref = pywt.wavedec2(x[c].astype(np.float64), wavelet, mode=mode, level=levels)
        got = [z["cA"][c]] + [(z[f"cH{l}"][c], z[f"cV{l}"][c], z[f"cD{l}"][c])
                              for l in range(levels, 0, -1)]
        scale = max(float(np.abs(ref[0]).max()), 1e-30)
        assert got[0].dtype == np.float32
        err = float(np.abs(got[0] - ref[0]).max())
        for g, r in zip(got[1:], ref[1:]):
            for gb, rb in zip(g, r):
                assert gb.shape == rb.shape, (gb.shape, rb.shape)
                err = max(err, float(np.abs(gb - rb).max()))
        assert err <= 1e-5 * scale, f"max error {err} (scale {scale})"
        back = pywt.waverec2(got, wavelet, mode=mode)[:h, :w]
        assert np.abs(back - x[c]).max() <= 1e-3 * max(1.0, float(np.abs(x[c]).max()))


def main():
    helper = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            for zip64 in ("", "zip64", "compress", "zip64+compress"):
                path, raw = os.path.join(tmp, "c.npz"), os.path.join(tmp, "x.f32")
                args = [helper, path, raw] + [str(v) for v in case] + ([zip64] if zip64 else [])
                subprocess.run(args, check=True)
                try:
                    check_file(path, raw, *case)
                    print(f"ok {case} {zip64}")
                except Exception as e:  # report every case, then fail
                    failures += 1
                    print(f"FAIL {case} {zip64}: {e!r}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
