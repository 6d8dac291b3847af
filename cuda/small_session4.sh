#!/bin/bash
# Issue 17 item 3, the final device call on the merged branch (build-gpu
# built, sm_90, release): full gpu_check, memcheck of dd137 (a fast kernel
# the merge added, now with PDL); 512x512 3 levels before (every
# small-image change off: WT_CUDA_CACHE=0 WT_CUDA_SMALL_GRID=0 WT_CUDA_PDL=0)
# and after (the default), 2 alternated rounds; the default's time per call
# with 20 calls queued (WT_CUDA_BENCH_CALLS=20); 1024 images of 256x256;
# last an experiment: WT_CUDA_PDL=2 (PDL between every level's fast
# kernels, any grid) against the default on the batch and 8192², and the
# full gpu_check with it.
set -u
B=${1:-build-gpu}
W=$B/cli/wavetool
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
t0=$(date +%s)
timeout 80 $B/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check exit $?"; grep -E "^gpu_check: .*(cases|replayed)" $OUT/gpu_check.log
grep -E "^FAIL" $OUT/gpu_check.log | head -5
timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu_check --quick \
    --no-large --wavelet dd137 > $OUT/memcheck.log 2>&1
echo "memcheck dd137 exit $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log) $(grep -E 'cases, [0-9]+ failed' $OUT/memcheck.log | cut -c1-50)"
bench() {
    $W bench --device cuda --size 512x512 -l 3 -w haar,db3,cdf97,legall53 --method auto --repeat 300
    $W bench --device cuda --size 512x512 -l 3 -w bior4.4,dd137 -m periodization --method auto --repeat 300
}
for r in 1 2; do
    echo "== round $r: before"
    WT_CUDA_CACHE=0 WT_CUDA_SMALL_GRID=0 WT_CUDA_PDL=0 bench
    echo "== round $r: after"
    bench
done > $OUT/ab.txt 2>&1
grep -E "^== |%$" $OUT/ab.txt | awk '/^==/{v=$4; next} {k=$1" "$2" "$4; a[k" "v]=a[k" "v] sprintf("%.1f ", $8*1000)} END{for (x in a) print x": "a[x] "us"}' | sort
python3 tools/ab_table.py $OUT/ab.txt | tail -12
echo "== queued, 20 calls (after)"
WT_CUDA_BENCH_CALLS=20 bench 2>&1 | grep -E "%$" | tee $OUT/chain.txt
echo "== batch 1024 x 256x256 (after) [$(($(date +%s) - t0)) s]"
$W bench --device cuda --size 256x256 --batch 1024 -l 3 -w haar,db3,cdf97,legall53,bior4.4 \
    -m symmetric,periodization --method auto --repeat 30 2>&1 | tee $OUT/batch.txt | grep -E "%$"
big() {
    $W bench --device cuda --size 256x256 --batch 1024 -l 3 -w db3,cdf97 --method auto --repeat 30
    $W bench --device cuda -l 3 -w haar,db3 --method conv --repeat 30
}
for r in 1 2; do
    echo "== round $r: default"
    big
    echo "== round $r: pdl2"
    WT_CUDA_PDL=2 big
done > $OUT/pdl2.txt 2>&1
python3 tools/ab_table.py $OUT/pdl2.txt
echo "[$(($(date +%s) - t0)) s]"
WT_CUDA_PDL=2 timeout 70 $B/tests/gpu_check > $OUT/gpu_check_pdl2.log 2>&1
echo "gpu_check WT_CUDA_PDL=2 exit $?"; grep -E "^gpu_check: .*(cases|replayed)" $OUT/gpu_check_pdl2.log
