#!/bin/sh
# The whole test suite, as CI runs it: a normal build (CUDA too where nvcc
# exists; GPU tests skip without a GPU), then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (there ulimit -v cannot bound
# memory, so ASan's allocation cap does: the corpus's decompression bombs must
# fail cleanly on malloc returning NULL), then a short libFuzzer run of each
# harness when clang is installed. Build directories are reused when present.
# Usage: tests/run-all.sh
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
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
WT_NO_ULIMIT=1 \
    meson test -C build-asan --print-errorlogs --timeout-multiplier 3

if command -v clang >/dev/null 2>&1 && [ -z "${WT_NO_FUZZ:-}" ]; then
    CC=clang setup build-fuzz -Dcuda=disabled -Dfuzz=true -Db_sanitize=address,undefined \
        -Db_lundef=false --buildtype=debugoptimized
    ninja -C build-fuzz tests/fuzz/fuzz_image tests/fuzz/fuzz_npz >/dev/null
    tests/fuzz/run.sh build-fuzz "${WT_FUZZ_SECONDS:-60}"
fi
