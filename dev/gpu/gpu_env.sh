# Sourced (from the project's root) by the device scripts check.sh,
# policy_sweep.sh and bench_docs.sh: the toolchain of .gpu-deps, libtiff's
# headers and libdeflate from .gpu-libs (the GPU machine has the libtiff
# library but not its headers, and no libdeflate), and build DIR SRCDIR:
# meson for sm_90 (GPU_ARCHS=... for others), release, tests on, logs under
# $OUT.
. .gpu-deps/env.sh
T=$PWD/.gpu-libs/tiff
sys=/usr/lib/x86_64-linux-gnu/libtiff.so.6
if [ -e $sys ]; then # the system's libtiff, built against its own libjpeg
    ln -sf $sys "$T/lib/libtiff.so" && rm -f "$T"/lib/lib*.so.*
fi
Z=$PWD/.gpu-libs/deflate # libdeflate (PNG encoder), absent there too
export PKG_CONFIG_PATH=$T/lib/pkgconfig:$Z/lib/pkgconfig:${PKG_CONFIG_PATH:-} LD_LIBRARY_PATH=$T/lib:$Z/lib:${LD_LIBRARY_PATH:-}
build() { # dir srcdir
    meson setup "$1" "$2" -Dcuda=enabled -Dgpu_archs=${GPU_ARCHS:-90} -Dgpu_ptx=false --buildtype=release \
        -Dtests=true >"$OUT/setup-$1.log" 2>&1 &&
        ninja -C "$1" >"$OUT/build-$1.log" 2>&1 || { tail -n 30 "$OUT/build-$1.log" "$OUT/setup-$1.log"; return 1; }
}
