#!/bin/bash
# bench --volume on the GPU machine under launch policies of the volume
# level kernels (WT_CUDA_POLICY vol_* fields, cuda/cu_policy.h), without
# rebuilding, after dev/gpu/check.sh (build-gpu): the rows of each setting,
# 512^3 L3 haar, db3, cdf97 (conv) forward and inverse, % of the device copy
# in the same run; the axis passes (WT_CUDA_VOLUME=passes) first for scale.
# The grid starts and ends with "-" (the GPU's entry as is): its two rows
# show the run's noise.
#   dev/gpu/volume_sweep.sh [REPEAT]
#   VOL_GRID="- vol_ty=8 -" dev/gpu/volume_sweep.sh   # settings, space-separated
set -u
R=${1:-10}
W=${BUILD:-build-gpu}/cli/wavetool
VOL_GRID=${VOL_GRID:-"- vol_stages=3 vol_stages=3,vol_smem=150K vol_ty=8,vol_ty_inv=8 \
vol_tx=64,vol_tx_inv=32 vol_waves=2 vol_waves=4 vol_smem=200K vol_ty=32,vol_ty_inv=32,vol_smem=200K \
vol_ty=4,vol_tx=64,vol_ty_inv=8 -"}
nvidia-smi --query-gpu=name --format=csv,noheader
run() { # label, then the environment's assignments
    local label=$1
    shift
    echo "== $label"
    env "$@" $W bench --volume --device cuda --size 512x512x512 -l 3 -w haar,db3,cdf97 \
        --method conv --repeat "$R" 2>&1 | tail -6
}
run passes WT_CUDA_VOLUME=passes
for q in $VOL_GRID; do
    [ "$q" = - ] && run "level kernels (entry)" WT_CUDA_POLICY= || run "level kernels $q" WT_CUDA_POLICY="$q"
done
