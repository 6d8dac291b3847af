#!/usr/bin/env python3
"""roundtrip's report when the input is read again instead of held.

A big input (cmd_roundtrip.c, REREAD_BYTES) is given up to the transform and
read again by rows for the comparison. Each case below runs with the input
held (the default for these small files) and read again
(WT_ROUNDTRIP_REREAD_BYTES=0): both reports (text, TSV, JSON), exit codes,
messages and -o outputs must be identical, and equal to the reports the
program gave before the reread existed (roundtrip_reread.expected). Inputs:
the sample images and TIFFs of them (8/16-bit and float32 strips, gray and
RGB), a tiled 16-bit TIFF, a float32 .npy, a 3-page TIFF stack and a
float32 (2, 30, 70) .npy read as a stack (--stack first). Then a
TIFF written to while it is transformed must fail in one line naming it.
Standard library only.

    roundtrip_reread.py WAVETOOL MAKE_BIG_TIFF SOURCE_ROOT [--write-expected FILE]
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

WT, MAKER = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DATA = os.path.join(os.path.abspath(sys.argv[3]), "data")
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "roundtrip_reread.expected")
OPTIONS = [
    [],
    ["-w", "db4", "-l", "3"],
    ["-w", "cdf97", "-m", "periodization", "--format", "tsv"],
    ["-w", "sym5", "--mse", "--format", "json"],
    ["-w", "bior2.2", "--data-range", "auto"],
    ["-w", "legall53", "--data-range", "100", "--psnr"],
]
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("ok - " if ok else "FAIL - ") + what + ("" if ok else f": {detail}"))
    failed += not ok


def run(args, reread, cwd):
    env = dict(os.environ)
    env.pop("WT_ROUNDTRIP_REREAD_BYTES", None)
    if reread:
        env["WT_ROUNDTRIP_REREAD_BYTES"] = "0"
    p = subprocess.run([WT] + args, capture_output=True, cwd=cwd, env=env)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def write_npy(path, descr, shape, fmt, values):
    """A .npy of version 1.0, C order, from the standard library."""
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}"
    header += " " * (118 - len(header)) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(b"".join(struct.pack(fmt, v) for v in values))


def make_inputs(work):
    """The inputs, as names relative to @p work (the reports show them)."""
    for name in ("camera.png", "astronaut.png", "coffee.jpg"):
        shutil.copy(os.path.join(DATA, name), work)
    made = [("camera.png", "cam8.tif", []), ("camera.png", "cam16.tif", ["--depth", "16"]),
            ("camera.png", "camf.tif", ["--depth", "f32"]),
            ("camera.png", "camf.npy", ["--depth", "f32"]),
            ("astronaut.png", "astro8.tif", []),
            ("astronaut.png", "astro16.tif", ["--depth", "16"]),
            ("astronaut.png", "astrof.tif", ["--depth", "f32"])]
    for src, out, extra in made:
        rc, _, err = run(["roundtrip", "-q", src, "-o", out] + extra, False, work)
        if rc != 0:
            raise SystemExit(f"FAIL - making {out}: {err}")
    subprocess.run([MAKER, os.path.join(work, "tiled.tif"), "333", "250", "64"], check=True,
                   stdout=subprocess.DEVNULL)
    # a 3-page stack: a (3, 40, 50) uint16 .npy through roundtrip --stack first
    write_npy(os.path.join(work, "s.npy"), "<u2", (3, 40, 50), "<H",
              [(k * 1000 + i * 37) % 65536 for k in range(3) for i in range(2000)])
    write_npy(os.path.join(work, "sf.npy"), "<f4", (2, 30, 70), "<f",
              [((k + 1) * i * 7919 % 1000) / 7.0 for k in range(2) for i in range(2100)])
    rc, _, err = run(["roundtrip", "-q", "--stack", "first", "s.npy", "-o", "stack.tif"],
                     False, work)
    if rc != 0:
        raise SystemExit(f"FAIL - making stack.tif: {err}")
    plain = ["camera.png", "astronaut.png", "coffee.jpg", "cam8.tif", "cam16.tif", "camf.tif",
             "camf.npy", "astro8.tif", "astro16.tif", "astrof.tif", "tiled.tif", "stack.tif"]
    return [[name] for name in plain] + [["--stack", "first", "sf.npy"]]


def case_text(args, result):
    rc, out, err = result
    return f"$ wavetool {' '.join(args)}\nexit {rc}\n{out}{err}"


def reports(work, inputs):
    """Every case's report held and read again, checked equal; the texts."""
    texts = []
    for named in inputs:
        for opts in OPTIONS:
            args = ["roundtrip", "--device", "cpu"] + opts + named
            held, reread = run(args, False, work), run(args, True, work)
            check(held == reread, f"{' '.join(args)}: read again = held", f"{held} vs {reread}")
            texts.append(case_text(args, held))
    return texts


def same_outputs(work):
    """-o of a float TIFF read again: the same file as held."""
    for reread, out in ((False, "held.tif"), (True, "again.tif")):
        run(["roundtrip", "-w", "db3", "camf.tif", "-o", out], reread, work)
    with open(os.path.join(work, "held.tif"), "rb") as a, \
            open(os.path.join(work, "again.tif"), "rb") as b:
        check(a.read() == b.read(), "-o: the same reconstruction read again")


def changed_while_running(work):
    """A TIFF written to (its times changed) while roundtrip runs: one line."""
    big = os.path.join(work, "big.tif")
    subprocess.run([MAKER, big, "1536", "1536"], check=True, stdout=subprocess.DEVNULL)
    stop = threading.Event()

    def touch():
        k = 0
        while not stop.is_set():
            k += 1
            os.utime(big, ns=(k * 1000, k * 1000))
            stop.wait(0.002)

    toucher = threading.Thread(target=touch)
    toucher.start()
    try:
        rc, out, err = run(["roundtrip", "-q", "-w", "db8", "-l", "4", "big.tif"], True, work)
    finally:
        stop.set()
        toucher.join()
    lines = err.strip().splitlines()
    check(rc != 0 and not out and len(lines) == 1 and "big.tif: changed since it was read"
          in lines[0], "a file changed between the reads fails in one line",
          f"exit {rc}, out {out!r}, err {err!r}")


def main():
    work = tempfile.mkdtemp(prefix="wt-reread-")
    try:
        inputs = make_inputs(work)
        texts = reports(work, inputs)
        if len(sys.argv) > 5 and sys.argv[4] == "--write-expected":
            with open(sys.argv[5], "w") as f:
                f.write("\n".join(texts))
            return 0
        with open(EXPECTED) as f:
            want = f.read().split("\n$ ")
        got = "\n".join(texts).split("\n$ ")
        check(len(want) == len(got), f"{len(got)} cases as expected", f"{len(want)} expected")
        for w, g in zip(want, got):
            check(w == g, "report as before: " + g.split("\n")[0].lstrip("$ "),
                  f"\nexpected {w!r}\ngot      {g!r}")
        same_outputs(work)
        changed_while_running(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
