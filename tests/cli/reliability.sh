#!/bin/bash
# Issue 32, the third outside attack (TAP output for meson): TIFF strips and
# tiles that do not fill the image, JPEG inside TIFF, layer sidecars, --layers
# outputs, numerics at the edges of the sample types, hostile names in SVG and
# TSV, 1xN images and messages that must name what differs. Same helpers as
# run_cli_tests.sh; hostile TIFFs come from tests/cli/hostile_tiff.py.
# Usage: reliability.sh WAVETOOL SOURCE_DIR
set -u
export LC_ALL=C
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
HTIFF="$PY $SRC/tests/cli/hostile_tiff.py"
one_line() { [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ]; }

# ---- (1, 2) TIFF blocks: filled completely or refused ---------------------------
$TOOL png g16.png 16 16 gray 8 random 1
"$WT" roundtrip -q -l 1 -o g16.jpg g16.png >/dev/null
$HTIFF jpeg-strip jpeg64.tif g16.jpg 64 64 # claims 64x64, holds a 16x16 JPEG
case_ "JPEG strip smaller than the page: refused (JPEG-in-TIFF is not read)" 1 \
    "wavetool: jpeg64.tif: unsupported TIFF (JPEG compression*)" \
    "$WT" roundtrip -l 1 -o jpeg64.png jpeg64.tif
expect "short JPEG strip: no output" test ! -e jpeg64.png
$HTIFF jpeg-strip jpeg16.tif g16.jpg 16 16
case_ "a well-formed JPEG-in-TIFF: refused in one line" 1 \
    "wavetool: jpeg16.tif: unsupported TIFF (JPEG compression*)" "$WT" roundtrip -l 1 jpeg16.tif
# the same JPEG stream with its scan corrupted
{ head -c 300 g16.jpg; head -c 100 /dev/zero; tail -c +401 g16.jpg; } >bad.jpg
$HTIFF jpeg-strip badjpeg.tif bad.jpg 16 16
case_ "a corrupt JPEG scan inside a TIFF: refused" 1 "wavetool: badjpeg.tif: *" \
    "$WT" roundtrip -l 1 badjpeg.tif
expect "corrupt JPEG scan in a TIFF: one line" one_line
for k in 1 2; do
    $HTIFF planes planes$k.tif $k
    case_ "planar RGB with $k of 3 strip offsets: refused, the strip named" 1 \
        "wavetool: planes$k.tif: corrupt TIFF (strip $k has no data in the file*)" \
        "$WT" roundtrip -l 1 planes$k.tif
done
$HTIFF planes planes3.tif 3
case_ "planar RGB with its 3 strip offsets: read" 0 "" "$WT" roundtrip -q -l 1 planes3.tif
$HTIFF tiles tiles1.tif 1
case_ "4 tiles with 1 tile offset: refused" 1 \
    "wavetool: tiles1.tif: corrupt TIFF (tile 1 has no data in the file*)" \
    "$WT" roundtrip -l 1 tiles1.tif
$HTIFF tiles tiles4.tif 4
case_ "4 tiles with 4 offsets: read" 0 "" "$WT" roundtrip -q -l 1 tiles4.tif

# ---- (7) legall53 lifts in int32: 32-bit integer samples refused, 16-bit exact --
$HTIFF const u32max.tif 8 8 u 32 4294967295
$HTIFF const i32min.tif 8 8 i 32 -2147483648
$HTIFF const u32small.tif 8 8 u 32 1000
for f in u32max i32min u32small; do
    for device in cpu auto; do
        case_ "legall53 roundtrip of $f (--device $device): refused in one line" 1 \
            "wavetool: $f.tif: * 32-bit samples do not fit legall53's 32-bit integer lifting*" \
            "$WT" roundtrip --device $device -w legall53 -l 2 --psnr $f.tif
        expect "legall53 $f (--device $device): one line" one_line
    done
    case_ "legall53 decompose of $f to .npz: refused" 1 "wavetool: $f.tif: *legall53*" \
        "$WT" decompose -w legall53 -l 2 $f.tif $f.npz
    case_ "legall53 mosaic of $f: refused" 1 "wavetool: $f.tif: *legall53*" \
        "$WT" decompose -w legall53 -l 2 $f.tif $f.png
    expect "legall53 $f: no output" test ! -e $f.npz -a ! -e $f.png
