#!/bin/bash
# Issue 6's batch benchmarks on a GPU machine, after the build:
#   bench/gpu_pipeline.sh BUILD_DIR OUT_DIR [quick]
# A folder of 200 photo-like 1920x1080 JPEGs (make-photos) through
# `bench --pipeline` with -j 16 and -j 1 (GPU) and -j 16 (CPU); one huge
# 16384x16384 RGB PNG and one 20000x20000 gray PNG through `roundtrip --psnr -o`
# with wall time and peak RSS, beside their decode+encode time. Logs in OUT_DIR.
set -u
B=$(cd "$1" && pwd)
OUT=$2
QUICK=${3:-}
W=$B/cli/wavetool
MP=$B/bench/make-photos
D=$(mktemp -d "${TMPDIR:-/tmp}/wtpipe.XXXXXX")
trap 'rm -rf "$D"' EXIT
mkdir -p "$OUT"
cores=$(nproc)
echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | paste -sd,)"

# peak RSS of a command (KB) without GNU time: poll VmHWM while it runs
peak_rss() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 &
    local pid=$! peak=0 v
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null)
        [ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
        sleep 0.05
    done
    wait "$pid"
    local rc=$?
    echo "peak_rss_kb=$peak rc=$rc" >>"$log"
}

count=200
[ "$QUICK" = quick ] && count=40
"$MP" -q -n $count -s 1920x1080 "$D/photos"
echo "== folder: $count x 1920x1080 JPEG, $(du -sh "$D/photos" | cut -f1)"
for dev_j in "cuda 16" "cuda 8" "cuda 1" "cpu $cores"; do
    set -- $dev_j
    echo "-- bench --pipeline --device $1 -j $2"
    "$W" bench --pipeline --device "$1" -j "$2" "$D/photos" | tee "$OUT/pipeline_$1_j$2.txt"
done
"$W" bench --pipeline --device cuda -j 16 --format json "$D/photos" >"$OUT/pipeline_cuda_j16.json"

huge() { # NAME SIZE MAKE-PHOTOS-OPTIONS...
    local name=$1 size=$2
    shift 2
    "$MP" -q -n 1 -s "$size" -f png "$@" --prefix "$name-" "$D/$name"
    local f=$D/$name/$name-0000.png
    echo "== $name: $size $(du -h "$f" | cut -f1)"
    "$W" bench --pipeline --device cuda -j 1 "$D/$name" | tee "$OUT/huge_$name.txt"
    local t0 t1
    t0=$(date +%s.%N)
    peak_rss "$OUT/huge_${name}_roundtrip.txt" "$W" roundtrip -v --psnr -o "$D/back.png" "$f"
    t1=$(date +%s.%N)
    echo "roundtrip --psnr -o: $(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}') s wall"
    cat "$OUT/huge_${name}_roundtrip.txt"
    rm -f "$D/back.png"
    rm -rf "${D:?}/$name"
}
if [ "$QUICK" != quick ]; then
    huge rgb16k 16384x16384
    huge gray20k 20000x20000 --gray
fi
