#!/bin/sh
# The nvcc code generation flags for meson option gpu_archs, one per line.
# Usage: cuda/gpu_archs.sh KNOWN PTX ARCH...
#   KNOWN  the real architectures nvcc can build (`nvcc --list-gpu-code`,
#          e.g. "sm_75 sm_80 ... sm_121"), in one argument
#   PTX    "true": also embed PTX of the newest chosen architecture, which
#          the driver compiles for GPUs newer than every real code held
#   ARCH   "portable" (the default): 75, 80, 86, 89, 90 and, of each newer
#          major version nvcc knows, its first (13.0: 100, 110, 120); a SASS
#          binary runs on later minor versions of its major (sm_80 on 8.7,
#          sm_120 on 12.1), so these cover every GPU from 7.5 up; or numbers
#          such as 80 90 for a build for those GPUs only (fast builds); or
#          cc:X.Y, a GPU of compute capability X.Y (meson's -Dgpu_archs=auto
#          passes one per GPU present): its own code where nvcc has it, else
#          the newest code of its major that it runs (sm_80 on 8.7), else,
#          for a GPU newer than nvcc, nvcc's newest (its PTX runs there)
# The last line is "archs=" and the list of what the build holds, for the
# message of a GPU without code ("sm_80 sm_90 compute_90").
# An unknown architecture: a message on stderr and exit status 1.
set -eu
known=$(printf '%s\n' $1 | sed -n 's/^sm_\([0-9][0-9]*\)$/\1/p' | sort -n | uniq)
ptx=$2
shift 2
[ -n "$known" ] || { echo "gpu_archs: nvcc lists no sm_NN architectures" >&2; exit 1; }

portable() {
    last_major=9
    for a in $known; do
        case " 75 80 86 89 90 " in
        *" $a "*) echo "$a" ;;
        *) [ "$a" -gt 90 ] && [ $((a / 10)) -gt "$last_major" ] && echo "$a" && last_major=$((a / 10)) ;;
        esac
    done
    return 0
}

for_gpu() { # X.Y -> the architecture to build for that GPU
    cc=$(echo "$1" | tr -d .)
    major=${1%%.*}
    best=""
    for a in $known; do
        [ $((a / 10)) -eq "$major" ] && [ "$a" -le "$cc" ] && best=$a
    done
    newest=$(printf '%s\n' $known | tail -n 1)
    if [ -z "$best" ] && [ "$cc" -gt "$newest" ]; then
        best=$newest
    fi
    [ -n "$best" ] || {
        echo "gpu_archs: this machine's GPU (compute capability $1) is older than what nvcc builds for (it knows: $(echo $known))" >&2
        exit 1
    }
    echo "$best"
}

chosen=""
for v in "$@"; do
    if [ "$v" = portable ]; then
        chosen="$chosen $(portable)"
    elif [ "${v#cc:}" != "$v" ] && printf '%s\n' "${v#cc:}" | grep -qx '[0-9][0-9]*\.[0-9]'; then
        chosen="$chosen $(for_gpu "${v#cc:}")" || exit 1
    elif printf '%s\n' $known | grep -qx "$v"; then
        chosen="$chosen $v"
    else
        echo "gpu_archs: nvcc does not build for '$v' (it knows: $(echo $known) or 'portable')" >&2
        exit 1
    fi
done
chosen=$(printf '%s\n' $chosen | sort -n | uniq)
[ -n "$chosen" ] || { echo "gpu_archs: no architecture chosen" >&2; exit 1; }

held=""
for a in $chosen; do
    echo "-gencode=arch=compute_$a,code=sm_$a"
    held="$held sm_$a"
done
if [ "$ptx" = true ]; then
    newest=$(printf '%s\n' $chosen | tail -n 1)
    echo "-gencode=arch=compute_$newest,code=compute_$newest"
    held="$held compute_$newest"
fi
echo "archs=${held# }"
