#!/bin/bash
# Pixel rooms (a GPU pool's workers decode into and draw mosaics into
# page-locked buffers they keep; WT_PIXEL_ROOMS=0: staged copies as before)
# over 200 photo-like 1920x1080 JPEGs, -j all cores, alternated in one binary
# and against a base build: bench --pipeline of PNG and JPEG mosaics (libjpeg
# and both nvJPEG codecs), lanes 1 / 2 / 4, with the engine section (ms a
# file held and waited); then the outputs of new (rooms on and off) and base
# compared byte for byte (cmp -r).
#   dev/gpu/rooms_ab.sh NEW_BUILD [BASE_BUILD] OUT_DIR
# (RUNS rounds, default 2; PHOTOS and SIZE for a smaller folder)
set -u
N=$(cd "$1" && pwd)/cli/wavetool
if [ $# -ge 3 ]; then B=$(cd "$2" && pwd)/cli/wavetool OUT=$3; else B= OUT=$2; fi
mkdir -p "$OUT"
D=$(mktemp -d "${TMPDIR:-/tmp}/wtrooms.XXXXXX")
trap 'rm -rf "$D"' EXIT
cores=$(nproc)
"$(dirname "$N")/../bench/make-photos" -q -n "${PHOTOS:-200}" -s "${SIZE:-1920x1080}" "$D/photos"
echo "# $cores cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "| build | rooms | lanes | path | img/s | decode+encode img/s | ratio | held ms/file | waited ms/file |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
row() { # binary label rooms lanes path options...
    local bin=$1 label=$2 rooms=$3 lanes=$4 path=$5
    shift 5
    WT_PIXEL_ROOMS=$rooms WT_GPU_LANES=$lanes "$bin" bench --pipeline -j "$cores" --format json \
        --device cuda "$@" "$D/photos" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
full = [r for r in rows if r.get("pass") == "full"]
codecs = [r for r in rows if r.get("pass") == "decode+encode"]
ratio = [r for r in rows if "full_over_codecs" in r]
f = full[0] if full else {}
n = max(f.get("images", 1), 1)
cell = lambda k: "%.3f" % (1e3 * f[k] / n) if k in f else "-"
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (tuple(sys.argv[1:5]) + (
      "%.0f" % f["images_per_s"] if f else "failed",
      "%.0f" % codecs[0]["images_per_s"] if codecs else "-",
      "%.2f" % ratio[0]["full_over_codecs"] if ratio else "-",
      cell("engine_held_s"), cell("engine_waited_s"))))' "$label" "$rooms" "$lanes" "$path"
}
for round in $(seq "${RUNS:-2}"); do
    for lanes in 1 2 4; do
        for rooms in 1 0; do
            row "$N" new $rooms $lanes png
            row "$N" new $rooms $lanes jpg --ext jpg
            row "$N" new $rooms $lanes "jpg nvJPEG" --ext jpg --gpu-decode --gpu-encode
        done
    done
    if [ -n "$B" ]; then
        row "$B" base - 1 png
        row "$B" base - 1 jpg --ext jpg
        row "$B" base - 1 "jpg nvJPEG" --ext jpg --gpu-decode --gpu-encode
    fi
done | tee "$OUT/rooms_ab.md"
# the same bytes: rooms on and off, and the base build
outputs() { # binary rooms dir options...
    local bin=$1 rooms=$2 dir=$3
    shift 3
    WT_PIXEL_ROOMS=$rooms "$bin" decompose -q -j "$cores" --device cuda -O "$dir" "$@" \
        "$D/photos" || echo "decompose failed: $dir"
}
for v in "png:" "jpg:--ext jpg" "npz:--ext npz" "nvjpeg:--ext jpg --gpu-decode --gpu-encode" \
    "db3:-w db3 -l 4" "depth16:--depth 16 -w sym4"; do
    name=${v%%:*} opts=${v#*:}
    outputs "$N" 1 "$D/on-$name" $opts
    outputs "$N" 0 "$D/off-$name" $opts
    cmp_on_off=$(diff -rq "$D/on-$name" "$D/off-$name" | wc -l)
    line="outputs $name ($(ls "$D/on-$name" | wc -l) files): rooms on vs off: $cmp_on_off differ"
    if [ -n "$B" ]; then
        outputs "$B" 0 "$D/base-$name" $opts
        line="$line; new vs base: $(diff -rq "$D/on-$name" "$D/base-$name" | wc -l) differ"
    fi
    echo "$line"
    rm -rf "$D/on-$name" "$D/off-$name" "$D/base-$name"
done | tee -a "$OUT/rooms_ab.md"
WT_PIXEL_ROOMS=1 "$N" bench --pipeline -v -j "$cores" --device cuda --ext jpg "$D/photos" 2>&1 |
    tail -4 | tee -a "$OUT/rooms_ab.md"
