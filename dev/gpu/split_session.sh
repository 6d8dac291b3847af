#!/bin/bash
# One device call for the long filters' split passes (kernel-log v18): build
# (sm_90), gpu_check of long wavelets under long_split=28 (every long filter
# split) and long_split=0 (fused; the default, split from 48 taps, is the
# gate's), then bench 8192² L3 in alternation: fused, default, every long
# filter split. STEPS=build|check|bench (default all); POLICIES, BENCH_W, LONG.
set -u
. dev/gpu/gpu_env.sh
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
steps=${STEPS:-build,check,bench}
if [[ $steps == *build* ]]; then
    [ -x build-gpu/cli/wavetool ] && ninja -C build-gpu >"$OUT/build-build-gpu.log" 2>&1 || build build-gpu . || exit 1
    lap "build done"
fi
G=build-gpu/tests/gpu/gpu_check
W=build-gpu/cli/wavetool
LONG=${LONG:-db13 db20 db38 sym20 coif17 dmey}
if [[ $steps == *check* ]]; then # the gate (check.sh) ran the default policy
    [ -x $G ] || { echo "no $G (build first)"; exit 1; }
    for pol in long_split=28 long_split=0; do
        for w in $LONG; do
            WT_CUDA_POLICY=$pol $G --wavelet $w --no-large >"$OUT/check-$w-${pol:-default}.log" 2>&1
            echo "check $w '${pol:-default}': $(grep -E 'cases, [0-9]+ failed' "$OUT/check-$w-${pol:-default}.log" | head -1)"
        done
    done
    lap "checks done"
fi
# POLICIES: the bench's settings in the order run ('-': the default)
if [[ $steps == *bench* ]]; then
    for round in 1 2; do
        for pol in ${POLICIES:-long_split=0 - long_split=28}; do
            [ "$pol" = - ] && pol=
            echo "== round $round policy '${pol:-default}'"
            WT_CUDA_POLICY=$pol $W bench --device cuda --size 8192x8192 -l 3 \
                -w ${BENCH_W:-db13,db20,dmey,coif17,db38} -m symmetric,periodization --repeat 10 2>&1
        done
    done
    lap "bench done"
fi