done
$HTIFF const u16max.tif 8 8 u 16 65535
$HTIFF const i16min.tif 8 8 i 16 -32768
for f in u16max i16min; do
    case_ "legall53 roundtrip of $f: exact" 0 "" "$WT" roundtrip -q -w legall53 -l 3 $f.tif
    "$WT" decompose -w legall53 -l 3 $f.tif $f.npz && "$WT" reconstruct $f.npz $f-back.tif
    case_ "legall53 $f through .npz: PSNR inf" 0 "" "$WT" compare -q $f.tif $f-back.tif
done

# ---- (6) numerics: overflowing or non-finite floats refused, NaN never perfect ----
for spec in "f1e38 f 32 1e38" "f3e38 f 32 3e38" "finf f 32 inf" "fminf f 32 -inf" \
    "fnan f 32 nan" "d1e300 f 64 1e300"; do
    set -- $spec
    $HTIFF const "$1.tif" 8 8 "$2" "$3" "$4"
    case_ "roundtrip of $1 (float $3 $4): refused in one line" 1 "wavetool: $1.tif: *" \
        "$WT" roundtrip -l 2 --psnr -o "$1-back.tif" "$1.tif"
    expect "roundtrip of $1: one line, no output" sh -c "[ ! -e $1-back.tif ] && [ $(printf '%s\n' "$err" | grep -c .) -eq 1 ]"
    case_ "decompose of $1 to .npz: refused" 1 "wavetool: $1.tif: *" \
        "$WT" decompose -l 2 "$1.tif" "$1.npz"
done
$HTIFF const f1e6.tif 8 8 f 32 1e6
case_ "float 1e6: transformed" 0 "" "$WT" roundtrip -q -l 2 f1e6.tif
case_ "float 1e6 with legall53 (exact within 16 bits): refused" 1 \
    "wavetool: f1e6.tif: samples up to 1e+06 do not fit legall53's integer lifting*" \
    "$WT" roundtrip -l 2 -w legall53 f1e6.tif
case_ "NaN with legall53: refused" 1 "wavetool: fnan.tif: the sample at (0, 0) is NaN*" \
    "$WT" roundtrip -l 2 -w legall53 fnan.tif
run "$WT" compare fnan.tif fnan.tif
case_ "compare of all-NaN images: PSNR nan, never inf" 0 "" "$WT" compare fnan.tif fnan.tif
expect "all-NaN compare: no 'PSNR inf'" sh -c "! grep -q 'PSNR inf' '$out' && grep -q 'PSNR nan' '$out'"
# --depth 16 of an exact 8-bit image: what is written is exact; peak 2^8 - 1
run "$WT" roundtrip -l 3 -w db4 --depth 16 --psnr g16.png
expect "roundtrip --depth 16 of an 8-bit image: PSNR inf" grep -qx 'g16.png: PSNR inf dB' "$out"
run "$WT" roundtrip -l 3 -w db4 --depth 8 --psnr g16.png
expect "roundtrip --depth 8 of an 8-bit image: PSNR inf" grep -qx 'g16.png: PSNR inf dB' "$out"

