#!/usr/bin/env python3
"""TIFF files written by tifffile and Pillow, read by wavetool (src/tiff_io.c).

For every layout (depths, sample formats: unsigned, signed, float; channels
up to extra samples; strips/tiles, contiguous/planar, byte orders,
compressions, BigTIFF, palette, 1-bit, MinIsWhite): the coefficients of
`wavetool decompose f.tif f.npz` equal pywt.wavedec2 of the image as
tifffile/Pillow read it (1e-5 relative), `roundtrip -o out.tif` writes a TIFF
of the input's type that tifffile reads back bit-exact (integers up to 16
bits and small 32-bit ones) or within 1e-6 relative (float32, float64), and
refused layouts (CMYK, complex, 64-bit integers, float16, more than 64
samples) get one clear line and exit 1.
Usage: tiff_check.py WAVETOOL.  Exit 77 (skip) without numpy, pywt, tifffile or PIL."""
import os
import sys
import tempfile

from check_common import check_coefficients, check_refused, check_same_samples, \
    modules_or_skip, runner

np, pywt, tifffile, Image = modules_or_skip("numpy", "pywt", "tifffile", "PIL.Image")

from sample_arrays import generators  # noqa: E402 (after the skip)

run = runner(sys.argv[1])
rand, srand, frand = generators(16)


def writers():
    """name -> (write(path), the samples wavetool must see)."""
    g8, g16 = rand((37, 29), np.uint8), rand((23, 31), np.uint16)
    rgb8, rgba8 = rand((17, 19, 3), np.uint8), rand((16, 33, 4), np.uint8)
    rgb16, rgba16 = rand((20, 21, 3), np.uint16), rand((21, 18, 4), np.uint16)
    ga16, odd = rand((9, 13, 2), np.uint16), rand((1, 5), np.uint8)
    tf = tifffile.imwrite
    cases = {
        "gray8": (lambda p: tf(p, g8), g8),
        "gray16 big-endian": (lambda p: tf(p, g16, byteorder=">"), g16),
        "gray16 deflate+predictor, 5-row strips": (
            lambda p: tf(p, g16, compression="zlib", predictor=True, rowsperstrip=5), g16),
        "rgb8 16x16 tiles deflate": (lambda p: tf(p, rgb8, tile=(16, 16), compression="zlib"), rgb8),
        "rgb16 tiles big-endian": (lambda p: tf(p, rgb16, tile=(16, 16), byteorder=">"), rgb16),
        "rgba8 contiguous": (lambda p: tf(p, rgba8, photometric="rgb", extrasamples=["unassalpha"]), rgba8),
        "rgba16 planar": (lambda p: tf(p, np.moveaxis(rgba16, -1, 0), planarconfig="separate",
                                       photometric="rgb", extrasamples=["unassalpha"]), rgba16),
        "gray+alpha16": (lambda p: tf(p, ga16, photometric="minisblack", extrasamples=["unassalpha"]), ga16),
        "1x5 gray": (lambda p: tf(p, odd), odd),
        "BigTIFF": (lambda p: tf(p, g8, bigtiff=True), g8),
        "MinIsWhite": (lambda p: tf(p, 255 - g8, photometric="miniswhite"), g8),
    }
    for comp in ["tiff_lzw", "packbits", "tiff_adobe_deflate", "tiff_zstd"]:
        cases[f"Pillow rgb8 {comp}"] = (
            lambda p, c=comp: Image.fromarray(rgb8).save(p, compression=c), rgb8)
    cases["Pillow gray16"] = (lambda p: Image.fromarray(g16).save(p), g16)
    bw = (g8 > 127).astype(np.uint8) * 255
    cases["Pillow 1-bit"] = (lambda p: Image.fromarray(bw).convert("1").save(p), bw)
    pal = Image.fromarray(rgb8).convert("P")
    cases["Pillow palette"] = (lambda p: pal.save(p), np.asarray(pal.convert("RGB")))
    cases.update(typed_writers())
    return cases


