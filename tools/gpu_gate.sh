#!/bin/bash
# The GPU gate of a merged main in one device call (build for sm_90, meson test, gpu_check seeds, compute-sanitizer memcheck, benches); from the root with .gpu-deps and .gpu-libs/tiff carried.
set -u
. .gpu-deps/env.sh
T=$PWD/.gpu-libs/tiff
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$PKG_CONFIG_PATH LD_LIBRARY_PATH=$T/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; git log --oneline -1 2>/dev/null
meson setup build-gpu -Dcuda=enabled -Dgpu_archs=90 --buildtype=release -Dtests=true > $OUT/setup.log 2>&1 || { tail -20 $OUT/setup.log; exit 1; }
ninja -C build-gpu > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build ok"
meson test -C build-gpu --num-processes 12 --print-errorlogs > $OUT/test.log 2>&1
grep -E "^ *[0-9]+/[0-9]+ |^Ok:|^Fail:|^Skipped:" $OUT/test.log
grep -E "cases, [0-9]+ failed|gpu_check:.*(pass|FAIL)|^FAIL" $OUT/test.log | head -20
for s in 1 2 3; do build-gpu/tests/gpu_check --undecimated-only --seed $s 2>&1 | tail -1; done
build-gpu/tests/gpu_check --pyramids-only 2>&1 | tail -2
timeout 200 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 build-gpu/tests/gpu_check --pyramids-only --seed 5 > $OUT/memcheck.log 2>&1; echo "memcheck pyramids exit $?"; tail -2 $OUT/memcheck.log
timeout 150 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 build-gpu/tests/gpu_check --undecimated-only --quick --seed 5 > $OUT/memcheck2.log 2>&1; echo "memcheck undecimated exit $?"; tail -2 $OUT/memcheck2.log
W=build-gpu/cli/wavetool
$W bench -w haar,db3,bior4.4 --method conv -m periodization,symmetric -l 3 2>&1 | tail -14
$W bench -w cdf97,legall53 --method lifting -m periodization,symmetric -l 3 2>&1 | tail -10
$W bench --transform swt -w db3 -l 3 2>&1 | tail -4
$W bench --transform starlet -l 5 2>&1 | tail -4
