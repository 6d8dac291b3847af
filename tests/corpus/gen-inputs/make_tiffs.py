#!/usr/bin/env python3
"""Writes the corpus's TIFF files (tricky/tiff, bad/tiff) and prints their
MANIFEST.tsv rows. Run from tests/corpus: /usr/bin/python3 gen-inputs/make_tiffs.py
Needs numpy and tifffile; the files are deterministic (fixed seed)."""
import io
import struct

import numpy as np
import tifffile

from manifest import Manifest

rng = np.random.default_rng(2026)
MANIFEST = Manifest("make_tiffs.py")
save = MANIFEST.save


def tiff_bytes(array, **kw):
    buf = io.BytesIO()
    tifffile.imwrite(buf, array, **kw)
    return bytearray(buf.getvalue())


def tags(data):
    """{tag: (entry offset, type, count, value/offset)} of the first IFD (classic, little-endian)."""
    ifd = struct.unpack_from("<I", data, 4)[0]
    n = struct.unpack_from("<H", data, ifd)[0]
    out = {}
    for i in range(n):
        at = ifd + 2 + 12 * i
        tag, typ, count, value = struct.unpack_from("<HHII", data, at)
        out[tag] = (at, typ, count, value)
    return out, ifd, n


def set_value(data, tag, value):
    at, typ, count, _ = tags(data)[0][tag]
    if typ == 3 and count == 1:
        struct.pack_into("<HH", data, at + 8, value, 0)
    else:
        struct.pack_into("<I", data, at + 8, value)


DECODE = "decode"
ERROR = "clean error (exit 1, one line naming the file)"

# ---- tricky: layouts that must decode ------------------------------------------
g16 = rng.integers(0, 65536, (61, 47), dtype=np.uint16)
rgb8 = rng.integers(0, 256, (33, 40, 3), dtype=np.uint8)
save("tricky/tiff/gray16_tiles_deflate.tif", tiff_bytes(g16, tile=(16, 32), compression="zlib"),
     DECODE, "16-bit gray, 16x32 tiles over 61x47, deflate")
save("tricky/tiff/rgb8_planar_bigendian.tif",
     tiff_bytes(np.moveaxis(rgb8, -1, 0), planarconfig="separate", photometric="rgb", byteorder=">"),
     DECODE, "RGB planar (one plane per strip set), big-endian")
save("tricky/tiff/gray8_bigtiff_1row_strips.tif",
     tiff_bytes(rgb8[..., 0], bigtiff=True, rowsperstrip=1), DECODE, "BigTIFF, one row per strip")

# ---- bad: hostile files ---------------------------------------------------------
base = tiff_bytes(rng.integers(0, 256, (64, 64), dtype=np.uint8), compression="zlib",
                  rowsperstrip=16)
t, ifd, n = tags(base)
offsets_at = t[273][3]  # StripOffsets: 4 strips, array elsewhere
first_strip = struct.unpack_from("<I", base, offsets_at)[0]
save("bad/tiff/truncated_strip.tif", bytes(base[: first_strip + 10]), ERROR,
     "cut 10 bytes into the first strip (the IFD comes first in tifffile's layout)")

past = bytearray(base)
struct.pack_into("<I", past, offsets_at + 4, 0x7FFFFF00)
save("bad/tiff/strip_offset_past_end.tif", bytes(past), ERROR, "second strip at 2 GB in a small file")

counts = bytearray(base)
struct.pack_into("<I", counts, t[279][3], 0x7FFFFFFF)
save("bad/tiff/strip_bytecount_2GB.tif", bytes(counts), ERROR, "StripByteCounts of 2^31-1 (no allocation of it)")

broken = bytearray(base)
for i in range(first_strip + 2, first_strip + 40):
    broken[i] ^= 0x5A
save("bad/tiff/bad_deflate_data.tif", bytes(broken), ERROR, "deflate stream of the first strip corrupted")

tiled = tiff_bytes(rng.integers(0, 256, (64, 64), dtype=np.uint8), tile=(32, 32))
tt, _, _ = tags(tiled)
struct.pack_into("<I", tiled, tt[324][3] + 8, 0xFFFFFFF0)  # TileOffsets[2]
save("bad/tiff/tile_offset_past_end.tif", bytes(tiled), ERROR, "third tile's offset past the end")

huge = tiff_bytes(np.zeros((4, 4), dtype=np.uint16))
set_value(huge, 256, 100000)
set_value(huge, 257, 100000)
save("bad/tiff/dims_100000x100000_gray16.tif", bytes(huge), ERROR,
     "declares 100000x100000 16-bit (20 GB) in a tiny file: refused by --max-pixels")

wide = tiff_bytes(np.zeros((1, 4), dtype=np.uint8))
set_value(wide, 256, 1 << 24)
save("bad/tiff/width_2pow24.tif", bytes(wide), ERROR, "width exactly 2^24: wavetool reads below 2^24")

