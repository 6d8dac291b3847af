#!/usr/bin/python3
"""Write tests/ref/vectors.txt: PyWavelets results the C unit tests hold the
CPU engine to without needing Python. Regenerate with
    tests/gen_refvectors.py > tests/ref/vectors.txt

Cases: every wavelet once (periodization, 2 levels when possible), and a set of
wavelets in every mode at tiny, odd and levels-beyond-max sizes.
Format per case:
    case WAVELET MODE LEVELS C H W
    in N v...          (float32 input, C*H*W values)
    coef N v...        (pywt.wavedec2 bands in wavetool's order)
    rec N v...         (pywt.waverec2 of those, cropped to H x W)
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import pywt  # noqa: E402
from pywt_check import MODES, per_channel_coeffs, pywt_bands, waverec2  # noqa: E402


def fmt(values):
    return " ".join(f"{v:.9g}" for v in np.asarray(values, dtype=np.float64).ravel())


def emit(out, rng, name, mode, levels, c, h, w):
    x = (rng.uniform(-1, 1, size=(c, h, w)) * 100).astype(np.float32)
    bands = pywt_bands(x, name, mode, levels)
    coef = np.concatenate([b.ravel() for b in bands])
    rec = np.stack([waverec2(pc, name, mode, (h, w))
                    for pc in per_channel_coeffs(bands, c, levels)])
    out.write(f"case {name} {mode} {levels} {c} {h} {w}\n")
    out.write(f"in {x.size} {fmt(x)}\n")
    out.write(f"coef {coef.size} {fmt(coef)}\n")
    out.write(f"rec {rec.size} {fmt(rec)}\n")


def main():
    rng = np.random.default_rng(7)
    out = sys.stdout
    for name in pywt.wavelist(kind="discrete"):
        emit(out, rng, name, "periodization", 1, 1, 6, 5)
    for name in ("haar", "db2", "db3", "sym4", "coif1", "bior2.2", "bior4.4", "rbio3.1"):
        for mode in MODES:
            for (levels, c, h, w) in ((1, 1, 1, 1), (2, 2, 5, 3), (1, 1, 1, 7), (3, 1, 9, 4)):
                emit(out, rng, name, mode, levels, c, h, w)


if __name__ == "__main__":
    main()
