#!/bin/bash
# Golden tests of the wavetool command line (TAP output for meson).
# Each case: a command, the exit code it must give, and a glob its whole stderr
# must match. Inputs are generated here: tests/cli/clitool.py writes PNGs with
# zlib alone; the JPEG is written by wavetool itself (a 0-level "mosaic").
# Usage: run_cli_tests.sh WAVETOOL SOURCE_DIR
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"

one_line() { [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ]; }
has_pywt() { $TOOL has-pywt; }
same_pixels() { "$WT" compare --format tsv "$1" "$2" | tail -1 | grep -q "	inf	"; }

# ---- inputs ------------------------------------------------------------------
$TOOL png rgb8.png 37 29 rgb 8 random 1
$TOOL png gray16.png 23 31 gray 16 random 2
$TOOL png rgba8.png 24 20 rgba 8 random 3
$TOOL png graya16.png 19 21 graya 16 random 4
$TOOL png pal.png 13 11 palette 8 random 5
$TOOL png one.png 1 1 rgb 8 random 6
$TOOL png odd.png 17 15 gray 8 random 7
$TOOL png tiny4.png 4 4 gray 8 random 8
$TOOL png big8.png 160 153 rgb 8 random 9
$TOOL png big16.png 153 160 gray 16 random 10
$TOOL png flat.png 8 8 gray 8 const:200
printf 'this is not an image\n' >notimg.png
head -c 100 rgb8.png >trunc.png
"$WT" decompose -l 0 --quality 95 big8.png photo.jpg || echo "# could not make photo.jpg"
head -c $(($(wc -c <photo.jpg) / 2)) photo.jpg >trunc.jpg
echo "# inputs in $T"

# ---- version, help, wavelets ------------------------------------------------------
case_ "--version" 0 "" "$WT" --version
expect "--version names the library and backends" grep -q "^backends: cpu" "$out"
case_ "--help" 0 "" "$WT" --help
expect "--help lists exit codes" grep -q "2 usage error" "$out"
case_ "decompose --help" 0 "" "$WT" decompose --help
# --help lists only what applies: --ext names the types the command writes,
# and wavelets (no files, no progress) has no -q/-v
"$WT" reconstruct --help >help.txt
expect "reconstruct --help: --ext without npz" sh -c "grep -e '--ext' help.txt | grep -qv npz"
"$WT" decompose --help >help.txt
expect "decompose --help: --ext with npz" sh -c "grep -e '--ext' help.txt | grep -q npz"
"$WT" wavelets --help >help.txt
expect "wavelets --help: no -q/-v" sh -c "! grep -qe '--quiet' -e '--verbose' help.txt"
# each command's help lists only the transforms and options it takes
"$WT" denoise --help >help.txt
expect "denoise --help: no --border/--norm" sh -c "! grep -qe '--border' -e '--norm' help.txt"
expect "denoise --help: starlet's --k" grep -qe '--k K' help.txt
expect "denoise --help: -l's default is scikit-image's" grep -q "default max(dwt_max_level - 3, 1)" help.txt
case_ "wavelets -q" 2 "wavetool: option '-q' does not apply to 'wavelets'*" "$WT" wavelets -q
case_ "no command" 2 "wavetool: no command given*Try 'wavetool --help'." "$WT"
case_ "unknown command" 2 "wavetool: unknown command 'frobnicate'*" "$WT" frobnicate
case_ "a mistyped command: did you mean" 2 "wavetool: unknown command 'decompse' (did you mean 'decompose'?)*" "$WT" decompse
case_ "a word far from every command: no suggestion" 2 "wavetool: unknown command 'frobnicate'?Try 'wavetool --help'." "$WT" frobnicate
case_ "wavelets" 0 "" "$WT" wavelets
case_ "wavelets --format tsv" 0 "" "$WT" wavelets --format tsv
cp "$out" wavelets.tsv
expect "wavelets tsv: header and 109 wavelets" \
    test "$(head -1 wavelets.tsv)" = "$(printf 'name\tfamily\tfilter_length\tsupport\ttype\tlifting')" -a \
    "$(tail -n +2 wavelets.tsv | wc -l)" -eq 109
case_ "wavelets --format json" 0 "" "$WT" wavelets --format json
expect "wavelets json parses" $PY -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$out"

# ---- decompose ------------------------------------------------------------------
case_ "decompose mosaic" 0 "" "$WT" decompose -l 2 rgb8.png m.png
expect "mosaic is 8-bit RGB of coeffs_to_array's size (37x29 haar -l 2: 10+10+19 x 8+8+15)" \
    test "$($TOOL info m.png)" = "39 31 3 8"
case_ "decompose -v says the engine" 0 "*wavetool: engine: *" "$WT" decompose -v -l 1 rgb8.png m1.png
# issue 20 item 6: -v says why the GPU engine was not used; bench defaults to auto
# (WT_AUTO_DEVICE=gpu: auto tries the GPU whatever the job's size)
case_ "decompose -v says why the GPU was not used" 0 \
    "wavetool: GPU engine not used: *; using the CPU engine*wavetool: engine: cpu*" \
    env CUDA_VISIBLE_DEVICES= WT_AUTO_DEVICE=gpu "$WT" decompose -v -l 1 rgb8.png m1.png
# the CPU engine's threads follow the affinity mask (taskset, schedulers'
# cpusets), not the machine's processor count
if command -v taskset >/dev/null && [ "$(nproc --all)" -gt 1 ]; then
    case_ "taskset -c 0: one thread" 0 "*engine: cpu (1 thread)*" \
        taskset -c 0 "$WT" decompose -v --device cpu -l 1 rgb8.png m1.png
    case_ "-j 0 under taskset: one file at a time" 0 "*engine: cpu (1 thread)*" \
        taskset -c 0 "$WT" decompose -v --device cpu -j 0 -l 1 -O tsout rgb8.png m1.png
else
    skip "taskset -c 0: one thread" "no taskset or one processor"
    skip "-j 0 under taskset: one file at a time" "no taskset or one processor"
fi
case_ "bench defaults to --device auto (CPU without a GPU, said why)" 0 \
    "wavetool: GPU engine not used: *; measuring the CPU engine" \
    env CUDA_VISIBLE_DEVICES= "$WT" bench --size 64x48 --repeat 1 --forward
expect "bench on the CPU reports the cpu engine" grep -q "^# cpu" "$out"
case_ "bench --volume --device cpu: the CPU engine's volume DWT" 0 "" \
    "$WT" bench --volume --device cpu --size 16x12x10 -w haar,db3 -l 2 --repeat 1
expect "bench --volume: a row per wavelet and direction, WxHxD, % copy" \
    test "$(grep -c '16x12x10 .*%$' "$out")" = 4
case_ "bench --volume --transform swt: the volume's SWT (9 volumes a level)" 0 "" \
    "$WT" bench --volume --device cpu --transform swt --size 16x12x10 -w haar -l 2 --repeat 1
expect "bench --volume swt: a row a direction, swt 9 a level" \
    test "$(grep -c '^haar *swt .*16x12x10 .*%$' "$out")" = 2 -a "$(grep -c 'swt 9 a level' "$out")" = 1
case_ "bench --volume --transform starlet --axes 1,2" 0 "" \
    "$WT" bench --volume --device cpu --transform starlet --axes 1,2 --size 16x12x10 -l 2 --repeat 1
expect "bench --volume starlet: a row a direction" \
    test "$(grep -c '^b3spline *starlet .*16x12x10 .*%$' "$out")" = 2
case_ "bench --volume --transform packet: refused" 2 "*--volume transforms with*" \
    "$WT" bench --volume --device cpu --transform packet --size 16x12x10 -l 1 --repeat 1
