#!/bin/bash
# The final call of the longfilt work (issue 17 item 2): sm_90 build, gpu_check
# in full, the README's rows (json, 2 rounds), a tile A/B (WT_CUDA_FAST_SMEM), then
# `bench --all` as far as the call's time goes. Run from the root of a copy of
# the tree with ../.gpu-deps and ../.gpu-libs; logs and json under $OUT.
set -u
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
cd .. && . .gpu-deps/env.sh && cd - > /dev/null || exit 1
T=$PWD/../.gpu-libs/tiff
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$PKG_CONFIG_PATH LD_LIBRARY_PATH=$T/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
# FINAL_VARIANT="-DNAME=V": a second build with these nvcc flags, in parallel
[ -n "${FINAL_VARIANT:-}" ] && (NVCC_APPEND_FLAGS="$FINAL_VARIANT" meson setup build-var -Dcuda=enabled \
    -Dgpu_archs=90 --buildtype=release -Dtests=false > $OUT/setup-var.log 2>&1 &&
    NVCC_APPEND_FLAGS="$FINAL_VARIANT" ninja -C build-var cli/wavetool > $OUT/build-var.log 2>&1) &
meson setup build-gpu -Dcuda=enabled -Dgpu_archs=90 --buildtype=release -Dtests=true > $OUT/setup.log 2>&1 &&
    ninja -C build-gpu > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
wait
lap "build ok"
timeout 100 build-gpu/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check exit $?"; grep -E "cases, [0-9]+ failed|FAIL" $OUT/gpu_check.log | head -12
lap "gpu_check done"
W=build-gpu/cli/wavetool
ROWS=db7,sym8,coif3,bior6.8,db10,db12,db13,db20,dmey,coif17
date -u '+%Y-%m-%d %H:%M UTC' > $OUT/rows.date
for r in 1 2; do
    $W bench --device cuda -w $ROWS -m symmetric,periodization -l 3 --repeat 5 --format json \
        > $OUT/rows$r.json 2>> $OUT/bench.err
done
lap "rows done"
WT_CUDA_FAST_SMEM=113000 $W bench --device cuda -w db13,db20,dmey -m symmetric,periodization -l 3 \
    --repeat 5 2>&1 | grep -v "^#"
if [ -x build-var/cli/wavetool ]; then
    echo "== variant $FINAL_VARIANT, then the build"
    for b in build-var build-gpu; do
        $b/cli/wavetool bench --device cuda -w ${VAR_WAVELETS:-db13,db20,dmey,coif17} \
            -m symmetric,periodization -l 3 --repeat 5 2>&1 | grep -v "^#"
    done
fi
lap "tile A/B done"
left=$((${FINAL_BUDGET:-225} - ($(date +%s) - t0)))
[ $left -gt 20 ] && timeout $left $W bench --all --format json --repeat 5 > $OUT/bench_all.json 2>> $OUT/bench.err
echo "bench --all: $(wc -l < $OUT/bench_all.json) rows in ${left} s at most"
lap "done"
