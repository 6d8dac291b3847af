#!/usr/bin/env python3
"""Writes the corpus's Netpbm files (tricky/netpbm, bad/netpbm) and prints their
MANIFEST.tsv rows. Run from tests/corpus: /usr/bin/python3 gen-inputs/make_netpbm.py
Needs numpy; the files are deterministic (fixed seed)."""
import numpy as np

from manifest import Manifest

rng = np.random.default_rng(2027)
MANIFEST = Manifest("make_netpbm.py")
save = MANIFEST.save
DECODE = "decode"
REFUSE = "clean error (exit 1, one line naming the file)"


def header(magic, w, h, maxval, sep=b"\n"):
    return magic + sep + b"%d %d" % (w, h) + sep + b"%d" % maxval + b"\n"


def raw(a, maxval):
    return a.astype(">u2" if maxval > 255 else "u1").tobytes()


def plain(a, sep=b" "):
    return sep.join(b"%d" % v for v in a.ravel()) + b"\n"


def samples(shape, maxval):
    return rng.integers(0, maxval + 1, shape)


# ---- tricky: valid files that decode -----------------------------------------
g = samples((9, 7), 255)
save("tricky/netpbm/p2_comments_everywhere.pgm",
     b"P2 # gray\n# a comment line\n7\t# width\n9 # height\n255\n# raster\n" + plain(g, b"\n"),
     DECODE, "P2 with comments after every header token and tabs between them")
save("tricky/netpbm/p5_maxval_1000_16bit.pgm",
     header(b"P5", 11, 6, 1000) + raw(samples((6, 11), 1000), 1000),
     DECODE, "maxval 1000: two bytes a sample, scaled to 16 bits as pamdepth")
save("tricky/netpbm/p6_maxval_31.ppm",
     header(b"P6", 5, 4, 31) + raw(samples((4, 5, 3), 31), 31),
     DECODE, "5-bit RGB (maxval 31), scaled to 8 bits")
save("tricky/netpbm/p3_crlf_16bit.ppm",
     header(b"P3", 3, 2, 65535, b"\r\n") + plain(samples((2, 3, 3), 65535), b"\r\n"),
     DECODE, "plain 16-bit RGB with CRLF line ends")
save("tricky/netpbm/p5_maxval_1_1x1.pgm", header(b"P5", 1, 1, 1) + b"\x01",
     DECODE, "1x1 bilevel gray (maxval 1)")
save("tricky/netpbm/p6_trailing_bytes.ppm",
     header(b"P6", 4, 4, 255) + raw(samples((4, 4, 3), 255), 255) + b"P6\n1 1\n255\nabc",
     DECODE, "a second image after the first (a multi-image stream): the first is read")

# ---- bad: refused with one line --------------------------------------------------
g16 = raw(samples((8, 8), 65535), 65535)
save("bad/netpbm/truncated_raster.pgm", header(b"P5", 8, 8, 65535) + g16[:-3],
     REFUSE, "16-bit raster 3 bytes short")
save("bad/netpbm/maxval_0.pgm", header(b"P5", 4, 4, 0) + bytes(16),
     REFUSE, "maxval 0")
save("bad/netpbm/maxval_65536.ppm", header(b"P6", 2, 2, 65536) + bytes(24),
     REFUSE, "maxval 65536: above netpbm's 16 bits")
save("bad/netpbm/maxval_20_digits.pgm", b"P5\n4 4\n99999999999999999999\n" + bytes(16),
     REFUSE, "maxval of 20 digits: no integer overflow")
save("bad/netpbm/dims_100000x100000.pgm", header(b"P5", 100000, 100000, 255) + bytes(100),
     REFUSE, "declares 10 Gpixels in a tiny file: refused by --max-pixels")
save("bad/netpbm/width_2pow24.ppm", header(b"P6", 1 << 24, 1, 255) + bytes(100),
     REFUSE, "width exactly 2^24: wavetool reads below 2^24")
save("bad/netpbm/dims_30000x30000_tiny.ppm", header(b"P6", 30000, 30000, 255) + bytes(100),
     REFUSE, "900 Mpixels under --max-pixels, 100 bytes of data: refused before allocation")
save("bad/netpbm/negative_width.pgm", b"P2\n-4 4\n255\n" + plain(samples((4, 4), 255)),
     REFUSE, "negative width")
save("bad/netpbm/garbage_header.pgm", b"P5\n4 four\n255\n" + bytes(16),
     REFUSE, "height is a word")
save("bad/netpbm/binary_in_header.ppm", b"P6\n4\x00 4\n255\n" + bytes(48),
     REFUSE, "a NUL byte inside the header")
save("bad/netpbm/p3_value_above_maxval.ppm", b"P3\n2 1\n100\n1 2 3 4 101 6\n",
     REFUSE, "plain sample 101 above maxval 100")
save("bad/netpbm/p5_value_above_maxval.pgm", header(b"P5", 2, 2, 200) + bytes([0, 1, 201, 3]),
     REFUSE, "raw sample 201 above maxval 200")
save("bad/netpbm/p2_ends_early.pgm", b"P2\n3 3\n255\n1 2 3 4 5\n",
     REFUSE, "plain raster of 5 of 9 samples")
save("bad/netpbm/header_only.ppm", b"P6\n", REFUSE, "magic number, nothing else")
save("bad/netpbm/no_space_after_maxval.pgm", b"P5\n2 2\n255", REFUSE,
     "raw header ends at maxval: no raster")
save("bad/netpbm/zero_height.pgm", header(b"P5", 4, 0, 255), REFUSE, "height 0")

if __name__ == "__main__":
    MANIFEST.print_rows()
