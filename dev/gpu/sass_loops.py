#!/usr/bin/env python3
"""Static SASS of the kernels whose name matches PATTERN in a
`cuobjdump -sass` listing: instructions in all, by opcode, and each loop
(a branch back to a lower address: the span from its target to it) with
its instruction count and its FFMA / MOV / IMAD / LDS / LDGSTS share, and
its IMADs by kind (IMAD.MOV moves, IMAD.WIDE 64-bit addresses, ...).
The sweeps' plane loop is the largest loop of each kernel.

    cuobjdump -sass FILE.o > F.sass; dev/gpu/sass_loops.py F.sass 'vsweep_'
"""
import re, subprocess, sys
from collections import Counter

text = open(sys.argv[1], errors="replace").read()
pattern = re.compile(sys.argv[2] if len(sys.argv) > 2 else "vsweep_")
inst = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);")
target = re.compile(r"\b(0x[0-9a-f]+)\b")


def demangle(name):
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip()


def report(name, code):
    ops = Counter(op.split(".")[0] for _, op, _ in code)
    print(f"{demangle(name)}: {len(code)} instructions; " +
          ", ".join(f"{k} {v}" for k, v in ops.most_common(12)))
    index = {a: i for i, (a, _, _) in enumerate(code)}
    loops = []
    for i, (a, op, rest) in enumerate(code):
        m = target.search(rest) if op.startswith("BRA") else None
        if m and int(m.group(1), 16) < a and int(m.group(1), 16) in index:
            body = code[index[int(m.group(1), 16)]:i + 1]
            loops.append((len(body), int(m.group(1), 16), a, body))
    for n, lo, hi, body in sorted(loops, reverse=True)[:4]:
        c = Counter(op.split(".")[0] for _, op, _ in body)
        print(f"  loop {lo:#06x}-{hi:#06x}: {n} instructions; " +
              ", ".join(f"{k} {c[k]}" for k in ("FFMA", "MOV", "IMAD", "IADD3", "LEA", "ISETP",
                                                "LDS", "LDGSTS", "STG", "BRA", "BAR", "LDC")))
        print("    IMAD by kind: " + imad_kinds(body))


def imad_kinds(body):
    """The loop's IMADs by modifier: IMAD.MOV (a move on the FMA pipe),
    IMAD.WIDE (64-bit addresses), IMAD.IADD / IMAD.SHL (adds and shifts),
    plain IMAD (a multiply-add of indices)."""
    kinds = Counter(".".join(op.split(".")[:2]) for _, op, _ in body if op.startswith("IMAD"))
    return ", ".join(f"{k} {v}" for k, v in kinds.most_common())


name, code = None, []
for line in text.splitlines():
    m = re.search(r"Function : (\S+)", line)
    if m:
        if name and pattern.search(demangle(name)):
            report(name, code)
        name, code = m.group(1), []
        continue
    m = inst.search(line)
    if m and name:
        code.append((int(m.group(1), 16), m.group(3), m.group(4)))
if name and pattern.search(demangle(name)):
    report(name, code)
