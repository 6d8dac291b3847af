#!/bin/sh
# Bounded fuzz runs: run.sh BUILD_DIR [SECONDS]. Seeds come from the corpus
# (and .npz files written by the tests); crashes land in tests/fuzz/crashes/
# and make the run fail. Prints executions per harness.
set -eu
build=$1
secs=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/image" "$work/npz" "$work/cli" "$work/tiff" "$work/npy" "$here/crashes"
find "$corpus" -type f \( -name '*.png' -o -name '*.jpg' -o -name '*.pgm' -o -name '*.ppm' \) -size -200k -exec cp {} "$work/image/" \; 2>/dev/null || true
cp "$here"/seeds/*.pgm "$here"/seeds/*.ppm "$work/image/" 2>/dev/null || true
cp "$here"/seeds/*.npz "$work/npz/" 2>/dev/null || true
find "$corpus" -type f -name '*.tif' -size -200k -exec cp {} "$work/tiff/" \; 2>/dev/null || true
# hostile TIFFs of tests/cli/hostile_tiff.py: strips none/LZW/deflate, JPEG
# strips (whole and short), missing plane and tile offsets, pages that differ
cp "$here"/seeds/*.tif "$work/tiff/" 2>/dev/null || true
cp "$here"/seeds/*.npy "$work/npy/" 2>/dev/null || true
# fuzz_cli seeds: 4 bytes (command, option count, input name, output name),
# option picks, then the file (fuzz_cli.c): small images, the .npz and .npy
# seeds, small TIFFs
i=0
for f in $(find "$corpus/good" "$corpus/tricky" -type f \( -name '*.png' -o -name '*.jpg' \) -size -8k | sort | head -40); do
    case $f in *.png) in=0 ;; *) in=1 ;; esac
    { printf "\\$(printf %03o $((i % 4)))\\002\\$(printf %03o $in)\\$(printf %03o $((i % 8)))\\007\\032"; cat "$f"; } >"$work/cli/img$i"
    i=$((i + 1))
done
for f in "$here"/seeds/*.npz; do
    { printf '\001\000\002\000'; cat "$f"; } >"$work/cli/$(basename "$f")"
done
# TIFF (input 4, decompose to out.tif) and .npy (input 5, roundtrip to out.npy)
for f in $(find "$corpus/good" "$corpus/tricky" -type f -name '*.tif' -size -8k | sort | head -10); do
    { printf '\000\000\004\010'; cat "$f"; } >"$work/cli/$(basename "$f")"
done
for f in "$here"/seeds/*.npy; do
    { printf '\002\000\005\011'; cat "$f"; } >"$work/cli/$(basename "$f")"
done
for f in "$here"/seeds/*.tif; do
    { printf '\002\000\004\000'; cat "$f"; } >"$work/cli/$(basename "$f")"
done
# with --volume (option 55): .npy seeds round-tripped (input 5, to out.npy),
# .npz seeds reconstructed (input 2, to out.npy)
for f in "$here"/seeds/*.npy; do
    { printf '\002\001\005\011\067'; cat "$f"; } >"$work/cli/volume_$(basename "$f")"
done
for f in "$here"/seeds/*.npz; do
    { printf '\001\001\002\011\067'; cat "$f"; } >"$work/cli/volume_$(basename "$f")"
done
# layer sidecars (input 6, in_layers.txt): reconstruct to out.png
for f in "$here"/seeds/layers_*.txt; do
    { printf '\001\000\006\000'; cat "$f"; } >"$work/cli/$(basename "$f")"
done
# UBSan findings stop the run and are saved like crashes (without this they
# were printed and the run went on: fuzz_cli's float->int32 cast of
# 2026-11-25 passed unnoticed)
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# One processor per fuzzing process: the CPU engine then runs each pass on
# the calling thread (it starts as many threads as the affinity mask allows),
# so runs pay no thread starts under ASan: fuzz_cli 340 -> 1,850 runs/s.
# FUZZ_WORKERS=N runs N processes per harness, each pinned to its own
# processor, on one shared corpus (long campaigns on a many-core machine);
# FUZZ_HARNESSES picks harnesses (default: all five).
workers=${FUZZ_WORKERS:-1}
first_cpu=
if command -v taskset >/dev/null; then
    first_cpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: *//; s/[-,].*//')
fi
fuzz_one() { # harness worker log
    pin=
    [ -n "$first_cpu" ] && pin="taskset -c $((first_cpu + $2))"
    mask=0
    [ "$1" = cli ] && mask=3 # the program's own messages
    $pin "$build/tests/fuzz/fuzz_$1" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        -close_fd_mask=$mask -artifact_prefix="$here/crashes/$1-" -print_final_stats=1 \
        "$work/$1" >"$3" 2>&1
}
status=0
for h in ${FUZZ_HARNESSES:-image npz cli tiff npy}; do
    pids=
    for i in $(seq 0 $((workers - 1))); do
        fuzz_one "$h" "$i" "$work/$h.$i.log" &
        pids="$pids $!"
    done
    runs=0
    i=0
    for pid in $pids; do
        log=$work/$h.$i.log
        if ! wait "$pid"; then
            status=1
            tail -40 "$log"
        fi
        n=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
        runs=$((runs + n))
        i=$((i + 1))
    done
    echo "fuzz_$h: $runs executions in ${secs}s ($workers process(es))"
done
exit $status
