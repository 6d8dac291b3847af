#!/usr/bin/env python3
"""Numeric property test (issue 32 item 11), Python's standard library alone:
random small TIFFs of float32/float64/int32/uint32/int16/uint16 samples with
NaN, +-inf and the types' extremes mixed in. Every command either refuses in
one line naming the file (exit 1) or exits 0 with finite numbers and strict
JSON; a result it accepts to write compares finite against its input.

  numeric_props.py WAVETOOL [CASES [SEED]]      TAP on standard output
"""
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_tiff  # noqa: E402

TYPES = {  # (SampleFormat, bits, struct code, extremes)
    "float32": (3, 32, "f", [float("nan"), float("inf"), -float("inf"), 3.4e38, -3.4e38, 1e38,
                             1.4e-45, 0.0]),
    "float64": (3, 64, "d", [float("nan"), float("inf"), -float("inf"), 1e300, -1e300, 1e-310,
                             3.5e38, 0.0]),
    "int32": (2, 32, "i", [-2**31, 2**31 - 1, 0]),
    "uint32": (1, 32, "I", [0, 2**32 - 1]),
    "int16": (2, 16, "h", [-2**15, 2**15 - 1]),
    "uint16": (1, 16, "H", [0, 65535]),
}
WAVELETS = ["haar", "db2", "legall53", "cdf97", "sym4"]


def write_case(path, rng):
    name = rng.choice(sorted(TYPES))
    fmt, bits, code, extremes = TYPES[name]
    w, h = rng.randint(1, 9), rng.randint(1, 9)
    special = rng.random() < 0.6
    values = []
    for _ in range(w * h):
        if special and rng.random() < 0.3:
            values.append(rng.choice(extremes))
        elif fmt == 3:
            values.append(rng.uniform(-1e4, 1e4))
        else:
            lo = 0 if fmt == 1 else -(1 << (bits - 1))
            values.append(rng.randint(lo, lo + (1 << bits) - 1))
    tags = hostile_tiff.gray(w, h, bits)
    tags.update({339: (hostile_tiff.SHORT, [fmt]), hostile_tiff.ROWS_PER_STRIP: (hostile_tiff.LONG, [h]),
                 hostile_tiff.STRIP_OFFSETS: (hostile_tiff.LONG, ["blob:0"]),
                 hostile_tiff.STRIP_COUNTS: (hostile_tiff.LONG, [w * h * bits // 8])})
    hostile_tiff.tiff(path, (tags, [struct.pack("<%d%s" % (w * h, code), *values)]))
    return "%s %dx%d%s" % (name, w, h, " with extremes" if special else "")


def reject_constant(text):
    raise ValueError("not JSON: " + text)


def finite_numbers(value):
    """Every number in a parsed JSON value is finite ("inf" strings allowed)."""
    if isinstance(value, dict):
        return all(finite_numbers(v) for v in value.values())
    if isinstance(value, list):
        return all(finite_numbers(v) for v in value)
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    return True


def verdict(argv, source):
    """None when the run kept the properties, else what broke them."""
    run = subprocess.run(argv, capture_output=True, text=True, errors="replace")
    lines = [l for l in run.stderr.splitlines() if l and " warning: " not in l]
    if run.returncode == 1:
        if len(lines) != 1 or not lines[0].startswith("wavetool: " + source):
            return "exit 1 without one line naming the file: %r" % run.stderr
        return None
    if run.returncode != 0:
        return "exit %d: %r" % (run.returncode, run.stderr)
    if "--format" in argv:
        for line in run.stdout.splitlines():
            try:
                if not finite_numbers(json.loads(line, parse_constant=reject_constant)):
                    return "a number not finite: " + line
            except ValueError as e:
                return "invalid JSON (%s): %s" % (e, line)
    return None


def main(argv):
    wt = os.path.abspath(argv[1])
    cases = int(argv[2]) if len(argv) > 2 else 40
    rng = random.Random(int(argv[3]) if len(argv) > 3 else 32)
    work = tempfile.mkdtemp()
    os.chdir(work)
    n = failed = 0
    for k in range(cases):
        src = "case%d.tif" % k
        what = write_case(src, rng)
        w = rng.choice(WAVELETS)
        back = "back%d.tif" % k
        runs = [
            [wt, "roundtrip", "-l", "2", "-w", w, "--format", "json", src],
            [wt, "roundtrip", "-q", "-l", "2", "-w", w, "--depth", "f32", "-o", back, src],
            [wt, "decompose", "-l", "2", "-w", w, src, "c%d.npz" % k],
            [wt, "stats", "-l", "2", "-w", w if w != "legall53" else "haar", "--format", "json", src],
            [wt, "sigma", "--format", "json", src],
        ]
        for argv_ in runs:
            problem = verdict(argv_, src)
            if argv_[1] == "roundtrip" and "-o" in argv_ and problem is None and os.path.exists(back):
                problem = verdict([wt, "compare", "--format", "json", src, back], src)
            n += 1
            name = "%s (%s): %s" % (" ".join(argv_[1:-1 if argv_[1] != "decompose" else -2]), what,
                                    "refused or finite")
            if problem:
                failed += 1
                print("not ok %d - %s\n#   %s" % (n, name, problem))
            else:
                print("ok %d - %s" % (n, name))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
