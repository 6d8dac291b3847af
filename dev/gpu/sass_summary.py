#!/usr/bin/env python3
"""Summary of an ncu source page (ncu -i REP --page source --csv --print-source
sass > CSV): total warp instructions and stall samples, both by opcode, and the
SASS instructions with the most stall samples. Used by prof_source.sh and
prof_volume.sh on the GPU machine."""
import csv, sys
rows = list(csv.reader(open(sys.argv[1], errors="replace")))
hdr = None
for i, r in enumerate(rows):
    if any("Instructions Executed" in c for c in r):
        hdr = i; break
if hdr is None:
    print("".join(open(sys.argv[1], errors="replace").read()[:1500])); sys.exit()
h = rows[hdr]
def col(name):
    for j, c in enumerate(h):
        if c.startswith(name): return j
    return None
ci, cs, cl, csrc = col("Instructions Executed"), col("Warp Stall Sampling (All"), col("Address"), col("Source")
data = []
file = ""
for r in rows[hdr + 1:]:
    if len(r) < len(h): 
        continue
    try: ie = float(r[ci] or 0); st = float(r[cs] or 0) if cs is not None else 0
    except ValueError: continue
    data.append((ie, st, r[cl] if cl is not None else "?", r[csrc].strip()[:110]))
ti = sum(d[0] for d in data) or 1; ts = sum(d[1] for d in data) or 1
print(f"  total warp instructions {ti/1e6:.1f} M, stall samples {ts:.0f}")
ops = {}
for d in data:
    op = d[3].split()[0] if d[3] else "?"
    if op.startswith("@"):
        op = d[3].split()[1] if len(d[3].split()) > 1 else op
    op = op.split(".")[0]
    a = ops.setdefault(op, [0, 0]); a[0] += d[0]; a[1] += d[1]
print("  by opcode: " + ", ".join(f"{k} {100*v[0]/ti:.1f}%/{100*v[1]/ts:.1f}%"
                                  for k, v in sorted(ops.items(), key=lambda kv: -kv[1][0])[:18]))
print("  -- instructions with the most stall samples (address: inst% stall% sass)")
for d in sorted(data, key=lambda d: -d[1])[:25]:
    print(f"  {d[2]:>6} {100*d[0]/ti:5.2f}% {100*d[1]/ts:5.2f}%  {d[3]}")
