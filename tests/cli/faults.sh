#!/bin/bash
# Faults around the transform (TAP output for meson): outputs that cannot be
# written (file size limit, full disk, /dev/full, read-only directory), SIGTERM
# in the middle of a batch, devices that are not there, and a long batch with
# one bad file. Same helpers and style as run_cli_tests.sh; inputs are made
# here (tests/cli/clitool.py, or random bytes through zlib for large ones).
# Usage: faults.sh WAVETOOL SOURCE_DIR
set -u
export LC_ALL=C # ls and sort order, messages
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

lines() { printf '%s\n' "$err" | grep -c .; }
one_line() { [ "$(lines)" -eq 1 ]; }
# limited BLOCKS CMD...: CMD under ulimit -f BLOCKS (1 KiB blocks), in its own shell
limited() {
    local blocks=$1
    shift
    bash -c 'ulimit -f "$0" && exec "$@"' "$blocks" "$@"
}
# rand_png OUT W H: an RGB PNG of random bytes (incompressible), made fast
rand_png() {
    $PY -c '
import os, struct, sys, zlib
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def chunk(k, d):
    return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xFFFFFFFF)
raw = b"".join(b"\0" + os.urandom(3 * w) for _ in range(h))
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))' "$@"
}
# valid_images FILE...: each decodes (strictly) with wavetool itself
valid_images() {
    local f
    for f in "$@"; do "$WT" compare "$f" "$f" >/dev/null 2>&1 || return 1; done
}

# ---- inputs ------------------------------------------------------------------
$TOOL png small.png 8 8 gray 8 random 1
$TOOL png small2.png 9 7 rgb 8 random 2
rand_png big.png 200 200 # mosaic ~120 KB: over a 16 KiB size limit and a 64 KiB tmpfs
head -c 60 small2.png >trunc.png
backends=$("$WT" --version | sed -n 's/^backends: //p')
echo "# inputs in $T; backends: $backends"

# ---- (a) outputs that cannot be written ----------------------------------------
# ulimit -f: the write fails with EFBIG (SIGXFSZ is ignored, so it does not kill)
mkdir fz
case_ "ulimit -f: a mosaic over the limit fails, not killed by SIGXFSZ" 1 "wavetool: fz/m.png: *" \
    limited 16 "$WT" decompose -l 1 big.png fz/m.png
expect "ulimit -f: one message" one_line
expect "ulimit -f: no temporary or partial file" no_temp_files fz
case_ "ulimit -f: .npz over the limit fails" 1 "wavetool: fz/c.npz: *" \
    limited 16 "$WT" decompose -l 1 big.png fz/c.npz
expect "ulimit -f npz: one message, nothing left" sh -c "[ $(lines) -eq 1 ] && [ -z \"\$(ls -A fz)\" ]"
case_ "ulimit -f: roundtrip -o over the limit fails" 1 "wavetool: fz/rt.png: *" \
    limited 16 "$WT" roundtrip -q -l 1 -o fz/rt.png big.png
expect "ulimit -f roundtrip: nothing left" no_temp_files fz
for j in 1 3; do
    case_ "ulimit -f batch -j $j: small outputs written, the big one counted as failed" 1 \
        "wavetool: fzb$j/big.png: *wavetool: 3 files: 2 done, 1 failed" \
        limited 16 "$WT" decompose -l 1 -j $j -O fzb$j small.png big.png small2.png
    expect "ulimit -f batch -j $j: two messages (the file, the summary)" test "$(lines)" -eq 2
    expect "ulimit -f batch -j $j: the small outputs only, complete" sh -c \
        "[ \"\$(ls -A fzb$j | tr '\n' ' ')\" = 'small.png small2.png ' ] && \
         '$WT' compare fzb$j/small.png fzb$j/small.png && '$WT' compare fzb$j/small2.png fzb$j/small2.png"
done

