#!/bin/sh
# The compute capabilities of the NVIDIA GPUs this machine has, one per line
# ("9.0"), as the driver reports them; nothing when there is no GPU, no driver
# or no nvidia-smi. Used by meson for -Dgpu_archs=auto (the default).
command -v nvidia-smi >/dev/null 2>&1 || exit 0
nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
    sed -n 's/^[[:space:]]*\([0-9][0-9]*\.[0-9]\)[[:space:]]*$/\1/p' | sort -u
exit 0
