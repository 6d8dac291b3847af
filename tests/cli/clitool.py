#!/usr/bin/env python3
"""Helpers for the CLI tests: write PNGs (zlib + struct, no PIL), read the PNGs
wavetool writes, and check mosaics and .npz files against PyWavelets.

  clitool.py png OUT W H TYPE DEPTH PATTERN [SEED]
      TYPE gray|graya|rgb|rgba|palette, DEPTH 8|16 (palette: 8),
      PATTERN random|gradient|const:V|values:v,v,... (row-major, interleaved)
  clitool.py info PNG                      -> "W H CHANNELS DEPTH"
  clitool.py has-pywt                      exit 0 when numpy and pywt import
  clitool.py check-npz NPZ IMAGE WAVELET MODE LEVELS
      np.load(allow_pickle=False); bands equal pywt.wavedec2 (float tolerance);
      pywt.waverec2 gives the image back (rounded, cropped)
  clitool.py check-mosaic MOSAIC IMAGE WAVELET MODE LEVELS SCALE
      the mosaic's shape is pywt.coeffs_to_array's; its samples are the
      per-band display scaling of pywt's coefficients (within 1)
  clitool.py json-inf FILE                 every line is JSON; psnr is "inf"
"""
import json
import random
import struct
import sys
import zlib