# /dev/full through "-": the image, the coefficients, and reports on standard output
if [ -w /dev/full ]; then
    case_ "/dev/full: mosaic to - fails" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' decompose -l 1 big.png - >/dev/full"
    expect "/dev/full mosaic: one message" one_line
    case_ "/dev/full: small mosaic to - fails (at the final flush)" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' decompose -l 1 small.png - >/dev/full"
    expect "/dev/full small mosaic: one message" one_line
    case_ "/dev/full: .npz to - fails" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' decompose -l 1 --ext npz big.png - >/dev/full"
    expect "/dev/full npz: one message" one_line
    case_ "/dev/full: roundtrip -o - fails" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' roundtrip -l 1 -o - small.png >/dev/full"
    case_ "/dev/full: a lost roundtrip report is an error" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' roundtrip --psnr --format tsv small.png >/dev/full"
    expect "/dev/full report: one message" one_line
    case_ "/dev/full: wavelets list is an error" 1 "wavetool: (stdout): *" \
        sh -c "exec '$WT' wavelets >/dev/full"
else
    skip "/dev/full cases" "no writable /dev/full"
fi

# a read-only output directory (root writes anyway)
if is_root; then
    skip "read-only output directory in a batch" "running as root (modes are not enforced)"
else
    mkdir ro && chmod 555 ro
    case_ "read-only -O directory: each file fails, the summary counts them" 1 \
        "wavetool: ro/small.png: *wavetool: ro/small2.png: *wavetool: 2 files: 0 done, 2 failed" \
        "$WT" decompose -l 1 -O ro small.png small2.png
    expect "read-only directory: nothing left" no_temp_files ro
fi

# a truly full file system: a 64 KiB tmpfs in a private mount namespace
cat >tmpfs.sh <<'EOF'
# tmpfs.sh DIR WT: mount a 64 KiB tmpfs on DIR, run the cases, print results
d=$1 wt=$2
mount -t tmpfs -o size=64k wavetool-faults "$d" || exit 99
"$wt" decompose -l 1 -j 1 -O "$d" small.png big.png small2.png 2>fs.err
echo "batch $?"
ls -A "$d" | tr '\n' ' ' >fs.ls1
"$wt" compare "$d/small.png" "$d/small.png" >/dev/null 2>&1 && echo "small-valid"
dd if=/dev/zero of="$d/fill" bs=4096 2>/dev/null
"$wt" decompose -l 1 small2.png "$d/x.png" 2>fs.err2
echo "full $?"
ls -A "$d" | tr '\n' ' ' >fs.ls2
EOF
mkdir fs
if is_root; then ns="unshare -m"; else ns="unshare -Urm"; fi
if command -v unshare >/dev/null 2>&1 && $ns true 2>/dev/null; then
    res=$($ns bash tmpfs.sh "$T/fs" "$WT" 2>&1)
    if [ "$?" -eq 99 ]; then
        skip "full file system (tmpfs)" "cannot mount a tmpfs here: $res"
    else
        err=$(cat fs.err)
        if [[ $res == *"batch 1"* ]] && [ "$(cat fs.ls1)" = "small.png small2.png " ] &&
            [[ $res == *small-valid* ]] &&
            [[ $err == "wavetool: $T/fs/big.png: No space left on device"*"3 files: 2 done, 1 failed" ]]; then
            ok "full tmpfs: the big output fails (ENOSPC), the small ones are written, no temp file"
        else
            not_ok "full tmpfs batch" "$res" "stderr: $err" "left: $(cat fs.ls1)"
        fi
        err=$(cat fs.err2)
        if [[ $res == *"full 1"* ]] && [ "$(cat fs.ls2)" = "fill small.png small2.png " ] && one_line &&
            [[ $err == "wavetool: $T/fs/x.png: No space left on device" ]]; then
            ok "completely full tmpfs: one clean failure, nothing left"
        else
            not_ok "completely full tmpfs" "$res" "stderr: $err" "left: $(cat fs.ls2)"
        fi
    fi
