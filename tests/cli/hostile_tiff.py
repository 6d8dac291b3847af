#!/usr/bin/env python3
"""Hostile TIFF files for tests/cli/reliability.sh (issue 32), written with
struct alone (classic little-endian TIFF, one directory):

  hostile_tiff.py jpeg-strip OUT JPG W H   a W x H gray page of one strip whose
                                           data is the JPEG file JPG (Compression 7)
  hostile_tiff.py planes OUT COUNT         an 8x8 planar RGB page (3 strips of 64
                                           bytes) with COUNT StripOffsets
  hostile_tiff.py tiles OUT COUNT          a 32x32 gray page of 16x16 tiles (4)
                                           with COUNT TileOffsets
  hostile_tiff.py strips OUT COMPRESSION   a 16x16 gray page of 4-row strips,
                                           COMPRESSION none|lzw|deflate (a seed)
  hostile_tiff.py const OUT W H KIND BITS VALUE
                                           a W x H gray page of VALUE everywhere, SampleFormat
                                           KIND u|i|f of BITS (1e38, inf, nan for floats)
  hostile_tiff.py pages OUT FIRST SECOND   two 8x8 gray pages differing only in
                                           photometric (0, 1) or SampleFormat (f1, f2)
"""
import struct
import sys
import zlib

SHORT, LONG = 3, 4
WIDTH, LENGTH, BITS, COMPRESSION, PHOTOMETRIC = 256, 257, 258, 259, 262
STRIP_OFFSETS, SPP, ROWS_PER_STRIP, STRIP_COUNTS, PLANAR = 273, 277, 278, 279, 284
TILE_WIDTH, TILE_LENGTH, TILE_OFFSETS, TILE_COUNTS = 322, 323, 324, 325


def ifd(data, tags, blobs):
    """Appends blobs and a directory of tags to data; returns the directory's offset.
    tags: {tag: (type, [values])}; values 'blob:i' are the offset of blobs[i]."""
    where = []
    for blob in blobs:
        where.append(len(data))
        data += blob + (b"\0" if len(blob) % 2 else b"")
    extra = bytearray()
    entries = []
    at = len(data)
    after = at + 2 + 12 * len(tags) + 4
    for tag in sorted(tags):
        kind, values = tags[tag]
        values = [where[int(v[5:])] if isinstance(v, str) else v for v in values]
        packed = struct.pack("<%d%s" % (len(values), "H" if kind == SHORT else "I"), *values)
        if len(packed) <= 4:
            field = packed.ljust(4, b"\0")
        else:
            field = struct.pack("<I", after + len(extra))
            extra += packed
        entries.append(struct.pack("<HHI", tag, kind, len(values)) + field)
    data += struct.pack("<H", len(tags)) + b"".join(entries) + b"\0\0\0\0" + extra
    return at


def tiff(path, *pages):
    """pages: (tags, blobs) each, one directory a page, chained in order."""
    data = bytearray(b"II*\0\0\0\0\0")
    link = 4
    for tags, blobs in pages:
        at = ifd(data, tags, blobs)
        struct.pack_into("<I", data, link, at)
        link = at + 2 + 12 * len(tags)
    with open(path, "wb") as f:
        f.write(data)


def gray(w, h, bits=8):
    return {WIDTH: (LONG, [w]), LENGTH: (LONG, [h]), BITS: (SHORT, [bits]),
            PHOTOMETRIC: (SHORT, [1]), SPP: (SHORT, [1])}


def jpeg_strip(path, jpg, w, h):
    with open(jpg, "rb") as f:
        stream = f.read()
    tags = gray(int(w), int(h))
    tags.update({COMPRESSION: (SHORT, [7]), ROWS_PER_STRIP: (LONG, [int(h)]),
                 STRIP_OFFSETS: (LONG, ["blob:0"]), STRIP_COUNTS: (LONG, [len(stream)])})
    tiff(path, (tags, [stream]))


def planes(path, count):
    blobs = [bytes([64 * p + i for i in range(64)]) for p in range(3)]
    tags = {WIDTH: (LONG, [8]), LENGTH: (LONG, [8]), BITS: (SHORT, [8, 8, 8]),
            PHOTOMETRIC: (SHORT, [2]), SPP: (SHORT, [3]), PLANAR: (SHORT, [2]),
            ROWS_PER_STRIP: (LONG, [8]), COMPRESSION: (SHORT, [1]),
            STRIP_OFFSETS: (LONG, ["blob:%d" % p for p in range(int(count))]),
            STRIP_COUNTS: (LONG, [64] * 3)}
    tiff(path, (tags, blobs))


