#!/bin/sh
# The whole test suite, as CI runs it: a normal build (CUDA too where nvcc
# exists; GPU tests skip without a GPU), then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer. Build directories are reused
# when present. Usage: tests/run-all.sh
set -eu
cd "$(dirname "$0")/.."

setup() { # dir options...
    dir=$1
    shift
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >/dev/null
    else
        meson setup "$dir" "$@" >/dev/null
    fi
}

setup build
meson test -C build --print-errorlogs

setup build-asan -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    --buildtype=debugoptimized
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
WT_NO_ULIMIT=1 \
    meson test -C build-asan --print-errorlogs --timeout-multiplier 3
