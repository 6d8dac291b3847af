#!/bin/bash
# One GPU call: the working tree's undecimated kernels against tuning
# variants (NVCC_APPEND_FLAGS builds of cli/wavetool, VARIANTS separated by
# ';'), the gate with a given seed (GATE_SEED) and a random one, and the small
# image figures of issue 17 (512x512 3 levels; 1024 x 256x256 batch).
# From the project's root with cmocka set up (. .gpu-deps/env.sh).
set -u
out=${OUT:-/tmp}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
opts="-Dcuda=enabled --buildtype=release -Dgpu_archs=$cc -Dgpu_ptx=false"
IFS=';' read -r -a variants <<<"${VARIANTS:-}"
i=0
for v in "${variants[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    (NVCC_APPEND_FLAGS="$v" meson setup build-v$i $opts >"$out/setup-v$i.log" 2>&1 &&
        NVCC_APPEND_FLAGS="$v" ninja -C build-v$i cli/wavetool >"$out/ninja-v$i.log" 2>&1) &
done
# shellcheck disable=SC2086
(meson setup build-gpu $opts -Dtests=true >"$out/setup-gpu.log" 2>&1 &&
    ninja -C build-gpu >"$out/ninja-gpu.log" 2>&1) || { tail -30 "$out/ninja-gpu.log"; exit 1; }
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
cases=("--transform swt -w db3 -l 3" "--transform starlet -l 5")
for r in 1 2; do
    for b in gpu $(seq 1 $i | sed 's/^/v/'); do
        [ -x "build-$b/cli/wavetool" ] || { echo "no $b build"; continue; }
        label=$b
        [ "$b" = gpu ] || label="$b ${variants[${b#v} - 1]}"
        echo "== round $r: $label"
        for c in "${cases[@]}"; do
            # shellcheck disable=SC2086
            build-$b/cli/wavetool bench --device cuda $c --repeat 20 2>&1 | grep -v '^#' | grep -v '^wavelet'
        done
    done
done
for s in ${GATE_SEED:-} ""; do
    timeout 100 build-gpu/tests/gpu_check --undecimated-only ${s:+--seed $s} >"$out/gate$s.log" 2>&1
    echo "gpu_check --undecimated-only ${s:+--seed $s} exit $?"
    grep FAIL "$out/gate$s.log" | head -3
    tail -n 1 "$out/gate$s.log"
done
echo "== issue 17 small images"
build-gpu/cli/wavetool bench --device cuda -w haar,db2,cdf97 --size 512x512 -l 3 --repeat 200 2>&1 | grep -v '^#'
build-gpu/cli/wavetool bench --device cuda -w haar,db2,cdf97 --size 256x256 --batch 1024 -l 3 --repeat 20 2>&1 | grep -v '^#'
