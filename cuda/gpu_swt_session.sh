#!/bin/bash
# One GPU call for the undecimated kernels (cu_swt.cu): builds the working
# tree (build-gpu, with tests) and, alongside, the trees to compare it with:
#   BASE=DIR       a source tree (e.g. a copy of main) built as build-base
#   VARIANTS=A;B   NVCC_APPEND_FLAGS builds of the working tree (build-v1, ...)
# then benchmarks SWT db3 3 levels and starlet 5 scales on 8192x8192 (forward
# and inverse), every build in alternation, ROUNDS rounds (default 2); the gate
# gpu_check --undecimated-only for each of GATE_SEEDS (default "1 2 3");
# VARIANT_GATE=1: variants built with their tests and gated too (after the
# working tree); MEMCHECK=1: compute-sanitizer memcheck of the gate's --quick
# cases (working tree); EXTRAS:
# "denoise" (issue 14's timings, 3840x2160 RGB 8-bit) and/or "small" (issue
# 17's small images). From the project's root with cmocka set up (. .gpu-deps/env.sh).
set -u
out=${OUT:-/tmp}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
opts="-Dcuda=enabled --buildtype=release -Dgpu_archs=$cc -Dgpu_ptx=false"
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }

# build NAME SRCDIR NVCC_FLAGS TARGET [SETUP_OPTION]: meson setup + ninja, logs under $out
build() {
    # shellcheck disable=SC2086
    NVCC_APPEND_FLAGS="$3" meson setup "build-$1" "$2" $opts ${5:-} >"$out/setup-$1.log" 2>&1 &&
        NVCC_APPEND_FLAGS="$3" ninja -C "build-$1" $4 >"$out/ninja-$1.log" 2>&1
}

IFS=';' read -r -a variants <<<"${VARIANTS:-}"
builds=()
[ -n "${BASE:-}" ] && { builds+=(base); build base "$BASE" "" cli/wavetool & }
i=0
for v in "${variants[@]}"; do
    i=$((i + 1))
    builds+=("v$i")
    if [ -n "${VARIANT_GATE:-}" ]; then
        build "v$i" . "$v" "" -Dtests=true &
    else
        build "v$i" . "$v" cli/wavetool &
    fi
done
build gpu . "" "" -Dtests=true || { tail -30 "$out/ninja-gpu.log" "$out/setup-gpu.log"; exit 1; }
wait
builds=(gpu "${builds[@]}")
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
lap "built: ${builds[*]}"
cases=("--transform swt -w db3 -l 3" "--transform starlet -l 5")
for r in $(seq 1 "${ROUNDS:-2}"); do
    for b in "${builds[@]}"; do
        [ -x "build-$b/cli/wavetool" ] || { echo "no $b build"; tail -5 "$out/ninja-$b.log"; continue; }
        label=$b
        case $b in v*) label="$b ${variants[${b#v} - 1]}" ;; esac
        echo "== round $r: $label"
        for c in "${cases[@]}"; do
            # shellcheck disable=SC2086
            build-$b/cli/wavetool bench --device cuda $c --repeat 20 2>&1 | grep -v '^#' | grep -v '^wavelet'
        done
    done
done
lap "benches done"
# gate NAME: gpu_check --undecimated-only of build-NAME for each of GATE_SEEDS
gate() {
    for s in ${GATE_SEEDS:-1 2 3}; do
        timeout 100 "build-$1/tests/gpu_check" --undecimated-only --seed "$s" >"$out/gate-$1-$s.log" 2>&1
        echo "$1: gpu_check --undecimated-only --seed $s exit $?: $(tail -n 1 "$out/gate-$1-$s.log")"
        grep FAIL "$out/gate-$1-$s.log" | head -3
    done
}
gate gpu
if [ -n "${MEMCHECK:-}" ]; then
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
        build-gpu/tests/gpu_check --undecimated-only --quick --seed 1 >"$out/memcheck.log" 2>&1
    echo "memcheck --undecimated-only --quick exit $?: $(grep -E 'ERROR SUMMARY' "$out/memcheck.log")"
    tail -n 1 "$out/memcheck.log"
fi
lap "gate done"
if [ -n "${VARIANT_GATE:-}" ]; then
    for b in "${builds[@]}"; do
        case $b in v*) gate "$b" ;; esac
    done
    lap "variant gates done"
fi
case " ${EXTRAS:-} " in *" denoise "*)
    mkdir -p /tmp/ph && build-gpu/bench/make-photos -q --count 1 --size 3840x2160 --format png /tmp/ph/
    img=$(find /tmp/ph -name "*.png" | head -n 1)
    for dev in cuda cpu; do
        for cs in 0 3; do
            [ $dev = cpu ] && [ $cs = 3 ] && continue
            echo "denoise_speed $dev cycle_spin=$cs (wall ms, cpu ms): $(build-gpu/tests/denoise_speed "$img" 7 $dev conv $cs)"
        done
    done ;;
esac
case " ${EXTRAS:-} " in *" small "*)
    echo "== issue 17 small images"
    build-gpu/cli/wavetool bench --device cuda -w haar,db2,cdf97 --size 512x512 -l 3 --repeat 200 2>&1 | grep -v '^#'
    build-gpu/cli/wavetool bench --device cuda -w haar,db2,cdf97 --size 256x256 --batch 1024 -l 3 --repeat 20 2>&1 | grep -v '^#' ;;
esac