case_ "decompose to .npz" 0 "" "$WT" decompose -w db2 -m periodization -l 2 gray16.png c16.npz
case_ "decompose 16-bit mosaic is 16-bit" 0 "" "$WT" decompose -l 1 gray16.png m16.png
expect "16-bit input, 16-bit mosaic" test "$($TOOL info m16.png | cut -d' ' -f4)" = 16
case_ "decompose --depth 8" 0 "" "$WT" decompose -l 1 --depth 8 gray16.png m16to8.png
expect "--depth 8 mosaic" test "$($TOOL info m16to8.png | cut -d' ' -f4)" = 8
case_ "decompose jpeg mosaic" 0 "" "$WT" decompose -l 2 rgb8.png m.jpg
case_ "decompose jpeg input" 0 "" "$WT" decompose -l 2 photo.jpg mphoto.png
case_ "decompose stdin to stdout" 0 "" sh -c "cat rgb8.png | '$WT' decompose -l 1 - - > mstdio.png"
expect "stdout mosaic is a PNG" test "$($TOOL info mstdio.png)" = "38 30 3 8"
case_ "decompose palette input" 0 "" "$WT" decompose -l 1 pal.png mpal.png
expect "palette expands to RGB" test "$($TOOL info mpal.png | cut -d' ' -f3)" = 3
case_ "decompose 1x1 -l max" 0 "" "$WT" decompose -l max one.png mone.png
expect "1x1 mosaic is 1x1" test "$($TOOL info mone.png)" = "1 1 3 8"
case_ "decompose 1x1 default levels shrink" 0 "" "$WT" decompose one.png mone2.png
case_ "decompose odd size" 0 "" "$WT" decompose -w db2 -l 1 odd.png modd.png
case_ "decompose flat image" 0 "" "$WT" decompose -l 2 flat.png mflat.png
case_ "decompose legall53 mosaic (int32 coefficients)" 0 "" "$WT" decompose -w legall53 -l 2 rgb8.png m53.png
expect "legall53 mosaic: ceil/floor halves keep 37x29" test "$($TOOL info m53.png)" = "37 29 3 8"
case_ "decompose cdf97 periodization mosaic" 0 "" "$WT" decompose -w cdf97 -m periodization -l 3 gray16.png m97.png
expect "cdf97 periodization: 23x31 -> 3+3+6+12 x 4+4+8+16" test "$($TOOL info m97.png)" = "24 32 1 16"

if has_pywt; then
    for spec in "haar symmetric 2 auto" "db2 symmetric 2 abs" "db3 zero 1 offset" \
        "sym4 periodization 1 auto" "bior2.2 reflect 1 offset" "coif1 smooth 1 abs"; do
        set -- $spec
        for img in rgb8.png gray16.png odd.png rgba8.png; do
            lv=$3
            [ "$img" = odd.png ] && lv=1
            case_ "mosaic $1 $2 -l $lv --scale $4 of $img" 0 "" \
                "$WT" decompose -w "$1" -m "$2" -l "$lv" --scale "$4" --alpha keep "$img" mos.png
            expect "mosaic $1 $2 $img matches pywt.coeffs_to_array" \
                $TOOL check-mosaic mos.png "$img" "$1" "$2" "$lv" "$4"
        done
    done
    for spec in "haar symmetric 3 rgb8.png" "db2 periodization 2 gray16.png" "db3 zero 1 odd.png" \
        "bior4.4 symmetric 2 big8.png" "sym5 antisymmetric 1 graya16.png" "coif2 smooth 1 big16.png" \
        "rbio3.1 periodic 2 rgba8.png" "db38 symmetric 1 big8.png" "db1 constant 1 pal.png"; do
        set -- $spec
        case_ "npz $1 $2 -l $3 of $4" 0 "" "$WT" decompose -w "$1" -m "$2" -l "$3" "$4" c.npz
        expect "npz $1 $2 $4: np.load without pickle, = pywt.wavedec2, waverec2 gives the image" \
            $TOOL check-npz c.npz "$4" "$1" "$2" "$3"
    done
else
    skip "mosaic and npz against PyWavelets" "no numpy/pywt for $PY"
fi

# ---- reconstruct ------------------------------------------------------------------
case_ "reconstruct 16-bit" 0 "" "$WT" reconstruct c16.npz back16.png
expect "reconstruct: original size, channels, depth" test "$($TOOL info back16.png)" = "23 31 1 16"
case_ "reconstruct equals the original" 0 "" "$WT" compare gray16.png back16.png --format tsv
expect "compare of reconstruction: inf" grep -q "	inf	" "$out"
case_ "decompose legall53 npz" 0 "" "$WT" decompose -w legall53 -l 2 rgba8.png c53.npz
case_ "reconstruct legall53" 0 "" "$WT" reconstruct c53.npz back53.png
case_ "legall53 exact" 0 "" "$WT" compare rgba8.png back53.png --format json
expect "legall53 json inf" $TOOL json-inf "$out"
case_ "reconstruct to .npz refused" 2 "wavetool: --ext npz*" "$WT" reconstruct --ext npz -O rdir c16.npz
case_ "reconstruct of a PNG fails cleanly" 1 "wavetool: rgb8.png: *" "$WT" reconstruct rgb8.png x.png
expect "reconstruct failure: one line" one_line

# ---- roundtrip: exact for every wavelet x mode x method, 8 and 16 bits ----------------
case_ "roundtrip --psnr text" 0 "" "$WT" roundtrip --psnr rgb8.png
expect "text report says inf" grep -q "^rgb8.png: PSNR inf dB (R inf, G inf, B inf)$" "$out"
case_ "roundtrip -q still reports" 0 "" "$WT" roundtrip -q --psnr --format tsv gray16.png
expect "tsv has one header and inf" test "$(head -1 "$out" | cut -f1,6)" = "$(printf 'file\tpsnr')" -a \
    "$(tail -1 "$out" | cut -f6)" = inf
# One process per wavelet x mode x method, two files each (8-bit RGB, 16-bit
# gray, -l max: at least one level for every filter). dmey is left out: PyWavelets'
# dmey is an FIR approximation of Meyer's wavelet and does not reconstruct
# perfectly even in float64 (errors above 1 on 8-bit data).
# A 16-bit failure is reported as TODO: float32 coefficients (the file format and
# the engines) cannot hold every 16-bit signal exactly for some filters
# (PyWavelets in float32 shows the same), against DESIGN's bit-exact claim.
# The matrix runs on the CPU engine (WT_CLI_MATRIX_DEVICE=auto to run it on a
# GPU: each of its ~1,600 processes then pays a CUDA start); the GPU engine's
# round trips are gpu_check's (suite gpu), on every wavelet, mode and method.
modes="zero constant symmetric reflect periodic smooth antisymmetric antireflect periodization"
matrix_device=${WT_CLI_MATRIX_DEVICE:-cpu}
matrix_runs=0
while IFS=$'\t' read -r name family flen support type lifting; do
    [ "$name" = name ] && continue
    if [ "$name" = dmey ]; then
        skip "roundtrip inf: dmey" "not a perfect-reconstruction filter bank in PyWavelets either"
        continue
    fi
    methods=""
    [ "$name" != legall53 ] && methods="conv"
    [ "$lifting" = yes ] && methods="$methods lifting"
    wmodes=$modes
    [ "$family" = "JPEG 2000" ] || [ "$family" = "Deslauriers-Dubuc" ] && wmodes="symmetric reflect periodization"
    bad8="" bad16="" combos=0
    for mode in $wmodes; do
        for method in $methods; do
            "$WT" roundtrip --device "$matrix_device" --psnr --format tsv -j 1 -w "$name" -m "$mode" --method "$method" -l max \
                big8.png big16.png >m.tsv 2>m.err
            r=$?
            combos=$((combos + 1))
            [ $r -eq 0 ] && [ "$(sed -n 2p m.tsv | cut -f6)" = inf ] || bad8="$bad8 $mode/$method(exit $r $(head -c 200 m.err))"
            [ $r -eq 0 ] && [ "$(sed -n 3p m.tsv | cut -f6)" = inf ] ||
                bad16="$bad16 $mode/$method:$(sed -n 3p m.tsv | cut -f6)"
        done
    done
    matrix_runs=$((matrix_runs + combos))
    if [ -z "$bad8" ]; then
        ok "roundtrip --psnr inf, 8-bit RGB: $name ($combos mode x method)"
    else
        not_ok "roundtrip --psnr inf, 8-bit RGB: $name" "not exact:$bad8"
    fi
    if [ -z "$bad16" ]; then
        ok "roundtrip --psnr inf, 16-bit gray: $name ($combos mode x method)"
    else
        n=$((n + 1))
        echo "not ok $n - roundtrip --psnr inf, 16-bit gray: $name # TODO float32 precision:$bad16"
    fi
done <wavelets.tsv
echo "# roundtrip matrix: $matrix_runs runs"
for img in rgba8.png graya16.png pal.png one.png odd.png photo.jpg; do
    case_ "roundtrip -l max $img" 0 "" "$WT" roundtrip --format json -w db2 -l max "$img"
    expect "roundtrip $img: inf" $TOOL json-inf "$out"
done
case_ "roundtrip from stdin" 0 "" sh -c "'$WT' roundtrip --format json - < gray16.png"
expect "roundtrip stdin: inf" $TOOL json-inf "$out"
case_ "roundtrip -o - writes the image to stdout, the report to stderr" 0 "*PSNR inf dB*" \
    sh -c "'$WT' roundtrip -l 1 -o - rgb8.png > rtout.png"
