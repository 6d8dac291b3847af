#!/bin/bash
# No include cycle among the modules of src/, cli/ and cuda/: a module is a
# source and its header (cli/pages.c + cli/pages.h); module A uses module B
# when a file of A includes B's header. The graph of "uses" must have no
# cycle (tsort finds one and names its modules).
# Usage: include_cycle_check.sh SOURCEDIR. TAP on stdout.
set -u
cd "$1" || exit 1
mapfile -t files < <(find src cli cuda -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \
    -o -name '*.cuh' \) | sort)

# The file an '#include "NAME"' of a file in DIR names: DIR/NAME, else the
# first NAME under the include path's folders (src/ first).
resolve() {
    local dir=$1 name=$2
    if [ -f "$dir/$name" ]; then echo "$dir/$name"; return; fi
    find src cli cuda -path "*/$name" -type f 2>/dev/null | sort | head -n 1
}

edges=$(for f in "${files[@]}"; do
    dir=$(dirname "$f")
    grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+"' "$f" |
        sed -E 's/.*"([^"]+)"/\1/' | while read -r name; do
            target=$(resolve "$dir" "$name")
            [ -n "$target" ] || continue
            from=${f%.*} to=${target%.*}
            [ "$from" = "$to" ] || echo "$from $to"
        done
done | sort -u)

echo "1..1"
if loop=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) && [ -z "$loop" ]; then
    echo "ok 1 - no include cycle among $(printf '%s\n' "$edges" | wc -l) module dependencies"
else
    echo "not ok 1 - include cycle among modules"
    printf '%s\n' "$loop" | sed 's/^/# /'
    exit 1
fi
