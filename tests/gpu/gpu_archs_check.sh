#!/bin/sh
# Which GPUs a build runs on: cuda/gpu_archs.sh, which turns
# option gpu_archs into nvcc's -gencode flags, on nvcc 13.0's list and on a
# later one; then, in a CUDA build, the flags nvcc was given for the engine
# (compile_commands.json): the default build holds real code for 7.5 to 12.x
# and PTX. Needs no GPU and no nvcc (the CUDA part is skipped without one).
# Usage: gpu_archs_check.sh GPU_ARCHS_SH BUILD_DIR "GPU_ARCHS..." GPU_PTX
set -u
script=$1 build=$2 archs=$3 ptx=$4
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; echo "$2" | sed 's/^/# /'; }
expect() { # name expected actual
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $2
got:      $3"; fi
}
flags() { sh "$script" "$@" 2>&1 | tr '\n' ' ' | sed 's/ $//'; }
gc() { for a in "$@"; do printf -- '-gencode=arch=compute_%s,code=sm_%s ' "$a" "$a"; done; }

nvcc130="sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_100 sm_110 sm_103 sm_120 sm_121"
expect "portable on nvcc 13.0: real code for 75 80 86 89 90 100 110 120, PTX of 120" \
    "$(gc 75 80 86 89 90 100 110 120)-gencode=arch=compute_120,code=compute_120 archs=sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_110 sm_120 compute_120" \
    "$(flags "$nvcc130" true portable)"
expect "portable on a later nvcc: its new major (130) and PTX of it" \
    "$(gc 75 80 86 89 90 100 120 130)-gencode=arch=compute_130,code=compute_130 archs=sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 sm_130 compute_130" \
    "$(flags "sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120 sm_121 sm_130 sm_132" true portable)"
expect "one architecture without PTX (the fast build)" \
    "$(gc 90)archs=sm_90" "$(flags "$nvcc130" false 90)"
expect "a list, repeated and unordered: sorted, once each, PTX of the newest" \
    "$(gc 80 90)-gencode=arch=compute_90,code=compute_90 archs=sm_80 sm_90 compute_90" \
    "$(flags "$nvcc130" true 90 80 90)"
expect "a GPU present (auto): its own code and PTX" \
    "$(gc 90)-gencode=arch=compute_90,code=compute_90 archs=sm_90 compute_90" \
    "$(flags "$nvcc130" true cc:9.0)"
expect "GPUs present without their own code: the newest of their major they run" \
    "$(gc 80 121)archs=sm_80 sm_121" "$(flags "$nvcc130" false cc:8.5 cc:12.4)"
expect "a GPU newer than nvcc: nvcc's newest code and its PTX" \
    "$(gc 121)-gencode=arch=compute_121,code=compute_121 archs=sm_121 compute_121" \
    "$(flags "$nvcc130" true cc:15.0)"
msg=$(sh "$script" "$nvcc130" true cc:6.1 2>&1 >/dev/null)
st=$?
expect "a GPU older than nvcc's oldest target: exit 1 and one message naming it" \
    "1 gpu_archs: this machine's GPU (compute capability 6.1) is older than what nvcc builds for (it knows: 75 80 86 87 88 89 90 100 103 110 120 121)" \
    "$st $msg"
msg=$(sh "$script" "$nvcc130" true 70 2>&1 >/dev/null)
st=$?
expect "an architecture nvcc does not build: exit 1 and one message naming it" \
    "1 gpu_archs: nvcc does not build for '70' (it knows: 75 80 86 87 88 89 90 100 103 110 120 121 or 'portable')" \
    "$st $msg"

opts=$(dirname "$script")/../meson_options.txt
expect "the option's default is auto (the GPUs present), with PTX" "2" \
    "$(grep -c -e "^option('gpu_archs', type: 'array', value: \['auto'\]" \
        -e "^option('gpu_ptx', type: 'boolean', value: true" "$opts")"

# The flags this build gave nvcc for the engine.
cmds=$build/compile_commands.json
engine_cmd=$(grep -m 1 '"command": .* -c [^ ]*cu_engine\.cu"' "$cmds" 2>/dev/null)
if [ -z "$engine_cmd" ]; then
    echo "ok $((n + 1)) - # SKIP the CUDA flags: this build has no CUDA engine"
    n=$((n + 1))
else
    used=$(printf '%s\n' $engine_cmd | grep -- '-gencode=' | tr '\n' ' ' | sed 's/ $//')
    nvcc=$(printf '%s\n' $engine_cmd | sed -n '2s/^"//p')
    want=$(sh "$script" "$("$nvcc" --list-gpu-code 2>/dev/null | tr '\n' ' ')" "$ptx" $archs |
        grep -- '-gencode=' | tr '\n' ' ' | sed 's/ $//')
    expect "nvcc got the -gencode flags of gpu_archs=[$archs] gpu_ptx=$ptx" "$want" "$used"
    if [ "$archs" = portable ]; then
        missing=""
        for a in 75 80 86 89 90; do
            case " $used " in *"code=sm_$a "*) ;; *) missing="$missing sm_$a" ;; esac
        done
        [ "$ptx" != true ] || case "$used" in *"code=compute_"*) ;; *) missing="$missing PTX" ;; esac
        expect "the default build holds code for every GPU from 7.5 up (and PTX)" "" "$missing"
    fi
fi
echo "1..$n"
[ "$failed" -eq 0 ]