else
    skip "full file system (tmpfs)" "no mount namespace here ($ns not permitted)"
fi

# ---- (b) SIGTERM in the middle of a batch ---------------------------------------
# Large incompressible inputs and a slow PNG level; the signal is sent once a
# temporary file exists, so it always lands while outputs are being written.
for i in 1 2 3 4 5 6; do rand_png "t$i.png" 1200 1200; done
mkdir term
"$WT" decompose -j 3 -w db4 -l 3 --png-level 9 -O term t1.png t2.png t3.png t4.png t5.png t6.png \
    >/dev/null 2>term.err &
pid=$!
for _ in $(seq 1 500); do
    ls -A term | grep -q '^\.' && break
    sleep 0.01
done
had_temp=$(ls -A term | grep -c '^\.')
kill -TERM $pid 2>/dev/null
wait $pid
term_rc=$?
if [ "$had_temp" -ge 1 ]; then
    ok "SIGTERM arrived while $had_temp temporary file(s) existed"
else
    not_ok "SIGTERM timing" "no temporary file seen before the signal (exit $term_rc)"
fi
# the handler removes temporary files and dies of the signal: status 128 + 15
expect "SIGTERM: dies of the signal (exit 143, got $term_rc)" test "$term_rc" -eq 143
leftover=$(ls -A term | grep -v "^t[1-6]\.png$" | tr "\n" " ")
expect "SIGTERM: no temporary file left${leftover:+ ($leftover)}" test -z "$leftover"
# shellcheck disable=SC2046
expect "SIGTERM: each output that exists is complete ($(ls term | wc -l) of 6)" \
    valid_images $(ls term | sed 's|^|term/|')

# Many tiny files on 8 workers: temporary files are created all the time, also
# while the handler removes them; none may survive the signal.
mkdir tiny
$PY -c 'import shutil; [shutil.copy("small.png", "tiny/f%d.png" % i) for i in range(600)]'
litter="" runs=0
for try in $(seq 1 12); do
    rm -rf tterm
    "$WT" decompose -l 1 -j 8 -O tterm tiny >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do
        ls -A tterm 2>/dev/null | grep -q '^\.' && break
        sleep 0.005
    done
    sleep "0.00$((try % 3 * 4))"
    kill -TERM $pid 2>/dev/null
    wait $pid
    [ $? -eq 143 ] && runs=$((runs + 1))
    litter="$litter$(ls -A tterm 2>/dev/null | grep '^\.' | head -3 | tr '\n' ' ')"
done
expect "SIGTERM x12 in a batch of 600 tiny files: no temporary file left ($runs killed mid-batch)${litter:+: $litter}" \
    test -z "$litter" -a "$runs" -ge 1

# ---- (c) devices that are not there ---------------------------------------------
case "$backends" in
*cuda*) echo "# CUDA engine built in: CUDA_VISIBLE_DEVICES= hides every GPU" ;;
*) echo "# built without CUDA: cuda devices fail the same way" ;;
esac
mkdir dev
case_ "--device auto, no visible GPU: the CPU engine, said with -v" 0 "*engine: cpu*" \
    env CUDA_VISIBLE_DEVICES= "$WT" decompose -v --device auto -l 1 small.png dev/auto.png
expect "--device auto: output written" valid_images dev/auto.png
for d in cuda cuda:0; do
    case_ "--device $d, no visible GPU: exit 1, one clear line" 1 "wavetool: *CUDA*" \
        env CUDA_VISIBLE_DEVICES= "$WT" decompose --device $d -l 1 small.png dev/$d.png
    expect "--device $d: one line" one_line
    expect "--device $d: no output file" test ! -e dev/$d.png
    case_ "--device $d batch, no visible GPU: one line, no outputs" 1 "wavetool: *CUDA*" \
        env CUDA_VISIBLE_DEVICES= "$WT" decompose --device $d -l 1 -O dev/b small.png small2.png
    expect "--device $d batch: one line, nothing written" \
        sh -c "[ $(lines) -eq 1 ] && [ -z \"\$(ls -A dev/b)\" ]"