expect "roundtrip -o -: a PNG" test "$($TOOL info rtout.png)" = "37 29 3 8"
case_ "roundtrip -o writes the reconstruction" 0 "" "$WT" roundtrip -l 2 -o rt.png rgb8.png
expect "roundtrip output is the image" test "$($TOOL info rt.png)" = "37 29 3 8"
case_ "roundtrip --keep" 0 "" "$WT" roundtrip --format json --keep 0.1 -l 2 big8.png
expect "--keep reports kept fraction near 0.1" $PY -c "
import json,sys; o=json.loads(open(sys.argv[1]).read()); assert 0.09<=o['kept']<=0.11, o; assert o['psnr']!='inf'" "$out"
case_ "roundtrip --keep 1 is exact" 0 "" "$WT" roundtrip --format json --keep 1 -l 2 big8.png
expect "--keep 1: inf" $TOOL json-inf "$out"
# --keep ranks |c| x the band's synthesis norm (issue 20 item 3): cdf97 is bior4.4
# with JPEG 2000 gains, so both keep the same coefficients (camera, periodization:
# magnitude ranking gave 32.1/31.7/31.5 dB against 30.1/28.5/27.0 dB at 3/4/5 levels)
keep_psnr() { "$WT" roundtrip --format tsv --psnr --keep 0.05 -m periodization -l 4 "$@" \
    "$SRC/data/camera.png" | tail -1 | cut -f6; }
p_bior=$(keep_psnr -w bior4.4); p_cdf=$(keep_psnr -w cdf97)
p_cdf_mag=$(keep_psnr -w cdf97 --keep-rank magnitude); p_haar=$(keep_psnr -w haar)
p_haar_mag=$(keep_psnr -w haar --keep-rank magnitude)
expect "--keep 0.05: cdf97 $p_cdf dB = bior4.4 $p_bior dB (magnitude: $p_cdf_mag dB)" $PY -c "
import sys; b, c, m = map(float, sys.argv[1:]); assert abs(b - c) < 0.01 and b - m > 2" \
    "$p_bior" "$p_cdf" "$p_cdf_mag"
expect "--keep-rank norm = magnitude for orthonormal haar" test "$p_haar" = "$p_haar_mag"
case_ "--keep-rank legall53 (int32, ranked on the host)" 0 "" "$WT" roundtrip --format json \
    --keep 0.1 -w legall53 -l 2 big8.png
expect "legall53 --keep: kept near 0.1" $PY -c "
import json,sys; o=json.loads(open(sys.argv[1]).read()); assert 0.09<=o['kept']<=0.11, o" "$out"
case_ "--keep-rank bad" 2 "*invalid argument 'size' for option --keep-rank*" "$WT" roundtrip \
    --keep 0.1 --keep-rank size big8.png
case_ "roundtrip --threshold --soft" 0 "" "$WT" roundtrip --format tsv --threshold 20 --soft -l 2 big8.png
expect "tsv has a kept column" test "$(head -1 "$out" | awk -F'\t' '{print $(NF-1)}')" = kept
case_ "roundtrip --threshold 0 is exact" 0 "" "$WT" roundtrip --format json --threshold 0 -l 2 big16.png
expect "--threshold 0: inf" $TOOL json-inf "$out"

# ---- compare: hand-computed values ----------------------------------------------------
# gray 4x4 of 100; B has +4 at one pixel and -2 at another: SSE 20, MSE 20/16 = 1.25,
# PSNR 10 log10(255^2 / 1.25) = 47.1617...
$TOOL png ca.png 4 4 gray 8 const:100
$TOOL png cb.png 4 4 gray 8 values:104,100,100,100,100,100,100,100,100,100,98,100,100,100,100,100
case_ "compare gray" 0 "" "$WT" compare --format tsv ca.png cb.png
expect "compare gray: MSE 1.25, PSNR 47.16170348" \
    test "$(tail -1 "$out" | cut -f7,12)" = "$(printf '47.16170348\t1.25')"
case_ "compare text" 0 "" "$WT" compare ca.png cb.png
expect "compare text line" grep -qx "ca.png vs cb.png: PSNR 47.16 dB, MSE 1.25" "$out"
# RGB 2x2: R off by 1 at one pixel (MSE 0.25, 54.1514 dB), G off by 2 everywhere
# (MSE 4, 42.1102 dB), B equal (inf); mean MSE 4.25/3, PSNR 46.6181 dB
$TOOL png ra.png 2 2 rgb 8 values:10,20,30,10,20,30,10,20,30,10,20,30
$TOOL png rb.png 2 2 rgb 8 values:11,22,30,10,22,30,10,22,30,10,22,30
case_ "compare rgb json" 0 "" "$WT" compare --format json ra.png rb.png
expect "compare rgb: per channel and mean" $PY -c "
import json,sys,math
o=json.loads(open(sys.argv[1]).read())
assert o['mse_channels']==[0.25,4,0], o
assert abs(o['mse']-4.25/3)<1e-9, o
assert o['psnr_channels'][2]=='inf', o
assert abs(o['psnr_channels'][0]-54.15140352)<1e-6 and abs(o['psnr_channels'][1]-42.1102037)<1e-6, o
assert abs(o['psnr']-46.61812686)<1e-6, o" "$out"
# 16-bit: [1000, 2000] vs [1010, 2000]: MSE 50, PSNR 10 log10(65535^2/50) = 79.3398
$TOOL png sa.png 2 1 gray 16 values:1000,2000
$TOOL png sb.png 2 1 gray 16 values:1010,2000
case_ "compare 16-bit" 0 "" "$WT" compare --format tsv sa.png sb.png
expect "compare 16-bit: MSE 50, PSNR 79.33976603" \
    test "$(tail -1 "$out" | cut -f7,12)" = "$(printf '79.33976603\t50')"
case_ "compare identical: inf, exit 0" 0 "" "$WT" compare rgb8.png rgb8.png
case_ "compare mismatched size" 1 "wavetool: rgb8.png, rgba8.png: images differ in size (37x29 vs 24x20)" \
    "$WT" compare rgb8.png rgba8.png
$TOOL png rgb16.png 37 29 rgb 16 random 1
case_ "compare mismatched depth" 1 "wavetool: rgb8.png, rgb16.png: images differ in bit depth*" \
    "$WT" compare rgb8.png rgb16.png
$TOOL png gray37.png 37 29 gray 8 random 1
case_ "compare mismatched channels" 1 "wavetool: rgb8.png, gray37.png: images differ in channels*" \
    "$WT" compare rgb8.png gray37.png
# issue 20 item 7: images that differ only in channels or depth, compared by option
if $PY -c "import numpy, PIL" 2>/dev/null; then
    $PY -c '
