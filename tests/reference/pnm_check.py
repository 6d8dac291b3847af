#!/usr/bin/env python3
"""Netpbm PGM/PPM (src/pnm_io.c) in every command, against numpy, pywt and Pillow.

Read: P2/P3/P5/P6, 8 and 16-bit, comments, maxval other than 255/65535
scaled as netpbm's pamdepth does ((v * top + maxval // 2) // maxval, top
255 up to maxval 255, else 65535): coefficients equal pywt.wavedec2 of those
samples, and Pillow reads the same samples where it scales alike (maxval
255, 65535, odd maxvals). Write: P5/P6 that Pillow reads back equal, alpha
dropped, 16-bit PGM bit-exact through decompose -> reconstruct and roundtrip.
Commands: decompose, reconstruct, roundtrip, compare, denoise, stats, sigma,
-O batches over a directory of .pgm/.ppm. Hostile headers: one line, exit 1.
Usage: pnm_check.py WAVETOOL.  Exit 77 (skip) without numpy, pywt or PIL."""
import os
import sys
import tempfile

from check_common import check_coefficients, check_refused, check_same_samples, \
    modules_or_skip, runner

np, pywt, Image = modules_or_skip("numpy", "pywt", "PIL.Image")

run = runner(sys.argv[1])
rng = np.random.default_rng(26)


def netpbm(a, maxval, plain=False, comment=True):
    """The bytes of (H, W) or (H, W, 3) samples @p a as a Netpbm file."""
    rgb = a.ndim == 3
    magic = {(False, False): b"P5", (True, False): b"P6",
             (False, True): b"P2", (True, True): b"P3"}[(rgb, plain)]
    head = magic + (b"\n# made by pnm_check.py\n" if comment else b"\n")
    head += b"%d %d\n%d\n" % (a.shape[1], a.shape[0], maxval)
    if plain:
        rows = [b" ".join(b"%d" % v for v in row.ravel()) for row in a]
        return head + b"\n".join(rows) + b"\n"
    return head + a.astype(">u2" if maxval > 255 else "u1").tobytes()


