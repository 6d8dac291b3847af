#!/bin/bash
# The GPU gate of a merged main in one device call: build for sm_90, meson test,
# gpu_check seeds, compute-sanitizer memcheck/racecheck, benches (legall53's
# 32-bit/64-bit A/B among them), and the host memory of a 30000² 16-bit tiled
# TIFF on the GPU path (tools/measure_memory.sh). From the root with .gpu-deps
# and .gpu-libs/tiff carried; logs under $OUT; each step bounded by timeout.
set -u
. .gpu-deps/env.sh
T=$PWD/.gpu-libs/tiff
Z=$PWD/.gpu-libs/deflate # libdeflate (PNG encoder), absent there too
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$Z/lib/pkgconfig:$PKG_CONFIG_PATH LD_LIBRARY_PATH=$T/lib:$Z/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; git log --oneline -1 2>/dev/null
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
meson setup build-gpu -Dcuda=enabled -Dgpu_archs=90 --buildtype=release -Dtests=true > $OUT/setup.log 2>&1 || { tail -20 $OUT/setup.log; exit 1; }
ninja -C build-gpu > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
lap "build ok"
timeout 240 meson test -C build-gpu --num-processes 12 --print-errorlogs > $OUT/test.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" $OUT/test.log
grep -E "cases, [0-9]+ failed|gpu_check:.*(pass|FAIL)|^FAIL|not ok" $OUT/test.log | head -30
lap "meson test done"
timeout 60 build-gpu/tests/gpu/gpu_check --undecimated-only --seed 2 2>&1 | tail -1
timeout 60 build-gpu/tests/gpu/gpu_check --pyramids-only 2>&1 | tail -2
G="build-gpu/tests/gpu/gpu_check --quick --no-large --wavelet legall53 --seed 3"
for tool in memcheck racecheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $G > $OUT/$tool.log 2>&1
    echo "$tool legall53 exit $?: $(tail -1 $OUT/$tool.log)"
done
lap "sanitizers done"
W=build-gpu/cli/wavetool
$W bench -w haar,db3,bior4.4 --method conv -m periodization,symmetric -l 3 2>&1 | tail -14
$W bench -w cdf97,legall53,dd137 --method lifting -m periodization,symmetric -l 3 2>&1 | tail -14
echo "A/B: WT_CUDA_WIDE53=1 (64-bit 5/3 steps everywhere)"
WT_CUDA_WIDE53=1 $W bench -w legall53 --method lifting -m periodization,symmetric -l 3 2>&1 | tail -6
$W bench -w legall53 --method lifting -m periodization,symmetric --size 1024x1024 --batch 64 2>&1 | tail -6
$W bench -w haar,db3,cdf97,legall53 --method auto -m symmetric --size 512x512 -l 3 --repeat 300 2>&1 | tail -10
$W bench -w haar,db3,bior4.4,cdf97 -m symmetric,periodization --size 256x256 --batch 1024 -l 3 2>&1 | tail -18
$W bench --transform swt -w db3 -l 3 2>&1 | tail -4
$W bench --transform starlet -l 5 2>&1 | tail -4
lap "benches done"
timeout 300 tools/measure_memory.sh -d cuda -s 30000 -b build-gpu -w /tmp/mm 2>&1 | tail -8
lap "memory done"
# GATE_BENCH_ALL=1: also `bench --all` (every wavelet x symmetric/periodization x
# both directions) into $OUT/bench_all.json, for bench/bench_table.py
if [ "${GATE_BENCH_ALL:-0}" = 1 ]; then
    date -u '+%Y-%m-%d %H:%M UTC' > $OUT/bench_all.date
    nvidia-smi --query-gpu=name --format=csv,noheader > $OUT/bench_all.gpu
    timeout 240 $W bench --all --format json --repeat 5 > $OUT/bench_all.json 2> $OUT/bench_all.err
    echo "bench --all exit $?, $(wc -l < $OUT/bench_all.json) rows"
    lap "bench --all done"
fi
