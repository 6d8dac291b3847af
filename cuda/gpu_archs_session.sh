#!/bin/bash
# One GPU-machine call for issue 17 item 1 (which GPUs a build runs on), from
# the project's root with cmocka set up (. .gpu-deps/env.sh): the default
# (portable) build and its whole meson test; the same build under
# CUDA_FORCE_PTX_JIT=1 (its PTX is newer than the GPU: the "no code" message);
# a build for this GPU with its PTX, gated under CUDA_FORCE_PTX_JIT=1; a build
# for another architecture only (sm_80): the message and --device auto's
# fallback. Logs under $OUT. Usage: cuda/gpu_archs_session.sh
# PORTABLE=0 skips the portable build (nine targets: minutes of nvcc).
set -u
out=${OUT:-/tmp}
img=data/astronaut.png
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
build() { # dir options...
    local d=$1 t0
    shift
    t0=$SECONDS
    meson setup "$d" -Dcuda=enabled --buildtype=release -Dtests=true "$@" >"$out/setup-$d.log" 2>&1 &&
        ninja -C "$d" >"$out/ninja-$d.log" 2>&1 || { tail -20 "$out/ninja-$d.log"; return 1; }
    echo "== build $d ($*): $((SECONDS - t0)) s; GPU code: $(grep -m1 'GPU code' "$out/setup-$d.log")"
}
try() { # what command...
    local what=$1
    shift
    echo "-- $what: $*"
    "$@" 2>&1 | tail -n 3
    echo "   exit ${PIPESTATUS[0]}"
}

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader)"
if [ "${PORTABLE:-1}" != 0 ]; then
    build build-gpu || exit 1
    timeout 300 meson test -C build-gpu --print-errorlogs --num-processes 12 >"$out/test.log" 2>&1
    echo "meson test exit $?"; grep -E '^ *[0-9]+/[0-9]+ ' "$out/test.log" | grep -v ' OK ' ; grep -E '^(Ok|Fail|Skipped):' "$out/test.log"
    try "pyramids" build-gpu/tests/gpu_check --pyramids-only
    try "portable build, forced PTX JIT (its PTX is compute_120)" env CUDA_FORCE_PTX_JIT=1 \
        build-gpu/cli/wavetool decompose --device cuda -q -w haar -l 2 $img /tmp/p.npz
    try "  --device auto -v" env CUDA_FORCE_PTX_JIT=1 \
        build-gpu/cli/wavetool decompose --device auto -v -w haar -l 2 $img /tmp/p.npz
fi

build build-ptx -Dgpu_archs="$cc" -Dgpu_ptx=true || exit 1
try "gate under CUDA_FORCE_PTX_JIT=1 (compute_$cc PTX)" env CUDA_FORCE_PTX_JIT=1 build-ptx/tests/gpu_check
try "pyramids under CUDA_FORCE_PTX_JIT=1" env CUDA_FORCE_PTX_JIT=1 build-ptx/tests/gpu_check --pyramids-only

build build-80 -Dgpu_archs=80 -Dgpu_ptx=false || exit 1
try "sm_80-only build: --device cuda" build-80/cli/wavetool decompose --device cuda -q -w haar -l 2 $img /tmp/q.npz
try "sm_80-only build: --device auto -v" build-80/cli/wavetool decompose --device auto -v -w haar -l 2 $img /tmp/q.npz
try "sm_80-only build: --version" build-80/cli/wavetool --version
try "sm_80-only build: gpu_check" build-80/tests/gpu_check --quick
