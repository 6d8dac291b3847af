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
    python3 dev/gpu/sass_summary.py ${OUT:-/tmp}/src_$tag.csv
done