# ---- (3) layer sidecars: every field bounded ---------------------------------------
mkdir lay
"$WT" decompose --transform swt -l 2 --layers g16.png lay/g.png
for spec in "start_level 0/start_level 2147483647" "start_level 0/start_level -1" \
    "levels 2/levels 99999999999999999999" "width 16/width 4294967297" "width 16/width 0x10" \
    "channels 1/channels 65" "norm 0/norm 7" "all_approx 0/all_approx -2147483648" \
    "bit_depth 8/bit_depth 12" "norm 0/nor 0"; do
    sed "s/$spec/" lay/g_layers.txt >"lay/h_layers.txt"
    case_ "sidecar with '${spec#*/}': refused in one line" 1 \
        "wavetool: lay/h_layers.txt: not a wavetool layers file (*" \
        "$WT" reconstruct lay/h_layers.txt lay/h.png
    expect "sidecar '${spec#*/}': no output" test ! -e lay/h.png
done
sed 's/ 128$/ inf/' lay/g_layers.txt >lay/h_layers.txt
case_ "sidecar with a layer scale of inf: refused" 1 "wavetool: lay/h_layers.txt: *layer line*" \
    "$WT" reconstruct lay/h_layers.txt lay/h.png
case_ "the sidecar as written: reconstructs" 0 "" "$WT" reconstruct lay/g_layers.txt lay/back.png
case_ "the sidecar as written: exact" 0 "" "$WT" compare -q g16.png lay/back.png

# ---- (4) --layers outputs follow the output rules -----------------------------------
mkdir lo
cp g16.png lo/in_c.png
case_ "--layers: a layer that would be the input is refused" 1 \
    "wavetool: lo/in_c.png: output lo/in_c.png is the input file; not overwritten" \
    "$WT" decompose --transform starlet -l 1 --layers lo/in_c.png lo/in.png
expect "--layers: the input is intact, no other layer written" \
    sh -c "cmp -s g16.png lo/in_c.png && [ \"\$(ls -A lo)\" = in_c.png ]"
case_ "--layers from standard input: its file is not a layer either" 1 \
    "wavetool: (stdin): output lo/in_c.png is the input file; not overwritten" \
    sh -c '"$0" decompose --transform starlet -l 1 --layers - lo/in.png <lo/in_c.png' "$WT"
"$WT" decompose --transform starlet -l 1 --layers g16.png lo/x.png
touch -d 2001-01-01 lo/x_w1.png lo/x_layers.txt
case_ "--layers -n: an existing set is skipped" 0 "" \
    "$WT" decompose -n --transform starlet -l 1 --layers g16.png lo/x.png
expect "--layers -n: the existing set untouched" \
    sh -c '[ "$(stat -c %Y lo/x_w1.png lo/x_layers.txt | sort -u)" = "$(date -d 2001-01-01 +%s)" ]'
touch lo/y_w1.png
case_ "--layers -n: one existing file skips the set" 0 "" \
    "$WT" decompose -n --transform starlet -l 1 --layers g16.png lo/y.png
expect "--layers -n: nothing written" sh -c '[ ! -s lo/y_w1.png ] && [ ! -e lo/y_c.png ] && [ ! -e lo/y_layers.txt ]'
mkdir lf
$TOOL png r200.png 200 200 gray 8 random 3
case_ "--layers over ulimit -f: fails" 1 "wavetool: lf/r_*: *" \
    bash -c 'ulimit -f 30 && exec "$0" decompose --transform swt -l 2 --layers r200.png lf/r.png' "$WT"
expect "--layers over ulimit -f: no layer, sidecar or temporary file left" no_temp_files lf
weird=$(printf 'lo/we ird\001\377%%name.png')
case_ "--layers: a name with a space, a control byte, 0xff and %" 0 "" \
    "$WT" decompose --transform swt -l 1 --layers g16.png "$weird"
case_ "--layers: that sidecar reconstructs" 0 "" \
    "$WT" reconstruct "${weird%.png}_layers.txt" lo/weird-back.png
case_ "--layers: exactly" 0 "" "$WT" compare -q g16.png lo/weird-back.png