import numpy as np
from PIL import Image
rgb = Image.open("rgb8.png").convert("RGB")
rgb.convert("L").save("cmp_gray.png")
rgb.convert("RGBA").save("cmp_rgba.png")
rng = np.random.default_rng(5)
luma = np.asarray(rgb.convert("L")).astype(int)
Image.fromarray(np.clip(luma + rng.integers(-9, 10, size=luma.shape), 0, 255).astype(np.uint8)).save("cmp_noisy.png")
g16 = np.asarray(Image.open("gray16.png")).astype(np.int64)
Image.fromarray(((g16 * 255 + 32767) // 65535).astype(np.uint8)).save("cmp_g8.png")
'
    case_ "compare RGB with gray: refused, names --gray" 1 \
        "wavetool: rgb8.png, cmp_gray.png: images differ in channels (3 vs 1); --gray compares them" \
        "$WT" compare rgb8.png cmp_gray.png
    case_ "compare --gray: RGB as PIL's convert('L') equals it" 0 "" \
        "$WT" compare --gray --format tsv rgb8.png cmp_gray.png
    expect "compare --gray: inf" grep -q "	inf	" "$out"
    case_ "compare --gray against a noisy gray image" 0 "" \
        "$WT" compare --gray --format json rgb8.png cmp_noisy.png
    expect "compare --gray: MSE = numpy's on PIL's luma" $PY -c '
import json, sys, numpy as np
from PIL import Image
r = json.loads(open(sys.argv[1]).readline())
a = np.asarray(Image.open("rgb8.png").convert("L"), dtype=float)
b = np.asarray(Image.open("cmp_noisy.png"), dtype=float)
want = ((a - b) ** 2).mean()
assert abs(r["mse"] - want) <= 1e-9 * want, (r, want)' "$out"
    case_ "compare RGB with RGBA: refused, names --ignore-alpha" 1 \
        "wavetool: rgb8.png, cmp_rgba.png: images differ in channels (3 vs 4); --ignore-alpha compares them" \
        "$WT" compare rgb8.png cmp_rgba.png
    case_ "compare --ignore-alpha: RGB = RGBA's colour" 0 "" \
        "$WT" compare --ignore-alpha --format tsv rgb8.png cmp_rgba.png
    expect "compare --ignore-alpha: inf" grep -q "	inf	" "$out"
    case_ "compare --gray of RGBA and gray: alpha left out" 0 "" \
        "$WT" compare --gray --format tsv cmp_rgba.png cmp_gray.png
    expect "compare --gray RGBA vs gray: inf" grep -q "	inf	" "$out"
    case_ "compare 16-bit with 8-bit: refused, names --depth" 1 \
        "wavetool: gray16.png, cmp_g8.png: images differ in bit depth (16 vs 8); --depth 8 or --depth 16 compares them" \
        "$WT" compare gray16.png cmp_g8.png
    case_ "compare --depth 8: round(v x 255 / 65535) of the 16-bit image equals it" 0 "" \
        "$WT" compare --depth 8 --format tsv gray16.png cmp_g8.png
    expect "compare --depth 8: inf" grep -q "	inf	" "$out"
    case_ "compare --depth 16: the 8-bit image x 257" 0 "" \
        "$WT" compare --depth 16 --format json gray16.png cmp_g8.png
    expect "compare --depth 16: MSE = numpy's against v x 257, peak 65535" $PY -c '
import json, sys, numpy as np
from PIL import Image
r = json.loads(open(sys.argv[1]).readline())
a = np.asarray(Image.open("gray16.png")).astype(float)
b = np.asarray(Image.open("cmp_g8.png")).astype(float) * 257
want = ((a - b) ** 2).mean()
assert abs(r["mse"] - want) <= 1e-9 * want, (r, want)
assert abs(r["psnr"] - 10 * np.log10(65535.0 ** 2 / want)) < 1e-6, r' "$out"
else
    skip "compare --gray/--ignore-alpha/--depth against PIL" "no numpy/PIL for $PY"
fi

# ---- errors ---------------------------------------------------------------------------
mkdir -p e
case_ "missing file" 1 "wavetool: nope.png: *" "$WT" decompose nope.png e/out.png
expect "missing file: one line" one_line
if is_root && [ -r /proc/self/mem ]; then
    # root reads any mode; the process's own memory file fails to read at offset 0
    case_ "unreadable file" 1 "wavetool: /proc/self/mem: *" "$WT" decompose /proc/self/mem e/out.png
elif is_root; then
    skip "unreadable file" "running as root"
else
    cp rgb8.png unreadable.png && chmod 000 unreadable.png
    case_ "unreadable file" 1 "wavetool: unreadable.png: *" "$WT" decompose unreadable.png e/out.png
fi
case_ "not an image" 1 "wavetool: notimg.png: *" "$WT" decompose notimg.png e/out.png
expect "not an image: one line" one_line
case_ "truncated PNG" 1 "wavetool: trunc.png: *" "$WT" decompose trunc.png e/out.png
expect "truncated PNG: one line" one_line
case_ "truncated JPEG (strict)" 1 "wavetool: trunc.jpg: *" "$WT" decompose trunc.jpg e/out.png
expect "truncated JPEG: one line" one_line
# issue 20 item 9: --lenient says what it recovered from
case_ "truncated JPEG --lenient: recovered, with a warning" 0 \
    "wavetool: warning: trunc.jpg: corrupt JPEG data recovered (--lenient): Premature end of JPEG file" \
    "$WT" decompose --lenient trunc.jpg e/lenient.png
case_ "truncated JPEG --lenient -q: no warning" 0 "" "$WT" decompose -q --lenient trunc.jpg e/lenient.png
rm -f e/lenient.png
# --gpu-decode, --gpu-encode: libjpeg-turbo wherever the CUDA engine does not
# run (or nvJPEG is not built), the same bytes, and -v says why
case_ "--gpu-decode --gpu-encode on the CPU engine: -v says libjpeg-turbo" 0 \
    "*wavetool: JPEG by libjpeg-turbo: the CPU engine runs*" \
    "$WT" decompose -v --device cpu --gpu-decode --gpu-encode photo.jpg e/gpu.jpg
"$WT" decompose -q --device cpu photo.jpg e/cpu.jpg
expect "--gpu-decode --gpu-encode on the CPU engine: the same JPEG" cmp e/gpu.jpg e/cpu.jpg
rm -f e/gpu.jpg e/cpu.jpg
case_ "over --max-pixels" 1 "wavetool: rgb8.png: *" "$WT" decompose --max-pixels 1000 rgb8.png e/out.png
expect "no output after errors" no_temp_files e
case_ "unknown wavelet with suggestion" 2 \
    "wavetool: unknown wavelet 'db33x' (did you mean 'db33'?)*Try 'wavetool decompose --help'." \
    "$WT" decompose -w db33x rgb8.png e/out.png
case_ "unknown mode" 2 "wavetool: unknown mode 'zro'*Try 'wavetool roundtrip --help'." \
    "$WT" roundtrip -m zro rgb8.png
case_ "unknown method" 2 "wavetool: unknown method 'fast'*" "$WT" roundtrip --method fast rgb8.png
case_ "no lifting for db5" 2 "wavetool: wavelet db5 has no lifting scheme*" \
    "$WT" roundtrip --method lifting -w db5 rgb8.png
case_ "levels: 12abc rejected" 2 "wavetool: invalid argument '12abc' for option --levels*" \
    "$WT" decompose -l 12abc rgb8.png e/out.png
case_ "jobs: 2x rejected" 2 "wavetool: invalid argument '2x' for option --jobs*" \
    "$WT" decompose -j 2x rgb8.png e/out.png
# issue 20 item 12: deeper than dwt_max_level is computed as pywt.wavedec2, one warning
case_ "levels deeper than dwt_max_level: computed, one warning" 0 \
    "wavetool: warning: tiny4.png: 3 levels on a 4x4 image with db3, deeper than its dwt_max_level 0: computed as pywt.wavedec2 does*" \
    "$WT" decompose -w db3 -l 3 tiny4.png e/deep.npz
expect "deep levels: one line" one_line
case_ "levels deeper than dwt_max_level: -q silences the warning" 0 "" \
    "$WT" decompose -q -w db3 -l 3 tiny4.png e/deep.npz
if has_pywt; then
    $TOOL png deep35.png 5 3 gray 8 random 12
    for spec in "db3 symmetric 3 tiny4.png" "haar symmetric 4 deep35.png" \
        "db2 periodization 4 deep35.png" "sym4 zero 3 odd.png" "coif1 periodic 5 deep35.png"; do
        set -- $spec
        case_ "-l $3 deeper than dwt_max_level: $1 $2 $4" 0 "wavetool: warning: *" \
            "$WT" decompose -w "$1" -m "$2" -l "$3" "$4" e/deep.npz
        expect "-l $3 deeper than dwt_max_level: $1 $2 $4 = pywt.wavedec2 (shapes and values)" \
            $TOOL check-npz e/deep.npz "$4" "$1" "$2" "$3"
        case_ "-l $3 deeper: $1 $2 $4 reconstructs exactly" 0 "" \
            "$WT" reconstruct e/deep.npz e/deep.png
        expect "-l $3 deeper: $1 $2 $4 reconstruction = input" same_pixels e/deep.png "$4"
    done
    rm -f e/deep.png
else
    skip "deep levels against PyWavelets" "no numpy/pywt for $PY"
fi
rm -f e/deep.npz
case_ "default levels reduced: -v says so" 0 \
    "*wavetool: tiny4.png: 0 levels instead of the default 3: a 4x4 image with db3 allows at most 0*" \
    "$WT" decompose -v -w db3 tiny4.png e/def.png
case_ "default levels reduced: silent without -v" 0 "" "$WT" decompose -w db3 tiny4.png e/def.png
rm -f e/def.png
case_ "levels max on the same image" 0 "" "$WT" decompose -w db3 -l max tiny4.png e/max.png
rm -f e/max.png
case_ "unknown extension" 2 "wavetool: out.bmp: unknown output type*" "$WT" decompose rgb8.png out.bmp
# issue 20 item 11: an output that names a folder suggests -O; a missing folder is said
case_ "decompose IN DIR/ suggests -O" 2 "wavetool: e/ is a directory; use -O e/ to write into it*" \
    "$WT" decompose rgb8.png e/
case_ "single output into a missing folder: says so, names -O" 1 \
    "wavetool: nofolder/out.png: folder nofolder does not exist (create it first: mkdir -p nofolder)" \
    "$WT" decompose rgb8.png nofolder/out.png
expect "missing folder: nothing created" test ! -e nofolder
case_ "unknown --ext" 2 "wavetool: invalid argument 'gif' for option --ext*" \
    "$WT" decompose --ext gif -O e rgb8.png
case_ "reconstruct to .npz names the formats" 2 \
    "wavetool: e/x.npz: reconstruct does not write NPZ files; use .png, .jpg, .jpeg, .tif, .tiff, .npy, .pgm, .ppm or .pnm*" \
    "$WT" reconstruct c16.npz e/x.npz
case_ "roundtrip -o unknown extension" 2 "wavetool: e/x.tga: unknown output type; use .png*" \
    "$WT" roundtrip rgb8.png -o e/x.tga
case_ "roundtrip --ext npz" 2 "wavetool: --ext npz: roundtrip writes png, jpg, jpeg, tif, tiff, npy, pgm, ppm or pnm*" \
    "$WT" roundtrip --ext npz -O e rgb8.png
case_ "--ext takes a dot and any case" 0 "" "$WT" decompose --ext .JPG - - < rgb8.png
expect "--ext .JPG: a JPEG on stdout" test "$(head -c 3 "$out" | od -An -tx1 | tr -d ' ')" = ffd8ff
mkdir -p e/empty
case_ "empty folder names the extensions" 0 "wavetool: e/empty: no .png/.jpg/.jpeg/.tif/.tiff/.npy/.pgm/.ppm/.pnm files found*" \
    "$WT" decompose -O e/o e/empty
case_ "option of another command" 2 "wavetool: option '--psnr' does not apply to 'decompose'*" \
    "$WT" decompose --psnr rgb8.png e/out.png
case_ "too many arguments" 2 "wavetool: expected IN OUT, or -O DIR and inputs*" \
    "$WT" decompose rgb8.png gray16.png e/out.png
case_ "device not built" 1 "wavetool: *" "$WT" decompose --device cuda:7 rgb8.png e/out.png
printf 'x' >notadir
case_ "output directory that is a file" 1 "wavetool: notadir/out.png: *" "$WT" decompose rgb8.png notadir/out.png
case_ "output in a missing directory" 1 "wavetool: missing/out.png: *" "$WT" decompose rgb8.png missing/out.png
if is_root; then
    skip "unwritable output directory" "running as root"
else
    mkdir ro && chmod 555 ro
    case_ "unwritable output directory" 1 "wavetool: ro/out.png: *" "$WT" decompose rgb8.png ro/out.png
    expect "nothing left in the read-only dir" no_temp_files ro
fi
cp rgb8.png self.png
case_ "refuse to write onto the input" 1 "wavetool: self.png: output self.png is the input file*" \
    "$WT" decompose -l 1 self.png self.png
expect "input untouched" cmp self.png rgb8.png
ln -f self.png hardlink.png 2>/dev/null &&
    case_ "refuse a hard link to the input" 1 "wavetool: self.png: output hardlink.png is the input file*" \
        "$WT" decompose -l 1 self.png hardlink.png

# ---- non-regular inputs and limits on every path (issue 18 items 4, 5) ----------------
# the format is decided from the first bytes: /dev/zero is refused at once (was: 4 GiB read)
case_ "decompose /dev/zero" 1 "wavetool: /dev/zero: not a PNG, JPEG, TIFF, NPY or Netpbm image" \
    bash -c '[ -n "${WT_NO_ULIMIT:-}" ] || ulimit -v 2000000; exec "$0" decompose /dev/zero e/z.png' "$WT"
case_ "reconstruct /dev/zero" 1 "wavetool: /dev/zero: not a coefficient file*" \
    bash -c '[ -n "${WT_NO_ULIMIT:-}" ] || ulimit -v 2000000; exec "$0" reconstruct /dev/zero e/z.png' "$WT"
# a stream is read up to what --max-pixels allows (was: to its end)
case_ "endless PNG on stdin stops at the cap" 1 \
    "wavetool: (stdin): file is larger than 64 MiB (the most --max-pixels 1000 allows)" \
    bash -c '{ cat rgb8.png; head -c 100000000 /dev/zero; } | "$0" decompose --max-pixels 1000 - e/z.png' "$WT"
case_ "endless .npz on stdin stops at the cap" 1 \
    "wavetool: (stdin): file is larger than 64 MiB (the most --max-pixels 1000 allows)" \
    bash -c '{ cat c16.npz; head -c 100000000 /dev/zero; } | "$0" reconstruct --max-pixels 1000 - e/z.png' "$WT"
# a FIFO with no writer fails after a bounded wait instead of blocking the
# batch; a writer that opens it a moment later is read (was a race: "empty file")
mkfifo e/fifo.png
case_ "FIFO without a writer" 1 "wavetool: e/fifo.png: no writer opened the FIFO within 3 s" timeout 20 "$WT" decompose e/fifo.png e/z.png
case_ "FIFO with a writer" 0 "" bash -c 'cat rgb8.png > e/fifo.png & exec timeout 20 "$0" decompose -l 1 e/fifo.png e/z.png' "$WT"
case_ "FIFO whose writer comes late" 0 "" bash -c '{ sleep 1; cat rgb8.png > e/fifo.png; } & exec timeout 20 "$0" decompose -l 1 e/fifo.png e/z.png' "$WT"
rm -f e/fifo.png e/z.png
# TIFF is a registry row like the others: read by its bytes, written by its extension
case_ "TIFF output" 0 "" "$WT" roundtrip -q -o e/rt.tif gray16.png
case_ "TIFF input, exact" 0 "" "$WT" compare gray16.png e/rt.tif --format tsv
expect "TIFF roundtrip: inf" grep -q "	inf	" "$out"
case_ "TIFF named .png is read as TIFF" 0 "" bash -c 'cp e/rt.tif e/lie.png && exec "$0" roundtrip -q e/lie.png' "$WT"
rm -f e/rt.tif e/lie.png
# --max-pixels applies to reconstruct too (was: "does not apply")
case_ "reconstruct --max-pixels" 1 \
    "wavetool: c16.npz: 23x31 pixels exceeds the limit of 100 (--max-pixels)" \
    "$WT" reconstruct --max-pixels 100 c16.npz e/z.png
expect "no output over the limit" test ! -e e/z.png

# ---- result sample types: --depth 8|16|f32 (issue 16 item 3) ---------------------------
npy_descr() { head -c 128 "$1" | grep -aq "'descr': '$2'"; } # FILE DESCR
case_ "--depth f32: float32 TIFF" 0 "" "$WT" roundtrip -q --depth f32 -o e/f32.tif gray16.png
case_ "float32 TIFF: meta says so" 0 "" "$WT" decompose -q e/f32.tif e/f32.npz
expect "float32 TIFF's coefficients: samples float32" grep -aq '"samples": "float32"' e/f32.npz
case_ "float32 back to 16 bits (--depth 16)" 0 "" "$WT" roundtrip -q --depth 16 -o e/back16.png e/f32.tif
case_ "16 -> float32 -> 16 is exact" 0 "" "$WT" compare gray16.png e/back16.png --format tsv
expect "16 -> float32 -> 16: inf" grep -q "	inf	" "$out"
case_ "--depth f32 .npy" 0 "" "$WT" reconstruct --depth f32 c16.npz e/r.npy
expect ".npy of --depth f32 is '<f4'" npy_descr e/r.npy '<f4'
case_ "float32 input keeps its type" 0 "" "$WT" reconstruct e/f32.npz e/r2.npy
expect "reconstruct of float32 coefficients is '<f4'" npy_descr e/r2.npy '<f4'
case_ "--depth 8 of 16-bit samples: clamped" 0 "" "$WT" roundtrip -q --depth 8 -o e/r8.npy gray16.png
expect ".npy of --depth 8 is '|u1'" npy_descr e/r8.npy '|u1'
case_ "denoise --depth f32" 0 "" "$WT" denoise --depth f32 rgb8.png e/d.tif
case_ "--depth f32 to PNG: usage error" 2 \
    "wavetool: e/x.png: --depth f32 writes float32 samples, which PNG does not hold; use .tif or .npy*" \
    "$WT" roundtrip --depth f32 -o e/x.png gray16.png
expect "--depth f32 to PNG: no output" test ! -e e/x.png
case_ "--depth f32 to JPEG: usage error" 2 "wavetool: e/x.jpg: --depth f32 writes float32 samples, which JPEG*" \
    "$WT" reconstruct --depth f32 c16.npz e/x.jpg
case_ "--depth f32 with -O (PNG by default): usage error" 2 \
    "wavetool: --depth f32 writes float32 samples, which PNG (the default output type) does not hold; use --ext tif or --ext npy*" \
    "$WT" denoise --depth f32 -O e/dd rgb8.png
expect "-O: no folder made" test ! -e e/dd
case_ "--depth f32 is not for mosaics" 2 "wavetool: --depth f32 is for --layers: mosaics are 8 or 16-bit displays*" \
    "$WT" decompose --depth f32 rgb8.png e/m.png
case_ "--layers --depth f32: float32 layers" 0 "" \
    "$WT" decompose --transform starlet -l 3 --layers --depth f32 gray16.png e/lay.tif
expect "float32 layers: the sidecar lists .tif layers" grep -q "^layer w1 lay_w1.tif 0.0 1$" e/lay_layers.txt
case_ "float32 layers reconstruct" 0 "" "$WT" reconstruct e/lay_layers.txt e/lay16.png
case_ "float32 layers reconstruct exactly" 0 "" "$WT" compare gray16.png e/lay16.png --format tsv
expect "float32 layers: inf" grep -q "	inf	" "$out"
case_ "--layers --depth f32 to PNG refused" 2 "wavetool: e/lay.png: --depth f32 writes float32 samples, which PNG does not hold; use .tif or .npy*" \
    "$WT" decompose --transform starlet -l 2 --layers --depth f32 gray16.png e/lay.png
# an 8x8 int16 .npy written by hand: header padded to 128 bytes, 128 data bytes
{ printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '<i2', 'fortran_order': False, 'shape': (8, 8), }"
  head -c 128 rgb8.png; } >e/i16.npy
case_ "int16 layers: the sidecar says samples int16" 0 "" \
    "$WT" decompose --transform swt -l 1 --layers e/i16.npy e/li.png
expect "int16 layers: samples line" grep -q "^samples int16$" e/li_layers.txt
case_ "int16 layers reconstruct as int16" 0 "" "$WT" reconstruct e/li_layers.txt e/li.npy
expect "int16 layers: .npy '<i2'" npy_descr e/li.npy '<i2'
rm -f e/lay* e/li* e/i16.npy
# an 8x8 float32 .npy of NaN only: MSE is NaN, which JSON spells null (no bare
# nan); the JSON lines must parse with NaN and Infinity literals refused
{ printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '<f4', 'fortran_order': False, 'shape': (8, 8), }"
  for _ in $(seq 64); do printf '\000\000\300\177'; done; } >e/nan.npy
