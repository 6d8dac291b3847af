#!/bin/bash
# --device auto against the faster of cpu and cuda, wall time of
# `wavetool decompose -w db3 -l 3 -O` over folders of photo-like JPEGs
# (make-photos), for each size x file count; and a shell loop calling wavetool
# once per file. Prints one table (docs/performance.md, "The auto engine").
#   bench/auto_device.sh BUILD_DIR [CASES...]     CASE = SIZExCOUNT, e.g. 1024x200
# Default cases: 64x1 256x10 256x200 1024x10 1024x200 4096x20 8192x5.
# Each figure is the median of RUNS runs (default 3), the engines' runs
# alternated in rotating order after an untimed one (no engine always first
# after make-photos); LOOP_FILES: files of the shell loop (default 50).
set -eu
B=$(cd "$1" && pwd)
shift
cases=${*:-64x1 256x10 256x200 1024x10 1024x200 4096x20 8192x5}
W=$B/cli/wavetool
RUNS=${RUNS:-3}
D=$(mktemp -d "${TMPDIR:-/tmp}/wtauto.XXXXXX")
trap 'rm -rf "$D"' EXIT

run_ms() { # command... : wall milliseconds of one run
    rm -rf "$D/out"
    local s=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    echo $((($(date +%s%N) - s) / 1000000))
}
median() { # numbers on stdin: the median of RUNS
    sort -n | sed -n "$(((RUNS + 1) / 2))p"
}
median_ms() { # command... : median wall milliseconds of RUNS runs
    for ((r = 0; r < RUNS; r++)); do run_ms "$@"; done | median
}

echo "# $(nproc) cores; GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
declare -A ms
printf '%-12s %8s %8s %8s %13s   %s\n' case auto cpu cuda "auto/faster" "auto chose"
for c in $cases; do
    side=${c%x*} count=${c#*x}
    dir=$D/in-$side-$count
    "$B/bench/make-photos" -q --count "$count" --size "${side}x$side" "$dir"
    run_ms "$W" decompose --device cpu -w db3 -l 3 -O "$D/out" "$dir" >/dev/null
    declare -A runs=()
    devs=(auto cpu cuda)
    for ((r = 0; r < RUNS; r++)); do
        for ((k = 0; k < 3; k++)); do
            dev=${devs[$(((r + k) % 3))]}
            runs[$dev]+="$(run_ms "$W" decompose --device $dev -w db3 -l 3 -O "$D/out" "$dir") "
        done
    done
    for dev in auto cpu cuda; do
        ms[$dev]=$(printf '%s\n' ${runs[$dev]} | median)
    done
    chose=$("$W" decompose -v --device auto -w db3 -l 3 -O "$D/out" "$dir" 2>&1 >/dev/null |
        sed -n 's/^wavetool: engine: \([a-z]*\).*/\1/p' | head -1)
    best=$((ms[cpu] < ms[cuda] ? ms[cpu] : ms[cuda]))
    printf '%-12s %8s %8s %8s %13s   %s\n' "${side}²×$count" "${ms[auto]}" "${ms[cpu]}" \
        "${ms[cuda]}" "$(awk -v a="${ms[auto]}" -v b="$best" 'BEGIN { printf "%.2f", a / b }')" "$chose"
done

# A shell loop, one process per file, over LOOP_FILES (default 50) files of 512².
loop_files=${LOOP_FILES:-50}
"$B/bench/make-photos" -q --count "$loop_files" --size 512x512 "$D/loop"
echo
printf '%-34s %8s\n' "$loop_files × 512² JPEG" "wall ms"
for dev in auto cpu cuda; do
    loop() { mkdir -p "$D/out"; for f in "$D"/loop/*.jpg; do "$W" decompose --device $dev -q -w db3 -l 3 "$f" "$D/out/$(basename "$f" .jpg).png"; done; }
    printf '%-34s %8s\n' "for f in *.jpg (--device $dev)" "$(median_ms loop)"
done
printf '%-34s %8s\n' "-O folder (--device auto)" "$(median_ms "$W" decompose --device auto -w db3 -l 3 -O "$D/out" "$D/loop")"
