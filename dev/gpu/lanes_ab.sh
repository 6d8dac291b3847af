#!/bin/bash
# GPU lanes (engines per GPU a folder's workers share, WT_GPU_LANES) over 200
# photo-like 1920x1080 JPEGs, -j all cores: bench --pipeline PNG and JPEG
# mosaics and denoise -O on the CUDA engine, images per second, each lane
# count in turn (RUNS rounds, default 2, alternating):
#   dev/gpu/lanes_ab.sh BUILD_DIR [LANES...]   (default lanes: 1 2 4 8)
set -u
B=$(cd "$1" && pwd)
shift
LANES=${*:-1 2 4 8}
W=$B/cli/wavetool
D=$(mktemp -d "${TMPDIR:-/tmp}/wtlanes.XXXXXX")
trap 'rm -rf "$D"' EXIT
cores=$(nproc)
"$B/bench/make-photos" -q -n 200 -s 1920x1080 "$D/photos"
echo "# $cores cores; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "| lanes | path | img/s | ÷ decode+encode alone |"
echo "| --- | --- | --- | --- |"
row() { # lanes label options...
    local lanes=$1 label=$2
    shift 2
    WT_GPU_LANES=$lanes "$W" bench --pipeline -j "$cores" --format json --device cuda "$@" \
        "$D/photos" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if l.strip()]
full = [r for r in rows if r.get("pass") == "full"]
ratio = [r for r in rows if "full_over_codecs" in r]
print("| %s | %s | %s | %s |" % (sys.argv[1], sys.argv[2],
      "%.0f" % full[0]["images_per_s"] if full else "failed",
      "%.2f" % ratio[0]["full_over_codecs"] if ratio else "-"))' "$lanes" "$label"
}
denoise_row() { # lanes
    local t0 ms
    t0=$(date +%s%N)
    WT_GPU_LANES=$1 "$W" denoise -q -j "$cores" --device cuda -O "$D/den" "$D/photos" || echo failed
    ms=$((($(date +%s%N) - t0) / 1000000))
    echo "| $1 | denoise -O to PNG | $(awk -v ms=$ms 'BEGIN { printf "%.0f", 200000 / ms }') | — |"
    rm -rf "$D/den"
}
for round in $(seq "${RUNS:-2}"); do
    for l in $LANES; do
        row "$l" "PNG mosaics"
        row "$l" "JPEG mosaics" --ext jpg
        "$W" decompose --help 2>&1 | grep -q -- --gpu-decode &&
            row "$l" "JPEG mosaics, --gpu-decode --gpu-encode" --ext jpg --gpu-decode --gpu-encode
        denoise_row "$l"
    done
done
