#!/bin/sh
# Fills .gpu-libs/ (git-ignored) on the development machine, once per
# checkout, after ../shared/gpu/prepare: libtiff's headers and libdeflate
# (headers and library) with relocatable .pc files, which the GPU machine
# lacks, and libtiff itself with its codecs' libraries where it lacks those. dev/gpu/gpu_env.sh puts them on PKG_CONFIG_PATH there (and links the
# GPU machine's own libtiff.so.6 in place of the copy made here).
set -eu
L=$(pkg-config --variable=libdir libtiff-4)
TI=$(pkg-config --variable=includedir libtiff-4)
DI=$(pkg-config --variable=includedir libdeflate)
DL=$(pkg-config --variable=libdir libdeflate)
[ -e "$DL/libdeflate.so.0" ] || DL=$L
for d in tiff deflate; do mkdir -p .gpu-libs/$d/include .gpu-libs/$d/lib/pkgconfig; done
cp "$TI"/tiff*.h .gpu-libs/tiff/include/
cp -L "$L/libtiff.so.6" .gpu-libs/tiff/lib/ && ln -sf libtiff.so.6 .gpu-libs/tiff/lib/libtiff.so
# libtiff's codecs' libraries, which a GPU machine may lack too (the system's
# own libtiff, where there is one, replaces all of these: gpu_env.sh)
for dep in $(ldd "$L/libtiff.so.6" | awk '/=> \//{print $3}'); do
    case $(basename "$dep") in
    libc.so* | libm.so* | libz.so* | libstdc++* | libgcc_s* | libzstd* | liblzma*) ;;
    *) cp -L "$dep" .gpu-libs/tiff/lib/ ;;
    esac
done
cp "$DI/libdeflate.h" .gpu-libs/deflate/include/
cp -L "$DL/libdeflate.so.0" .gpu-libs/deflate/lib/ && ln -sf libdeflate.so.0 .gpu-libs/deflate/lib/libdeflate.so
pc() { # dir name module version
    printf 'prefix=${pcfiledir}/../..\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n\nName: %s\nDescription: %s for the GPU machine\nVersion: %s\nLibs: -L${libdir} -l%s\nCflags: -I${includedir}\n' \
        "$2" "$2" "$4" "$3" >".gpu-libs/$1/lib/pkgconfig/$2.pc"
}
pc tiff libtiff-4 tiff "$(pkg-config --modversion libtiff-4)"
pc deflate libdeflate deflate "$(pkg-config --modversion libdeflate)"
echo "filled .gpu-libs: carry it with .gpu-deps"
