#!/bin/bash
# The volume commands on the GPU machine (no numpy there): an N^3 uint8 .npy
# of random bytes, `decompose --volume` and `roundtrip --volume --psnr` on
# --device cuda and cpu, wall times. After dev/gpu/check.sh (build-gpu).
#   dev/gpu/volume_cli.sh [N] [wavelet]
set -u
N=${1:-256}
W=${2:-db3}
T=build-gpu/cli/wavetool
D=$(mktemp -d)
npy_u8() { # file n: an n^3 uint8 .npy, numpy's format 1.0
    local dict="{'descr': '|u1', 'fortran_order': False, 'shape': ($2, $2, $2), }"
    local len=$((${#dict} + 1)) pad
    pad=$(((64 - (10 + len) % 64) % 64))
    {
        printf '\x93NUMPY\x01\x00'
        printf "\\x$(printf %02x $(((len + pad) & 255)))\\x$(printf %02x $(((len + pad) >> 8)))"
        printf '%s%*s\n' "$dict" $pad ''
        head -c $(($2 * $2 * $2)) /dev/urandom
    } >"$1"
}
npy_u8 "$D/v.npy" "$N"
for dev in cuda cpu; do
    for run in 1 2; do
        s=$(date +%s.%N)
        $T decompose --volume --device $dev -w "$W" -l 3 "$D/v.npy" "$D/c-$dev.npz" || echo "decompose $dev failed"
        e=$(date +%s.%N)
        $T roundtrip --volume --device $dev -w "$W" -l 3 --psnr "$D/v.npy" 2>&1 | tail -1
        f=$(date +%s.%N)
        echo "$dev ${N}^3 $W L3 run $run: decompose $(awk "BEGIN{print $e - $s}") s, roundtrip $(awk "BEGIN{print $f - $e}") s"
    done
done
cmp -s "$D/c-cuda.npz" "$D/c-cpu.npz" && echo "npz files identical" || echo "npz files differ (float rounding between engines)"
rm -rf "$D"
