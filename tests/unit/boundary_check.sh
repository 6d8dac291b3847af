#!/bin/sh
# The public/private boundary: cli/ and tests/ include from src/ only the
# public header (wavetool.h) and the documented hooks (wavetool_hooks.h);
# their own headers and config.h are theirs. Listed exceptions, white-box
# tests of internals with no public entry: tests/unit/test_engine.c (the 1D line
# transform, src/engine/dwt_line.h, and its passes, axis_view.h, axis_filter.h), tests/reference/axis_pipe.c (the n-D axis
# core: axis_filter.h, dwt_line.h, undecimated_geometry.h) and the fuzz
# harnesses of single codecs (tests/fuzz/fuzz_*.c, src/formats/image_codec.h).
# Usage: boundary_check.sh SOURCEDIR. TAP on stdout.
src=${1:?usage: boundary_check.sh SOURCEDIR}
allowed='wavetool.h wavetool_hooks.h'
n=0 failed=0
is_library_header() { # name: a header of src/ or of one of its folders
    for dir in "$src"/src "$src"/src/*/; do
        [ -e "$dir/$1" ] && return 0
    done
    return 1
}
echo "1..2"
check() { # description files...
    desc=$1
    shift
    bad=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" 2>/dev/null |
        while IFS= read -r line; do
            name=$(printf '%s\n' "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
            is_library_header "$name" || continue
            case " $allowed " in *" $name "*) continue ;; esac
            case "$line:$name" in
            *test_engine.c:*:dwt_line.h | *test_engine.c:*:axis_view.h) continue ;;
            *test_engine.c:*:axis_filter.h) continue ;;
            */fuzz/fuzz_*.c:*:image_codec.h) continue ;;
            */axis_pipe.c:*:axis_filter.h | */axis_pipe.c:*:dwt_line.h) continue ;;
            */axis_pipe.c:*:undecimated_geometry.h) continue ;;
            esac
            printf '%s\n' "$line"
        done)
    n=$((n + 1))
    if [ -z "$bad" ]; then
        echo "ok $n - $desc"
    else
        failed=1
        echo "not ok $n - $desc"
        printf '%s\n' "$bad" | sed 's/^/# /'
    fi
}
check "cli/ includes only wavetool.h and wavetool_hooks.h from src/" "$src"/cli/*.[ch] "$src"/cli/*/*.[ch]
check "tests/ include only wavetool.h and wavetool_hooks.h from src/" "$src"/tests/*/*.c
exit $failed