strict_json='import json,sys
def refuse(c): raise ValueError("non-standard constant " + c)
rows = [json.loads(l, parse_constant=refuse) for l in open(sys.argv[1])]
assert rows and all(r["mse"] is None and r["mse_channels"] == [None] for r in rows), rows'
# a transform refuses NaN samples (one line naming the file); compare reports them
case_ "roundtrip of an all-NaN .npy: refused in one line" 1 "wavetool: e/nan.npy: *" \
    "$WT" roundtrip --format json --psnr --mse e/nan.npy
case_ "compare --format json of all-NaN arrays" 0 "" "$WT" compare --format json e/nan.npy e/nan.npy
expect "all-NaN compare: valid JSON, mse null" $PY -c "$strict_json" "$out"
rm -f e/nan.npy
case_ "--depth bad value" 2 "wavetool: invalid argument '12' for option --depth; should be 8, 16 or f32*" \
    "$WT" roundtrip --depth 12 rgb8.png
case_ "float32 input to PNG without --depth fails that file" 1 \
    "wavetool: e/x.png: PNG holds 8/16-bit unsigned samples, not float32 (--depth 8 or 16 converts; .tif and .npy hold it)" \
    "$WT" roundtrip -q -o e/x.png e/f32.tif
expect "float32 to PNG: no output" test ! -e e/x.png
case_ "float32 input, PNG mosaic (16-bit display)" 0 "" "$WT" decompose -q e/f32.tif e/m.png
expect "float32 mosaic is 16-bit" test "$($TOOL info e/m.png | cut -d' ' -f4)" = 16
rm -f e/f32.tif e/f32.npz e/back16.png e/r.npy e/r2.npy e/r8.npy e/d.tif e/m.png

