# bash completion for wavetool                                 -*- shell-script -*-
# Commands and each command's options come from the program's own --help,
# wavelet names from `wavetool wavelets`: the completion follows the binary
# being completed (wavetool on the PATH, or ./build/cli/wavetool as typed).
# Installed as DATADIR/bash-completion/completions/wavetool, where
# bash-completion loads it on first use (~/.local/share/... included).

# The commands listed under "Commands:" in `PROG --help`.
_wavetool_commands()
{
    "$1" --help 2>/dev/null |
        awk '/^Commands:/ { on = 1; next } on && NF == 0 { exit } on && /^  [a-z]/ { print $1 }'
}

# One line per option of `PROG CMD --help`: "NAME<TAB>ARG" (ARG: the value's
# placeholder, e.g. NAME, N|max, 8|16; empty for a flag).
_wavetool_options()
{
    "$1" "$2" --help 2>/dev/null | awk '
        /^ +-/ {
            sub(/^ +/, "")
            spec = $0
            sub(/   .*$/, "", spec)            # the option part, before the description
            n = split(spec, w, /[ ,]+/)
            for (k = 1; k <= n && w[k] ~ /^-/; k++)
                ;
            arg = (k <= n && w[k] !~ /^\[/) ? w[k] : ""   # "-w, --wavelet NAME": both take NAME
            for (i = 1; i < k; i++)
                printf "%s\t%s\n", w[i], arg
        }'
}

# Output types --ext takes, as its help line lists them ("...: png (default), jpg or npz").
_wavetool_exts()
{
    "$1" "$2" --help 2>/dev/null |
        awk '/^ +--ext / { sub(/.*: /, ""); gsub(/[(),]/, " ");
                            for (i = 1; i <= NF; i++) if ($i != "or" && $i != "default") print $i }'
}

# Candidates for the value of option $3 whose placeholder is $4 (command $2).
_wavetool_values()
{
    local prog=$1 cmd=$2 opt=$3 arg=$4
    case $opt in
    -w | --wavelet)
        "$prog" wavelets --format tsv 2>/dev/null | awk -F '\t' 'NR > 1 { print $1 }' ;;
    -m | --mode)
        echo zero constant symmetric reflect periodic smooth antisymmetric antireflect periodization ;;
    --method) echo auto conv lifting ;;
    --device) echo auto cpu cuda cuda:0 cuda:all ;;
    --format) echo text json tsv ;;
    --scale) echo auto abs offset band level global ;;
    --transfer) echo linear sqrt log ;;
    --colormap) echo gray diverging ;;
    --alpha) echo opaque keep only ;;
    --ext) _wavetool_exts "$prog" "$cmd" ;;
    *)
        # placeholders that spell their choices: N|max, 8|16 (upper case = a number or name)
        case $arg in
        *'|'*) tr '|' '\n' <<<"$arg" | grep -v '^[A-Z]*$' ;;
        esac
        ;;
    esac
}

_wavetool()
{
    local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= i w
    command -v "$prog" >/dev/null 2>&1 || return 0
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --opt=value: bash splits it into "--opt" "=" "value"
    if [[ $cur == = ]]; then
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w != -* ]]; then
            cmd=$w
            break
        fi
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W '--help --version' -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_wavetool_commands "$prog")" -- "$cur")
        fi
        return 0
    fi

    local opts arg
    opts=$(_wavetool_options "$prog" "$cmd")
    if [[ $prev == -* ]]; then
        if arg=$(awk -F '\t' -v o="$prev" '$1 == o { print $2; f = 1; exit } END { exit !f }' \
                 <<<"$opts") && [[ -n $arg ]]; then
            case $prev in
            -O | --outdir | --base)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
            -o | --output)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
            *)
                mapfile -t COMPREPLY < <(compgen -W "$(_wavetool_values "$prog" "$cmd" "$prev" "$arg")" \
                                         -- "$cur") ;;
            esac
            return 0
        fi
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(cut -f1 <<<"$opts")" -- "$cur")
        return 0
    fi
    # inputs and outputs: files and directories
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

complete -F _wavetool wavetool
