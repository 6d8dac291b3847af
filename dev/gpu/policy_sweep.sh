#!/bin/bash
# One device call (about 5 minutes with the build): `wavetool bench` under a
# grid of launch policies (WT_CUDA_POLICY, cuda/cu_policy.h) without
# rebuilding, and a table of % of the device copy (small work: us) per
# setting, to choose the policy table's entry for this GPU. From the
# project's root with .gpu-deps and .gpu-libs carried (dev/gpu/gpu_env.sh).
#   bash dev/gpu/policy_sweep.sh            # the grids dwt, swt and small
#   GRIDS=tail bash dev/gpu/policy_sweep.sh # fused levels (tail_bytes) on and off
#   GRIDS=fast bash dev/gpu/policy_sweep.sh # fast_blocks=5 and fast_prefetch (v17)
#   GRIDS="dwt small" REPEAT=20 bash dev/gpu/policy_sweep.sh
#   DWT_GRID="- tile_x=64,tile_x_inv=64" ...  # settings, space-separated
#                                           # ("-": the GPU's entry as is)
#   BUILD=dir: an existing build (default build-gpu, built when absent).
#   CHECK=0: skip gpu_check --quick first (its "launch policies" line: the
#   engine under policies far from every entry, against the CPU engine).
# Each grid starts and ends with "-": the two rows of the same setting show
# the run's noise. Raw JSON rows: $OUT/sweep/*.json.
set -u
. dev/gpu/gpu_env.sh # toolchain, libraries, build()
OUT=${OUT:-/tmp/policy-sweep}
B=${BUILD:-build-gpu}
REPEAT=${REPEAT:-10}
GRIDS=${GRIDS:-dwt swt small}
# 8192² L3 haar, db3, sym8, cdf97: tiles of the fast level kernels
# (forward and inverse set together; the table has a column each)
DWT_GRID=${DWT_GRID:-"- tile_x=64,tile_x_inv=64 tile_y=64,tile_y_inv=64 \
tile_y=64,tile_x=64,tile_y_inv=64,tile_x_inv=64 tile_y=16,tile_y_inv=16 \
tile_x=16,tile_x_inv=16 tile_y=16,tile_x=64,tile_y_inv=16,tile_x_inv=64 \
tile_y=64,tile_x=16,tile_y_inv=64,tile_x_inv=16 tile_y=8,tile_x=128,tile_y_inv=8,tile_x_inv=128 -"}
# 8192² SWT db3 L3, starlet L5: undecimated tiles
SWT_GRID=${SWT_GRID:-"- uty=32 uty=128 utxc=64 utxc=256 uty=128,utxc=256 uty_starlet=64 \
uty_starlet=256 usmem=32K -"}
# 512² L3 (us) and 1024 x 256² L3 (% of copy): small levels' tiles and PDL
SMALL_GRID=${SMALL_GRID:-"- small_grid=0 small_grid=0.5 small_grid=2 pdl_grid=1 pdl_grid=4 \
pdl_grid=1e9 tile_y=16,tile_x=16,tile_y_inv=16,tile_x_inv=16 -"}
# fused levels (dwt_tail_fast): the entry's (off) and tail_bytes=16M, twice
# each; 512² L3, cdf97 1024² L5 (us), 1024 x 256² L3 and 8192² L3 (% of
# copy; their levels have more tiles than a resident grid: unchanged)
TAIL_GRID=${TAIL_GRID:-"- tail_bytes=16M - tail_bytes=16M"}
# the fast kernels built for 5 blocks an SM and the loads ahead (v17):
# 8192² L3 both modes, 512² L3 (us), 1024 x 256² L3, each alternated with
# the entry's own setting
FAST_GRID=${FAST_GRID:-"- fast_blocks=5 - fast_blocks=5 fast_prefetch=0.5 fast_prefetch=1 \
fast_blocks=5,fast_prefetch=0.5 -"}
mkdir -p "$OUT/sweep"
rm -f "$OUT"/sweep/*.json
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv,noheader
t0=$(date +%s)
lap() { echo "[$(($(date +%s) - t0)) s] $*"; }
if [ ! -x "$B/cli/wavetool" ]; then
    build "$B" . || exit 1
    lap "build done"
fi
W=$B/cli/wavetool
if [ "${CHECK:-1}" = 1 ]; then
    timeout 300 "$B/tests/gpu/gpu_check" --quick --no-large >"$OUT/gpu_check.log" 2>&1
    echo "gpu_check --quick exit $?"
    grep -E "cases, [0-9]+ failed|launch policies|^FAIL" "$OUT/gpu_check.log" | head -20
    lap "gpu_check done"
fi
n=0
bench() { # grid policy bench-args...: JSON rows into $OUT/sweep/NNN-grid.json
    local grid=$1 policy=$2 f
    shift 2
    f=$(printf '%s/sweep/%03d-%s.json' "$OUT" $n "$grid")
    n=$((n + 1))
    echo "$policy" >"$f.policy"
    [ "$policy" = - ] && policy=
    WT_CUDA_POLICY=$policy timeout 120 $W bench --device cuda --format json --repeat "$REPEAT" \
        "$@" >"$f" 2>"$f.err" || { echo "bench failed ($policy $*):"; tail -n 3 "$f.err"; }
}
for grid in $GRIDS; do
    case $grid in
    dwt) for q in $DWT_GRID; do
            bench dwt "$q" -w haar,db3,sym8,cdf97 -m symmetric -l 3
        done ;;
    swt) for q in $SWT_GRID; do
            bench swt "$q" --transform swt -w db3 -l 3
            bench swt "$q" --transform starlet -l 5
        done ;;
    small) for q in $SMALL_GRID; do
            bench small "$q" -w haar,db3,cdf97 -m symmetric -l 3 --size 512x512
            bench small "$q" -w db3,cdf97 -m symmetric -l 3 --size 256x256 --batch 1024 --forward
        done ;;
    tail) for q in $TAIL_GRID; do
            bench tail "$q" -w haar,db3,cdf97 -m symmetric -l 3 --size 512x512
            bench tail "$q" -w cdf97 -m symmetric -l 5 --size 1024x1024
            bench tail "$q" -w db3,cdf97 -m symmetric -l 3 --size 256x256 --batch 1024 --forward
            bench tail "$q" -w haar,db3,cdf97 -m symmetric -l 3 --size 8192x8192
        done ;;
    fast) for q in $FAST_GRID; do
            bench fast "$q" -w haar,db3,sym8,cdf97 -m symmetric,periodization -l 3
            bench fast "$q" -w haar,db3,cdf97 -m symmetric -l 3 --size 512x512
            bench fast "$q" -w db3,cdf97 -m symmetric -l 3 --size 256x256 --batch 1024 --forward
        done ;;
    *) echo "unknown grid '$grid' (dwt, swt, small, tail, fast)"; exit 2 ;;
    esac
    lap "$grid grid done"
done
python3 dev/gpu/policy_table.py "$OUT/sweep" | tee "$OUT/policy_sweep.md"
