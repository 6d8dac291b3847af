#!/bin/bash
# The image paths on the GPU machine (after the build): the gate of the image
# cases (large included) and a quick run of everything, the host-path
# benchmark, then compute-sanitizer on quick image subsets. Logs under $OUT.
#   cuda/gpu_image_session.sh BUILDDIR
set -u
B=${1:-build-gpu}
O=${OUT:-/tmp}
W=$B/cli/wavetool
echo "== $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "== gpu_check --images-only (large included)"
timeout 200 $B/tests/gpu_check --images-only --seed 11 > "$O/images.log" 2>&1
echo "exit $?"; tail -n 3 "$O/images.log"; grep -m 20 FAIL "$O/images.log"
echo "== gpu_check --quick (float paths and image paths)"
timeout 150 $B/tests/gpu_check --quick --seed 12 > "$O/quick.log" 2>&1
echo "exit $?"; tail -n 3 "$O/quick.log"; grep -m 20 FAIL "$O/quick.log"
echo "== bench --host-path"
$W bench --host-path --repeat 9
$W bench --host-path --repeat 9 -w cdf97 --method lifting
$W bench --host-path --repeat 5 --format json > "$O/hostpath.json" 2>&1
if [ "${SANITIZE:-1}" = 1 ]; then
    echo "== compute-sanitizer memcheck (gpu_check --images-only --quick --no-large)"
    timeout 120 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 \
        $B/tests/gpu_check --images-only --quick --no-large --seed 3 > "$O/memcheck.log" 2>&1
    echo "memcheck exit: $?"; tail -n 3 "$O/memcheck.log"
    for w in haar legall53; do
        echo "== compute-sanitizer racecheck (gpu_check --images-only --quick --no-large --wavelet $w)"
        timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 \
            $B/tests/gpu_check --images-only --quick --no-large --wavelet $w --seed 3 \
            > "$O/racecheck-$w.log" 2>&1
        echo "racecheck exit: $?"; tail -n 2 "$O/racecheck-$w.log"
    done
fi
