#!/bin/bash
# Nsight Compute on the GPU machine (Firecracker runtime; clocks left alone):
# the kernels of `bench` for a few wavelets, the limiter of each (DRAM
# throughput, L2 hit rate, achieved occupancy, registers, stall reasons).
# After dev/gpu/check.sh has built build-gpu. Logs under $OUT/ncu-*.txt, a
# summary on stdout.
#   dev/gpu/profile.sh [wavelet...]      (default haar db3 sym8 cdf97)
#   VOLUME=1 dev/gpu/profile.sh haar db3 cdf97   bench --volume 512^3 L3 (conv):
#                                        one timed run's 3 level kernels
set -u
W=build-gpu/cli/wavetool
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -x "$NCU" ] || { echo "no ncu"; exit 1; }
metrics=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__waves_per_multiprocessor,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
for w in ${@:-haar db3 sym8 cdf97}; do
    for dir in --forward --inverse; do
        f=$OUT/ncu-$w${dir#--}.txt
        # skip the warm-up launches, then one timed run's kernels
        if [ "${VOLUME:-0}" = 1 ]; then # the level kernels: skip the forward that
            # makes the bands (forward only) and 3 warm-ups, 3 levels each
            [ $dir = --forward ] && skip=12 || skip=9
            timeout 300 "$NCU" --clock-control none --metrics "$metrics" \
                --kernel-name "regex:v(level|sweep)_${dir#--}" --launch-skip $skip --launch-count 3 \
                --csv --page raw $W bench --volume --device cuda \
                --size 512x512x512 -l 3 -w "$w" --method conv --repeat 1 $dir >"$f" 2>&1
        else
            timeout 120 "$NCU" --clock-control none --metrics "$metrics" --launch-skip 10 \
                --launch-count 24 --csv --page raw $W bench -w "$w" --size 8192x8192 -l 3 \
                --repeat 5 $dir >"$f" 2>&1
        fi
        echo "== $w $dir"
        python3 - "$f" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    print(open(sys.argv[1]).read()[-2000:]); sys.exit()
head = rows[0]
col = {n: i for i, n in enumerate(head)}
def g(r, n):
    return r[col[n]] if n in col else '-'
short = [('gpu__time_duration.sum','ns'),('dram__throughput.avg.pct_of_peak_sustained_elapsed','dram%'),
         ('dram__bytes_read.sum','rd'),('dram__bytes_write.sum','wr'),('lts__t_sector_hit_rate.pct','L2hit%'),
         ('sm__warps_active.avg.pct_of_peak_sustained_active','occ%'),('launch__registers_per_thread','regs'),
         ('launch__block_size','blk'),('launch__grid_size','grid'),('launch__waves_per_multiprocessor','waves'),
         ('sm__throughput.avg.pct_of_peak_sustained_elapsed','sm%'),
         ('smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio','lsb'),
         ('smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio','bar')]
print('kernel'.ljust(34), ' '.join(s.rjust(9) for _, s in short))
for r in rows[2:]:
    print(g(r,'Kernel Name')[:34].ljust(34), ' '.join(g(r,n)[:9].rjust(9) for n, _ in short))
PY
    done
done