done
case_ "roundtrip --device cuda, no visible GPU: exit 1" 1 "wavetool: *CUDA*" \
    env CUDA_VISIBLE_DEVICES= "$WT" roundtrip --device cuda small.png
# a folder: a named GPU opens while the first files decode; when it does not,
# the files waiting for it say nothing and the others do not start
mkdir dev/twenty
for i in $(seq -w 1 20); do cp small.png dev/twenty/s$i.png; done
for j in 1 8; do
    for cmd in decompose denoise; do
        case_ "$cmd -j $j --device cuda, 20 files, no visible GPU: exit 1, one line" 1 \
            "wavetool: *CUDA*" \
            env CUDA_VISIBLE_DEVICES= "$WT" $cmd -j $j --device cuda -O dev/f$cmd$j dev/twenty
        expect "$cmd -j $j --device cuda, 20 files: one line, nothing written" \
            sh -c "[ $(lines) -eq 1 ] && [ -z \"\$(ls -A dev/f$cmd$j)\" ]"
    done
done
case_ "stats --format csv -j 8 --device cuda, 20 files, no visible GPU: exit 1" 1 \
    "wavetool: *CUDA*" \
    env CUDA_VISIBLE_DEVICES= "$WT" stats --format csv -j 8 --device cuda dev/twenty
expect "stats --device cuda, 20 files: one line, no table header on stdout" \
    sh -c "[ $(lines) -eq 1 ] && [ ! -s '$out' ]"

# --device auto weighs the job before opening anything: one small image stays
# on the CPU engine (on any machine, GPU or not); --version opens no GPU
mkdir auto
why="*wavetool: CPU engine chosen, GPU not opened: *"
[[ $backends == *cuda* ]] || why="*built without CUDA*"
case_ "--device auto -v, one small image: the CPU engine, GPU not opened" 0 "$why" \
    "$WT" decompose -v --device auto -l 3 t1.png auto/c.png
expect "--version has no gpu line (it opens no GPU); --version -v has" \
    bash -c "! '$WT' --version | grep -q '^gpu:' && { [[ '$backends' != *cuda* ]] || '$WT' --version -v | grep -q '^gpu: '; }"

# GPU only: WT_CUDA_MEM_LIMIT caps device memory
if [[ $backends == *cuda* ]] && "$WT" --version -v | grep -q '^gpu: ' &&
    ! "$WT" --version -v | grep -q '^gpu: none'; then
    mkdir gpu
    case_ "WT_CUDA_MEM_LIMIT=1M --device cuda: the file fails clearly" 1 "wavetool: t1.png: *" \
        env WT_CUDA_MEM_LIMIT=1M "$WT" decompose --device cuda -l 3 t1.png gpu/m.png
    expect "WT_CUDA_MEM_LIMIT --device cuda: one line, no output" \
        sh -c "[ $(lines) -eq 1 ] && [ -z \"\$(ls -A gpu)\" ]"
    case_ "WT_CUDA_MEM_LIMIT=1M --device auto -v: falls back to the CPU engine" 0 \
        "*t1.png: *using the CPU engine*" \
        env WT_CUDA_MEM_LIMIT=1M WT_AUTO_DEVICE=gpu "$WT" decompose -v --device auto -l 3 t1.png gpu/a.png
    expect "WT_CUDA_MEM_LIMIT fallback: output written" valid_images gpu/a.png
    case_ "WT_CUDA_MEM_LIMIT=1M batch --device auto: all done on the CPU" 0 \
        "wavetool: 2 files: 2 done, 0 failed" \
        env WT_CUDA_MEM_LIMIT=1M WT_AUTO_DEVICE=gpu "$WT" decompose --device auto -l 3 -O gpu/b t1.png t2.png
