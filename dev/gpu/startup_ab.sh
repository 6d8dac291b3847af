#!/bin/bash
# Wall time of one-file commands under --device auto, new build against a
# base build, alternated, median of 5 (after dev/gpu/check.sh with BASE=...):
# one 8192x8192 RGB PNG and one 1920x1080 JPEG through decompose (PNG
# mosaic), and --version.
#   dev/gpu/startup_ab.sh NEW_BUILD BASE_BUILD
set -u
N=$1/cli/wavetool B=$2/cli/wavetool
D=$(mktemp -d "${TMPDIR:-/tmp}/wtstart.XXXXXX")
trap 'rm -rf "$D"' EXIT
"$1/bench/make-photos" -q -n 1 -s 8192x8192 -f png --prefix big- "$D"
"$1/bench/make-photos" -q -n 1 -s 1920x1080 --prefix hd- "$D"
ms() { # command... -> wall ms
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
median() { tr ' ' '\n' | sort -n | sed -n 3p; }
for what in "decompose -l 3 $D/big-0000.png $D/o.png" "decompose -l 3 $D/hd-0000.jpg $D/o.png" \
    "--version"; do
    tn= tb=
    for r in 1 2 3 4 5; do
        tn="$tn $(ms $N $what)"
        tb="$tb $(ms $B $what)"
    done
    echo "$(basename "${what%% *}") ${what##*/}: new $(echo $tn | median) ms, base $(echo $tb | median) ms (runs new:$tn; base:$tb)"
done
$N decompose -v -l 3 "$D/big-0000.png" "$D/o.png" 2>&1 | head -5
