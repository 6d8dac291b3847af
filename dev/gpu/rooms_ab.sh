#!/bin/bash
# Pixel rooms (a GPU pool's workers decode into and draw mosaics into
# page-locked buffers they keep; WT_PIXEL_ROOMS=0: staged copies as before)
# over 200 photo-like 1920x1080 JPEGs, -j all cores, alternated in one binary
# and against a base build: bench --pipeline of PNG and JPEG mosaics (libjpeg
# and both nvJPEG codecs), lanes 1 / 2 / 4, with the engine section (ms a
# file held and waited); then the outputs of new (rooms on and off) and base
# compared byte for byte (cmp -r). Then denoise -O of the folder to PNG,
# rooms on and off (and --sigma 3: no estimate), wall ms and its engine
# section (-v), the first 16 files alone (opening the GPU and the first
# files: the rest runs at the steady rate), and its outputs rooms on vs off
# (and against BASE_BUILD when given); each row's -v (the engine section, the
# CPU a file by phase, the opening and the rooms' page-locking) is kept in
# OUT_DIR/denoise-v-*.txt.
#   dev/gpu/rooms_ab.sh NEW_BUILD [BASE_BUILD] OUT_DIR
# (RUNS rounds, default 2; LANES, default "1 2 4"; PHOTOS and SIZE for a
# smaller folder; ONLY=denoise: the denoise rows alone. The denoise rows
# alternate the environment settings of SETTINGS, default
# "WT_PIXEL_ROOMS=1 WT_PIXEL_ROOMS=0"; "WT_GPU_OPEN_FIRST=0
# WT_GPU_OPEN_FIRST=1" is the A/B of decoding ahead while the GPU opens,
# "WT_ROOMS_BEHIND=0 WT_ROOMS_BEHIND=1" of the rooms made within or after it;
# DEVICE, default cuda: denoise's --device)
set -u
N=$(cd "$1" && pwd)/cli/wavetool
if [ $# -ge 3 ]; then B=$(cd "$2" && pwd)/cli/wavetool OUT=$3; else B= OUT=$2; fi
mkdir -p "$OUT"
D=$(mktemp -d "${TMPDIR:-/tmp}/wtrooms.XXXXXX")
trap 'rm -rf "$D"' EXIT
cores=$(nproc)
"$(dirname "$N")/../bench/make-photos" -q -n "${PHOTOS:-200}" -s "${SIZE:-1920x1080}" "$D/photos"
echo "# $cores cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
SETTINGS=${SETTINGS:-WT_PIXEL_ROOMS=1 WT_PIXEL_ROOMS=0}
DEVICE=${DEVICE:-cuda}
denoise_rows() { # the denoise rows and outputs (after the mosaics' table)
    local first=${SETTINGS%% *} second=${SETTINGS#* }
    second=${second%% *}
    mkdir -p "$D/first16"
    for f in $(ls "$D/photos" | head -16); do ln -s "$D/photos/$f" "$D/first16/$f"; done
    echo
    echo "| denoise -O, -j $cores, --device $DEVICE | setting | wall ms | img/s |" \
        "wall ms, first 16 files | steady img/s (the rest) | engine section, opening (-v) |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    for round in $(seq "${RUNS:-2}"); do
        for setting in $SETTINGS; do
            denoise_row "$setting" default
            denoise_row "$setting" "--sigma 3" --sigma 3
        done
    done
    for v in "default:" "db2-sigma:-w db2 --sigma 3" "depth16:--depth 16"; do
        name=${v%%:*} opts=${v#*:}
        for setting in "$first" "$second"; do
            env "$setting" "$N" denoise -q -j "$cores" --device "$DEVICE" -O "$D/dn-$setting" \
                $opts "$D/photos" || echo "denoise failed: $name $setting"
        done
        local line="denoise outputs $name ($(ls "$D/dn-$first" | wc -l) files): $first vs"
        line="$line $second: $(diff -rq "$D/dn-$first" "$D/dn-$second" | wc -l) differ"
        if [ -n "$B" ]; then
            "$B" denoise -q -j "$cores" --device "$DEVICE" -O "$D/dn-base" $opts "$D/photos" ||
                echo "denoise failed: $name base"
            line="$line; new vs base: $(diff -rq "$D/dn-$first" "$D/dn-base" | wc -l) differ"
        fi
        echo "$line"
        rm -rf "$D/dn-$first" "$D/dn-$second" "$D/dn-base"
    done
}
denoise_ns() { # setting folder options...: wall ns of denoise -O of the folder
    local setting=$1 dir=$2 t0 t1
    shift 2
    rm -rf "$D/dn"
    t0=$(date +%s%N)
    env "$setting" "$N" denoise -q -j "$cores" --device "$DEVICE" -O "$D/dn" "$@" "$dir" ||
        echo "denoise failed" >&2
    t1=$(date +%s%N)
    rm -rf "$D/dn"
    echo $((t1 - t0))
}
denoise_row() { # setting label options...: the folder, its first 16 files (the GPU's opening
    local setting=$1 label=$2 all few section # and the start: the rest runs at the steady rate)
    shift 2
    few=$(denoise_ns "$setting" "$D/first16" "$@")
    all=$(denoise_ns "$setting" "$D/photos" "$@")
    local opened='s/^wavetool: GPU opened in \([0-9.]* s\)[^;]*; \([0-9]*\) files* decoded ahead'
    opened="$opened meanwhile; closed in \\([0-9.]* s\\)/opened in \\1, \\2 ahead, closed in \\3/p"
    local log=$OUT/denoise-v-${setting//[^A-Za-z0-9_=]/_}-${label// /_}-$round.txt
    env "$setting" "$N" denoise -v -j "$cores" --device "$DEVICE" -O "$D/dn" "$@" \
        "$D/photos" 2>&1 >/dev/null | grep -v ': levels ' >"$log"
    section=$(sed -n "s/.*engine section: //p; $opened" "$log" | tr '\n' ' ')
    rm -rf "$D/dn"
    local n=${PHOTOS:-200} steady=-
    [ "$all" -gt "$few" ] && steady=$(((n - 16) * 1000000000 / (all - few)))
    echo "| $label | $setting | $((all / 1000000)) | $((n * 1000000000 / all)) |" \
        "$((few / 1000000)) | $steady | $section |"
}
if [ "${ONLY:-}" = denoise ]; then
    denoise_rows | tee "$OUT/rooms_ab.md"
    exit 0
fi
echo "| build | rooms | lanes | path | img/s | decode+encode img/s | ratio | held ms/file | waited ms/file | upload, transform, download ms/file |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (tuple(sys.argv[1:5]) + (
      "%.0f" % f["images_per_s"] if f else "failed",
      "%.0f" % codecs[0]["images_per_s"] if codecs else "-",
      "%.2f" % ratio[0]["full_over_codecs"] if ratio else "-",
      cell("engine_held_s"), cell("engine_waited_s"),
      ", ".join(cell(k) for k in ("upload_s", "transform_s", "download_s")))))' "$label" "$rooms" "$lanes" "$path"
}
for round in $(seq "${RUNS:-2}"); do
    for lanes in ${LANES:-1 2 4}; do
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
for ext in png jpg; do
    WT_PIXEL_ROOMS=1 "$N" bench --pipeline -v -j "$cores" --device cuda --ext $ext "$D/photos" 2>&1 |
        tail -4
done | tee -a "$OUT/rooms_ab.md"
denoise_rows | tee -a "$OUT/rooms_ab.md"
