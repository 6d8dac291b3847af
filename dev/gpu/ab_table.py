#!/usr/bin/env python3
"""Side-by-side table of dev/gpu/gpu_ab.sh output: % of copy per case and
build, averaged over rounds.  Usage: dev/gpu/ab_table.py ab.txt"""
import collections, re, sys

builds, pct = [], collections.defaultdict(lambda: collections.defaultdict(list))
build = None
for line in open(sys.argv[1]):
    m = re.search(r"== round \d+: (\w+)", line)
    if m:
        build = m.group(1)
        if build not in builds:
            builds.append(build)
        continue
    f = line.split()
    if build and len(f) == 11 and f[-1].endswith("%"):
        key = " ".join(f[0:4] + [f[4] if f[5] == "1" else f"{f[5]}x{f[4]}"])
        pct[key][build].append(float(f[-1][:-1]))
print(f"{'case':58s}" + "".join(f"{b:>10s}" for b in builds))
for key, by in pct.items():
    row = [sum(v) / len(v) for v in (by.get(b, [float('nan')]) for b in builds)]
    print(f"{key:58s}" + "".join(f"{x:9.1f}%" for x in row))
