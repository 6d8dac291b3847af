#!/bin/sh
# `meson install` as a library user meets it: install the build into a
# DESTDIR, check what landed (program, man page, completions, shared and static
# libwavetool with its soname, only the public header, wavetool.pc), then build
# the README's library example (extracted from README.md, so it cannot rot)
# against that tree with nothing but `pkg-config --cflags --libs wavetool`,
# shared and static, run both, and check their .npz equals the installed
# program's and reconstructs the image exactly.
# Usage: install_check.sh MESON BUILDDIR SOURCEDIR VERSION SOVERSION PREFIX \
#            BINDIR LIBDIR INCLUDEDIR MANDIR DATADIR SANITIZE
# Environment: CC (the build's C compiler command). TAP on stdout; exit 77 (skip)
# without pkg-config or readelf.
set -u
meson=$1 build=$2 src=$3 version=$4 soversion=$5 prefix=$6
bindir=$7 libdir=$8 includedir=$9
shift 9
mandir=$1 datadir=$2 sanitize=$3
cc=${CC:-cc}

for tool in pkg-config readelf nm; do
    command -v "$tool" >/dev/null 2>&1 || { echo "1..0 # SKIP no $tool"; exit 77; }
done

abs() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bindir=$(abs "$bindir") libdir=$(abs "$libdir") includedir=$(abs "$includedir")
mandir=$(abs "$mandir") datadir=$(abs "$datadir")
sanflags=
[ "$sanitize" = none ] || sanflags="-fsanitize=$sanitize"

work=$(mktemp -d "${TMPDIR:-/tmp}/wt-install.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
dest=$work/dest
D() { echo "$dest$1"; }   # where an installed path lies under DESTDIR

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; echo "$2" | sed 's/^/# /'; }
check() { # description command...: ok when the command succeeds (its output shown on failure)
    desc=$1
    shift
    if out=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc" "$out"; fi
}

echo "1..16"
check "meson install --destdir" $meson install -C "$build" --no-rebuild --quiet --destdir "$dest"

check "wavetool installed and runs" "$(D "$bindir")/wavetool" --version
check "man page" test -s "$(D "$mandir")/man1/wavetool.1"
check "bash completion" cmp "$src/completions/wavetool.bash" \
    "$(D "$datadir")/bash-completion/completions/wavetool"
check "zsh completion" cmp "$src/completions/_wavetool" "$(D "$datadir")/zsh/site-functions/_wavetool"

lib=$(D "$libdir")
soname=$(readelf -d "$lib/libwavetool.so" 2>&1 | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
check "shared library libwavetool.so.$version, soname libwavetool.so.$soversion" \
    sh -c "test -f '$lib/libwavetool.so.$version' && test -L '$lib/libwavetool.so.$soversion' &&
           test '$soname' = 'libwavetool.so.$soversion'"
check "static library" test -s "$lib/libwavetool.a"

headers=$(cd "$dest" && find . -name '*.h' -o -name '*.cuh' -o -name '*.hpp' | sort)
check "only the public header is installed (found: $(echo $headers))" \
    test "$headers" = ".$includedir/wavetool.h"
hdr_version=$(sed -n 's/^#define WT_VERSION_STRING "\(.*\)"/\1/p' "$(D "$includedir")/wavetool.h")
check "wavetool.h says version $version (it says $hdr_version)" test "$hdr_version" = "$version"

# The shared library exports exactly the functions the header declares.
nm -D --defined-only "$lib/libwavetool.so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
    sed 's/@.*//' | sort -u >"$work/exported"
# (a typedef of a function pointer names its return type, not a function)
perl -0777 -pe 's{/\*.*?\*/}{}gs; s{^\s*#.*$}{}mg; s{^typedef\s+\w+\s*\(\*[^;]*;}{}mg' \
    "$(D "$includedir")/wavetool.h" |
    grep -oE '\bwt_[A-Za-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$work/declared"
check "exports = the header's functions (missing | extra: $(comm -13 "$work/exported" "$work/declared" |
       tr '\n' ' ')| $(comm -23 "$work/exported" "$work/declared" | tr '\n' ' '))" \
    cmp -s "$work/exported" "$work/declared"