else
    skip "WT_CUDA_MEM_LIMIT with --device cuda and auto" "no usable GPU (backends: $backends)"
fi

# ---- (d) 100 inputs, one truncated in the middle ----------------------------------
mkdir b100
for i in $(seq -w 1 100); do
    case $((10#$i % 3)) in
    0) cp small.png "b100/f$i.png" ;;
    1) cp small2.png "b100/f$i.png" ;;
    2) cp big.png "b100/f$i.png" ;;
    esac
done
cp trunc.png b100/f050.png
expected=$(ls b100 | grep -v '^f050\.png$' | tr '\n' ' ')
case_ "100 inputs, one truncated: exit 1, the file named, then the summary" 1 \
    "wavetool: b100/f050.png: *
wavetool: 100 files: 99 done, 1 failed" \
    "$WT" decompose -l 1 -j 1 -O o100 b100
expect "100 inputs: two lines on stderr" test "$(lines)" -eq 2
serial_err=$err
expect "100 inputs: 99 outputs, not f050, no temp files" \
    test "$(ls -A o100 | tr '\n' ' ')" = "$expected"
case_ "100 inputs -j 4: the same" 1 "wavetool: b100/f050.png: *wavetool: 100 files: 99 done, 1 failed" \
    "$WT" decompose -l 1 -j 4 -O o100j b100
expect "100 inputs -j 4: stderr identical to -j 1" test "$err" = "$serial_err"
expect "100 inputs -j 4: 99 outputs, no temp files" test "$(ls -A o100j | tr '\n' ' ')" = "$expected"
# three bad files: messages come in input order, whatever finishes first
cp trunc.png b100/f010.png
printf 'not an image\n' >b100/f090.png
run "$WT" decompose -l 1 -j 1 -O o3bad b100
serial_err=$err
stable=1
for try in 1 2 3; do
    rm -rf o3badj
    run "$WT" decompose -l 1 -j 8 -O o3badj b100
    [ "$rc" -eq 1 ] && [ "$err" = "$serial_err" ] || stable=0
