#!/bin/bash
# Where the volume level kernels spend their time, on the GPU machine: builds
# the working tree with line info into build-li, then for each "wavelet dir"
# (dir forward or inverse) profiles the level-1 kernel of one timed
# `bench --volume` run (512^3, L3, conv): ncu's speed-of-light, occupancy,
# scheduler, warp-state and memory sections (text, $OUT/vol_TAG.txt) and its
# source counters by SASS instruction (sass_summary.py).
#   dev/gpu/prof_volume.sh "db3 forward" "cdf97 inverse" ...
#   SIZE=256x256x256 POLICY=vol_sweep=0 dev/gpu/prof_volume.sh ...
set -u
. dev/gpu/gpu_env.sh
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -x "$NCU" ] || { echo "no ncu"; exit 1; }
NVCC_APPEND_FLAGS=-lineinfo build build-li . || exit 1
W=build-li/cli/wavetool
for spec in "$@"; do
    set -- $spec
    # bench runs 3 untimed passes, then the timed ones; each pass is 3 level
    # kernels (levels 1..3 forward, 3..1 inverse); the forward bench also
    # counts the pass that makes its input bands first
    if [ "$2" = forward ]; then skip=12; else skip=11; fi
    tag=${1}_$2
    rep=/tmp/vol_$tag
    WT_CUDA_POLICY=${POLICY:-} timeout 240 "$NCU" --clock-control none --import-source yes \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
        --section WarpStateStats --section MemoryWorkloadAnalysis --section SourceCounters \
        --kernel-name "regex:v(level|sweep)_$2" --launch-skip $skip --launch-count 1 -f -o $rep \
        $W bench --volume --device cuda --size ${SIZE:-512x512x512} -l 3 -w $1 --method conv \
        --repeat 1 --$2 >"$OUT/vol_$tag.run" 2>&1 || { tail -5 "$OUT/vol_$tag.run"; continue; }
    "$NCU" -i $rep.ncu-rep --page details >"$OUT/vol_$tag.txt" 2>&1
    "$NCU" -i $rep.ncu-rep --page source --csv --print-source sass >"$OUT/vol_src_$tag.csv" 2>&1
    echo "== $spec ($(grep -m1 -o 'v[a-z]*_[a-z]*<[^>]*>' "$OUT/vol_$tag.txt"))"
    grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Shared Memory Configuration Size|Dynamic Shared|Grid Size|Block Size|Bank" "$OUT/vol_$tag.txt" | sed 's/^ */  /'
    python3 dev/gpu/sass_summary.py "$OUT/vol_src_$tag.csv"
done
