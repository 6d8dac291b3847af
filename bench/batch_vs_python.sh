#!/bin/bash
# Batch throughput: wavetool against the Python equivalent (bench/pywt_pillow.py,
# Pillow + PyWavelets) on a folder of photo-like JPEGs (docs/performance.md).
#   bench/batch_vs_python.sh BUILD_DIR [COUNT [WxH [RUNS]]]
# Defaults: 60 images of 1920x1080, 3 runs each; prints one line per command:
# median wall time, images/s and the peak RSS of the largest process
# (/usr/bin/time -v; a Python pool has one such process per job), and the CPU
# time (user + system) of the median run. On a shared machine each run first
# waits (up to WAIT seconds, default 120) until nothing else is running.
# Needs GNU time, bc, python3-pil and python3-pywt (for /usr/bin/python3).
set -eu
B=$(cd "$1" && pwd)
COUNT=${2:-60}
SIZE=${3:-1920x1080}
RUNS=${4:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-/usr/bin/python3}
D=$(mktemp -d "${TMPDIR:-/tmp}/wtbatch.XXXXXX")
trap 'rm -rf "$D"' EXIT

"$B/bench/make-photos" -q --count "$COUNT" --size "$SIZE" "$D/photos"
echo "# $(date -u +%F) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs);" \
     "$COUNT JPEGs of $SIZE ($(du -sh "$D/photos" | cut -f1)); $RUNS runs, median"

# Wait until no other process is runnable for 2 s in a row (or WAIT seconds).
wait_quiet() {
    local quiet=0 t
    for ((t = 0; t < ${WAIT:-120} * 4 && quiet < 8; t++)); do
        [ "$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f1)" -le 1 ] && quiet=$((quiet + 1)) || quiet=0
        sleep 0.25
    done
}

measure() { # LABEL COMMAND...
    local label=$1 walls=() cpus=() rss=0 r kb
    shift
    for ((r = 0; r < RUNS; r++)); do
        rm -rf "$D/out"
        wait_quiet
        /usr/bin/time -v -o "$D/time" "$@" >/dev/null 2>"$D/err" || { cat "$D/err"; exit 1; }
        walls+=("$(awk -F': ' '/Elapsed/ {n = split($2, t, ":"); s = 0;
                    for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$D/time")")
        cpus+=("$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$D/time")")
        kb=$(awk -F': ' '/Maximum resident/ {print $2}' "$D/time")
        rss=$((kb > rss ? kb : rss))
    done
    local med cpu
    med=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
    for ((r = 0; r < RUNS; r++)); do
        [ "${walls[r]}" = "$med" ] && cpu=${cpus[r]}
    done
    printf '%-26s wall %6.2f s (runs: %s)  %6.2f images/s  CPU %6.2f s  peak RSS %4d MB  load %s\n' \
        "$label" "$med" "${walls[*]}" "$(echo "$COUNT / $med" | bc -l)" "$cpu" $((rss / 1024)) \
        "$(cut -d' ' -f1-3 /proc/loadavg)"
}

measure "wavetool -j $(nproc)" "$B/cli/wavetool" decompose -q -l 3 --device cpu -j "$(nproc)" \
    -O "$D/out" "$D/photos"
measure "wavetool -j 1" "$B/cli/wavetool" decompose -q -l 3 --device cpu -j 1 -O "$D/out" "$D/photos"
measure "pywt_pillow.py --jobs 1" "$PY" "$HERE/pywt_pillow.py" -q --jobs 1 -O "$D/out" "$D/photos"
measure "pywt_pillow.py --jobs $(nproc)" "$PY" "$HERE/pywt_pillow.py" -q --jobs "$(nproc)" \
    -O "$D/out" "$D/photos"
