#!/bin/bash
# Every figure of docs/performance.md's "Start-up", "The auto engine" and
# "Folders" tables on a GPU machine, in one command, printing the tables:
#   bench/gpu_figures.sh BUILD_DIR [quick]
# 1. one-file commands under --device auto, cpu and cuda (median of 5 wall ms);
# 2. --device auto against the faster engine over folders of every size and
#    file count (bench/auto_device.sh), and a shell loop of 200 files;
# 3. folders of 200 photo-like 1920x1080 JPEGs: bench --pipeline (PNG and JPEG
#    mosaics, GPU and CPU engine, with --gpu-decode where the build has
#    nvJPEG) and denoise -O, in images per second.
# quick: fewer sizes and files (a smoke test of the script, not figures).
# RUNS: runs per folder figure (default 1: the big folders take minutes).
set -u
B=$(cd "$1" && pwd)
QUICK=${2:-}
W=$B/cli/wavetool
MP=$B/bench/make-photos
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(mktemp -d "${TMPDIR:-/tmp}/wtfig.XXXXXX")
trap 'rm -rf "$D"' EXIT
cores=$(nproc)
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "# $cores cores; GPU: ${gpu:-none}; $("$W" --version | head -1)"

wall_ms() { # command... -> wall milliseconds (the command's output dropped), or "failed"
    local t0
    t0=$(date +%s%N)
    if "$@" >/dev/null 2>&1; then
        echo $((($(date +%s%N) - t0) / 1000000))
    else
        echo failed
    fi
}
median5() { # command... -> "median ms" of 5 runs, or "failed"
    local r t=()
    for r in 1 2 3 4 5; do
        t+=("$(wall_ms "$@")")
        [ "${t[-1]}" = failed ] && { echo failed; return; }
    done
    echo "$(printf '%s\n' "${t[@]}" | sort -n | sed -n 3p) ms"
}

# ---- 1. start-up: one file, one process --------------------------------------
"$MP" -q -n 1 -s 512x512 -f png --prefix small- "$D/one"
"$MP" -q -n 1 -s 1920x1080 -f png --prefix hd- "$D/one"
small=$D/one/small-0000.png hd=$D/one/hd-0000.png
echo
echo "| what a user runs | --device cuda | --device cpu | --device auto |"
echo "| --- | --- | --- | --- |"
startup_row() { # label, command arguments...
    local label=$1 dev cells=()
    shift
    for dev in cuda cpu auto; do
        cells+=("$(median5 "$W" "$@" --device "$dev")")
    done
    echo "| $label | ${cells[0]} | ${cells[1]} | ${cells[2]} |"
}
echo "| wavetool --version | — | — | $(median5 "$W" --version) |"
startup_row "decompose of one 512² PNG" decompose -l 3 "$small" "$D/o.png"
startup_row "denoise of one 1920×1080 RGB PNG" denoise "$hd" "$D/o.png"
startup_row "denoise --cycle-spin 3, same image" denoise --cycle-spin 3 "$hd" "$D/o.png"
rm -rf "$D/one"

# ---- 2. the auto engine, and a shell loop ------------------------------------
echo
if [ "$QUICK" = quick ]; then
    RUNS=1 LOOP_FILES=10 bash "$HERE/auto_device.sh" "$B" 64x1 256x10 1024x10
else
    cases=
    for side in 64 256 1024 4096 8192; do
        for count in 1 10 200; do
            [ "$side" = 8192 ] && [ "$count" = 200 ] && count=40 # 2.6 GB of JPEG: 40 files
            cases="$cases ${side}x$count"
        done
    done
    RUNS=${RUNS:-1} LOOP_FILES=200 bash "$HERE/auto_device.sh" "$B" $cases || echo "auto_device.sh failed"
fi

# ---- 3. folders of 1080p JPEGs ------------------------------------------------
count=200
[ "$QUICK" = quick ] && count=20
"$MP" -q -n $count -s 1920x1080 "$D/photos"
echo
echo "$count × 1920×1080 JPEG ($(du -sh "$D/photos" | cut -f1)), -j $cores:"
echo
echo "| path | img/s | ÷ decode+encode alone |"
echo "| --- | --- | --- |"
gpu_decode=
"$W" decompose --help 2>&1 | grep -q -- --gpu-decode && gpu_decode=--gpu-decode
pipeline_row() { # label, bench --pipeline options...
    local label=$1 json
    shift
    json=$("$W" bench --pipeline -j "$cores" --format json "$@" "$D/photos" 2>/dev/null)
    # rows: decode+encode alone, the full path, then full_over_codecs
    echo "$json" | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
full = [r for r in rows if r.get("pass") == "full"]
ratio = [r for r in rows if "full_over_codecs" in r]
if full and ratio:
    print("| %s | %.0f | %.2f |" % (sys.argv[1], full[0]["images_per_s"], ratio[0]["full_over_codecs"]))
else:
    print("| %s | failed | - |" % sys.argv[1])
' "$label"
}
pipeline_row "PNG mosaics, cuda" --device cuda
pipeline_row "PNG mosaics, cpu" --device cpu
pipeline_row "JPEG mosaics (--ext jpg), cuda" --device cuda --ext jpg
pipeline_row "JPEG mosaics (--ext jpg), cpu" --device cpu --ext jpg
if [ -n "$gpu_decode" ]; then
    pipeline_row "PNG mosaics, cuda --gpu-decode" --device cuda --gpu-decode
    pipeline_row "JPEG mosaics, cuda --gpu-decode" --device cuda --gpu-decode --ext jpg
fi
for dev in cuda cpu; do
    ms=$(wall_ms "$W" denoise -q -j "$cores" --device $dev -O "$D/den" "$D/photos")
    rate=failed
    [ "$ms" != failed ] && rate=$(awk -v n=$count -v ms="$ms" 'BEGIN { printf "%.0f", n * 1000 / ms }')
    echo "| denoise -O to PNG, $dev | $rate | — |"
    rm -rf "$D/den"
done
