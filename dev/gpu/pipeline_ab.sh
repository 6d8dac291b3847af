#!/bin/bash
# Folder throughput, new build against a base build, alternated (after
# dev/gpu/check.sh with BASE=...): 200 photo-like 1920x1080 JPEGs through
# `bench --pipeline` (PNG and JPEG mosaics, CUDA and CPU engines, -j = cores),
# then png-settings on three of them (one thread, PNG encode per setting).
# new-fastz: the new build with level 1's own deflate for every image.
#   dev/gpu/pipeline_ab.sh NEW_BUILD BASE_BUILD OUT_DIR
set -u
N=$1/cli/wavetool B=$2/cli/wavetool OUT=$3
D=$(mktemp -d "${TMPDIR:-/tmp}/wtab.XXXXXX")
trap 'rm -rf "$D"' EXIT
j=$(nproc)
"$1/bench/make-photos" -q -n 200 -s 1920x1080 "$D/photos"
for round in 1 2; do
    for dev in cuda cpu; do
        for ext in png jpg; do
            for w in new new-fastz base; do
                bin=$N
                [ $w = base ] && bin=$B
                knob=WT_PNG_DEFLATE=
                [ $w = new-fastz ] && knob=WT_PNG_DEFLATE=fastz
                [ $w = new-fastz ] && [ $ext != png ] && continue
                r=$(env $knob "$bin" bench --pipeline --device $dev -j "$j" --ext $ext "$D/photos" 2>&1 |
                    awk '/^decode\+encode|^full/ {printf "%s %s img/s, encode %s s; ", $1, $3, $NF}
                         /throughput:/ {print "ratio", $NF}')
                echo "round $round $dev $ext $w: $r"
            done
        done
    done
done | tee "$OUT/pipeline_ab.txt"
"$1/bench/png-settings" "$D"/photos/photo-000[0-2].jpg >"$OUT/png_settings.tsv" 2>&1
grep -E "^#|wavetool|^1	none	rle|^6	all	filtered" "$OUT/png_settings.tsv"