# ---- (8) hostile names in SVG and TSV ------------------------------------------------
hostile=$(printf 'h\033[31m\377\001<&>"x.png')
cp g16.png "$hostile"
well_formed() { $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1"; }
case_ "stats --plot of a name with ESC, 0xff, 0x01 and markup" 0 "" \
    "$WT" stats -q --plot hostile.svg "$hostile" g16.png
expect "the SVG is well-formed XML" well_formed hostile.svg
expect "the SVG holds no control byte" sh -c "! LC_ALL=C grep -q \"\$(printf '[\\001\\033]')\" hostile.svg"
for cmd in "roundtrip -l 1" "stats" "sigma"; do
    run "$WT" $cmd --format tsv "$hostile"
    expect "$cmd --format tsv: no raw ESC or 0x01 in the output" \
        sh -c "! LC_ALL=C grep -q \"\$(printf '[\\001\\033]')\" '$out'"
    expect "$cmd --format tsv: the name escaped as the text output does" grep -qF 'h\x1b[31m' "$out"
done

# ---- (9) 1xN and Nx1 images: line buffers of the lines that exist, counted -----------
$PY "$SRC/tests/cli/hostile.py" wide wide.png 4000000 1
$PY "$SRC/tests/cli/hostile.py" wide tall.png 1 4000000
for f in wide tall; do
    case_ "$f 4000000-pixel line: --max-memory 100M counts its line buffers" 1 \
        "wavetool: $f.png: a * image of 1 channel needs about * MiB, more than the 100 MiB allowed*" \
        "$WT" roundtrip -l 3 --max-memory 100M $f.png
    if bash -c 'ulimit -v 60000 && exec "$0" --version' "$WT" >/dev/null 2>&1; then
        # about 170 MB resident, 450 MB mapped; 16 copies of the line mapped 3.5 GB
        case_ "$f 4000000-pixel line: roundtrip within ulimit -v 1 GB" 0 "*" \
            bash -c 'ulimit -v 1000000 && exec "$0" roundtrip -l 3 --max-memory 0 "$1"' "$WT" $f.png
        expect "$f line: exact" grep -q "PSNR inf" "$out"
    else
        skip "$f line under ulimit -v" "no start under ulimit -v (sanitizer build)"
    fi
done

# ---- (10) messages that name what differs ----------------------------------------
$HTIFF pages photometric.tif 1 0
case_ "pages differing only in photometric: the message names it" 1 \
    "wavetool: photometric.tif: page 1 is *MinIsWhite; page 0 is *MinIsBlack: *" \
    "$WT" roundtrip -l 1 photometric.tif
$HTIFF pages format.tif f1 f2
case_ "pages differing only in sample format: the message names it" 1 \
    "wavetool: format.tif: page 1 is 8x8, 1 signed sample*; page 0 is 8x8, 1 unsigned sample*" \
    "$WT" roundtrip -l 1 format.tif
# reconstruct out of memory while the coefficients load: the file is named
$TOOL png big.png 2048 2048 gray 8 gradient
"$WT" decompose -l 1 big.png big.npz >/dev/null
if bash -c 'ulimit -v 60000 && exec "$0" --version' "$WT" >/dev/null 2>&1; then
    for kib in 25000 30000 40000; do
        # (a build whose libraries alone take the limit cannot start under it)
        if ! bash -c 'ulimit -v "$1" && exec "$0" --version' "$WT" "$kib" >/dev/null 2>&1; then
            skip "reconstruct under ulimit -v $kib" "the program does not start under it"
            continue
        fi
        case_ "reconstruct under ulimit -v $kib: out of memory names the file" 1 \
            "wavetool: big.npz: out of memory*" \
            bash -c 'ulimit -v "$1" && exec "$0" reconstruct --max-memory 0 big.npz oom.png' \
            "$WT" "$kib"
    done
else
    skip "reconstruct under ulimit -v: the file named" "no start under ulimit -v (sanitizer build)"
fi

tap_done