loop = bytearray(tiff_bytes(np.zeros((4, 4), dtype=np.uint8)))
_, ifd0, n0 = tags(loop)
struct.pack_into("<I", loop, ifd0 + 2 + 12 * n0, ifd0)  # next IFD = itself
save("bad/tiff/ifd_loop.tif", bytes(loop), "clean error, or decode of the first page",
     "first IFD's next-IFD offset points to itself")

save("bad/tiff/ifd_offset_past_end.tif", b"II*\x00" + struct.pack("<I", 0x10000000) + bytes(32),
     ERROR, "header whose first IFD is past the end")
save("bad/tiff/header_only.tif", b"MM\x00*\x00\x00\x00\x08", ERROR, "8-byte header, no IFD")
lzw = bytearray(base)
set_value(lzw, 259, 5)  # Compression: LZW, on deflate bytes
save("bad/tiff/lzw_of_deflate_bytes.tif", bytes(lzw), ERROR, "Compression says LZW, the strips are deflate")

bigtile = tiff_bytes(np.zeros((16, 16), dtype=np.uint16), tile=(16, 16))
set_value(bigtile, 322, 65536)  # TileWidth
set_value(bigtile, 323, 65536)  # TileLength
save("bad/tiff/tile_65536x65536_in_16x16.tif", bytes(bigtile), ERROR,
     "8 GB tiles declared for a 16x16 image (found by fuzz_tiff): refused before allocation")

# ---- sample types (issue 16): signed, 32-bit, float, extra samples ------------
EITHER = "float32 held: decompose succeeds (roundtrip within float32 precision, not inf)"
i16 = rng.integers(-32768, 32768, (45, 38), dtype=np.int16)
save("tricky/tiff/int16_tiles_bigendian.tif", tiff_bytes(i16, tile=(16, 16), byteorder=">"),
     DECODE, "signed 16-bit (SampleFormat 2), 16x16 tiles over 45x38, big-endian")
save("tricky/tiff/int8_planar_rgb.tif",
     tiff_bytes(rng.integers(-128, 128, (3, 21, 17), dtype=np.int8), planarconfig="separate",
                photometric="rgb"), DECODE, "signed 8-bit RGB, planar")
save("tricky/tiff/uint32_deflate.tif",
     tiff_bytes(rng.integers(0, 1 << 20, (23, 29), dtype=np.uint32), compression="zlib"),
     DECODE, "32-bit unsigned below 2^20 (exact through float32), deflate")
save("tricky/tiff/rgb8_3_extra_samples.tif",
     tiff_bytes(rng.integers(0, 256, (19, 22, 6), dtype=np.uint8), photometric="rgb",
                extrasamples=["unspecified"] * 3), DECODE, "RGB and 3 extra samples: 6 planes")
save("tricky/tiff/float32_tiles.tif",
     tiff_bytes(rng.standard_normal((40, 35)).astype(np.float32), tile=(16, 16), compression="zlib"),
     EITHER, "float32 (SampleFormat 3), 16x16 tiles, deflate")
save("tricky/tiff/float64_bigendian.tif",
     tiff_bytes(rng.standard_normal((17, 31)), byteorder=">"), EITHER,
     "float64, big-endian: read as float32")

float8 = tiff_bytes(rng.integers(-128, 128, (8, 8), dtype=np.int8))
set_value(float8, 339, 3)  # SampleFormat: IEEE float, of 8-bit samples
save("bad/tiff/float_8bit_samples.tif", bytes(float8), ERROR, "SampleFormat 3 (float) with 8 bits per sample")
int64 = tiff_bytes(rng.integers(-9, 9, (8, 8), dtype=np.int16))
set_value(int64, 258, 64)  # BitsPerSample: 64-bit signed integers declared
save("bad/tiff/int64_declared.tif", bytes(int64), ERROR, "BitsPerSample 64 with SampleFormat 2 (int64)")
complex_ = tiff_bytes(np.ones((8, 8), dtype=np.complex64))
save("bad/tiff/complex64.tif", bytes(complex_), ERROR, "complex float samples (SampleFormat 6)")
spp = tiff_bytes(rng.integers(0, 256, (8, 8), dtype=np.uint8))
set_value(spp, 277, 65535)  # SamplesPerPixel
save("bad/tiff/spp_65535.tif", bytes(spp), ERROR, "SamplesPerPixel 65535 declared on an 8x8 gray file")
spp100 = tiff_bytes(rng.integers(0, 256, (4, 4, 100), dtype=np.uint8), photometric="minisblack",
                    planarconfig="contig", extrasamples=[0] * 99)
save("bad/tiff/spp_100.tif", bytes(spp100), ERROR, "100 samples per pixel: more than the 64 channels read")

if __name__ == "__main__":
    MANIFEST.print_rows()
