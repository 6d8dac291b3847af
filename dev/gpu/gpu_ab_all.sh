#!/bin/bash
# One GPU call: A/B of the working tree against a base (.gpu-base.tar, made
# with `git archive -o .gpu-base.tar main`), both built for this GPU only,
# benchmarked in alternation (ROUNDS, default 2) on the cases of AB_CASES
# (bench argument lists separated by ';'); then the gate (meson test,
# gpu_check) and `bench --all` of the working tree into $OUT/bench_all.json.
# From the project's root with cmocka set up (. .gpu-deps/env.sh).
set -u
out=${OUT:-/tmp}
rounds=${1:-2}
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
mkdir -p build-base-src && tar xf .gpu-base.tar -C build-base-src
opts="-Dcuda=enabled --buildtype=release -Dgpu_archs=$cc"
# shellcheck disable=SC2086
(meson setup build-base build-base-src $opts >"$out/setup-base.log" 2>&1 &&
    ninja -C build-base cli/wavetool >"$out/ninja-base.log" 2>&1) &
# shellcheck disable=SC2086
(meson setup build-gpu $opts -Dgpu_ptx=false -Dtests=true >"$out/setup-gpu.log" 2>&1 &&
    ninja -C build-gpu >"$out/ninja-gpu.log" 2>&1) || { tail -20 "$out/ninja-gpu.log"; exit 1; }
wait
[ -x build-base/cli/wavetool ] || { echo "base build failed"; tail -5 "$out/ninja-base.log"; }
IFS=';' read -r -a cases <<<"${AB_CASES:--w haar,db2,db3,db4 --method conv -m periodization -l 3}"
for r in $(seq 1 "$rounds"); do
    for b in base gpu; do
        [ -x build-$b/cli/wavetool ] || continue
        echo "== round $r: $b"
        for c in "${cases[@]}"; do
            # shellcheck disable=SC2086
            build-$b/cli/wavetool bench $c --repeat 30 | grep -v '^#' | grep -v '^wavelet'
        done
    done
done
timeout 200 meson test -C build-gpu --print-errorlogs --num-processes 12 >"$out/test.log" 2>&1
echo "meson test exit $?"
grep -E '^(Ok|Fail|Skipped):' "$out/test.log" | tr '\n' ' '
echo
build-gpu/tests/gpu/gpu_check --seed 21 >"$out/gate.log" 2>&1
echo "gpu_check exit $?"
tail -n 4 "$out/gate.log"
date -u '+%Y-%m-%d %H:%M UTC' >"$out/bench_all.date"
timeout 200 build-gpu/cli/wavetool bench --all --format json --repeat 5 >"$out/bench_all.json" 2>"$out/bench_all.err"
echo "bench --all exit $?, $(wc -l <"$out/bench_all.json") rows"
