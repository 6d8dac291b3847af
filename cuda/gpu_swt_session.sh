#!/bin/bash
# One GPU call for the undecimated kernels (cu_swt.cu): builds the working
# tree and a base tree whose cuda/cu_swt.cu and cuda/cu_tuning.h are
# .gpu-base/ (the committed version), both for this GPU only; benchmarks SWT
# db3 3 levels and starlet 5 scales on 8192x8192 (forward and inverse) in
# alternation; gate: gpu_check --undecimated-only; then the denoise timings
# of issue 14 (3840x2160 RGB 8-bit, host samples to host result).
# From the project's root with cmocka set up (. .gpu-deps/env.sh).
set -u
out=${OUT:-/tmp}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
opts="-Dcuda=enabled --buildtype=release -Dgpu_archs=$cc -Dgpu_ptx=false"
rm -rf /tmp/base && mkdir -p /tmp/base && cp -r ./* /tmp/base/ 2>/dev/null
cp .gpu-base/cu_swt.cu .gpu-base/cu_tuning.h /tmp/base/cuda/
# shellcheck disable=SC2086
(meson setup build-base /tmp/base $opts >"$out/setup-base.log" 2>&1 &&
    ninja -C build-base cli/wavetool >"$out/ninja-base.log" 2>&1) &
# shellcheck disable=SC2086
(meson setup build-gpu $opts -Dtests=true >"$out/setup-gpu.log" 2>&1 &&
    ninja -C build-gpu >"$out/ninja-gpu.log" 2>&1) || { tail -30 "$out/ninja-gpu.log"; exit 1; }
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
cases=("--transform swt -w db3 -l 3" "--transform starlet -l 5")
for r in 1 2; do
    for b in base gpu; do
        [ -x build-$b/cli/wavetool ] || { echo "no $b build"; tail -5 "$out/ninja-$b.log"; continue; }
        echo "== round $r: $b"
        for c in "${cases[@]}"; do
            # shellcheck disable=SC2086
            build-$b/cli/wavetool bench --device cuda $c --repeat 20 2>&1 | grep -v '^#'
        done
    done
done
timeout 200 build-gpu/tests/gpu_check --undecimated-only >"$out/gate.log" 2>&1
echo "gpu_check --undecimated-only exit $?"
tail -n 2 "$out/gate.log"
[ -n "${SKIP_DENOISE:-}" ] && exit 0
mkdir -p /tmp/ph && build-gpu/bench/make-photos -q --count 1 --size 3840x2160 --format png /tmp/ph/
img=$(find /tmp/ph -name "*.png" | head -n 1)
for dev in cuda cpu; do
    for cs in 0 3; do
        [ $dev = cpu ] && [ $cs = 3 ] && continue
        echo "denoise_speed $dev cycle_spin=$cs (wall ms, cpu ms): $(build-gpu/tests/denoise_speed "$img" 7 $dev conv $cs)"
    done
done
mkdir -p /tmp/dn /tmp/dn2
cp "$img" /tmp/ph/a.png
for i in $(seq 1 15); do cp "$img" "/tmp/ph/p$i.png"; done
rm -f /tmp/ph/photo-*.png
s=$(date +%s.%N); build-gpu/cli/wavetool denoise --device cuda -O /tmp/dn /tmp/ph/*.png >"$out/dn.log" 2>&1; echo "denoise -O cuda 16 files rc=$? $(awk "BEGIN{print $(date +%s.%N) - $s}") s"
s=$(date +%s.%N); build-gpu/cli/wavetool roundtrip --device cuda -w haar -l 1 -O /tmp/dn2 /tmp/ph/*.png >"$out/rt.log" 2>&1; echo "roundtrip -O haar 1 level cuda (decode+encode+tiny transform) 16 files rc=$? $(awk "BEGIN{print $(date +%s.%N) - $s}") s"
