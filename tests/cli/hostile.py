#!/usr/bin/env python3
"""Hostile inputs for tests/cli/faults.sh (issue 18), made with zlib + struct
(numpy only for .npz):

  hostile.py wide OUT W H             a gray 8-bit PNG of W x H zeros (W or H > 1e6)
  hostile.py idat-tail OUT MIB        a 4x1 gray PNG whose IDAT stream goes on
                                      with MIB MiB of zeros after the image's data
  hostile.py palette-oob OUT          a 4x1 palette PNG (2 entries) using index 7
  hostile.py npz-meta OUT FIELD TEXT  a valid haar .npz whose meta FIELD is TEXT
                                      (\\n, \\r, \\x1b escapes are decoded)
  hostile.py npz-int32 OUT            legall53 int32 coefficients near the limits
  hostile.py json-lines FILE          every line parses as strict JSON (exit 1 if not)
"""
import json
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(path, w, h, color, idat, plte=b""):
    head = chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + head + (chunk(b"PLTE", plte) if plte else b""))
        for part in idat:
            f.write(chunk(b"IDAT", part))
        f.write(chunk(b"IEND", b""))


def wide(path, w, h):
    z = zlib.compressobj(9)
    row = b"\0" * (w + 1)
    data = b"".join(z.compress(row) for _ in range(h)) + z.flush()
    png(path, w, h, 0, [data])


def idat_tail(path, mib):
    # raw deflate blocks ended by full flushes can be repeated as they are;
    # the Adler-32 of zeros after the row: a stays, b grows by a per byte
    row = b"\0" + b"\x80" * 4
    def raw(data):
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        return z.compress(data) + z.flush(zlib.Z_FULL_FLUSH)
    block = raw(b"\0" * (1 << 20))
    a = zlib.adler32(row) & 0xFFFF
    b = ((zlib.adler32(row) >> 16) + a * (mib << 20)) % 65521
    data = b"\x78\x9c" + raw(row) + block * mib + b"\x03\x00" + struct.pack(">I", (b << 16) | a)
    png(path, 4, 1, 0, [data[i:i + (1 << 20)] for i in range(0, len(data), 1 << 20)])


def palette_oob(path):
    png(path, 4, 1, 3, [zlib.compress(b"\0\0\1\7\1")], plte=b"\0\0\0\xff\xff\xff")


def coeffs(wavelet, dtype, value):
    import numpy as np
    c = np.full((1, 2, 2), value, dtype=dtype)
    return {"cA": c, "cH1": c, "cV1": c, "cD1": c}


def npz(path, members, meta):
    import numpy as np
    members = dict(members)
    members["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **members)


def base_meta(wavelet):
    return {"wavelet": wavelet, "mode": "symmetric", "method": "lifting" if wavelet == "legall53" else "conv",
            "levels": 1, "width": 4, "height": 4, "channels": 1, "bit_depth": 8, "color": "gray",
            "wavetool": "0.1.0"}


def npz_meta(path, field, text):
    meta = base_meta("haar")
    meta[field] = text.encode().decode("unicode_escape")
    npz(path, coeffs("haar", "float32", 1.0), meta)


def npz_int32(path):
    import numpy as np
    meta = base_meta("legall53")
    m = {}
    for k, v in coeffs("legall53", "int32", 0).items():
        v = v.copy()
        v.flat[0::2] = 2**31 - 1
        v.flat[1::2] = -2**31
        m[k] = v
    npz(path, m, meta)


def json_lines(path):
    with open(path, "rb") as f:
        for line in f.read().split(b"\n"):
            if line:
                json.loads(line.decode("utf-8", errors="strict"))


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "wide":
        wide(args[0], int(args[1]), int(args[2]))
    elif cmd == "idat-tail":
        idat_tail(args[0], int(args[1]))
    elif cmd == "palette-oob":
        palette_oob(args[0])
    elif cmd == "npz-meta":
        npz_meta(args[0], args[1], args[2])
    elif cmd == "npz-int32":
        npz_int32(args[0])
    elif cmd == "json-lines":
        try:
            json_lines(args[0])
        except ValueError as e:
            print(e, file=sys.stderr)
            return 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