# ---- batches ----------------------------------------------------------------------------
mkdir -p in/sub
cp rgb8.png in/a.png
cp gray16.png in/b.png
cp photo.jpg in/sub/c.jpg
cp notimg.png in/d.png
printf 'skip me' >in/readme.txt
case_ "batch: one bad file, others processed" 1 \
    "wavetool: in/d.png: *wavetool: 4 files: 3 done, 1 failed" \
    "$WT" decompose -l 1 -j 2 -O out in
expect "batch outputs named from stems, the input tree mirrored" no_temp_files out a.png b.png sub
expect "batch: in/sub/c.jpg -> out/sub/c.png" no_temp_files out/sub c.png
case_ "batch -n skips existing outputs" 1 \
    "wavetool: in/d.png: *wavetool: 4 files: 0 done, 1 failed, 3 skipped" \
    "$WT" decompose -n -l 1 -O out in
case_ "batch -n -v names skipped files" 1 "*out/a.png: exists, skipped (--no-clobber)*" \
    "$WT" decompose -n -v -l 1 -O out in
case_ "batch --suffix --ext npz" 1 "*4 files: 3 done, 1 failed" \
    "$WT" decompose -l 1 --suffix _c --ext npz -O out in
expect "npz outputs" no_temp_files out a.png b.png sub a_c.npz b_c.npz
expect "npz outputs in the mirrored folder" no_temp_files out/sub c.png c_c.npz
case_ "batch reconstruct of a directory of .npz" 0 "wavetool: 3 files: 3 done, 0 failed" \
    "$WT" reconstruct -O back out
expect "reconstructions" no_temp_files back a_c.png b_c.png sub
expect "reconstructions mirrored" no_temp_files back/sub c_c.png
# issue 20 item 2: -O mirrors the tree of a directory input; same stems get distinct names
mkdir -p cam/a cam/b
cp rgb8.png cam/a/IMG_0001.png && cp gray16.png cam/b/IMG_0001.png
cp rgb8.png cam/a/x.png && cp photo.jpg cam/a/x.jpg
case_ "-O of a camera tree: same names in two folders, x.jpg beside x.png" 0 \
    "wavetool: 4 files: 4 done, 0 failed" "$WT" decompose -l 1 -O camout cam
expect "-O mirrors the folders" no_temp_files camout a b
expect "-O: x.jpg and x.png keep their extension in the output name" \
    no_temp_files camout/a IMG_0001.png x.jpg.png x.png.png
expect "-O: b/IMG_0001.png has its own output (16-bit gray)" \
    test "$($TOOL info camout/b/IMG_0001.png | cut -d' ' -f3,4)" = "1 16"
case_ "-O tree: a rerun with -n skips every output" 0 \
    "wavetool: 4 files: 0 done, 0 failed, 4 skipped" "$WT" decompose -n -l 1 -O camout cam
case_ "-O tree: a rerun without -n replaces them" 0 \
    "wavetool: 4 files: 4 done, 0 failed" "$WT" decompose -l 1 -O camout cam
case_ "batch roundtrip reports in input order" 1 "wavetool: in/d.png: *wavetool: 4 files: 3 done, 1 failed" \
    "$WT" roundtrip --format tsv -l 1 -j 3 in
expect "roundtrip batch: header + 3 lines in order" \
    test "$(cut -f1 "$out" | tr '\n' ' ')" = "file in/a.png in/b.png in/sub/c.jpg "
case_ "batch -q: no summary" 1 "wavetool: in/d.png: *" "$WT" decompose -q -l 1 -O out2 in
case_ "-O into the input directory refuses to overwrite" 1 \
    "*in/a.png: output in/a.png is the input file*" "$WT" decompose -l 1 --base in -O in in/a.png
mkdir -p pair && cp rgb8.png pair/x.png && cp gray16.png pair/x_m.png && cp pair/x_m.png x_m.orig
case_ "an output that is another input is refused" 1 \
    "wavetool: pair/x.png: output pair/x_m.png is the input pair/x_m.png; not overwritten*" \
    "$WT" decompose -l 1 --suffix _m --base pair -O pair pair/x.png pair/x_m.png
