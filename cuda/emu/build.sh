#!/bin/sh
# Builds tests/gpu/gpu_check (every tests/gpu/*.c) against the CUDA engine compiled for the host
# emulation (cuda/emu/cuda_emu.h): the kernels' arithmetic and indexing run
# on the CPU, one thread per block. A development aid for machines without a
# GPU; the real gate is `meson test --suite gpu` on a GPU machine.
#   cuda/emu/build.sh [OUTDIR]   ->  OUTDIR/gpu_check_emu (default /tmp/wt-emu)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/wt-emu}
mkdir -p "$out"
printf '#pragma once\n#define WT_HAVE_CUDA 1\n#define WT_VERSION "emu"\n' >"$out/config.h"
cflags="-O2 -g -D_GNU_SOURCE -I$out -I$root/cuda -fopenmp"
for d in "$root"/src "$root"/src/*/; do cflags="$cflags -I$d"; done
for f in "$root"/src/*.c "$root"/src/*/*.c; do
    [ -e "$f" ] || continue
    case $f in # the SIMD variants (src/engine/meson.build)
    *_avx2.c) isa=-mavx2 ;;
    *_avx512.c) isa="-mavx512f -mprefer-vector-width=512" ;;
    *) isa= ;;
    esac
    gcc -std=c11 $cflags $isa -c "$f" -o "$out/$(basename "$f" .c).o" &
done
for f in "$root"/cuda/*.cu; do
    g++ -std=c++17 -x c++ -DWT_CUDA_EMULATE $cflags -Wall -Wextra -Wno-unknown-pragmas -c "$f" \
        -o "$out/$(basename "$f" .cu).o" &
done
for f in "$root"/tests/gpu/*.c; do
    case $f in # a program of its own (nvJPEG, which the emulation compiles out)
    */jpeg_check.c) continue ;;
    esac
    gcc -std=c11 $cflags -Wall -Wextra -c "$f" -o "$out/$(basename "$f" .c).o" &
done
wait
g++ -fopenmp -o "$out/gpu_check_emu" "$out"/*.o -lpng -ljpeg -ltiff -lz -ldeflate -lm -lpthread
echo "$out/gpu_check_emu"
