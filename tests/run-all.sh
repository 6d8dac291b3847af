#!/bin/sh
# The whole test suite, as CI runs it: a normal build (CUDA too where nvcc
# exists; GPU tests skip without a GPU), then the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer (there ulimit -v cannot bound
# memory, so ASan's allocation cap does: the corpus's decompression bombs must
# fail cleanly on malloc returning NULL), then a short libFuzzer run of each
# harness when clang and its libFuzzer runtime are installed (else a note says
# why the step is skipped). Build directories are reused when present.
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

# Its own build folders (build-test, build-asan, build-fuzz): the install's
# build/ is never reconfigured. Device code for 7.5 (the paths without
# cp.async) and 9.0 (cp.async, PDL) only, GPU or not: the CUDA code must
# compile everywhere, and the portable set's nine targets take many minutes
# on two cores; the gpu-archs test checks the flags (WT_TEST_GPU_ARCHS overrides).
setup build-test -Dtests=true -Dgpu_archs="${WT_TEST_GPU_ARCHS:-75,90}" -Dgpu_ptx=false
meson test -C build-test --print-errorlogs

setup build-asan -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false \
    --buildtype=debugoptimized
ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=2048 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
WT_NO_ULIMIT=1 \
    meson test -C build-asan --print-errorlogs --timeout-multiplier 3

# libFuzzer's runtime is its own package (Debian/Ubuntu: libclang-rt-dev, for
# the default clang of each release): try a link before relying on it.
fuzz_toolchain() {
    command -v clang >/dev/null 2>&1 || { echo "clang is not installed"; return 1; }
    probe=$(mktemp -d "${TMPDIR:-/tmp}/wt-fuzz-probe.XXXXXX")
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
        'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n == 7; }' \
        >"$probe/probe.c"
    if clang -fsanitize=fuzzer "$probe/probe.c" -o "$probe/probe" >"$probe/log" 2>&1; then
        rm -rf "$probe"
        return 0
    fi
    echo "clang -fsanitize=fuzzer does not link ($(grep -m1 -iE 'error|cannot find' "$probe/log"))"
    rm -rf "$probe"
    return 1
}

if [ -n "${WT_NO_FUZZ:-}" ]; then
    echo "tests/run-all.sh: fuzz step skipped (WT_NO_FUZZ is set)"
elif ! why=$(fuzz_toolchain); then
    echo "tests/run-all.sh: fuzz step skipped: $why;" \
        "install clang and its libFuzzer runtime (Debian/Ubuntu: apt-get install clang libclang-rt-dev)"
else
    CC=clang setup build-fuzz -Dcuda=disabled -Dfuzz=true -Db_sanitize=address,undefined \
        -Db_lundef=false --buildtype=debugoptimized
    ninja -C build-fuzz tests/fuzz/fuzz_image tests/fuzz/fuzz_npz tests/fuzz/fuzz_cli tests/fuzz/fuzz_tiff tests/fuzz/fuzz_npy >/dev/null
    tests/fuzz/run.sh build-fuzz "${WT_FUZZ_SECONDS:-60}"
fi
