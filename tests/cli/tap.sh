# Shared by the CLI test scripts (sourced): arguments, a scratch directory and
# TAP helpers. The script sourcing it is called as SCRIPT WAVETOOL SOURCE_DIR;
# afterwards WT, SRC, TOOL (tests/cli/clitool.py) and T (the scratch directory,
# the working directory, removed at exit) are set.
set -u
WT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
PY=${PYTHON:-/usr/bin/python3}
TOOL="$PY $SRC/tests/cli/clitool.py"
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    shift
    printf '%s\n' "$@" | sed 's/^/#   /'
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run CMD...: sets rc, out (stdout file), err (stderr text)
run() {
    "$@" >"$T/.out" 2>"$T/.err"
    rc=$?
    out="$T/.out"
    err=$(cat "$T/.err")
}

# case NAME RC 'STDERR_GLOB' CMD...: the exit code and the whole stderr
case_() {
    local name=$1 want_rc=$2 glob=$3
    shift 3
    run "$@"
    # shellcheck disable=SC2053
    if [ "$rc" -eq "$want_rc" ] && [[ $err == $glob ]]; then
        ok "$name"
    else
        not_ok "$name" "command: $*" "exit $rc (want $want_rc)" "stderr: $err" "want glob: $glob"
    fi
}

# expect NAME CONDITION-COMMAND...: a check on files or output
expect() {
    local name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok "$name"; else not_ok "$name" "failed: $*"; fi
}

is_root() { [ "$(id -u)" -eq 0 ]; }
no_temp_files() { # DIR: nothing but the names given after it
    local dir=$1
    shift
    [ "$(ls -A "$dir" | sort | tr '\n' ' ')" = "$(printf '%s\n' "$@" | sort | grep . | tr '\n' ' ')" ]
}

# the TAP plan and the exit status; the last line of a script
tap_done() {
    echo "1..$n"
    [ $failed -eq 0 ]
}
