#!/bin/bash
# The shell completions (completions/) against the built program: commands,
# options per command, values (wavelet names from `wavetool wavelets`, modes,
# choices a placeholder spells), directories after -O and files for inputs.
# bash always; zsh through zsh/zpty where zsh is installed.
# Usage: completion_check.sh WAVETOOL SOURCEDIR. TAP on stdout.
set -u
prog=$(realpath "$1") src=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/wt-compl.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/dir/sub" && touch "$work/dir/in.png" "$work/dir/other.jpg"
cd "$work/dir" || exit 1
ln -s "$prog" wavetool

n=0 failed=0
result() { # ok? description detail
    n=$((n + 1))
    if [ "$1" = 0 ]; then echo "ok $n - $2"; else
        failed=$((failed + 1)); echo "not ok $n - $2"; echo "# got: $3"; fi
}

# bash: run _wavetool on a command line, the last word being completed.
source "$src/completions/wavetool.bash"
bash_complete() {
    COMP_WORDS=(./wavetool "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _wavetool
    printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
bash_case() { # expected description words...
    local want=$1 desc=$2 got
    shift 2
    got=$(bash_complete "$@")
    [ "$got" = "$want" ]
    result $? "bash: $desc -> $want" "$got"
}

echo "1..16"
bash_case "decompose denoise" "commands" de
bash_case "--levels" "a long option" decompose --lev
bash_case "--keep --keep-rank" "options only roundtrip has" roundtrip --ke
bash_case "" "roundtrip's option not offered to decompose" decompose --ke
bash_case "db1 db10 db11 db12 db13 db14 db15 db16 db17 db18 db19" "wavelets after -w" decompose -w db1
bash_case "sym2 sym20" "wavelets after --wavelet=" decompose --wavelet = sym2
bash_case "periodic periodization" "modes" roundtrip -m per
bash_case "16 8 f32" "choices the placeholder spells (--depth 8|16|f32)" decompose --depth ""
bash_case "sub" "directories after -O" decompose -O s
bash_case "in.png" "files for inputs" decompose -w haar i
all=$(bash_complete "")
for c in decompose reconstruct roundtrip compare wavelets denoise sigma; do
    case " $all " in *" $c "*) ;; *) all="missing $c: $all" ;; esac
done
case $all in missing*) false ;; esac
result $? "bash: every command listed" "$all"

# zsh: type the line and two TABs into an interactive zsh and read what it
# prints until every expected word is there (at most 20 s: no fixed sleep, so
# a loaded machine is slower but not flaky).
zsh_complete() { # line words...
    zsh -f -c '
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PS1=; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z "unsetopt beep; setopt nolistambiguous; LISTMAX=10000; compdef _wavetool wavetool"
        zpty -n -w z "$2"$'"'"'\t\t'"'"'
        shift 2
        out= line=
        for i in {1..200}; do
            while zpty -r -t z line; do out+=$line; done
            miss=0
            for w; do [[ $out == *$w* ]] || miss=1; done
            (( miss )) || break
            sleep 0.1
        done
        zpty -d z
        print -rn -- "$out"' zsh "$src/completions" "$@" 2>&1 |
        sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' | tr '\r\n' '  '
}
zsh_case() { # description line words...
    local desc=$1 line=$2 got w miss=
    shift 2
    if ! command -v zsh >/dev/null 2>&1; then
        n=$((n + 1)); echo "ok $n - zsh: $desc # SKIP zsh not installed"; return
    fi
    got=$(PATH=$work/dir:$PATH zsh_complete "$line" "$@")
    for w in "$@"; do
        case $got in *"$w"*) ;; *) miss="$miss $w" ;; esac
    done
    [ -z "$miss" ]
    result $? "zsh: $desc ($*)" "missing$miss in: $got"
}
zsh_case "commands with summaries" "wavetool " decompose reconstruct "names, families"
zsh_case "options with descriptions" "wavetool decompose --le" --levels --lenient "accept images"
zsh_case "wavelets after -w" "wavetool decompose -w coif1" coif10 coif17
zsh_case "modes" "wavetool roundtrip -m per" periodic periodization
zsh_case "choices the placeholder spells" "wavetool decompose --depth " "16" "8"
[ "$failed" -eq 0 ]