def scaled(a, maxval):
    """netpbm's scaling to 8 or 16 bits (pamdepth): round half up."""
    top = 255 if maxval <= 255 else 65535
    if maxval == top:
        return a
    out = (a.astype(np.uint64) * top + maxval // 2) // maxval
    return out.astype(np.uint8 if top == 255 else np.uint16)


def samples(shape, maxval):
    return rng.integers(0, maxval + 1, shape, dtype=np.uint32)


# name -> (shape, maxval, plain); Pillow reads the same samples where marked
GOOD = {
    "P5 gray8": ((37, 29), 255, False, True),
    "P5 gray16": ((23, 31), 65535, False, True),
    "P6 rgb8": ((17, 19, 3), 255, False, True),
    "P6 rgb16": ((21, 18, 3), 65535, False, False),  # Pillow 9 reads it as 8-bit
    "P2 gray8 plain": ((9, 13), 255, True, True),
    "P3 rgb16 plain": ((7, 5, 3), 65535, True, False),
    "P5 maxval 7": ((15, 11), 7, False, True),
    "P5 maxval 1": ((8, 8), 1, False, True),
    "P5 maxval 1023": ((12, 10), 1023, False, True),
    "P2 maxval 10 (halves round up)": ((6, 7), 10, True, False),
    "P3 maxval 1000": ((5, 6, 3), 1000, True, False),
    "P5 1x1": ((1, 1), 255, False, True),
}


def check_good(tmp):
    failed = 0
    for name, (shape, maxval, plain, pillow) in GOOD.items():
        a = samples(shape, maxval)
        want = scaled(a, maxval)
        path = os.path.join(tmp, "in.pnm")
        with open(path, "wb") as f:
            f.write(netpbm(a, maxval, plain))
        try:
            if pillow:
                check_same_samples(np.asarray(Image.open(path)).astype(want.dtype), want)
            check_coefficients(run, path, want, tmp)
            back = os.path.join(tmp, "back.npy")
            r = run("roundtrip", "-q", "-w", "db3", "-o", back, path)
            assert r.returncode == 0, r.stderr
            check_same_samples(np.load(back), want)
            print(f"ok - {name}")
        except AssertionError as e:
            failed += 1
            print(f"FAIL - {name}: {e}")
    return failed


def written(path):
    """Samples of a written Netpbm file as Pillow reads them, and its magic."""
    with open(path, "rb") as f:
        magic = f.read(2)
    return np.asarray(Image.open(path)), magic


def check_written(tmp):
    """PNG images of 1-4 channels written as .pgm/.ppm: P5 or P6 by channels,
    alpha dropped, 8 bits; 16-bit gray as P5 maxval 65535."""
    failed = 0
    cases = {"L": ("x.pgm", b"P5", None), "LA": ("x.pgm", b"P5", 0),
             "RGB": ("x.ppm", b"P6", None), "RGBA": ("x.ppm", b"P6", slice(0, 3))}
    for mode, (out, magic, keep) in cases.items():
        channels = len(mode)
        a = rng.integers(0, 256, (13, 11, channels) if channels > 1 else (13, 11), np.uint8)
        src = os.path.join(tmp, "src.png")
        Image.fromarray(a, mode).save(src)
        dst = os.path.join(tmp, out)
        r = run("roundtrip", "-q", "-o", dst, src)
        want = a if keep is None else a[..., keep]
        got, m = written(dst) if r.returncode == 0 else (None, None)
        if r.returncode == 0 and m == magic and np.array_equal(got, want):
            print(f"ok - {mode} written as {magic.decode()}")
        else:
            failed += 1
            print(f"FAIL - {mode} written: exit {r.returncode} {r.stderr!r} magic {m}")
    return failed


def check_commands(tmp):
    """Every command reads and writes Netpbm; 16-bit PGM is bit-exact."""
    failed = 0
    gray16 = samples((24, 20), 65535)
    rgb8 = samples((16, 18, 3), 255)
    g16, c8 = os.path.join(tmp, "g16.pgm"), os.path.join(tmp, "c8.ppm")
    with open(g16, "wb") as f:
        f.write(netpbm(gray16, 65535, comment=False))
    with open(c8, "wb") as f:
        f.write(netpbm(rgb8, 255, comment=False))
    npz, back = os.path.join(tmp, "g16.npz"), os.path.join(tmp, "back.pgm")
    rt = os.path.join(tmp, "rt.pgm")
    steps = {
        "decompose .pgm -> .npz": ("decompose", "-q", "-w", "db4", g16, npz),
        "reconstruct .npz -> .pgm": ("reconstruct", "-q", npz, back),
        "roundtrip --psnr 16-bit": ("roundtrip", "--psnr", "-w", "sym5", "-o", rt, g16),
        "decompose .ppm -> mosaic .ppm": ("decompose", "-q", c8, os.path.join(tmp, "m.ppm")),
        "compare .pgm .pgm": ("compare", g16, back),
        "denoise .ppm -> .ppm": ("denoise", "-q", c8, os.path.join(tmp, "d.ppm")),
        "stats .pgm": ("stats", g16),
        "sigma .ppm": ("sigma", c8),
    }
    for name, args in steps.items():
        r = run(*args)
        ok = r.returncode == 0
        if ok and name.startswith("roundtrip"):
            ok = "inf" in r.stdout
        if ok and name.startswith("compare"):
            ok = "inf" in r.stdout
        print(("ok - " if ok else "FAIL - ") + name + ("" if ok else f": {r.stderr!r}"))
        failed += not ok
    c16, rt16 = os.path.join(tmp, "c16.ppm"), os.path.join(tmp, "rt16.ppm")
    with open(c16, "wb") as f:
        f.write(netpbm(samples((9, 14, 3), 65535), 65535, comment=False))
    r = run("roundtrip", "-q", "-w", "db2", "-o", rt16, c16)
    failed += r.returncode != 0
    for name, src, path in [("PGM through decompose/reconstruct", g16, back),
                            ("PGM through roundtrip", g16, rt), ("PPM through roundtrip", c16, rt16)]:
        with open(src, "rb") as f, open(path, "rb") as g:
            same = f.read() == g.read()
        print(("ok - " if same else "FAIL - ") + f"16-bit {name}: bit-exact")
        failed += not same
    return failed + check_batch(tmp, gray16, rgb8)


def check_batch(tmp, gray16, rgb8):
    """-O over a directory walks .pgm/.ppm; --ext pgm writes Netpbm."""
    failed = 0
    src, out = os.path.join(tmp, "dir"), os.path.join(tmp, "out")
    os.makedirs(src)
    with open(os.path.join(src, "a.pgm"), "wb") as f:
        f.write(netpbm(gray16, 65535))
    with open(os.path.join(src, "b.ppm"), "wb") as f:
        f.write(netpbm(rgb8, 255))
    r = run("decompose", "-q", "-O", out, src)
    names = sorted(os.listdir(out)) if os.path.isdir(out) else []
    ok = r.returncode == 0 and len(names) == 2 and names[0].startswith("a.") and \
        names[1].startswith("b.")
    print(("ok - " if ok else "FAIL - ") + f"-O walks .pgm/.ppm: {names} {r.stderr!r}")
    failed += not ok
    out2 = os.path.join(tmp, "out2")
    r = run("roundtrip", "-q", "--ext", "pgm", "-O", out2, src)
    names = sorted(os.listdir(out2)) if os.path.isdir(out2) else []
    ok = r.returncode == 0 and names == ["a.pgm", "b.pgm"]
    if ok:
        ok = np.array_equal(np.asarray(Image.open(os.path.join(out2, "b.pgm"))), rgb8) and \
            np.array_equal(written(os.path.join(out2, "a.pgm"))[0].astype(np.uint16), gray16)
    print(("ok - " if ok else "FAIL - ") + f"roundtrip --ext pgm -O: {names} {r.stderr!r}")
    return failed + (not ok)


def bad_files(tmp):
    """name -> (path, text the message must hold)"""
    out = {}

    def put(name, data, text):
        path = os.path.join(tmp, name.replace(" ", "_") + ".pgm")
        with open(path, "wb") as f:
            f.write(data)
        out[name] = (path, text)

    good = netpbm(samples((16, 16), 255), 255, comment=False)
    put("truncated raster", good[:-5], "truncated Netpbm data")
    put("maxval 0", b"P5\n4 4\n0\n" + bytes(16), "maxval 0")
    put("maxval 65536", b"P5\n4 4\n65536\n" + bytes(32), "maxval above 65535")
    put("side of 2^24", b"P5\n16777216 1\n255\n" + bytes(64), "below 2^24")
    put("past --max-pixels", b"P5\n100000 100000\n255\n" + bytes(64), "--max-pixels")
    put("1 Gpixel declared in a small file", b"P6\n32000 32000\n255\n" + bytes(64),
        "truncated Netpbm data")
    put("garbage width", b"P5\n4x 4\n255\n" + bytes(16), "width is not a number")
    put("negative height", b"P2\n4 -4\n255\n" + b"0 " * 16, "height is not a number")
    put("plain sample above maxval", b"P2\n2 2\n10\n1 2 11 3\n", "sample 11 above maxval 10")
    put("raw sample above maxval", b"P5\n2 1\n100\n\x05\xc8", "sample 200 above maxval 100")
    put("plain data ends early", b"P3\n2 2\n255\n1 2 3 4 5 6\n", "truncated Netpbm data")
    put("no raster", b"P6\n2 2\n255", "truncated Netpbm data")
    put("header only", b"P5\n", "truncated Netpbm data")
    put("zero width", b"P5\n0 4\n255\n", "0x4 pixels")
    return out


def check_refusals(tmp):
    failed = 0
    for name, (path, text) in bad_files(tmp).items():
        failed += check_refused(run, name, path, text, tmp)
    # images Netpbm cannot hold: refused before any output exists
    unheld = {"5 channels": (samples((6, 5, 5), 255).astype(np.uint8),
                             "Netpbm holds 1 to 3 channels, not 5"),
              "float32": (rng.standard_normal((6, 5)).astype(np.float32),
                          "Netpbm holds 8/16-bit unsigned samples, not float32 (--depth 8 or 16 "
                          "converts; .tif and .npy hold it)")}
    for name, (a, text) in unheld.items():
        src, out = os.path.join(tmp, "unheld.npy"), os.path.join(tmp, "unheld.pgm")
        np.save(src, a)
        r = run("roundtrip", "-q", "-o", out, src)
        ok = r.returncode == 1 and text in r.stderr and r.stderr.count("\n") == 1 and \
            not os.path.exists(out)
        print(("ok - " if ok else "FAIL - ") + f"writing {name} as .pgm refused: {r.stderr!r}")
        failed += not ok
    return failed


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        failed += check_good(tmp)
        failed += check_written(tmp)
        failed += check_commands(tmp)
        failed += check_refusals(tmp)
    print(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