def tiles(path, count):
    blobs = [bytes([(t * 40 + i) % 256 for i in range(256)]) for t in range(4)]
    tags = gray(32, 32)
    tags.update({COMPRESSION: (SHORT, [1]), TILE_WIDTH: (LONG, [16]), TILE_LENGTH: (LONG, [16]),
                 TILE_OFFSETS: (LONG, ["blob:%d" % t for t in range(int(count))]),
                 TILE_COUNTS: (LONG, [256] * 4)})
    tiff(path, (tags, blobs))


def lzw(data):
    """TIFF's LZW: MSB-first codes from 9 bits, Clear first, EOI last, the code
    width growing one code early (as libtiff writes it)."""
    bits, nbits = 0, 0
    out = bytearray()
    width, table, w = 9, {bytes([i]): i for i in range(256)}, b""

    def emit(code):
        nonlocal bits, nbits
        bits, nbits = (bits << width) | code, nbits + width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)

    emit(256)
    for c in data:
        if w + bytes([c]) in table:
            w += bytes([c])
            continue
        emit(table[w])
        table[w + bytes([c])] = len(table) + 2
        if len(table) + 2 == (1 << width) - 1 and width < 12:
            width += 1
        w = bytes([c])
    emit(table[w])
    emit(257)
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


def strips(path, compression):
    rows = [bytes([(y * 16 + x) % 256 for x in range(16)]) for y in range(16)]
    raw = [b"".join(rows[4 * s:4 * s + 4]) for s in range(4)]
    codec = {"none": (1, bytes), "lzw": (5, lzw), "deflate": (8, zlib.compress)}[compression]
    blobs = [codec[1](r) for r in raw]
    tags = gray(16, 16)
    tags.update({COMPRESSION: (SHORT, [codec[0]]),
                 ROWS_PER_STRIP: (LONG, [4]),
                 STRIP_OFFSETS: (LONG, ["blob:%d" % s for s in range(4)]),
                 STRIP_COUNTS: (LONG, [len(b) for b in blobs])})
    tiff(path, (tags, blobs))


def pages(path, first, second):
    """Two 8x8 gray pages of photometric (0 MinIsWhite, 1 MinIsBlack) or
    sample format (f1, f2: unsigned, signed) FIRST and SECOND."""
    def page(kind):
        tags = gray(8, 8)
        if kind.startswith("f"):
            tags[339] = (SHORT, [int(kind[1:])])  # SampleFormat
        else:
            tags[PHOTOMETRIC] = (SHORT, [int(kind)])
        tags.update({ROWS_PER_STRIP: (LONG, [8]), STRIP_OFFSETS: (LONG, ["blob:0"]),
                     STRIP_COUNTS: (LONG, [64])})
        return tags, [bytes(range(64))]
    tiff(path, page(first), page(second))


def const(path, w, h, kind, bits, value):
    """A W x H gray page of samples VALUE, SampleFormat KIND (u, i, f) of BITS."""
    w, h, bits = int(w), int(h), int(bits)
    code = {("u", 8): "B", ("u", 16): "H", ("u", 32): "I", ("i", 8): "b", ("i", 16): "h",
            ("i", 32): "i", ("f", 32): "f", ("f", 64): "d"}[(kind, bits)]
    number = float(value) if kind == "f" else int(value)
    tags = gray(w, h, bits)
    tags.update({339: (SHORT, [" uif".index(kind)]), ROWS_PER_STRIP: (LONG, [h]),
                 STRIP_OFFSETS: (LONG, ["blob:0"]), STRIP_COUNTS: (LONG, [w * h * bits // 8])})
    tiff(path, (tags, [struct.pack("<" + code, number) * (w * h)]))


def main(argv):
    commands = {"const": const, "jpeg-strip": jpeg_strip, "planes": planes, "tiles": tiles, "strips": strips,
                "pages": pages}
    if len(argv) < 3 or argv[1] not in commands:
        sys.exit(__doc__)
    commands[argv[1]](*argv[2:])


if __name__ == "__main__":
    main(sys.argv)
