#!/bin/bash
# Long filters on the fast kernels (issue 17 item 2), one device call from the
# root of a copy of the tree (tests/corpus/run_corpus.sh at least) with ../.gpu-deps and ../.gpu-libs carried: builds
# for sm_90 (and, with LONG_VARIANT="-DNAME=V ...", a second tree with those
# nvcc flags, in parallel; LONG_VARIANT2 a third), runs gpu_check in full and memcheck on db20, then
# benches 8192x8192 L3 in alternation (LONG_ROUNDS rounds): main's kernels for
# filters over 24 taps (WT_CUDA_GENERIC=1: the generic ones), the fast ones, the
# fast ones with WT_CUDA_FAST_SMEM=each of LONG_SMEM (bytes a block may take
# before its tile shrinks), and the variant. Logs under $OUT.
set -u
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
cd .. && . .gpu-deps/env.sh && cd - > /dev/null || exit 1 # env.sh: from the root
T=$PWD/../.gpu-libs/tiff
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$PKG_CONFIG_PATH LD_LIBRARY_PATH=$T/lib:$LD_LIBRARY_PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
build() { # DIR [nvcc flags]
    NVCC_APPEND_FLAGS="${2:-}" meson setup "$1" -Dcuda=enabled -Dgpu_archs=90 --buildtype=release \
        -Dtests=true > $OUT/setup-$1.log 2>&1 &&
        NVCC_APPEND_FLAGS="${2:-}" ninja -C "$1" > $OUT/build-$1.log 2>&1 || { tail -30 $OUT/build-$1.log; return 1; }
}
build build-gpu &
p1=$!
[ -n "${LONG_VARIANT:-}" ] && build build-var "$LONG_VARIANT" &
[ -n "${LONG_VARIANT2:-}" ] && build build-var2 "$LONG_VARIANT2" &
wait $p1 || exit 1
wait
lap "build ok"
timeout 90 build-gpu/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check exit $?"; grep -E "cases, [0-9]+ failed|FAIL" $OUT/gpu_check.log | head -12
lap "gpu_check done"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/tests/gpu_check ${LONG_MEMCHECK_ARGS:---quick} \
    --no-large --wavelet ${LONG_MEMCHECK:-db20} > $OUT/memcheck.log 2>&1
echo "memcheck ${LONG_MEMCHECK:-db20} exit $?: $(tail -1 $OUT/memcheck.log)"
lap "memcheck done"
W=build-gpu/cli/wavetool
bench() { # label, wavetool, wavelets
    echo "== $1"
    $2 bench --device cuda -w "$3" -m symmetric,periodization -l 3 --repeat ${LONG_REPEAT:-10} 2>&1 | grep -v "^#"
}
LONG=${LONG_WAVELETS:-db13,db20,dmey,coif17}
MID=${MID_WAVELETS:-db7,sym8,coif3,db10,db12}
for r in $(seq 1 ${LONG_ROUNDS:-2}); do
    echo "######## round $r"
    [ "${LONG_GENERIC:-1}" = 1 ] && WT_CUDA_GENERIC=1 bench "generic (main) long" $W $LONG
    bench "fast long" $W $LONG
    [ "${LONG_ROUNDS:-2}" -gt 1 ] && lap "round $r: long done"
    for s in ${LONG_SMEM:-}; do
        WT_CUDA_FAST_SMEM=$s bench "fast long, smem <= $s" $W $LONG
    done
    bench "fast mid (main's kernels)" $W $MID
    if [ -x build-var/cli/wavetool ]; then
        bench "variant $LONG_VARIANT" build-var/cli/wavetool ${VAR_WAVELETS:-$LONG,$MID}
    fi
    if [ -x build-var2/cli/wavetool ]; then
        bench "variant2 $LONG_VARIANT2" build-var2/cli/wavetool ${VAR2_WAVELETS:-$LONG,$MID}
    fi
    lap "round $r done"
done
