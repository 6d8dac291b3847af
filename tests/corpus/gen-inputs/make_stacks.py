#!/usr/bin/env python3
"""Writes the corpus's bad multi-page TIFF stacks (bad/tiff/stack_*) and prints
their MANIFEST.tsv rows. Run from tests/corpus: /usr/bin/python3 gen-inputs/make_stacks.py
Needs numpy and tifffile; the files are deterministic (fixed seed)."""
import io
import struct

import numpy as np
import tifffile

from manifest import Manifest

rng = np.random.default_rng(2027)
MANIFEST = Manifest("make_stacks.py")
ERROR = "clean error (exit 1, one line naming the file)"


def save(path, data, note):
    MANIFEST.save(path, data, ERROR, note)


def pages_bytes(pages):
    """One TIFF with one page per array (classic, little-endian, uncompressed)."""
    buf = io.BytesIO()
    with tifffile.TiffWriter(buf) as w:
        for p in pages:
            w.write(p, contiguous=False)
    return bytearray(buf.getvalue())


def ifd_offsets(data):
    """Offsets of the IFDs in chain order."""
    out, at = [], struct.unpack_from("<I", data, 4)[0]
    while at and len(out) < 100:
        out.append(at)
        n = struct.unpack_from("<H", data, at)[0]
        at = struct.unpack_from("<I", data, at + 2 + 12 * n)[0]
    return out


def strip_end(data, ifd):
    """End of the first strip of the IFD at @p ifd (StripOffsets + StripByteCounts)."""
    n = struct.unpack_from("<H", data, ifd)[0]
    found = {}
    for i in range(n):
        tag, typ, count, value = struct.unpack_from("<HHII", data, ifd + 2 + 12 * i)
        found[tag] = value
    return found[273] + found[279]


def gray(h, w, dtype=np.uint8):
    return rng.integers(0, 256, (h, w)).astype(dtype)


save("bad/tiff/stack_page3_other_size.tif",
     bytes(pages_bytes([gray(16, 16)] * 3 + [gray(20, 16)] + [gray(16, 16)])),
     "5 pages of 16x16 gray, page 3 of 16x20: refused naming page 3")
save("bad/tiff/stack_page2_other_type.tif",
     bytes(pages_bytes([gray(16, 16), gray(16, 16), gray(16, 16, np.uint16)])),
     "pages 0-1 8-bit, page 2 16-bit: refused naming page 2")

cut = pages_bytes([gray(24, 24) for _ in range(5)])
last = ifd_offsets(cut)[-1]
save("bad/tiff/stack_truncated_page4.tif", bytes(cut[:strip_end(cut, last) - 100]),
     "5 pages; the file ends 100 bytes into page 4's strip: pages 0-3 decode, page 4 fails, "
     "no output")

loop = pages_bytes([gray(8, 8) for _ in range(5)])
ifds = ifd_offsets(loop)
n3 = struct.unpack_from("<H", loop, ifds[3])[0]
struct.pack_into("<I", loop, ifds[3] + 2 + 12 * n3, ifds[1])  # page 3's next IFD = page 1's
save("bad/tiff/stack_ifd_loop_page3.tif", bytes(loop),
     "5 pages; page 3's next-IFD offset points back to page 1: refused, no endless walk")

if __name__ == "__main__":
    MANIFEST.print_rows()
