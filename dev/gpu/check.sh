#!/bin/bash
# One device call: build the working tree for sm_90 (GPU_ARCHS=... for others),
# meson test (GPU suites included), the CUDA engine against the CPU engine,
# then benches. From the project's root with .gpu-deps and .gpu-libs carried
# (.gpu-libs, filled once by dev/gpu/prepare_libs.sh: libtiff's headers and a .pc for the GPU machine, which has
# the library but not its headers). Logs under $OUT.
#   BASE=tarball  also build that tree (git archive) and bench both, alternating
#   BENCH_ALL=1   also `bench --all --format json` of the working tree
set -u
. dev/gpu/gpu_env.sh # toolchain, libraries, build()
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
if [ -n "${BASE:-}" ]; then
    mkdir -p /tmp/base && tar -xf "$BASE" -C /tmp/base && build build-base /tmp/base &
fi
build build-gpu . || exit 1
grep -m1 'GPU code' "$OUT/setup-build-gpu.log"
wait
lap "build done"
timeout 420 meson test -C build-gpu --num-processes 12 --print-errorlogs >"$OUT/test.log" 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" "$OUT/test.log"
cp build-gpu/meson-logs/testlog.txt "$OUT/testlog.txt" 2>/dev/null
grep -E "cases, [0-9]+ failed|refused|^FAIL|not ok" "$OUT/test.log" "$OUT/testlog.txt" | head -20
lap "meson test done"
W=build-gpu/cli/wavetool
benches() { # wavetool
    $1 bench -w haar,db3,sym8,cdf97,legall53 -m periodization,symmetric -l 3 2>&1 | tail -22
    $1 bench --transform swt -w db3 -l 3 2>&1 | tail -3
    $1 bench --transform starlet -l 5 2>&1 | tail -3
}
benches $W
[ -x build-base/cli/wavetool ] && { echo "== base"; benches build-base/cli/wavetool; echo "== new again"; benches $W; }
lap "benches done"
if [ "${BENCH_ALL:-0}" = 1 ]; then
    timeout 240 $W bench --all --format json --repeat 5 >"$OUT/bench_all.json" 2>"$OUT/bench_all.err"
    echo "bench --all exit $?, $(wc -l <"$OUT/bench_all.json") rows"
fi
