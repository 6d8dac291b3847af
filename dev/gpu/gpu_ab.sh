#!/bin/bash
# A/B timing of kernel changes on the GPU machine: the working tree against a
# base revision, built side by side and benchmarked in alternation, so that
# both see the same clocks. On the development machine:
#   git archive -o .gpu-base.tar HEAD     (the base; .gpu-base.tar is ignored)
# then in one device call (carry .gpu-deps and .gpu-base.tar):
#   . .gpu-deps/env.sh && bash dev/gpu/gpu_ab.sh [ROUNDS]
# Prints, per round, the bench table of each build (forward and inverse,
# 8192x8192 float32, 3 levels, and 64 images of 1024x1024 in one call unless
# AB_BATCH=0: the targets).
set -u
rounds=${1:-2}
mkdir -p build-base-src && tar xf .gpu-base.tar -C build-base-src
meson setup build-base build-base-src -Dcuda=enabled --buildtype=release >/dev/null &&
    ninja -C build-base cli/wavetool >/dev/null || { echo "base build failed"; exit 1; }
[ -f build-gpu/build.ninja ] || meson setup build-gpu -Dcuda=enabled --buildtype=release >/dev/null
ninja -C build-gpu cli/wavetool >/dev/null || { echo "build failed"; exit 1; }
bench() {
    "$1" bench -w haar,db3,bior4.4 --method conv -m periodization,symmetric -l 3 --repeat 30
    "$1" bench -w haar,db3,cdf97,legall53 --method lifting -m periodization,symmetric -l 3 --repeat 30
    [ "${AB_BATCH:-1}" = 1 ] || return 0
    "$1" bench -w db3,bior4.4 --method conv -m periodization,symmetric --size 1024x1024 --batch 64 --repeat 30
    "$1" bench -w cdf97 --method lifting -m periodization,symmetric --size 1024x1024 --batch 64 --repeat 30
}
# AB_VARIANT="-DNAME=VALUE ...": a third build of the working tree with these
# nvcc flags (NVCC_APPEND_FLAGS), benchmarked after the other two
if [ -n "${AB_VARIANT:-}" ]; then
    [ -f build-var/build.ninja ] || NVCC_APPEND_FLAGS="$AB_VARIANT" \
        meson setup build-var -Dcuda=enabled --buildtype=release >/dev/null
    NVCC_APPEND_FLAGS="$AB_VARIANT" ninja -C build-var cli/wavetool >/dev/null ||
        { echo "variant build failed"; exit 1; }
fi
for r in $(seq 1 "$rounds"); do
    echo "== round $r: base"
    bench build-base/cli/wavetool
    echo "== round $r: new"
    bench build-gpu/cli/wavetool
    if [ -n "${AB_VARIANT:-}" ]; then
        echo "== round $r: variant $AB_VARIANT"
        bench build-var/cli/wavetool
    fi
done