# The README's example, built with nothing but pkg-config's flags for the installed tree.
sed -n '/<!-- library-example -->/,/^```$/p' "$src/README.md" | sed '1,2d;$d' >"$work/decompose.c"
# (the caller's PKG_CONFIG_PATH after ours: where libtiff's .pc lies outside the system)
export PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" PKG_CONFIG_SYSROOT_DIR="$dest"
if [ "$prefix" = /usr ]; then # else pkg-config drops -I/usr/include before adding the sysroot
    export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
fi
# The sysroot prefixes every -I and -L, the system's too (libpng's, the CUDA
# runtime's): our DESTDIR is laid over /, so a path not in it is the host's.
overlay() {
    for f in "$@"; do
        case $f in
        -I"$dest"/* | -L"$dest"/*)
            [ -e "${f#-?}" ] || f=${f%%"$dest"*}${f#-?"$dest"} ;;
        "$dest"/*) # a library by its path (CUDA's libcudart.so under /usr/local/cuda)
            [ -e "$f" ] || f=${f#"$dest"} ;;
        esac
        printf '%s ' "$f"
    done
}
# shellcheck disable=SC2046 # flags are lists
cflags=$(overlay $(pkg-config --cflags wavetool)) libs=$(overlay $(pkg-config --libs wavetool))
# shellcheck disable=SC2046
static_libs=$(overlay $(pkg-config --static --libs wavetool | sed 's/-lwavetool\b/-l:libwavetool.a/'))
strict="-std=c11 -Wall -Wextra -Werror -pedantic"
# shellcheck disable=SC2086 # flags are lists
check "README example builds against the shared library (pkg-config: $cflags $libs)" \
    sh -c "test -s '$work/decompose.c' && case '$cflags' in *'$dest'*) ;; *) exit 1 ;; esac &&
           $cc $strict $sanflags -o '$work/dec-shared' '$work/decompose.c' $cflags $libs"
# shellcheck disable=SC2086
check "README example builds against the static library (pkg-config --static: $static_libs)" \
    $cc $strict $sanflags -o "$work/dec-static" "$work/decompose.c" $cflags $static_libs

in=$src/data/astronaut.png
# (the library's "auto" takes a GPU whenever one opens; the program's weighs the
# job first: WT_AUTO_DEVICE=gpu makes both take the same engine)
check "both examples run and write the same .npz as 'wavetool decompose -w db3 -l 3'" sh -c "
    LD_LIBRARY_PATH='$lib'${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} '$work/dec-shared' '$in' '$work/shared.npz' &&
    ldd '$work/dec-shared' | grep -q libwavetool.so &&
    '$work/dec-static' '$in' '$work/static.npz' &&
    WT_AUTO_DEVICE=gpu '$(D "$bindir")/wavetool' decompose -q -w db3 -l 3 '$in' '$work/cli.npz' &&
    cmp '$work/shared.npz' '$work/cli.npz' && cmp '$work/static.npz' '$work/cli.npz'"
check "the example's .npz reconstructs the image exactly" sh -c "
    '$(D "$bindir")/wavetool' reconstruct -q '$work/shared.npz' '$work/back.png' &&
    '$(D "$bindir")/wavetool' compare --format tsv '$in' '$work/back.png' | tail -n 1 | grep -qw inf"

# The CUDA runtime is linked statically: the program starts where the driver is
# and the toolkit is not, and with neither (then on the CPU engine).
check "the installed wavetool needs no libcudart ($(ldd "$(D "$bindir")/wavetool" | grep -o 'libcudart[^ ]*' | tr '\n' ' '))" \
    sh -c "! ldd '$(D "$bindir")/wavetool' | grep -q libcudart"
# (The library path keeps what the other libraries may need on this machine,
# less every CUDA directory.)
no_cuda_path=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | grep -iv cuda | paste -sd: -)
check "the installed wavetool runs with no CUDA directory on its library path" sh -c "
    env -i LD_LIBRARY_PATH='$no_cuda_path' '$(D "$bindir")/wavetool' decompose -q -l 2 '$in' '$work/env.npz' &&
    test -s '$work/env.npz'"

[ "$failed" -eq 0 ]