expect "the other input is untouched" cmp pair/x_m.png x_m.orig
cp rgb8.png c.png && cp rgb8.png in/sub/c.png
case_ "files of one stem and two extensions: distinct outputs" 0 "wavetool: 2 files: 2 done, 0 failed" \
    "$WT" decompose -l 1 -O dup in/sub/c.jpg in/sub/c.png
expect "c.jpg -> c.jpg.png, c.png -> c.png.png" no_temp_files dup/in/sub c.jpg.png c.png.png
rm in/sub/c.png
# issue 31 item 10: -O keeps a file argument's folders (below the current folder
# or --base); two inputs with one output refuse the batch before any write
mkdir -p a2 && cp rgb8.png a2/c.png
case_ "-O: files of one name in two folders keep their folders" 0 "wavetool: 2 files: 2 done, 0 failed" \
    "$WT" decompose -l 1 -O dup2 c.png ./a2//c.png
expect "-O: c.png -> dup2/c.png, a2/c.png -> dup2/a2/c.png" no_temp_files dup2 c.png a2
expect "-O: dup2/a2 holds c.png" no_temp_files dup2/a2 c.png
case_ "-O: a walked file and a file argument of one output: refused, nothing written" 2 \
    "wavetool: a2/c.png and c.png would both write dup3/c.png; nothing written (with --base DIR, -O keeps each input's path below DIR)?Try 'wavetool decompose --help'." \
    "$WT" decompose -l 1 -O dup3 cam a2 c.png
expect "-O: the refused batch made no folder" test ! -e dup3
case_ "--base: an absolute file path mirrored below it" 0 "wavetool: 1 file: 1 done, 0 failed" \
    "$WT" decompose -l 1 --base "$T/cam" -O dup4 "$T/cam/a/x.png"
expect "--base: cam/a/x.png -> dup4/a/x.png" no_temp_files dup4/a x.png
case_ "--base applies to directory arguments too" 0 "wavetool: 5 files: 5 done, 0 failed" \
    "$WT" decompose -l 1 --base . -O dup5 a2 cam
expect "--base .: a2 and cam keep their names" no_temp_files dup5 a2 cam
case_ "-O: a file outside the current folder needs --base" 2 \
    "wavetool: ../x.png is not below the current folder, whose tree -O mirrors; give --base DIR, a folder above every input?Try*" \
    "$WT" decompose -l 1 -O dup6 ../x.png
case_ "--base: a file outside it" 2 "wavetool: c.png is not below --base a2?Try*" \
    "$WT" decompose -l 1 --base a2 -O dup6 c.png
case_ "--base without -O" 2 "wavetool: --base applies with -O only?Try*" \
    "$WT" decompose -l 1 --base a2 c.png dup6.png
case_ "--base names a missing folder" 2 "wavetool: --base nope: No such file or directory?Try*" \
    "$WT" decompose -l 1 --base nope -O dup6 c.png
expect "no folder for refused batches" test ! -e dup6
case_ "stdin with -O refused" 2 "wavetool: '-' (standard input) cannot be used with -O*" \
    "$WT" decompose -O out -
mkdir -p emptydir
case_ "an empty directory is said" 0 "wavetool: emptydir: no .png/.jpg/.jpeg/.tif/.tiff/.npy/.pgm/.ppm/.pnm files found*0 files: 0 done, 0 failed" \
    "$WT" decompose -O out3 emptydir
case_ "directory without -O refused" 2 "wavetool: in is a directory; use -O DIR*" \
    "$WT" decompose in out.png

# ---- device lists and the pipeline benchmark -------------------------------------------
mkdir -p dv
case_ "--device cuda:x is a usage error" 2 "wavetool: invalid argument 'cuda:x' for option --device*" \
    "$WT" decompose --device cuda:x rgb8.png dv/a.png
case_ "--device cuda:0,,1 is a usage error" 2 "wavetool: invalid argument 'cuda:0,,1'*" \
    "$WT" decompose --device cuda:0,,1 rgb8.png dv/a.png
case_ "--device cuda:1, is a usage error" 2 "wavetool: invalid argument 'cuda:1,'*" \
    "$WT" decompose --device cuda:1, rgb8.png dv/a.png
# with no visible GPU (CUDA_VISIBLE_DEVICES=) or no CUDA built in, device lists fail
if ! CUDA_VISIBLE_DEVICES= "$WT" decompose --device cuda rgb8.png dv/probe.png 2>/dev/null; then
    case_ "--device cuda:all without a GPU fails clearly" 1 "wavetool: *" \
        env CUDA_VISIBLE_DEVICES= "$WT" decompose --device cuda:all rgb8.png dv/a.png
    expect "cuda:all without a GPU: one line, no output" sh -c '[ ! -e dv/a.png ]'
    case_ "--device cuda:0,1 without a GPU fails clearly" 1 "wavetool: *" \
        env CUDA_VISIBLE_DEVICES= "$WT" decompose --device cuda:0,1 rgb8.png dv/a.png
fi
mkdir -p pb
for i in 1 2 3 4 5; do cp rgb8.png "pb/p$i.png"; cp gray16.png "pb/g$i.png"; done
run "$WT" bench --pipeline --device cpu -j 2 -l 2 pb
if [ "$rc" -eq 0 ] && grep -q '^decode+encode ' "$out" && grep -q '^full ' "$out" &&
    grep -q '10 files' "$out" && grep -q 'codecs only throughput: [0-9]' "$out"; then
    ok "bench --pipeline: both passes over 10 files"
else
    not_ok "bench --pipeline" "exit $rc" "stdout: $(cat "$out")" "stderr: $err"
fi
expect "bench --pipeline removes its temporary outputs" \
    sh -c '! ls -d "${TMPDIR:-/tmp}"/wavetool-bench-* 2>/dev/null | grep -q .'
# pixel rooms (a GPU pool's page-locked buffers kept by each worker; plain
# memory with WT_PIXEL_ROOMS=1 on the CPU engine): the same bytes as without,
# a truncated JPEG (--lenient) decoded into the room after a whole one
mkdir -p rooms
for r in 0 1; do
    WT_PIXEL_ROOMS=$r "$WT" decompose -q -j 1 --lenient --device cpu -O rooms/png$r photo.jpg \
        trunc.jpg rgb8.png
    WT_PIXEL_ROOMS=$r "$WT" decompose -q -j 2 --device cpu --ext jpg -O rooms/jpg$r photo.jpg \
        rgb8.png gray16.png
    WT_PIXEL_ROOMS=$r "$WT" decompose -q -j 1 --lenient --device cpu -w db2 --ext npz \
        -O rooms/npz$r photo.jpg trunc.jpg
    # denoise: the result drawn into the output room, smaller after larger
    WT_PIXEL_ROOMS=$r "$WT" denoise -q -j 1 --lenient --device cpu -O rooms/dn$r photo.jpg \
        trunc.jpg rgb8.png gray16.png
    WT_PIXEL_ROOMS=$r "$WT" denoise -q -j 2 --lenient --device cpu -w db2 --sigma 3 \
        -O rooms/dns$r photo.jpg trunc.jpg gray16.png
    WT_PIXEL_ROOMS=$r "$WT" denoise -q -j 1 --lenient --device cpu --depth f32 --ext tif \
        -O rooms/dnf$r photo.jpg trunc.jpg
    # reconstruct: the image drawn into the output room, 8-bit RGB after 16-bit gray
    WT_PIXEL_ROOMS=$r "$WT" reconstruct -q -j 1 --device cpu -O rooms/rc$r c16.npz \
        rooms/npz0/photo.npz rooms/npz0/trunc.npz
    WT_PIXEL_ROOMS=$r "$WT" reconstruct -q -j 1 --device cpu --depth f32 --ext tif \
        -O rooms/rcf$r rooms/npz0/photo.npz c16.npz
done
expect "pixel rooms: the same mosaics and coefficients (rooms on and off)" \
    sh -c 'ls rooms/png1/trunc.png rooms/npz1/trunc.npz rooms/jpg1/gray16.jpg >/dev/null &&
           diff -r rooms/png0 rooms/png1 && diff -r rooms/jpg0 rooms/jpg1 &&
           diff -r rooms/npz0 rooms/npz1'
expect "pixel rooms: the same denoised images (rooms on and off)" \
    sh -c 'ls rooms/dn1/trunc.png rooms/dn1/gray16.png rooms/dns1/trunc.png \
              rooms/dnf1/trunc.tif >/dev/null &&
           diff -r rooms/dn0 rooms/dn1 && diff -r rooms/dns0 rooms/dns1 &&
           diff -r rooms/dnf0 rooms/dnf1'
