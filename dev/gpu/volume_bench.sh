#!/bin/bash
# bench --volume on the GPU machine, after dev/gpu/check.sh (build-gpu): the
# level kernels (the default), then the axis passes
# (WT_CUDA_VOLUME=passes) in the same session, each against a device copy of
# the same bytes; the SWT (256^3: 7L + 1 volumes of bands) and the starlet;
# 1024^3 db3 (about 9.7 GB on the device); the CPU engine's
# 256^3 for scale.
#   dev/gpu/volume_bench.sh [REPEAT]
set -u
R=${1:-20}
W=build-gpu/cli/wavetool
nvidia-smi --query-gpu=name --format=csv,noheader
for n in 256 512; do
    $W bench --volume --device cuda --size ${n}x${n}x${n} -l 3 -w haar,db3,cdf97 --method conv --repeat "$R"
done
echo "== WT_CUDA_VOLUME=passes"
WT_CUDA_VOLUME=passes $W bench --volume --device cuda --size 512x512x512 -l 3 \
    -w haar,db3,cdf97 --method conv --repeat "$R" | tail -6
echo "== SWT and starlet (device-resident; copy of the same bytes: SWT 9 volumes a level)"
$W bench --volume --device cuda --transform swt --size 256x256x256 -l 3 -w haar,db3 --repeat "$R" | tail -4
$W bench --volume --device cuda --transform starlet --size 512x512x512 -l 3 --repeat "$R" | tail -2
echo "== 1024^3"
$W bench --volume --device cuda --size 1024x1024x1024 -l 3 -w db3 --method conv --repeat 5 | tail -2
echo "== the CPU engine"
$W bench --volume --device cpu --size 256x256x256 -l 3 -w haar,db3 --repeat 3 | tail -4
