#!/bin/bash
# Source-level profile of one level kernel on the GPU machine: builds with
# line info (NVCC_APPEND_FLAGS=-lineinfo) into build-li, runs ncu's source
# counters on the level-1 kernel of "wavelet method mode dir" and prints the
# SASS instructions with the most executions and stall samples, and the
# executed instructions by opcode.
# Usage: dev/gpu/prof_source.sh "db3 conv periodization forward" ...  (raw CSV in $OUT)
set -u
if [ ! -f build-li/build.ninja ]; then
    NVCC_APPEND_FLAGS=-lineinfo meson setup build-li -Dcuda=enabled --buildtype=release >/dev/null
fi
NVCC_APPEND_FLAGS=-lineinfo ninja -C build-li cli/wavetool >/dev/null || { echo "build failed"; exit 1; }
W=build-li/cli/wavetool
for spec in "$@"; do
    set -- $spec
    skip=0; [ "$4" = inverse ] && skip=5 # after the first forward (3) and levels 3, 2
    tag=${1}_${2}_${3}_${4}
    rep=/tmp/src_$tag
    timeout 150 ncu --set none --section SourceCounters --section WarpStateStats --import-source yes \
        --launch-skip $skip --launch-count 1 --kernel-name regex:dwt_ -f -o $rep \
        $W bench -w $1 --method $2 -m $3 -l 3 --$4 --repeat 1 > /dev/null 2>&1
    ncu -i $rep.ncu-rep --page source --csv --print-source sass > ${OUT:-/tmp}/src_$tag.csv 2>&1
    echo "== $spec"
    python3 - ${OUT:-/tmp}/src_$tag.csv <<'PY'
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
PY
done
