#!/bin/bash
# Peak host memory of wavetool on a huge image: writes a tiled 16-bit gray TIFF of
# SIZE x SIZE with make-big-tiff (once), then runs decompose (to .npz) and
# roundtrip --psnr on it with --device DEVICE, and prints each command's peak
# RSS, its ratio to the decoded image (SIZE^2 x 2 bytes) and its time.
#
#   tools/measure_memory.sh [-d DEVICE] [-s SIZE] [-b BUILD_DIR] [-w WORK_DIR] [-k]
#   (STDIN_TOO=1: also roundtrip from standard input, the whole file in memory)
#
# Defaults: cpu, 30000 (1.8 GB decoded), ./build, a temporary directory removed
# at the end (-k keeps it). Needs python3 (standard library) or GNU time for the
# peak RSS, and awk; --max-memory 0 lifts wavetool's own estimate (20 bytes a
# sample). The "stdin" line reads the file from standard input instead, which
# holds the whole file in memory besides the decoded image.
set -u
device=cpu size=30000 build=build work= keep=0
while getopts d:s:b:w:k opt; do
    case $opt in
    d) device=$OPTARG ;;
    s) size=$OPTARG ;;
    b) build=$OPTARG ;;
    w) work=$OPTARG ;;
    k) keep=1 ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
    esac
done
wavetool=$build/cli/wavetool maker=$build/make-big-tiff
for exe in "$wavetool" "$maker"; do
    [ -x "$exe" ] || { echo "measure_memory: $exe not built (meson setup -Dtests=true)" >&2; exit 2; }
done
if [ -z "$work" ]; then
    work=$(mktemp -d) || exit 1
    [ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"

# "STATUS PEAK_KIB" of a command (its output passes through): a small Python
# (standard library only) forks it, since a child's ru_maxrss starts from its
# parent's; else GNU time.
peak() {
    local status=$work/peak.txt
    if command -v python3 >/dev/null; then
        python3 -S -c '
import os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, file=f)' "$status" "$@"
    else
        /usr/bin/time -o "$status" -f '%x %M' "$@"
    fi
    tail -1 "$status"
}

tif=$work/big_${size}.tif
if [ ! -s "$tif" ]; then
    t0=$(date +%s.%N)
    "$maker" "$tif" "$size" "$size" || exit 1
    printf 'wrote %s (%s bytes) in %.1f s\n' "$tif" "$(stat -c %s "$tif")" \
        "$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN {print a - b}')"
fi
decoded=$((size * size * 2))
printf 'image: %dx%d 16-bit gray, decoded %d MiB; device %s; %s\n' "$size" "$size" \
    $((decoded >> 20)) "$device" "$(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB RAM"

measure() {
    local name=$1
    shift
    local t0 t1 out line rc kib
    t0=$(date +%s.%N)
    out=$(peak "$@" 2>&1)
    t1=$(date +%s.%N)
    line=$(printf '%s\n' "$out" | tail -1)
    rc=${line%% *} kib=${line##* }
    printf '%s\n' "$out" | sed '$d' | sed "s/^/  $name: /"
    if [ "$rc" != 0 ]; then
        echo "$name: exit $rc"
        return 1
    fi
    awk -v n="$name" -v k="$kib" -v d="$decoded" -v a="$t1" -v b="$t0" \
        'BEGIN {printf "%-10s peak RSS %6d MiB = %.2f x decoded, %.1f s\n", n, k / 1024, k * 1024 / d, a - b}'
}

status=0
measure decompose "$wavetool" decompose --device "$device" --max-memory 0 -q "$tif" "$work/big.npz" || status=1
rm -f "$work/big.npz"
measure roundtrip "$wavetool" roundtrip --device "$device" --max-memory 0 --psnr "$tif" || status=1
[ -n "${STDIN_TOO:-}" ] && { measure stdin bash -c '"$0" roundtrip --device "$1" --max-memory 0 --psnr - < "$2"' "$wavetool" "$device" "$tif" || status=1; }
exit $status