COLOR_TYPES = {"gray": (0, 1), "graya": (4, 2), "rgb": (2, 3), "rgba": (6, 4), "palette": (3, 1)}


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def samples(w, h, channels, depth, pattern, seed):
    n = w * h * channels
    peak = (1 << depth) - 1
    if pattern == "random":
        rng = random.Random(seed)
        return [rng.randint(0, peak) for _ in range(n)]
    if pattern == "gradient":
        return [((i * 37 + (i // channels) * 11) % (peak + 1)) for i in range(n)]
    if pattern.startswith("const:"):
        return [int(pattern[6:])] * n
    if pattern.startswith("values:"):
        vals = [int(v) for v in pattern[7:].split(",")]
        assert len(vals) == n, f"need {n} values, got {len(vals)}"
        return vals
    raise SystemExit(f"unknown pattern {pattern}")


def write_png(path, w, h, kind, depth, pattern, seed=1):
    ctype, channels = COLOR_TYPES[kind]
    vals = samples(w, h, channels, depth, pattern, seed)
    out = [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, 0))]
    if kind == "palette":
        # 256 entries: index i is the colour (i, 255 - i, (7 * i) & 255)
        out.append(chunk(b"PLTE", bytes(v for i in range(256) for v in (i, 255 - i, (7 * i) & 255))))
    raw = bytearray()
    row = w * channels
    for y in range(h):
        raw.append(0)
        for v in vals[y * row:(y + 1) * row]:
            raw += struct.pack(">H", v) if depth == 16 else bytes([v])
    out += [chunk(b"IDAT", zlib.compress(bytes(raw))), chunk(b"IEND", b"")]
    with open(path, "wb") as f:
        f.write(b"".join(out))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def read_png(path):
    """Non-interlaced gray/graya/rgb/rgba/palette PNGs of 8 or 16 bits: (w, h, c, depth, rows)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, plte = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"PLTE":
            plte = body
        pos += 12 + n
    assert interlace == 0 and depth in (8, 16)
    channels = {0: 1, 4: 2, 2: 3, 6: 4, 3: 1}[ctype]
    bpp = channels * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[ftype]) & 255
        prev = line
        if depth == 16:
            vals = list(struct.unpack(f">{w * channels}H", bytes(line)))
        else:
            vals = list(line)
        if ctype == 3:
            vals = [plte[3 * v + k] for v in vals for k in range(3)]
        rows.append(vals)
    if ctype == 3:
        channels = 3
    return w, h, channels, depth, rows


def planes_of(path):
    import numpy as np
    w, h, c, depth, rows = read_png(path)
    a = np.array(rows, dtype=np.float64).reshape(h, w, c)
    return np.transpose(a, (2, 0, 1)), depth


def check_npz(npz, image, wavelet, mode, levels):
    import numpy as np
    import pywt
    z = np.load(npz, allow_pickle=False)
    x, depth = planes_of(image)
    meta = json.loads(bytes(z["meta"]).decode("utf-8"))
    levels = int(levels)
    assert meta["levels"] == levels, meta
    assert set(z.files) == {"cA", "meta"} | {f"c{b}{l}" for b in "HVD" for l in range(1, levels + 1)}, z.files
    for c in range(x.shape[0]):
        ref = pywt.wavedec2(x[c], wavelet, mode=mode, level=levels)
        got = [z["cA"][c]] + [(z[f"cH{l}"][c], z[f"cV{l}"][c], z[f"cD{l}"][c]) for l in range(levels, 0, -1)]
        scale = max(1.0, max(float(np.abs(ref[0]).max()), 1.0))
        assert got[0].shape == ref[0].shape, (got[0].shape, ref[0].shape)
        assert np.abs(got[0] - ref[0]).max() <= 1e-5 * scale
        for g, r in zip(got[1:], ref[1:]):
            for gb, rb in zip(g, r):
                assert gb.shape == rb.shape, (gb.shape, rb.shape)
                assert np.abs(gb - rb).max() <= 1e-5 * scale, np.abs(gb - rb).max()
        back = pywt.waverec2([a.astype(np.float64) if not isinstance(a, tuple) else tuple(b.astype(np.float64) for b in a) for a in got],
                             wavelet, mode=mode)[: x.shape[1], : x.shape[2]]
        assert np.array_equal(np.rint(back), x[c]), np.abs(back - x[c]).max()
    print("npz ok")


def display(band, is_approx, scale, peak):
    import numpy as np
    if is_approx:
        lo, hi = band.min(), band.max()
        return np.full(band.shape, peak / 2) if hi <= lo else (band - lo) * (peak / (hi - lo))
    m = np.abs(band).max()
    if scale == "offset":
        return np.full(band.shape, peak / 2) if m == 0 else peak / 2 + band * (peak / (2 * m))
    return np.zeros(band.shape) if m == 0 else np.abs(band) * (peak / m)


def check_mosaic(mosaic, image, wavelet, mode, levels, scale):
    import numpy as np
    import pywt
    x, _ = planes_of(image)
    got, depth = planes_of(mosaic)
    peak = (1 << depth) - 1
    levels = int(levels)
    per_channel = [pywt.wavedec2(x[c], wavelet, mode=mode, level=levels) for c in range(x.shape[0])]
    arr, _ = pywt.coeffs_to_array(per_channel[0])
    assert got.shape[1:] == arr.shape, (got.shape, arr.shape)
    # scale each band over all channels, then lay out as coeffs_to_array
    expect = []
    nbands = 1 + 3 * levels
    scaled = [[None] * nbands for _ in per_channel]
    for b in range(nbands):
        lvl, k = (0, None) if b == 0 else ((b - 1) // 3 + 1, (b - 1) % 3)
        bands = np.stack([co[0] if b == 0 else co[lvl][k] for co in per_channel])
        disp = display(bands, b == 0, scale, peak)
        for c in range(len(per_channel)):
            scaled[c][b] = disp[c]
    for c in range(len(per_channel)):
        coeffs = [scaled[c][0]] + [tuple(scaled[c][1 + 3 * (l - 1) + k] for k in range(3)) for l in range(1, levels + 1)]
        expect.append(pywt.coeffs_to_array(coeffs)[0])
    expect = np.clip(np.rint(np.stack(expect)), 0, peak)
    diff = np.abs(expect - got).max()
    assert diff <= 1, f"mosaic differs by {diff}"
    print("mosaic ok", got.shape)


def json_inf(path):
    n = 0
    for line in open(path):
        obj = json.loads(line)
        assert obj["psnr"] == "inf", obj
        assert all(v == "inf" for v in obj["psnr_channels"]), obj
        n += 1
    assert n > 0
    print("json ok", n)


def main(argv):
    cmd = argv[1]
    if cmd == "png":
        out, w, h, kind, depth, pattern = argv[2:8]
        seed = int(argv[8]) if len(argv) > 8 else 1
        write_png(out, int(w), int(h), kind, int(depth), pattern, seed)
    elif cmd == "info":
        w, h, c, depth, _ = read_png(argv[2])
        print(w, h, c, depth)
    elif cmd == "has-pywt":
        try:
            import numpy  # noqa: F401
            import pywt  # noqa: F401
        except ImportError:
            return 1
    elif cmd == "check-npz":
        check_npz(*argv[2:7])
    elif cmd == "check-mosaic":
        check_mosaic(*argv[2:8])
    elif cmd == "json-inf":
        json_inf(argv[2])
    else:
        raise SystemExit(f"unknown command {cmd}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
