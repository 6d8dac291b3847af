#!/bin/bash
# Issue 17 item 3, third device call (build-gpu built, sm_90, release):
# gpu_check in full with WT_CUDA_SMALL_GRID=4 (the smallest tiles tried)
# and quick with the default; A/B of the small-level tile target in 2
# alternated rounds on 512x512, 3 levels: WT_CUDA_SMALL_GRID=0 (tiles as
# for large images), 1 (the default), 2, 4 blocks per SM (programmatic
# dependent launches in all); then the GPU's time per call with 20 calls
# queued back to back (WT_CUDA_BENCH_CALLS=20), everything off (as before
# the branch) and the default. Logs under $OUT.
set -u
B=${1:-build-gpu}
W=$B/cli/wavetool
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
WT_CUDA_SMALL_GRID=4 timeout 90 $B/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check (WT_CUDA_SMALL_GRID=4) exit $?"; grep -E "^gpu_check: .*(cases|replayed)" $OUT/gpu_check.log
grep -E "^FAIL" $OUT/gpu_check.log | head -5
timeout 40 $B/tests/gpu_check --quick --no-large > $OUT/gpu_check_quick.log 2>&1
echo "gpu_check --quick --no-large (default) exit $?: $(grep -E 'cases, [0-9]+ failed' $OUT/gpu_check_quick.log | head -1)"
bench() {
    $W bench --device cuda --size 512x512 -l 3 -w haar,db3,cdf97,legall53 --method auto --repeat 300
    $W bench --device cuda --size 512x512 -l 3 -w bior4.4 -m periodization --method auto --repeat 300
}
for r in 1 2; do
    for g in 0 1 2 4; do
        echo "== round $r: grid$g"
        WT_CUDA_SMALL_GRID=$g bench
    done
done > $OUT/ab.txt 2>&1
python3 tools/ab_table.py $OUT/ab.txt
for v in off new; do
    echo "== round 1: chain_$v"
    if [ $v = off ]; then
        WT_CUDA_BENCH_CALLS=20 WT_CUDA_CACHE=0 WT_CUDA_SMALL_GRID=0 WT_CUDA_PDL=0 bench
    else
        WT_CUDA_BENCH_CALLS=20 bench
    fi
done > $OUT/chain.txt 2>&1
grep -E "^== |%$" $OUT/chain.txt
