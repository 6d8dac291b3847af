#!/usr/bin/env python3
"""--format csv against --format tsv, for every command that writes tables.

Each CSV report must parse with Python's csv module (RFC 4180: fields with a
comma, quote or line break quoted, quotes doubled, rows ending in CRLF) into
the same header and values as the TSV report, with file names exact (TSV
escapes them). A stack's page column included. Usage: report_tables.py WAVETOOL
"""
import csv
import io
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import tifffile
    from PIL import Image
except ImportError as e:  # the references are test-only packages
    print(f"SKIP {e}")
    sys.exit(77)

WT = os.path.abspath(sys.argv[1])
failed = 0


def check(ok, what, detail=""):
    global failed
    print(("ok - " if ok else "FAIL - ") + what + ("" if ok else f": {detail}"))
    failed += not ok


def run(args):
    p = subprocess.run([WT] + args, capture_output=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL - wavetool {' '.join(args)}: exit {p.returncode}: {p.stderr!r}")
    return p.stdout.decode()


def tsv_unescape(field):
    return field.encode().decode("unicode_escape") if "\\" in field else field


def compare(args, names):
    """The TSV and CSV reports of @args: same table; @names: the file columns."""
    what = " ".join(args).replace("\n", "\\n")
    tsv = [line.split("\t") for line in run(args + ["--format", "tsv"]).splitlines()]
    raw = run(args + ["--format", "csv"])
    rows = list(csv.reader(io.StringIO(raw, newline=""), strict=True))
    ends_crlf = raw.endswith("\r\n") and raw.count("\r\n") == len(rows)
    check(ends_crlf, f"csv {what}: every row ends in CRLF", repr(raw[-40:]))
    same_shape = len(rows) == len(tsv) and all(len(r) == len(t) for r, t in zip(rows, tsv))
    check(same_shape, f"csv {what}: the TSV's rows and columns", f"{len(rows)} rows vs {len(tsv)}")
    if not same_shape:
        return rows
    header = tsv[0]
    name_cols = [i for i, h in enumerate(header) if h in names]
    same = rows[0] == header and all(
        (tsv_unescape(t[i]) if i in name_cols else t[i]) == r[i]
        for r, t in zip(rows[1:], tsv[1:]) for i in range(len(header)))
    check(same, f"csv {what}: the TSV's values, names exact", f"{rows[:3]} vs {tsv[:3]}")
    return rows


def main():
    tmp = tempfile.mkdtemp(prefix="report_tables.")
    os.chdir(tmp)
    rng = np.random.default_rng(1)
    img = rng.integers(0, 256, (21, 18, 3), dtype=np.uint8)
    plain, odd = "a.png", 'odd, "quoted"\nname.png'
    Image.fromarray(img).save(plain)
    Image.fromarray(255 - img).save(odd)
    tifffile.imwrite("stack.tif", rng.integers(0, 65536, (3, 16, 17), dtype=np.uint16),
                     photometric="minisblack")

    rows = compare(["roundtrip", "-l", "2", "--keep", "0.2", plain, odd], ["file"])
    check([r[0] for r in rows[1:]] == [plain, odd], "csv roundtrip: names as given", rows)
    compare(["compare", plain, odd], ["a", "b"])
    compare(["sigma", plain, odd, "stack.tif"], ["file"])
    rows = compare(["stats", "-l", "1", odd, "stack.tif"], ["file"])
    pages = sorted({r[-1] for r in rows[1:] if r[0] == "stack.tif"})
    check(pages == ["0", "1", "2"], "csv stats: a stack's pages in the page column", pages)
    compare(["wavelets"], [])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
