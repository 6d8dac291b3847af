#!/bin/bash
# Runs wavetool over the test corpus (tests/corpus, copied from the project's
# shared test data with MANIFEST.tsv and licenses) and holds each file to the
# behaviour its MANIFEST row expects:
#   decode ...          roundtrip --psnr succeeds and reports inf
#   clean error ...     exit 1, one stderr line naming the file, no output file
#   no crash ... / either  exit 0 or 1 (an error is one line naming the file)
# Every run is bounded in time (timeout) and, outside sanitizer builds, in
# memory (ulimit -v). Usage: run_corpus.sh WAVETOOL [CORPUS_DIR]
set -u
wavetool=$1
corpus=${2:-$(dirname "$0")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
limit_s=${WT_CORPUS_TIMEOUT:-60}
failures=0
checked=0

fail() {
    echo "FAIL $1: $2"
    failures=$((failures + 1))
}

# run CMD...: sets rc, err (stderr), out (stdout); bounded time and memory
run() {
    (
        [ -n "${WT_NO_ULIMIT:-}" ] || ulimit -v 6000000
        timeout -k 5 "$limit_s" "$@" >"$work/out" 2>"$work/err"
    )
    rc=$?
    out=$(cat "$work/out")
    # ASan's own note when its allocation cap makes malloc return NULL
    err=$(grep -v '^==[0-9]*==WARNING: AddressSanitizer failed to allocate' "$work/err")
}

check_clean_error() { # file
    local lines
    lines=$(printf '%s\n' "$err" | grep -c .)
    if [ "$rc" -ge 124 ] || [ "$rc" -eq 2 ] || [ "$rc" -eq 0 ]; then
        fail "$1" "expected a clean error (exit 1), got exit $rc: $err"
    elif [ "$lines" -ne 1 ]; then
        fail "$1" "expected one stderr line, got $lines: $err"
    elif ! printf '%s' "$err" | grep -qF "$(basename "$1")"; then
        fail "$1" "message does not name the file: $err"
    fi
}

either() { # file: decodes or fails cleanly, never crashes
    run "$wavetool" decompose -q "$file" "$work/o/out.png"
    if [ "$rc" -eq 0 ]; then
        [ -f "$work/o/out.png" ] || fail "$1" "exit 0 without output"
    else
        check_clean_error "$1"
        [ -z "$(ls -A "$work/o")" ] || fail "$1" "left output: $(ls -A "$work/o")"
    fi
}

while IFS=$'\t' read -r path bytes sha probe detail expected rest; do
    [ "$path" = path ] && continue
    file=$corpus/$path
    [ -f "$file" ] || { fail "$path" "missing from the corpus copy"; continue; }
    checked=$((checked + 1))
    rm -rf "$work/o" && mkdir "$work/o"
    case $expected in
    decode*)
        run "$wavetool" roundtrip --psnr -q --format tsv "$file"
        if [ "$rc" -ne 0 ]; then
            fail "$path" "expected to decode, exit $rc: $err"
        elif ! printf '%s' "$out" | grep -q 'inf'; then
            fail "$path" "roundtrip PSNR is not inf: $out"
        fi
        ;;
    "clean error, or"*)
        either "$path"
        ;;
    "clean error"*|"refuse"*)
        command=decompose
        case $path in *.npz) command=reconstruct ;; esac # coefficient files
        run "$wavetool" "$command" -q "$file" "$work/o/out.png"
        check_clean_error "$path"
        [ -z "$(ls -A "$work/o")" ] || fail "$path" "left output: $(ls -A "$work/o")"
        ;;
    *)
        either "$path"
        ;;
    esac
done <"$corpus/MANIFEST.tsv"
echo "corpus: $checked files, $failures failures"
[ "$failures" -eq 0 ]
