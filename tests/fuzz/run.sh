#!/bin/sh
# Bounded fuzz runs: run.sh BUILD_DIR [SECONDS]. Seeds come from the corpus
# (and .npz files written by the tests); crashes land in tests/fuzz/crashes/
# and make the run fail. Prints executions per harness.
set -eu
build=$1
secs=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/image" "$work/npz" "$work/tiff" "$here/crashes"
find "$corpus" -type f \( -name '*.png' -o -name '*.jpg' \) -size -200k -exec cp {} "$work/image/" \; 2>/dev/null || true
cp "$here"/seeds/*.npz "$work/npz/" 2>/dev/null || true
find "$corpus" -type f -name '*.tif' -size -200k -exec cp {} "$work/tiff/" \; 2>/dev/null || true
status=0
for h in image npz tiff; do
    log=$work/$h.log
    if ! "$build/tests/fuzz/fuzz_$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
        -artifact_prefix="$here/crashes/${h}-" -print_final_stats=1 "$work/$h" >"$log" 2>&1; then
        status=1
        tail -40 "$log"
    fi
    echo "fuzz_$h: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?') executions in ${secs}s"
done
exit $status