done
if [ $stable -eq 1 ] && [[ $serial_err == "wavetool: b100/f010.png: "*"
wavetool: b100/f050.png: "*"
wavetool: b100/f090.png: "*"
wavetool: 100 files: 97 done, 3 failed" ]]; then
    ok "three bad files: messages in input order, -j 8 three times as -j 1"
else
    not_ok "message order" "-j 1: $serial_err" "-j 8: $err"
fi

# ---- (e) issue 18: closed standard streams, every fatal signal, stdin as the ----
# output, control characters, writable sizes, bounded decoding, small ones
HOSTILE="$PY $SRC/tests/cli/hostile.py"
mkdir e18 e18/many
$PY -c 'import shutil; [shutil.copy("small2.png", "e18/many/f%03d.png" % i) for i in range(300)]'
for i in 007 077 150 222; do printf 'not an image\n' >"e18/many/f$i.png"; done
# corrupt_outputs DIR: how many files in DIR do not decode strictly
corrupt_outputs() {
    local f bad=0
    for f in "$1"/*; do "$WT" compare "$f" "$f" >/dev/null 2>&1 || bad=$((bad + 1)); done
    echo $bad
}
# stdout closed: report lines (buffered) must not land in an output image
run sh -c "exec '$WT' roundtrip --psnr -j 4 -O e18/rt1 e18/many >&-"
expect "stdout closed (>&-): 1 (the report could not be written; 4 bad inputs)" test "$rc" -eq 1
bad=$(corrupt_outputs e18/rt1)
expect "stdout closed: 296 outputs, none corrupt ($bad corrupt)" \
    test "$bad" -eq 0 -a "$(ls e18/rt1 | wc -l)" -eq 296
# stderr closed: messages of failed files come while others are being written
run sh -c "exec '$WT' decompose -l 1 -j 4 -O e18/dc2 e18/many 2>&-"
bad=$(corrupt_outputs e18/dc2)
expect "stderr closed (2>&-): exit 1, 296 outputs, none corrupt ($bad corrupt)" \
    test "$rc" -eq 1 -a "$bad" -eq 0 -a "$(ls e18/dc2 | wc -l)" -eq 296
run sh -c "exec '$WT' roundtrip --psnr -o e18/in0.png small.png <&- >&- 2>&-"
expect "stdin, stdout and stderr closed: roundtrip -o writes a valid image" valid_images e18/in0.png

# Wait until directory $1 holds a temporary output (.NAME), at most $2 times 5 ms.
wait_for_temp_output() {
    for _ in $(seq 1 "$2"); do
        ls -A "$1" 2>/dev/null | grep -q '^\.' && break
        sleep 0.005
    done
}

# every signal whose default action ends the process removes the temporary files
# (slow outputs: the signal lands while they are written). The program starts
# with each signal's default action: this shell may have inherited HUP/INT/QUIT
# ignored (nohup, a background job without job control), which a shell cannot
# undo, so env resets it where env can (coreutils 8.31+).
default_signal() { :; }
env --default-signal=HUP true 2>/dev/null && default_signal() { echo "--default-signal=$1"; }
for sig in HUP INT QUIT PIPE ALRM TERM USR1 USR2 XCPU VTALRM PROF; do
    num=$(kill -l "$sig")
    rm -rf e18/sig
    (
        ulimit -c 0
        exec env $(default_signal "$sig") "$WT" decompose -l 1 -j 3 --png-level 9 -O e18/sig t1.png t2.png t3.png >/dev/null 2>&1
    ) &
    pid=$!
    wait_for_temp_output e18/sig 500
    kill -s "$sig" $pid 2>/dev/null
    wait $pid
    src=$?
    litter=$(ls -A e18/sig 2>/dev/null | grep '^\.' | head -3 | tr '\n' ' ')
    expect "SIG$sig mid-batch: dies of it (exit $src, want $((128 + num))), no temporary file${litter:+ ($litter)}" \
        test "$src" -eq $((128 + num)) -a -z "$litter"
done
# a signal ignored at start (nohup) stays ignored
(
    trap '' HUP
    exec "$WT" decompose -l 1 -j 2 -O e18/nohup tiny >/dev/null 2>&1
) &
pid=$!
wait_for_temp_output e18/nohup 300
kill -HUP $pid 2>/dev/null
wait $pid
expect "SIGHUP ignored at start (nohup): the batch completes (exit $?)" \
    test "$(ls e18/nohup | wc -l)" -eq 600

# stdin is the input: the output must not be stdin's file
cp small.png e18/self.png
cp small.png e18/self2.png
case_ "decompose - self.png < self.png: refused, not overwritten" 1 "wavetool: *self.png*input*" \
    sh -c "exec '$WT' decompose -l 1 - e18/self.png <e18/self.png"
expect "decompose - < self.png: the input is intact" cmp small.png e18/self.png
case_ "roundtrip -o self.png - < self.png: refused" 1 "wavetool: *self2.png*input*" \
    sh -c "exec '$WT' roundtrip -l 1 -o e18/self2.png - <e18/self2.png"
expect "roundtrip - < self.png: the input is intact" cmp small.png e18/self2.png
case_ "decompose - other.png < self.png: written" 0 "" \
    sh -c "exec '$WT' decompose -l 1 - e18/other.png <e18/self.png"

# control characters never make a second line; JSON stays valid for any name
if $PY -c 'import numpy' 2>/dev/null; then
    $HOSTILE npz-meta e18/nl.npz wavelet 'haar\nwavetool: forged\r'
    case_ ".npz meta with a newline in the wavelet name: one line" 1 'wavetool: e18/nl.npz: *\\n*' \
        "$WT" reconstruct e18/nl.npz e18/nl.png
    expect ".npz newline meta: one line, no forged line" one_line
else
    skip ".npz meta with a newline in the wavelet name" "$PY lacks numpy"
    skip ".npz newline meta: no forged line" "$PY lacks numpy"
fi
esc=$'e18/a\nwavetool: forged \033[31m.png'
printf 'not an image\n' >"$esc"
case_ "file name with a newline and ESC: one line, escaped" 1 'wavetool: e18/a\\nwavetool: forged \\x1b\[31m.png: *' \
    "$WT" decompose -l 1 "$esc" e18/esc.npz
expect "escaped file name: one line" one_line
case_ "batch: a file name with a newline, one line for it and the summary" 1 'wavetool: *\\n*wavetool: 1 file: 0 done, 1 failed' \
    "$WT" decompose -l 1 -O e18/escb "$esc"
expect "batch escaped name: two lines" test "$(lines)" -eq 2
raw=$'e18/\xff\xfe\x01.png'
cp small.png "$raw"
run "$WT" compare --format json "$raw" small.png
printf '%s\n' "$err" >>"$out"
expect "compare --format json of a non-UTF-8 name: strict JSON (exit $rc)" \
    sh -c "[ $rc -eq 0 ] && $HOSTILE json-lines '$out'"
run "$WT" roundtrip --format json -O e18/rawo "$raw" small.png
expect "roundtrip --format json batch, non-UTF-8 name: strict JSON (exit $rc)" \
    sh -c "[ $rc -eq 0 ] && $HOSTILE json-lines '$out'"

# what is read can be written: wider or taller than 1,000,000 pixels
$HOSTILE wide e18/wide.png 1000001 2
$HOSTILE wide e18/tall.png 2 1000001
case_ "decompose of a 1000001x2 PNG to a PNG mosaic" 0 "" "$WT" decompose -l 1 e18/wide.png e18/wide-m.png
case_ "roundtrip -o of a 2x1000001 PNG" 0 "*" "$WT" roundtrip -q -l 1 -o e18/tall-r.png e18/tall.png
expect "the tall roundtrip equals its input" "$WT" compare e18/tall.png e18/tall-r.png

# strict decoding stops at the end of the image's data: 4 GiB of zeros after a 4x1 image
$HOSTILE idat-tail e18/tail.png 4096
case_ "4x1 PNG + 4 GiB of zeros in IDAT: refused within 2 s of CPU" 1 "wavetool: e18/tail.png: *" \
    bash -c 'ulimit -t 2 && exec "$0" compare e18/tail.png small.png' "$WT"
$HOSTILE idat-tail e18/tail8.png 8
case_ "4x1 PNG + 8 MiB of zeros: refused when strict" 1 "wavetool: e18/tail8.png: corrupt PNG (IDAT: Too much image data)" \
    "$WT" compare e18/tail8.png e18/tail8.png
case_ "4x1 PNG + 8 MiB of zeros: --lenient decodes the image (and says so)" 0 \
    "wavetool: warning: e18/tail8.png: corrupt PNG data recovered (--lenient): *" \
    "$WT" roundtrip --lenient -l 0 e18/tail8.png

# legall53 int32 coefficients at the limits: the 5/3 steps saturate (defined
# behaviour, also under UBSan with halt_on_error as run-all.sh sets it)
if $HOSTILE npz-int32 e18/i32.npz 2>/dev/null; then
    case_ "legall53 .npz of int32 extremes: reconstructs (saturated), no UB" 0 "" \
        "$WT" reconstruct --device cpu e18/i32.npz e18/i32.png
    expect "int32 extremes: the output is a valid image" valid_images e18/i32.png
    # the GPU engine where there is one (64-bit steps, chosen by measuring the range)
    case_ "legall53 .npz of int32 extremes, --device auto: reconstructs" 0 "" \
        "$WT" reconstruct --device auto e18/i32.npz e18/i32-auto.png
    expect "int32 extremes: --device auto gives the CPU engine's image" \
        cmp -s e18/i32.png e18/i32-auto.png
else
    skip "legall53 .npz of int32 extremes" "no numpy for $PY"
fi

# --max-memory (about 20 bytes a sample, shared by the files at a time),
# checked before decoding; out of memory names the file
$TOOL png e18/g512.png 512 512 gray 8 gradient # 5 MiB estimated
cp e18/g512.png e18/g512b.png
case_ "--max-memory 4M: a 512x512 image refused before decoding, the file named" 1 \
    "wavetool: e18/g512.png: a 512x512 image of 1 channel needs about 5 MiB, more than the 4 MiB allowed (--max-memory)" \
    "$WT" decompose -l 1 --max-memory 4M e18/g512.png e18/mm.png
expect "--max-memory: no output" test ! -e e18/mm.png
case_ "--max-memory 6M: the same image is processed" 0 "" \
    "$WT" decompose -l 1 --max-memory 6M e18/g512.png e18/mm.png
case_ "--max-memory 6M -j 2: two files at a time share it (3 MiB each)" 1 \
    "*e18/g512.png: *needs about 5 MiB, more than the 3 MiB allowed*2 files: 0 done, 2 failed" \
    "$WT" decompose -l 1 -j 2 --max-memory 6M -O e18/mmj e18/g512.png e18/g512b.png
case_ "--max-memory 1X: a usage error" 2 "wavetool: invalid argument '1X' for option --max-memory*" \
    "$WT" decompose --max-memory 1X e18/g512.png e18/mm2.png
# 4096x4096 8-bit: 16 MB, whose float pyramid alone (64 MB) is past the limit
$TOOL png e18/g4k.png 4096 4096 gray 8 gradient
if bash -c 'ulimit -v 60000 && exec "$0" --version' "$WT" >/dev/null 2>&1; then
    case_ "ulimit -v: out of memory names the file" 1 "wavetool: e18/g4k.png: *" \
        bash -c 'ulimit -v 60000 && exec "$0" roundtrip --max-memory 0 -l 1 e18/g4k.png' "$WT"
    expect "ulimit -v: one line" one_line
else
    skip "ulimit -v: out of memory names the file" "the program does not start under ulimit -v (sanitizer build)"
fi

# smaller ones
case_ "-O '': a usage error" 2 "wavetool: *--outdir*" "$WT" decompose -l 1 -O "" small.png
$HOSTILE palette-oob e18/pal.png
case_ "palette index past the palette: refused when strict" 1 "wavetool: e18/pal.png: *palette*" \
    "$WT" compare e18/pal.png e18/pal.png
# --lenient leaves it to libpng: 1.6.39 (Debian 12) decodes it, newer ones
# (1.6.43, Ubuntu 24.04) may refuse it themselves: either way one clean outcome
run "$WT" compare --lenient e18/pal.png e18/pal.png
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [[ $err == "wavetool: e18/pal.png: "* ]] &&
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; }; then
    ok "palette index past the palette: --lenient decodes, or libpng refuses in one line"
else
    not_ok "palette index past the palette: --lenient" "exit $rc" "stderr: $err"
fi
long=e18/$(printf 'x%.0s' $(seq 1 251)).png # 255 bytes: NAME_MAX
case_ "a 255-byte output name" 0 "" "$WT" decompose -l 1 small.png "$long"
expect "255-byte name written, no temporary file" valid_images "$long"
case_ "--keep twice: the last wins" 0 "*" "$WT" roundtrip -l 1 --keep 0.5 --keep 0.2 small.png
case_ "--help=x: says --help takes no argument" 2 "wavetool: option '--help' *argument*" \
    "$WT" decompose --help=x

tap_done
