#!/usr/bin/env python3
"""NumPy .npy arrays as images (src/npy_io.c), as numpy.save writes them.

uint8/16/32, int8/16/32, float32/64, (H, W) and (H, W, C) with C = 1-64,
C and Fortran order, both byte orders, format versions 1 and 2:
coefficients equal pywt.wavedec2 of np.load (1e-5 relative), `roundtrip -o
out.npy` gives np.load the same array (dtype, little-endian, and shape;
floats within 1e-6 relative), and refused arrays (bool, complex, int64,
float16, 4-D, more than 64 channels, bad headers, short data) get one line
and exit 1.
Usage: npy_check.py WAVETOOL.  Exit 77 (skip) without numpy or pywt."""
import io
import os
import sys
import tempfile

from check_common import check_coefficients, check_refused, check_same_samples, \
    modules_or_skip, runner

np, pywt = modules_or_skip("numpy", "pywt")

from sample_arrays import generators  # noqa: E402 (after the skip)

run = runner(sys.argv[1])
rand, srand, frand = generators(20)


def save_v2(path, a):
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=(2, 0))


GOOD = {
    "uint8 HxW": (rand((37, 29), np.uint8), np.save),
    "uint16 HxW big-endian": (rand((23, 31), np.uint16).astype(">u2"), np.save),
    "uint8 HxWx3": (rand((17, 19, 3), np.uint8), np.save),
    "uint16 HxWx4 Fortran order": (np.asfortranarray(rand((21, 18, 4), np.uint16)), np.save),
    "uint8 HxWx2 version 2": (rand((9, 13, 2), np.uint8), save_v2),
    "uint16 1x5": (rand((1, 5), np.uint16), np.save),
    "int8 HxW": (srand((19, 23), np.int8), np.save),
    "int16 HxW big-endian": (srand((23, 17), np.int16).astype(">i2"), np.save),
    "int16 HxWx3 Fortran order": (np.asfortranarray(srand((12, 15, 3), np.int16)), np.save),
    "uint32 HxW": (rand((13, 27), np.uint32) >> 12, np.save),
    "int32 HxW big-endian": (srand((15, 21), np.int32, 20).astype(">i4"), np.save),
    "float32 HxW": (frand((29, 31), np.float32), np.save),
    "float32 HxW big-endian": (frand((11, 33), np.float32).astype(">f4"), np.save),
    "float32 HxWx4 Fortran order": (np.asfortranarray(frand((10, 12, 4), np.float32)), np.save),
    "float64 HxW": (frand((17, 9), np.float64), np.save),
    "float64 HxW big-endian version 2": (frand((8, 14), np.float64).astype(">f8"), save_v2),
    "uint16 HxWx6": (rand((11, 13, 6), np.uint16), np.save),
    "float32 1x1": (frand((1, 1), np.float32), np.save),
}


def bad_files(tmp):
    """name -> (path, text the message must hold)"""
    out = {}

    def put(name, data, text):
        path = os.path.join(tmp, name + ".npy")
        with open(path, "wb") as f:
            f.write(data)
        out[name] = (path, text)

    def saved(a):
        buf = io.BytesIO()
        np.save(buf, a)
        return buf.getvalue()

    put("bool", saved(np.ones((8, 8), bool)), "booleans")
    put("complex64", saved(np.ones((8, 8), np.complex64)), "complex")
    put("int64", saved(np.ones((8, 8), np.int64)), "64-bit integers")
    put("float16", saved(np.ones((8, 8), np.float16)), "type '<f2'")
    put("4-D", saved(rand((3, 8, 8, 2), np.uint8)), "not an image")
    put("65 channels", saved(rand((8, 8, 65), np.uint8)), "not an image")
    put("multi-byte without order", saved(np.ones((8, 8), "<u2")).replace(b"'<u2'", b"'|u2'"),
        "without a byte order")
    buf = io.BytesIO()
    np.save(buf, rand((16, 16), np.uint16))
    good = buf.getvalue()
    put("short data", good[:-7], "its shape says")
    put("huge shape", good.replace(b"(16, 16)", b"(99999999, 9)"), "below 2^24")
    put("header past the end", good[:8] + b"\xff\xff" + good[10:40], "truncated")
    put("no dictionary", good[:10] + b" " * (len(good) - 10), "bad .npy header")
    return out


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (a, save) in GOOD.items():
            path = os.path.join(tmp, "in.npy")
            save(path, a)
            try:
                check_coefficients(run, path, a, tmp)
                back_path = os.path.join(tmp, "back.npy")
                r = run("roundtrip", "-q", "-w", "db3", "-o", back_path, path)
                assert r.returncode == 0, r.stderr
                back = np.load(back_path)
                assert back.dtype == a.dtype.newbyteorder("<") or back.dtype == a.dtype, back.dtype
                assert back.shape == a.shape, (back.shape, a.shape)
                check_same_samples(back, a)
                print(f"ok - {name}")
            except AssertionError as e:
                failed += 1
                print(f"FAIL - {name}: {e}")
        for name, (path, text) in bad_files(tmp).items():
            failed += check_refused(run, name, path, text, tmp)
    print(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
