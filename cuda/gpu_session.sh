#!/bin/bash
# What one call on the GPU machine runs after the build and the gate
# (meson test --suite gpu): sanitizers on short gate runs, then the
# benchmark table of the targets. Usage: cuda/gpu_session.sh BUILDDIR
set -u
B=${1:-build-gpu}
W=$B/cli/wavetool
echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
if [ "${SANITIZE:-1}" = 1 ]; then
    echo "== compute-sanitizer memcheck (gpu_check --quick)"
    timeout 240 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 \
        $B/tests/gpu_check --quick --no-large --seed 3 2>&1 | tail -4
    echo "memcheck exit: ${PIPESTATUS[0]}"
    for w in cdf97 db3 legall53; do
        echo "== compute-sanitizer racecheck (gpu_check --quick --wavelet $w)"
        timeout 100 compute-sanitizer --tool racecheck --error-exitcode 9 \
            $B/tests/gpu_check --quick --no-large --wavelet $w --seed 3 2>&1 | tail -3
        echo "racecheck exit: ${PIPESTATUS[0]}"
    done
fi
echo "== bench: 8192x8192 float32, 3 levels"
$W bench -w haar,db3,bior4.4 --method conv -m periodization,symmetric -l 3
$W bench -w haar,db3,cdf97,legall53 --method lifting -m periodization,symmetric -l 3
echo "== bench: 64 images of 1024x1024 in one call"
$W bench -w haar,db3,bior4.4 --method conv -m periodization,symmetric --size 1024x1024 --batch 64
$W bench -w cdf97,legall53 --method lifting -m periodization,symmetric --size 1024x1024 --batch 64
echo "== bench: long filters"
$W bench -w db20,coif17,dmey -m symmetric,periodization,smooth --repeat 5
echo "== bench: generic kernels only (WT_CUDA_GENERIC=1), for comparison"
WT_CUDA_GENERIC=1 $W bench -w haar,cdf97 -m symmetric --method auto -l 3 --repeat 10
echo "== bench: host path and CPU engine"
$W bench --host-path --repeat 3
$W bench --device cpu -w haar,cdf97 -m symmetric --repeat 3 --forward
if [ -n "${OUT:-}" ]; then
    $W bench -w haar,db3,bior4.4,cdf97,legall53 -m periodization,symmetric --format json \
        > "$OUT/bench.json" 2>&1
fi
if [ "${PROFILE:-1}" = 1 ] && command -v ncu >/dev/null; then
    echo "== ncu: level-1 kernels of haar conv and cdf97 lifting, 8192x8192"
    for w in haar cdf97; do
        for d in --forward --inverse; do
            skip=0; [ $d = --inverse ] && skip=1 # bench runs one forward first
            timeout 120 ncu --launch-skip $skip --launch-count 1 --kernel-name regex:dwt_ \
                --section SpeedOfLight --section Occupancy --section WarpStateStats \
                --section InstructionStats --section ComputeWorkloadAnalysis \
                $W bench -w $w -m symmetric -l 1 $d --repeat 1 2>&1 |
                grep -E "dwt_|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Warp Cycles Per Issued|Executed Instructions  |Issue Slots Busy|Executed Ipc A|SM Busy" | head -14
        done
    done
fi
