#!/usr/bin/env python3
"""Deflated .npz coefficient files (decompose --compress, numpy.savez_compressed).

1. np.load of a --compress file equals the uncompressed file, member by member
   (DWT, SWT and starlet; odd, tiny sizes), and both reconstruct alike.
2. numpy.savez_compressed of pywt.wavedec2 coefficients (with wavetool's meta)
   reconstructs to the image.
3. Hostile deflated members (a deflate bomb, a truncated stream, a wrong CRC,
   sizes that lie): each one clean line naming the file, exit 1, no output.
Usage: npz_compress_check.py WAVETOOL [--write-corpus DIR] (DIR: writes the
hostile files there, for tests/corpus/bad/npz).  Exit 77 without numpy/pywt/PIL."""
import io
import os
import struct
import subprocess
import sys
import tempfile
import zlib

try:
    import numpy as np
    import pywt
    from PIL import Image
except ImportError:
    print("numpy, pywt or PIL missing: skipped")
    sys.exit(77)

WAVETOOL = sys.argv[1]
CASES = [  # transform args, height, width, channels
    (["-w", "db2", "-l", "3"], 37, 50, 3),
    (["-w", "haar", "-l", "1"], 1, 1, 1),
    (["-w", "legall53", "-l", "2"], 9, 5, 1),
    (["--transform", "swt", "-w", "sym3", "-l", "2"], 12, 20, 3),
    (["--transform", "starlet", "-l", "2"], 17, 13, 1),
]


def run(*args):
    return subprocess.run([WAVETOOL, *args], capture_output=True, text=True)


def save_png(path, h, w, channels, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 256, size=(h, w, channels) if channels > 1 else (h, w), dtype=np.uint8)
    Image.fromarray(x).save(path)
    return x


def check_equal_members(tmp, args, h, w, channels, seed):
    png = os.path.join(tmp, "in.png")
    save_png(png, h, w, channels, seed)
    plain, packed = os.path.join(tmp, "p.npz"), os.path.join(tmp, "z.npz")
    for extra, out in (([], plain), (["--compress"], packed)):
        r = run("decompose", *args, *extra, png, out)
        assert r.returncode == 0, r.stderr
    a, b = np.load(plain, allow_pickle=False), np.load(packed, allow_pickle=False)
    assert sorted(a.files) == sorted(b.files), (a.files, b.files)
    for k in a.files:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k
    with open(packed, "rb") as f:
        assert f.read(10)[8:10] == b"\x08\x00", "first member not deflated"
    outs = []
    for src in (plain, packed):
        out = src + ".png"
        r = run("reconstruct", src, out)
        assert r.returncode == 0, r.stderr
        outs.append(np.asarray(Image.open(out)))
    assert np.array_equal(outs[0], outs[1])


def check_savez_compressed(tmp):
    png = os.path.join(tmp, "in.png")
    x = save_png(png, 29, 41, 1, 7).astype(np.float64)
    ref = os.path.join(tmp, "ref.npz")
    r = run("decompose", "-w", "db2", "-l", "2", png, ref)
    assert r.returncode == 0, r.stderr
    meta = np.load(ref)["meta"]
    c = pywt.wavedec2(x, "db2", mode="symmetric", level=2)
    arrays = {"cA": c[0][None].astype(np.float32), "meta": meta}
    for i, (ch, cv, cd) in enumerate(c[1:]):
        level = 2 - i
        for name, band in (("cH", ch), ("cV", cv), ("cD", cd)):
            arrays[f"{name}{level}"] = band[None].astype(np.float32)
    npz = os.path.join(tmp, "pywt.npz")
    np.savez_compressed(npz, **arrays)
    out = os.path.join(tmp, "pywt.png")
    r = run("reconstruct", npz, out)
    assert r.returncode == 0, r.stderr
    back = np.asarray(Image.open(out)).astype(np.float64)
    assert np.abs(back - x).max() <= 1, np.abs(back - x).max()


# ---- hostile files: a small zip writer that can lie ----------------------------


def npy_bytes(array):
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def raw_deflate(data):
    z = zlib.compressobj(6, zlib.DEFLATED, -15)
    return z.compress(data) + z.flush()


