#!/usr/bin/env python3
"""Every default a command's --help shows is what the command does.

For each command of `wavetool --help` and each option whose help says
"(default X)": when X is a value (a word, a number, or a formula of the
image's depth and dwt_max_level, e.g. "max(dwt_max_level - 3, 1)"), the
command runs on the same input without the option and with `--option X`;
the outputs (files and standard output) must be the same bytes. Defaults
that are descriptions ("the input's type") are listed as skipped.

Usage: help_defaults_check.py WAVETOOL. TAP on stdout; exit 77 without numpy.
"""
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP numpy missing")
    sys.exit(77)

WT = os.path.abspath(sys.argv[1])
WIDTH, HEIGHT, DEPTH = 256, 200, 8
# haar's dwt_max_level as pywt.dwt_max_level computes it (filter length 2)
DWT_MAX_LEVEL = int(math.floor(math.log2(min(WIDTH, HEIGHT) / (2 - 1))))

# One invocation per command: arguments after the command, the files it writes.
RUNS = {
    "decompose": (["a.npy", "out.png"], ["out.png"]),
    "reconstruct": (["c.npz", "out.png"], ["out.png"]),
    "roundtrip": (["a.npy", "-o", "out.png"], ["out.png"]),
    "compare": (["a.npy", "b.npy"], []),
    "denoise": (["a.npy", "out.png"], ["out.png"]),
    "sigma": (["a.npy"], []),
    "stats": (["a.npy"], []),
    "wavelets": ([], []),
}
# Options that apply only with another (both runs get it).
CONTEXT = {"border": ["--transform", "starlet"], "start-level": ["--transform", "swt"],
           "basis": ["--transform", "packet"], "cost": ["--transform", "packet"],
           "k": ["--transform", "starlet"]}
OPTION = re.compile(r"^  (?:-(\w), )?\s*--([\w-]+)(?: (\S+))?\s")
DEFAULT = "(default "


def default_in(block):
    """The default a help block shows: "(default X; more)" gives X, parentheses
    inside X kept ("max(dwt_max_level - 3, 1)"); None without one."""
    start = block.find(DEFAULT)
    if start < 0:
        return None
    depth, text = 0, ""
    for ch in block[start + len(DEFAULT):]:
        if depth == 0 and ch in ");,:":
            break
        depth += (ch == "(") - (ch == ")")
        text += ch
    return text.strip()


def options_with_defaults(command):
    """(long name, default text) of each option of COMMAND's --help."""
    text = subprocess.run([WT, command, "--help"], capture_output=True, text=True).stdout
    found, name, block = [], None, ""
    for line in text.splitlines() + ["  --end-of-options "]:
        m = OPTION.match(line)
        if m or not line.startswith("    "):
            if name and default_in(block) is not None:
                found.append((name, default_in(block)))
            name, block = (m.group(2), line) if m else (None, "")
        else:
            block += " " + line.strip()
    return found


def value_of(default):
    """The argument a default text stands for, or None for a description."""
    if re.fullmatch(r"[\w.]+", default) and default != "none":
        return default
    try:
        expr = default.replace("^", "**")
        v = eval(expr, {"__builtins__": {}, "max": max, "min": min},
                 {"dwt_max_level": DWT_MAX_LEVEL, "depth": DEPTH})
    except Exception:
        return None
    return str(int(v)) if float(v).is_integer() else str(v)


def run(command, extra, workdir):
    args, files = RUNS[command]
    for f in files:
        if os.path.exists(os.path.join(workdir, f)):
            os.remove(os.path.join(workdir, f))
    p = subprocess.run([WT, command] + extra + args, cwd=workdir, capture_output=True)
    outputs = [open(os.path.join(workdir, f), "rb").read() for f in files
               if os.path.exists(os.path.join(workdir, f))]
    return p.returncode, p.stdout, outputs, p.stderr.decode(errors="replace")


def main():
    work = tempfile.mkdtemp(prefix="wt-defaults.")
    rng = np.random.default_rng(7)
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    base = (x * 0.6 + y * 0.4)[..., None] + np.array([0, 30, 60])
    a = np.clip(base + rng.normal(0, 12, (HEIGHT, WIDTH, 3)), 0, 255).astype(np.uint8)
    b = np.clip(a.astype(int) + rng.integers(-3, 4, a.shape), 0, 255).astype(np.uint8)
    np.save(os.path.join(work, "a.npy"), a)
    np.save(os.path.join(work, "b.npy"), b)
    subprocess.run([WT, "decompose", "a.npy", "c.npz"], cwd=work, check=True)

    n = failed = 0
    lines = []
    for command in RUNS:
        for name, default in options_with_defaults(command):
            value = value_of(default)
            n += 1
            if value is None:
                lines.append(f"ok {n} - {command} --{name}: default '{default}' # SKIP a description")
                continue
            ctx = CONTEXT.get(name, [])
            plain = run(command, ctx, work)
            given = run(command, ctx + [f"--{name}", value], work)
            same = plain[0] == 0 and plain[:3] == given[:3]
            failed += not same
            lines.append(f"{'ok' if same else 'not ok'} {n} - {command}: without --{name} = "
                         f"--{name} {value} (help: default {default})")
            if not same:
                lines.append(f"# exit {plain[0]} vs {given[0]}; stdout same: {plain[1] == given[1]}; "
                             f"files same: {plain[2] == given[2]}; {given[3].strip()[:200]}")
    print(f"1..{n}")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
