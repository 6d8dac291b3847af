#!/bin/bash
# The CPU engine from 1 core to all of them: `bench --device cpu` pinned to
# the first N cores (taskset; the engine runs as many threads as the cores it
# may use, and so does the copy it is compared with), 4096x4096 float32,
# 3 levels. Prints one table: ms and % of the copy of the same bytes on N
# cores, and the speed-up over one core.
#   bench/cpu_scaling.sh BUILD_DIR [WAVELETS] [REPEAT]
set -eu
W=$(cd "$1" && pwd)/cli/wavetool
WAVELETS=${2:-haar,db3,sym8,cdf97,legall53}
REPEAT=${3:-9}
cores=$(nproc)
counts=1
for n in 2 4 8 16 32 64; do [ "$n" -le "$cores" ] && counts="$counts $n"; done
[ "${counts##* }" = "$cores" ] || counts="$counts $cores"
echo "# $cores cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
declare -A one
printf '%-10s %-8s %6s %10s %8s %9s\n' wavelet dir cores ms "% copy" speed-up
for n in $counts; do
    taskset -c "0-$((n - 1))" "$W" bench --device cpu --size 4096x4096 -l 3 -w "$WAVELETS" \
        --repeat "$REPEAT" --format json |
        /usr/bin/python3 -c '
import json, sys
n = int(sys.argv[1])
for line in sys.stdin:
    if not line.startswith("{"):
        continue
    r = json.loads(line)
    print("%s %s %d %.2f %.1f" % (r["wavelet"], r["direction"], n, r["ms"], r["pct_copy"]))
' "$n"
done | while read -r w d n ms pct; do
    key=$w-$d
    [ "$n" = 1 ] && one[$key]=$ms
    printf '%-10s %-8s %6s %10s %7s%% %8.2fx\n' "$w" "$d" "$n" "$ms" "$pct" \
        "$(awk -v a="${one[$key]}" -v b="$ms" 'BEGIN { print a / b }')"
done | sort -s -k1,2
