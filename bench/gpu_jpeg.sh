#!/bin/bash
# The GPU JPEG codec (nvJPEG: --gpu-decode, --gpu-encode) on a GPU machine,
# after a CUDA build with nvJPEG:   bench/gpu_jpeg.sh BUILD_DIR [COUNT]
# 1. tests/gpu/jpeg_check on the repository's JPEGs and on 20 make-photos
#    JPEGs: nvJPEG's pixels against libjpeg-turbo's (largest |difference|,
#    share of differing samples), its encoder's PSNR against libjpeg-turbo's;
# 2. -v on the tricky corpus: which files libjpeg-turbo takes back, and why;
# 3. bench --pipeline over COUNT (200) 1920x1080 make-photos JPEGs, -j 16,
#    PNG and JPEG mosaics, each with libjpeg-turbo, --gpu-decode, and
#    --gpu-decode --gpu-encode (full path against decode+encode alone);
# 4. ldd of the program: neither libnvjpeg nor libcudart.
set -u
B=$(cd "$1" && pwd)
COUNT=${2:-200}
S=$(cd "$(dirname "$0")/.." && pwd)
W=$B/cli/wavetool
D=$(mktemp -d "${TMPDIR:-/tmp}/wtjpeg.XXXXXX")
trap 'rm -rf "$D"' EXIT
echo "machine: $(nproc) cores, $(nvidia-smi --query-gpu=name --format=csv,noheader | paste -sd,)"

echo "== jpeg_check: the repository's JPEGs"
"$B/tests/gpu/jpeg_check" -v "$S/data" "$S/tests/corpus" | grep -v '^bad '
"$B/bench/make-photos" -q -n 20 -s 1920x1080 "$D/check"
echo "== jpeg_check: 20 make-photos 1920x1080 JPEGs"
"$B/tests/gpu/jpeg_check" "$D/check"

echo "== -v: files libjpeg-turbo takes back (tests/corpus/tricky/jpeg)"
"$W" decompose -v --device cuda --gpu-decode --gpu-encode --ext jpg -O "$D/tricky" \
    "$S/tests/corpus/tricky/jpeg" 2>&1 | grep -E 'libjpeg-turbo|nvJPEG|failed|done'

"$B/bench/make-photos" -q -n "$COUNT" -s 1920x1080 "$D/photos"
for ext in png jpg; do
    for codec in "" "--gpu-decode" "--gpu-decode --gpu-encode"; do
        echo "== bench --pipeline --device cuda -j 16 --ext $ext $codec"
        "$W" bench --pipeline --device cuda -j 16 --ext $ext $codec "$D/photos"
    done
done

echo "== ldd"
ldd "$W" | grep -E 'nvjpeg|cudart' || echo "no libnvjpeg, no libcudart"
