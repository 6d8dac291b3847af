#!/bin/bash
# Denoise speed before/after in one device call (issue 14): builds this tree
# and base/ (a copy of the tree before the change) for sm_90, times
# tests/denoise_speed on a 3840x2160 RGB 8-bit photo (median of 7; plain,
# --cycle-spin 3, the device-resident denoise, the composed A/B switch
# WT_DENOISE_COMPOSED=1), checks that both trees' `wavetool denoise --device
# cuda` outputs are identical, runs gpu_check --pyramids-only and
# compute-sanitizer memcheck. Run from the tree's root with .gpu-deps and
# .gpu-libs/tiff beside it (../); logs under $OUT.
set -u
. ../.gpu-deps/env.sh 2>/dev/null
T=$PWD/../.gpu-libs/tiff
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$PKG_CONFIG_PATH LD_LIBRARY_PATH=$T/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
build() { # DIR LOG TARGETS...
    local dir=$1 log=$2
    shift 2
    (cd "$dir" && meson setup build-gpu -Dcuda=enabled -Dgpu_archs=90 -Dgpu_ptx=false \
        --buildtype=release -Dtests=true && ninja -C build-gpu "$@") > "$log" 2>&1
}
if [ -d base ]; then build base "$OUT/base-build.log" tests/denoise_speed cli/wavetool & fi
build . "$OUT/build.log" tests/denoise_speed tests/gpu_check cli/wavetool bench/make-photos ||
    { tail -30 "$OUT/build.log"; exit 1; }
wait
lap "builds done (base: $(tail -1 "$OUT/base-build.log" 2>/dev/null))"
mkdir -p /tmp/ph && build-gpu/bench/make-photos -q --count 1 --size 3840x2160 --format png /tmp/ph/
img=$(find /tmp/ph -name "*.png" | head -n 1)
S=build-gpu/tests/denoise_speed
for tree in base .; do
    [ -x $tree/$S ] || continue
    for cs in 0 3; do
        echo "$tree cycle_spin=$cs (wall ms, cpu ms): $($tree/$S "$img" 7 cuda conv $cs 2>"$OUT/ph.txt") $(cat "$OUT/ph.txt")"
    done
done
echo "new resident: $($S "$img" 7 cuda conv 0 resident 2>/dev/null | tail -1)"
echo "new composed A/B: $(WT_DENOISE_COMPOSED=1 $S "$img" 7 cuda conv 0 2>&1 | tr '\n' ' ')"
echo "new again: $($S "$img" 7 cuda conv 0 2>&1 | tr '\n' ' ')"
lap "timings done"
for tree in base .; do
    [ -x $tree/build-gpu/cli/wavetool ] || continue
    for o in "" "--rule visu --shrink hard" "--cycle-spin 3 -w db2"; do
        # shellcheck disable=SC2086
        $tree/build-gpu/cli/wavetool denoise --device cuda $o "$img" "/tmp/dn-$(basename $(cd $tree && pwd))-${o// /_}.png" || echo "denoise failed: $tree $o"
    done
done
for f in /tmp/dn-base-*.png; do
    g=/tmp/dn-.gpu-dn-${f#/tmp/dn-base-}
    cmp -s "$f" "$g" && echo "identical to base: ${f#/tmp/dn-base-}" || echo "DIFFERS from base: ${f#/tmp/dn-base-}"
done
timeout 45 build-gpu/tests/gpu_check --pyramids-only > "$OUT/pyr.log" 2>&1; echo "gpu_check --pyramids-only exit $?"
grep -E "^FAIL|engine-resident" "$OUT/pyr.log" | head -8
timeout 45 build-gpu/tests/gpu_check --images-only > "$OUT/img.log" 2>&1; echo "gpu_check --images-only exit $?"
grep -E "^FAIL|image paths" "$OUT/img.log" | head -4 | cut -c1-160
timeout 70 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/gpu_check \
    --pyramids-only --no-large --quick > "$OUT/memcheck.log" 2>&1
echo "memcheck pyramids exit $?: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log" | tail -1)"
lap "checks done"
if command -v nsys > /dev/null; then # per kernel (nsys was not on the H100 of 2026-11-24)
    timeout 60 nsys profile -t cuda --stats=true -o /tmp/dn-prof --force-overwrite true \
        $S "$img" 5 cuda conv 0 resident > "$OUT/nsys.txt" 2>&1
    grep -A 24 "cuda_gpu_kern_sum" "$OUT/nsys.txt" | cut -c1-200
fi
lap "profile done"