expect "pixel rooms: the same reconstructions (rooms on and off)" \
    sh -c 'ls rooms/rc1/c16.png rooms/rc1/rooms/npz0/trunc.png \
              rooms/rcf1/rooms/npz0/photo.tif >/dev/null &&
           diff -r rooms/rc0 rooms/rc1 && diff -r rooms/rcf0 rooms/rcf1'
# decoding ahead: while a pool opens in the background (WT_OPEN_DELAY_MS: a CPU
# pool too, late), the workers waiting for it decode the next files; the same
# outputs, messages and exit status as with the pool open before any file
mkdir -p ahead/in
cp rgb8.png ahead/in/a.png && cp photo.jpg ahead/in/b.jpg && cp gray16.png ahead/in/c.png
cp trunc.jpg ahead/in/d.jpg && cp pal.png ahead/in/e.png && head -c 60 rgb8.png >ahead/in/f.png
cp big8.png ahead/in/g.png && cp odd.png ahead/in/h.png && cp graya16.png ahead/in/i.png
$PY -c 'h = "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (3, 20, 30), }".replace("\"", chr(39))
h = h.ljust(117) + "\n" # a 3-page uint8 .npy (--stack first), without numpy
open("ahead/in/k.npy", "wb").write(b"\x93NUMPY\x01\x00" + bytes([len(h), 0]) + h.encode() + bytes(i % 251 for i in range(1800)))'
ahead_run() { # DELAY_MS ROOMS NAME COMMAND OPTIONS...: report in ahead/NAME.out, messages .err
    local delay=$1 rooms=$2 name=$3
    shift 3
    WT_OPEN_DELAY_MS=$delay WT_PIXEL_ROOMS=$rooms "$WT" "$@" -v -j 2 --lenient --stack first \
        --device cpu ahead/in >"ahead/$name.out" 2>"ahead/$name.err"
    echo "exit $?" >>"ahead/$name.err"
}
# same_run NAME OTHER: the same outputs (-O ahead/NAME), report and messages (sorted;
# but -v's lines of times: the opening, the rooms, the CPU a file)
same_run() {
    local times='decoded ahead\|^wavetool: pixel rooms: \|^wavetool: CPU a file'
    { [ ! -e "ahead/$1" ] || diff -r "ahead/$1" "ahead/$2"; } &&
        cmp "ahead/$1.out" "ahead/$2.out" &&
        diff <(grep -v "$times" "ahead/$1.err" | sort) <(grep -v "$times" "ahead/$2.err" | sort)
}
for rooms in 0 1; do
    ahead_run 0 $rooms dn0$rooms denoise --ext tif -O ahead/dn0$rooms
    ahead_run 700 $rooms dn7$rooms denoise --ext tif -O ahead/dn7$rooms
    ahead_run 0 $rooms npz0$rooms decompose -w db2 --ext npz -O ahead/npz0$rooms
    ahead_run 700 $rooms npz7$rooms decompose -w db2 --ext npz -O ahead/npz7$rooms
done
expect "decoding ahead: files decoded while the pool opened" \
    grep -q 'engines opened in .* [1-9][0-9]* files* decoded ahead' ahead/dn71.err
same_denoise() {
    grep -q "exit 1" ahead/dn70.err && ls ahead/dn70/k.tif ahead/dn71/d.tif &&
        same_run dn70 dn00 && same_run dn71 dn01 && same_run dn71 dn00
}
expect "decoding ahead: denoise, the same outputs and messages (rooms off and on)" same_denoise
same_npz() { same_run npz70 npz00 && same_run npz71 npz01; }
expect "decoding ahead: decompose to .npz, the same outputs and messages" same_npz
ahead_run 700 0 st7 stats --format tsv
ahead_run 0 0 st0 stats --format tsv
same_stats() { grep -q "decoded ahead" ahead/st7.err && grep -q "exit 1" ahead/st7.err && same_run st7 st0; }
expect "decoding ahead: stats, the same report" same_stats
run "$WT" bench --pipeline --device cpu --format json -O pbout pb
if [ "$rc" -eq 0 ] && [ "$(grep -c '"pass": "full".*"images": 10,' "$out")" -eq 1 ] &&
    [ "$(ls pbout | wc -l)" -eq 10 ]; then
    ok "bench --pipeline --format json -O DIR: one object per pass, outputs kept"
else
    not_ok "bench --pipeline json" "exit $rc" "stdout: $(cat "$out")" "stderr: $err"
fi
cp trunc.png pb/zz.png
case_ "bench --pipeline: a bad file stops it" 1 "*wavetool: pb/zz.png: *" \
    "$WT" bench --pipeline --device cpu -j 1 pb
# bench parses with the common option table: lists, sizes, groups per command
run "$WT" bench --device cpu --size 16x12 --size 9x7 -w haar,db2 -w sym3 --forward --repeat 2 -l 1
if [ "$rc" -eq 0 ] && [ "$(grep -c ' forward  *16x12 \| forward  *9x7 ' "$out")" -eq 6 ] &&
    ! grep -q inverse "$out"; then
    ok "bench: 3 wavelets (list and repeated) x 2 sizes, forward only"
else
    not_ok "bench sweep" "exit $rc" "stdout: $(cat "$out")" "stderr: $err"
fi
run "$WT" bench --device cpu --size 8x8 --repeat 1 --inverse --format json
expect "bench --format json: one object, inverse" \
    test "$rc" -eq 0 -a "$(grep -c '"direction": "inverse"' "$out")" -eq 1
case_ "bench --size 0x5 is a usage error" 2 "wavetool: invalid size '0x5'*Try 'wavetool bench --help'." \
    "$WT" bench --device cpu --size 0x5
case_ "bench --pipeline not first is a usage error" 2 "wavetool: --pipeline must be the first argument*" \
    "$WT" bench --device cpu --pipeline pb
case_ "bench takes no -j" 2 "wavetool: option '-j' does not apply to 'bench'*" \
    "$WT" bench -j 2
case_ "--size does not apply to decompose" 2 "wavetool: option '--size' does not apply to 'decompose'*" \
    "$WT" decompose --size 8x8 rgb8.png dv/a.png
case_ "--keep does not apply to decompose" 2 "wavetool: option '--keep' does not apply to 'decompose'*" \
    "$WT" decompose --keep 0.5 rgb8.png dv/a.png

# issue 20 item 14: on a terminal a one-line progress bar; nothing of it in a pipe
progress_on_pty() { # OUT CMD...: CMD's stderr through a pseudo-terminal into OUT
    local dest=$1
    shift
    $PY -c '
import os, subprocess, sys
master, slave = os.openpty()
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
data = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
open(sys.argv[1], "wb").write(data)
sys.exit(p.wait())' "$dest" "$@"
}
mkdir -p pbar
for i in 0 1 2 3 4 5 6 7 8 9; do cp rgb8.png "pbar/p$i.png"; done
progress_on_pty pty.txt "$WT" decompose -j 1 -l 1 -O pbarout pbar
expect "progress on a terminal: bar, percent, files/s, MPixel/s, ETA, redrawn in place" \
    grep -qaE $'\r\033\\[Kwavetool: \\[#*\\.*\\] +[0-9]+% [0-9]+/10 [0-9.]+ files/s [0-9.]+ MPixel/s ETA [0-9:?]+' pty.txt
expect "progress on a terminal: the summary on a cleared line" \
    grep -qa $'\r\033\\[Kwavetool: 10 files: 10 done, 0 failed' pty.txt
case_ "no progress in a pipe or log: the summary alone" 0 "wavetool: 10 files: 10 done, 0 failed" \
    "$WT" decompose -j 1 -l 1 -O pbarout pbar

# ---- data safety: Ctrl-C leaves no temporary file ------------------------------------
$TOOL png h1.png 1500 1500 rgb 8 random 11
cp h1.png h2.png && cp h1.png h3.png
mkdir -p sig
"$WT" decompose -j 1 -w db8 -l 4 --png-level 9 -O sig h1.png h2.png h3.png >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid 2>/dev/null
wait $pid
sig_rc=$?
leftover=$(ls -A sig | grep -v '^h[123]\.png$')
for f in sig/*.png; do
    [ -e "$f" ] && ! $TOOL info "$f" >/dev/null 2>&1 && leftover="$leftover partial:$f"
done
if [ -z "$leftover" ]; then
    ok "SIGINT (exit $sig_rc) leaves no temporary or partial file"
else
    not_ok "SIGINT left files" "$leftover"
fi

tap_done