def zip_file(members):
    """members: dicts name, data (as stored), method, crc, csize, usize."""
    out, central = bytearray(), bytearray()
    for m in members:
        name = m["name"].encode()
        local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, m["method"], 0, 0x21,
                            m["crc"], m["csize"], m["usize"], len(name), 0)
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 20, 0, m["method"],
                               0, 0x21, m["crc"], m["csize"], m["usize"], len(name), 0, 0,
                               0, 0, 0o100644 << 16, len(out)) + name
        out += local + name + m["data"]
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members),
                      len(central), len(out), 0)
    return bytes(out + central + end)


def member(name, content, method=8, **lies):
    data = raw_deflate(content) if method == 8 else content
    m = {"name": name, "data": data, "method": method, "crc": zlib.crc32(content),
         "csize": len(data), "usize": len(content)}
    m.update(lies)
    return m


def hostile_files():
    """name -> bytes; each a small 8x8 gray DWT file with one bad cA member."""
    meta_text = ('{"wavelet": "haar", "mode": "symmetric", "method": "conv", "levels": 1, '
                 '"width": 8, "height": 8, "channels": 1, "bit_depth": 8, "color": "gray"}')
    meta = member("meta.npy", npy_bytes(np.frombuffer(meta_text.encode(), np.uint8)))
    bands = [member(f"c{b}1.npy", npy_bytes(np.ones((1, 4, 4), np.float32))) for b in "HVD"]
    ca = npy_bytes(np.ones((1, 4, 4), np.float32))
    good = member("cA.npy", ca)
    bomb_content = ca + bytes(64 << 20)  # 64 MiB of zeros past the declared size
    files = {
        "deflate_bomb.npz": member("cA.npy", bomb_content, usize=len(ca),
                                   crc=zlib.crc32(ca)),
        "truncated_deflate.npz": dict(good, data=good["data"][:-6],
                                      csize=len(good["data"]) - 6),
        "bad_crc.npz": dict(good, crc=good["crc"] ^ 1),
        "size_claims_bomb.npz": dict(good, usize=0xFFFFFFF0),
        "size_short.npz": dict(good, usize=len(ca) + 64),
    }
    return {name: zip_file([bad, meta] + bands) for name, bad in files.items()} | {
        "good.npz": zip_file([good, meta] + bands)}


REASONS = {"deflate_bomb.npz": "inflates past", "truncated_deflate.npz": "truncated deflate",
           "bad_crc.npz": "CRC mismatch", "size_claims_bomb.npz": "more than deflate can give",
           "size_short.npz": "inflates short"}


def check_hostile(tmp):
    failures = 0
    for name, data in hostile_files().items():
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        out = os.path.join(tmp, "out.png")
        r = run("reconstruct", path, out)
        lines = r.stderr.strip().splitlines()
        if name == "good.npz":
            ok = r.returncode == 0 and os.path.exists(out)
            os.path.exists(out) and os.remove(out)
        else:
            ok = r.returncode == 1 and len(lines) == 1 and name in lines[0] \
                and REASONS[name] in lines[0] and not os.path.exists(out)
        print(f"{'ok' if ok else 'FAIL'} {name}: exit {r.returncode}: {r.stderr.strip()}")
        failures += not ok
    return failures


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--write-corpus":
        for name, data in hostile_files().items():
            if name != "good.npz" and name != "size_short.npz":
                with open(os.path.join(sys.argv[3], name), "wb") as f:
                    f.write(data)
        return 0
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed, case in enumerate(CASES):
            try:
                check_equal_members(tmp, *case, seed)
                print(f"ok --compress equals plain: {case}")
            except Exception as e:  # report every case, then fail
                failures += 1
                print(f"FAIL --compress {case}: {e!r}")
        try:
            check_savez_compressed(tmp)
            print("ok numpy.savez_compressed of pywt.wavedec2 reconstructs")
        except Exception as e:
            failures += 1
            print(f"FAIL savez_compressed: {e!r}")
        failures += check_hostile(tmp)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