def typed_writers():
    """Signed, 32-bit, float and extra-channel layouts."""
    tf = tifffile.imwrite
    i8, i16, i32 = srand((19, 23), np.int8), srand((23, 17), np.int16), srand((15, 21), np.int32, 20)
    u32, f32, f64 = rand((13, 27), np.uint32) >> 12, frand((29, 31), np.float32), frand((17, 9), np.float64)
    rgbf, six = frand((12, 14, 3), np.float32), rand((11, 13, 6), np.uint16)
    five, seven = frand((10, 9, 5), np.float32), srand((9, 12, 7), np.int16)
    pil_i, pil_f = srand((14, 15), np.int32, 20), frand((16, 13), np.float32)
    big, one = frand((733, 1021), np.float32), frand((1, 1), np.float32)
    return {
        "int8": (lambda p: tf(p, i8), i8),
        "int16 big-endian": (lambda p: tf(p, i16, byteorder=">"), i16),
        "int16 deflate+predictor, tiles": (
            lambda p: tf(p, i16, compression="zlib", predictor=True, tile=(16, 16)), i16),
        "int32": (lambda p: tf(p, i32), i32),
        "uint32 deflate": (lambda p: tf(p, u32, compression="zlib"), u32),
        "float32": (lambda p: tf(p, f32), f32),
        "float32 big-endian, 4-row strips": (lambda p: tf(p, f32, byteorder=">", rowsperstrip=4), f32),
        "float32 16x16 tiles deflate": (lambda p: tf(p, f32, tile=(16, 16), compression="zlib"), f32),
        "float64": (lambda p: tf(p, f64), f64),
        "float32 1021x733 deflate (large, odd)": (lambda p: tf(p, big, compression="zlib"), big),
        "float32 1x1": (lambda p: tf(p, one), one),
        "float32 RGB planar": (lambda p: tf(p, np.moveaxis(rgbf, -1, 0), planarconfig="separate",
                                            photometric="rgb"), rgbf),
        "uint16 RGB + 3 extra samples": (
            lambda p: tf(p, six, photometric="rgb", extrasamples=["unspecified"] * 3), six),
        "float32 gray + 4 extra samples": (
            lambda p: tf(p, five, photometric="minisblack", planarconfig="contig",
                         extrasamples=["unspecified"] * 4), five),
        "int16 7 samples planar": (
            lambda p: tf(p, np.moveaxis(seven, -1, 0), photometric="minisblack",
                         planarconfig="separate", extrasamples=["unspecified"] * 6), seven),
        "Pillow int32 (mode I)": (lambda p: Image.fromarray(pil_i).save(p), pil_i),
        "Pillow float32 (mode F)": (lambda p: Image.fromarray(pil_f).save(p), pil_f),
    }


def refused():
    tf = tifffile.imwrite
    return {
        "CMYK": (lambda p: tf(p, rand((8, 8, 4), np.uint8), photometric="separated"), "photometric"),
        "complex64": (lambda p: tf(p, np.ones((8, 8), np.complex64)), "complex"),
        "int64": (lambda p: tf(p, np.ones((8, 8), np.int64)), "64-bit signed"),
        "uint64": (lambda p: tf(p, np.ones((8, 8), np.uint64)), "64-bit unsigned"),
        "float16": (lambda p: tf(p, np.ones((8, 8), np.float16)), "16-bit floating-point"),
        "65 samples": (lambda p: tf(p, rand((8, 8, 65), np.uint8), photometric="minisblack",
                                    planarconfig="contig", extrasamples=[0] * 64), "65 samples"),
    }


def check_roundtrip(path, want, tmp):
    out = os.path.join(tmp, "back.tif")
    r = run("roundtrip", "-q", "-w", "db3", "-o", out, path)
    assert r.returncode == 0, r.stderr
    back = tifffile.imread(out)
    want = np.asarray(want)
    assert back.dtype == want.dtype, (back.dtype, want.dtype)
    check_same_samples(back, want)
    with tifffile.TiffFile(out) as t:
        assert t.pages[0].compression == 8, t.pages[0].compression  # deflate


def check_float_mosaic(tmp):
    """A float32 TIFF's mosaic: a 16-bit display as PNG; 0 or 1 failure."""
    path = os.path.join(tmp, "f32.tif")
    tifffile.imwrite(path, frand((30, 40), np.float32))
    r = run("decompose", "-l", "2", path, os.path.join(tmp, "m.png"))
    m = Image.open(os.path.join(tmp, "m.png")) if r.returncode == 0 else None
    if m is not None and m.mode.startswith("I") and m.getextrema()[1] > 255:
        print("ok - float32 mosaic as 16-bit PNG")
        return 0
    print(f"FAIL - float32 mosaic as 16-bit PNG: {r.stderr!r}")
    return 1


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (write, want) in writers().items():
            path = os.path.join(tmp, "in.tif")
            write(path)
            try:
                check_coefficients(run, path, want, tmp)
                check_roundtrip(path, want, tmp)
                print(f"ok - {name}")
            except AssertionError as e:
                failed += 1
                print(f"FAIL - {name}: {e}")
        for name, (write, reason) in refused().items():
            path = os.path.join(tmp, "bad.tif")
            write(path)
            failed += check_refused(run, name, path, reason, tmp)
        # the mosaic as a TIFF, 16-bit kept
        path = os.path.join(tmp, "g16.tif")
        tifffile.imwrite(path, rand((30, 40), np.uint16))
        r = run("decompose", "-l", "2", path, os.path.join(tmp, "m.tif"))
        m = tifffile.imread(os.path.join(tmp, "m.tif")) if r.returncode == 0 else None
        if m is not None and m.dtype == np.uint16 and m.ndim == 2:
            print("ok - 16-bit mosaic as TIFF")
        else:
            failed += 1
            print(f"FAIL - 16-bit mosaic as TIFF: {r.stderr!r}")
        failed += check_float_mosaic(tmp)
    print(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
