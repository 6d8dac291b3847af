#!/bin/bash
# Source-level profile of one level kernel on the GPU machine: builds with
# line info (NVCC_APPEND_FLAGS=-lineinfo) into build-li, runs ncu's source
# counters on the level-1 kernel of "wavelet method mode dir" and prints the
# CUDA source lines with the most executed instructions and stall samples.
# Usage: cuda/prof_source.sh "db3 conv periodization forward" ...  (raw CSV in $OUT)
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
    ncu -i $rep.ncu-rep --page source --csv --print-source cuda > ${OUT:-/tmp}/src_$tag.csv 2>&1
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
ci, cs, cl, csrc = col("Instructions Executed"), col("Warp Stall Sampling (All"), col("#"), col("Source")
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
for d in sorted(data, key=lambda d: -d[0])[:28]:
    print(f"  {100*d[0]/ti:5.1f}% inst {100*d[1]/ts:5.1f}% stall  L{d[2]:>4} {d[3]}")
print("  -- by stalls")
for d in sorted(data, key=lambda d: -d[1])[:12]:
    print(f"  {100*d[0]/ti:5.1f}% inst {100*d[1]/ts:5.1f}% stall  L{d[2]:>4} {d[3]}")
PY
done
