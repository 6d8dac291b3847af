#!/bin/bash
# Issue 17 item 3 (small images) in one device call, from the root of a
# source tree built into build-gpu (sm_90, release): the full gpu_check,
# memcheck of the replay path (haar: its replay pairs), then an A/B/C of
# the level loop on the same build, alternated in 2 rounds: cache0
# (WT_CUDA_CACHE=0: every call plans its levels, as before), graphs0
# (WT_CUDA_GRAPHS=0: plans kept, each level launched), new (plans kept,
# replayed as one CUDA graph); 512x512 (3 levels) and 1024 images of
# 256x256 in one call; last ncu's per-kernel times at 512x512.
# Logs under $OUT; tools/ab_table.py $OUT/ab.txt makes the table.
set -u
B=${1:-build-gpu}
W=$B/cli/wavetool
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 150 $B/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check exit $?"; grep -E "^gpu_check: .*(cases|replayed)" $OUT/gpu_check.log
grep -E "^FAIL" $OUT/gpu_check.log | head -5
bench() {
    $W bench --device cuda --size 512x512 -l 3 -w haar,db3,cdf97,legall53 --method auto --repeat 300
    $W bench --device cuda --size 256x256 --batch 1024 -l 3 -w haar,db3,cdf97,legall53 --method auto --repeat 30
}
for r in 1 2; do
    for v in cache0 graphs0 new; do
        echo "== round $r: $v"
        case $v in
        cache0) WT_CUDA_CACHE=0 bench ;;
        graphs0) WT_CUDA_GRAPHS=0 bench ;;
        new) bench ;;
        esac
    done
done > $OUT/ab.txt 2>&1
python3 tools/ab_table.py $OUT/ab.txt
grep -E "^haar|^db3" $OUT/ab.txt | head -8
for v in cache0 new; do
    echo "== ncu 512x512 haar symmetric, $v"
    env $([ $v = cache0 ] && echo WT_CUDA_CACHE=0) timeout 40 ncu --csv --print-units base \
        --metrics gpu__time_duration.sum $W bench --device cuda --size 512x512 -l 3 -w haar \
        --forward --repeat 2 > $OUT/ncu_$v.csv 2>&1
    grep -E "gpu__time_duration" $OUT/ncu_$v.csv | awk -F'","' '{print substr($5, 1, 60), $(NF)}' | tail -8
done
timeout 50 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu_check --quick \
    --no-large --wavelet haar > $OUT/memcheck.log 2>&1
echo "memcheck haar exit $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log)"
