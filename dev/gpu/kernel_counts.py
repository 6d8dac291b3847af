#!/usr/bin/env python3
"""Static counts of the kernels of one nvcc compile, for machines without
cuobjdump: per kernel whose name matches PATTERN, the registers and spills
(ptxas -v's log), the SASS instructions (the cubin's .text.<kernel> section
over 16 bytes: sm_70 and later encode one instruction in 128 bits) and the
PTX instructions by opcode (mov, fma, ld.shared, ...).

    nvcc ... -Xptxas -v -keep -keep-dir DIR FILE.cu 2> LOG
    dev/gpu/kernel_counts.py DIR/FILE.sm_90.cubin DIR/FILE.ptx LOG [PATTERN]
"""
import re, subprocess, sys
from collections import Counter

cubin, ptx, log = sys.argv[1:4]
pattern = re.compile(sys.argv[4] if len(sys.argv) > 4 else "vsweep")


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return dict(zip(names, out.stdout.split("\n")))


def sass_sizes():
    text = subprocess.run(["readelf", "-SW", cubin], capture_output=True, text=True).stdout
    sizes = {}
    for m in re.finditer(r"\]\s+\.text\.(\S+)\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+)", text):
        sizes[m.group(1)] = int(m.group(2), 16) // 16
    return sizes


def ptx_mix():
    mix, name = {}, None
    for line in open(ptx):
        m = re.match(r"\.visible \.entry (\S+)\(", line) or re.match(r"\.entry (\S+)\(", line)
        if m:
            name = m.group(1)
            mix[name] = Counter()
            continue
        if name is None:
            continue
        t = line.strip()
        if not t or t[0] in "/.{}(),$" or t.endswith(":"):
            continue
        op = t.split()[0]
        if op.startswith("@"):
            op = t.split()[1]
        mix[name][op.split(".")[0] + ("." + op.split(".")[1] if op.startswith(("ld", "st")) else "")] += 1
    return mix


def registers():
    regs, name = {}, None
    for line in open(log):
        m = re.search(r"Compiling entry function '(\S+)'|Function properties for (\S+)", line)
        if m:
            name = m.group(1) or m.group(2)
        m = re.search(r"(\d+) bytes spill stores", line)
        if m and name:
            regs.setdefault(name, {})["spill"] = int(m.group(1))
        m = re.search(r"Used (\d+) registers", line)  # after the entry's own properties
        if m and name:
            regs.setdefault(name, {})["regs"] = int(m.group(1))
    return regs


sizes, mix, regs = sass_sizes(), ptx_mix(), registers()
names = sorted(n for n in sizes if pattern.search(demangle([n])[n]))
readable = demangle(names)
print(f"{'kernel':44} {'regs':>4} {'spill':>5} {'SASS':>6} {'PTX':>6} {'mov':>5} {'fma':>5} {'ld.shared':>9}")
for n in sorted(names, key=lambda n: readable[n]):
    r = regs.get(n, {})
    c = mix.get(n, Counter())
    print(f"{readable[n][5:49]:44} {r.get('regs', 0):4} {r.get('spill', 0):5} {sizes[n]:6} "
          f"{sum(c.values()):6} {c['mov']:5} {c['fma']:5} {c['ld.shared']:9}")
