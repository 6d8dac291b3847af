#!/bin/bash
# CLI tests of --transform swt|starlet (issue 15): .npz layout against
# pywt.swt2 and scipy, reconstruct from .npz and from --layers, exact
# roundtrips of 8- and 16-bit inputs at odd and tiny sizes, mosaic sizes,
# usage errors and the memory check. TAP for meson.
# Usage: swt_cli.sh WAVETOOL SOURCE_DIR
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
# Every case checks against numpy, pywt, scipy or PIL (absent on the GPU machine)
if ! $PY -c 'import numpy, pywt, scipy, PIL' 2>/dev/null; then
    echo "1..0 # SKIP $PY lacks numpy, pywt, scipy or PIL" # TAP: a skip exits 0
    exit 0
fi

same() { # A B: the same samples
    $PY -c 'import sys, numpy as np; from PIL import Image
a, b = [np.asarray(Image.open(f)) for f in sys.argv[1:]]
sys.exit(0 if a.shape == b.shape and (a == b).all() else 1)' "$1" "$2"
}

$TOOL png rgb8.png 37 29 rgb 8 random 1
$TOOL png gray16.png 23 31 gray 16 random 2
$TOOL png one.png 1 1 rgb 8 random 6
$TOOL png sq.png 32 48 gray 8 random 12
$TOOL png rgba16.png 17 9 rgba 16 random 13

# ---- .npz layout and values -------------------------------------------------------
case_ "swt to .npz" 0 "" "$WT" decompose --transform swt -w db2 -l 3 sq.png s.npz
expect "swt .npz = pywt.swt2(trim_approx=True) member by member" $PY -c '
import sys, json, numpy as np, pywt
from PIL import Image
x = np.asarray(Image.open("sq.png"), np.float64)
z = np.load("s.npz"); m = json.loads(bytes(z["meta"]).decode())
assert m["transform"] == "swt" and m["levels"] == 3, m
ref = pywt.swt2(x, "db2", level=3, trim_approx=True)
assert z["cA"].shape == (1, 48, 32) and z["cA"].dtype == np.float32
got = [z["cA"][0]] + [(z["cH%d" % l][0], z["cV%d" % l][0], z["cD%d" % l][0]) for l in (3, 2, 1)]
top = max(np.abs(ref[0]).max(), 1)
assert np.abs(got[0] - ref[0]).max() <= 1e-5 * top
for g, r in zip(got[1:], ref[1:]):
    for a, b in zip(g, r):
        assert np.abs(a - b).max() <= 1e-5 * max(np.abs(b).max(), 1)
'
case_ "swt --norm --all-approx to .npz" 0 "" "$WT" decompose --transform swt -w sym3 -l 2 --norm --all-approx sq.png sa.npz
expect "--all-approx adds cA1; --norm as pywt" $PY -c '
import numpy as np, pywt
from PIL import Image
x = np.asarray(Image.open("sq.png"), np.float64)
z = np.load("sa.npz")
ref = pywt.swt2(x, "sym3", level=2, trim_approx=False, norm=True)
assert sorted(z.files) == sorted(["cA", "cA1", "cH1", "cH2", "cV1", "cV2", "cD1", "cD2", "meta"]), z.files
assert np.abs(z["cA1"][0] - ref[1][0]).max() <= 1e-5 * np.abs(ref[1][0]).max()
assert np.abs(z["cD2"][0] - ref[0][1][2]).max() <= 1e-5 * np.abs(ref[0][1][2]).max()
'
case_ "starlet to .npz" 0 "" "$WT" decompose --transform starlet -l 4 rgb8.png st.npz
expect "starlet .npz: c, w1..w4 = scipy.ndimage.convolve1d mirror, sum = image" $PY -c '
import numpy as np, scipy.ndimage as ndi
from PIL import Image
x = np.asarray(Image.open("rgb8.png"), np.float64).transpose(2, 0, 1)
z = np.load("st.npz")
assert sorted(z.files) == ["c", "meta", "w1", "w2", "w3", "w4"], z.files
c = x
for j in range(1, 5):
    k = np.zeros(4 * 2 ** (j - 1) + 1); k[:: 2 ** (j - 1)] = np.array([1, 4, 6, 4, 1]) / 16
    s = ndi.convolve1d(ndi.convolve1d(c, k, axis=2, mode="mirror"), k, axis=1, mode="mirror")
    assert np.abs(z["w%d" % j] - (c - s)).max() <= 1e-5 * 255
    c = s
assert np.abs(z["c"] - c).max() <= 1e-5 * 255
assert np.abs(z["c"] + sum(z["w%d" % j] for j in range(1, 5)) - x).max() < 1e-3
'
case_ "starlet --border periodic" 0 "" "$WT" decompose --transform starlet --border periodic -l 2 rgb8.png stp.npz
expect "meta.border periodic" $PY -c '
import json, numpy as np
assert json.loads(bytes(np.load("stp.npz")["meta"]).decode())["border"] == "periodic"'

# ---- reconstruct and roundtrip: exact ---------------------------------------------
for f in s.npz sa.npz st.npz stp.npz; do
    case_ "reconstruct $f" 0 "" "$WT" reconstruct "$f" "r_$f.png"
done
expect "reconstruct swt = input" same sq.png r_s.npz.png
expect "reconstruct swt --norm --all-approx = input" same sq.png r_sa.npz.png
expect "reconstruct starlet = input" same rgb8.png r_st.npz.png
expect "reconstruct starlet periodic = input" same rgb8.png r_stp.npz.png
for t in swt starlet; do
    for f in rgb8.png gray16.png one.png rgba16.png; do
        case_ "roundtrip --transform $t $f" 0 "" "$WT" roundtrip --transform "$t" -w db3 --format tsv "$f"
        expect "roundtrip $t $f: PSNR inf" grep -q "	inf	" "$out"
    done
done
case_ "roundtrip swt -l 5 on 37x29 (any size)" 0 "" "$WT" roundtrip --transform swt -w sym4 -l 5 --format tsv rgb8.png
expect "swt -l 5 any size: PSNR inf" grep -q "	inf	" "$out"
case_ "roundtrip starlet --border nearest -l 6 on 1x1" 0 "" "$WT" roundtrip --transform starlet --border nearest -l 6 --format tsv one.png
expect "starlet on 1x1: PSNR inf" grep -q "	inf	" "$out"

# ---- roundtrip --keep / --threshold: the details of the band stack ----------------------
# numpy on wavetool's own bands (.npz): keep the k largest |c| of the details
# (ties: first in stack order) or threshold them, then pywt.iswt2 / the sum.
case_ "roundtrip starlet --keep 0.1" 0 "" "$WT" roundtrip --transform starlet -l 3 --keep 0.1 --format json rgb8.png -o k_st.png
cp "$out" k_st.json
case_ "starlet to .npz (-l 3)" 0 "" "$WT" decompose --transform starlet -l 3 rgb8.png k_st.npz
expect "starlet --keep 0.1 = numpy: the largest tenth of w1..w3, summed with c" $PY -c '
import json, numpy as np
from PIL import Image
z = np.load("k_st.npz"); rep = json.load(open("k_st.json"))
det = np.stack([z["w%d" % j] for j in (1, 2, 3)]).astype(np.float64)
mag = np.abs(det).ravel(); k = int(round(0.1 * mag.size))
order = np.argsort(-mag, kind="stable")
keep = np.zeros(mag.size, bool); keep[order[:k]] = True
det = np.where(keep.reshape(det.shape), det, 0.0)
back = np.clip(np.rint(z["c"].astype(np.float64) + det.sum(0)), 0, 255).transpose(1, 2, 0)
got = np.asarray(Image.open("k_st.png"), np.float64)
assert np.abs(got - back).max() <= 1 and (got != back).mean() < 0.01, np.abs(got - back).max()
assert abs(rep["kept"] - (det != 0).mean()) < 1e-9, (rep["kept"], (det != 0).mean())
assert abs(rep["kept"] - 0.1) < 0.01 and rep["psnr"] < 60, rep'
case_ "roundtrip swt --threshold 20 --soft" 0 "" "$WT" roundtrip --transform swt -w db2 -l 3 --threshold 20 --soft --format json sq.png -o t_s.png
cp "$out" t_s.json
case_ "roundtrip swt --threshold 20 (hard)" 0 "" "$WT" roundtrip --transform swt -w db2 -l 3 --threshold 20 --format json sq.png -o t_h.png
cp "$out" t_h.json
expect "swt --threshold soft/hard = pywt.threshold + pywt.iswt2 on pywt.swt2" $PY -c '
import json, numpy as np, pywt
from PIL import Image
x = np.asarray(Image.open("sq.png"), np.float64)
co = pywt.swt2(x, "db2", level=3, trim_approx=True)
for mode, png, js in (("soft", "t_s.png", "t_s.json"), ("hard", "t_h.png", "t_h.json")):
    th = [co[0]] + [tuple(pywt.threshold(d, 20, mode) for d in det) for det in co[1:]]
    back = np.clip(np.rint(pywt.iswt2(th, "db2")), 0, 255)
    got = np.asarray(Image.open(png), np.float64)
    assert np.abs(got - back).max() <= 1 and (got != back).mean() < 0.01, (mode, np.abs(got - back).max())
    kept = np.mean([(d != 0).mean() for det in th[1:] for d in det])
    rep = json.load(open(js))
    assert abs(rep["kept"] - kept) < 2e-3 and 0 < kept < 1, (mode, rep["kept"], kept)'
case_ "roundtrip swt --keep 1 keeps everything" 0 "" "$WT" roundtrip --transform swt --keep 1 --format tsv rgb8.png
expect "swt --keep 1: PSNR inf" grep -q "	inf	" "$out"
case_ "roundtrip starlet --keep 0" 0 "" "$WT" roundtrip --transform starlet --keep 0 --format json rgb8.png
expect "starlet --keep 0: kept 0" grep -q '"kept":0[,}]' "$out"

# ---- mosaics and layers -------------------------------------------------------------
case_ "swt mosaic" 0 "" "$WT" decompose --transform swt -l 3 rgb8.png ms.png
expect "swt mosaic: 4 tiles wide, 3 rows (148x87)" test "$($TOOL info ms.png)" = "148 87 3 8"
case_ "starlet mosaic 16-bit" 0 "" "$WT" decompose --transform starlet -l 2 gray16.png mst.png
expect "starlet mosaic: c, w2, w1 in a row, 16-bit (69x31)" test "$($TOOL info mst.png)" = "69 31 1 16"
case_ "starlet --layers" 0 "" "$WT" decompose --transform starlet -l 3 --layers rgb8.png lay.png
expect "layers: 16-bit PNG per band and the sidecar" \
    test "$($TOOL info lay_w2.png)" = "37 29 3 16" -a -f lay_c.png -a -f lay_w3.png -a -f lay_layers.txt
case_ "reconstruct from layers" 0 "" "$WT" reconstruct lay_layers.txt lay_back.png
expect "layers sum back to the input" same rgb8.png lay_back.png
case_ "swt --layers, 16-bit input" 0 "" "$WT" decompose --transform swt -w db2 -l 2 --layers gray16.png l16.png
case_ "reconstruct swt layers" 0 "" "$WT" reconstruct l16_layers.txt l16_back.png
expect "swt layers of a 16-bit image: within 1 of the input" $PY -c '
import numpy as np
from PIL import Image
a = np.asarray(Image.open("gray16.png"), np.int64); b = np.asarray(Image.open("l16_back.png"), np.int64)
assert np.abs(a - b).max() <= 1, np.abs(a - b).max()'
case_ "starlet --layers, 16-bit gray" 0 "" "$WT" decompose --transform starlet -l 2 --layers gray16.png g.png
$PY -c '
import numpy as np
from PIL import Image
a = np.asarray(Image.open("g_w1.png")).astype(np.uint16)
Image.fromarray(np.full_like(a, 32768)).save("g_w1.png")'
case_ "reconstruct from edited layers (w1 set to 0)" 0 "" "$WT" reconstruct g_layers.txt g_smooth.png
expect "the edited reconstruction is c + w2 (within 1)" $PY -c '
import numpy as np
from PIL import Image
z = [np.asarray(Image.open(f), np.float64) for f in ("g_c.png", "g_w2.png", "g_smooth.png")]
s = dict(l.split()[1:5:3] for l in open("g_layers.txt") if l.startswith("layer"))
want = (z[0] - 32768) / float(s["c"]) + (z[1] - 32768) / float(s["w2"])
assert np.abs(np.clip(np.rint(want), 0, 65535) - z[2]).max() <= 1
assert np.abs(want - np.asarray(Image.open("gray16.png"), np.float64)).max() > 1'

# stats names what each kind was made with: starlet's kernel and border, swt's periodic
expect "stats --format tsv, starlet: wavelet b3spline, mode its border" \
    bash -c "'$WT' stats --transform starlet --border nearest --format tsv rgb8.png | sed -n 2p | cut -f6,7 | grep -qx 'b3spline	nearest'"
expect "stats --format json, swt: mode periodic" \
    bash -c "'$WT' stats --transform swt --format json rgb8.png | grep -q '\"mode\":\"periodic\"'"

# ---- errors ---------------------------------------------------------------------------
case_ "unknown transform" 2 "wavetool: unknown transform 'fft' (dwt, swt, starlet, packet)*" "$WT" decompose --transform fft rgb8.png x.png
case_ "--norm without swt" 2 "wavetool: --norm applies to --transform swt*" "$WT" decompose --norm rgb8.png x.png
case_ "--border with swt" 2 "wavetool: --border applies to --transform starlet*" "$WT" decompose --transform swt --border nearest rgb8.png x.png
case_ "swt with a JPEG 2000 wavelet" 2 "wavetool: --transform swt: cdf97 is a JPEG 2000 wavelet*" "$WT" roundtrip --transform swt -w cdf97 rgb8.png
case_ "--layers without swt/starlet" 2 "wavetool: --layers applies to --transform swt or starlet*" "$WT" decompose --layers rgb8.png x.png
case_ "--qstep with starlet" 2 "wavetool: --qstep applies to --transform dwt*" "$WT" roundtrip --transform starlet --qstep 4 rgb8.png
case_ "stats --basis without packet" 2 "wavetool: --basis applies to --transform packet*" "$WT" stats --basis best rgb8.png
case_ "--volume refuses packets" 2 "wavetool: --volume transforms with --transform dwt, swt or starlet, not packet trees*" "$WT" decompose --volume --transform packet rgb8.png x.npz
case_ "stats packet deeper than 6" 1 "wavetool: rgb8.png: packet: 7 levels of haar on*" "$WT" stats --transform packet -l 7 rgb8.png
case_ "denoise starlet without --rule" 2 "wavetool: --transform starlet thresholds at K sigma_j: it takes --k or --threshold, not --rule*" "$WT" denoise --transform starlet --rule visu rgb8.png x.png
case_ "stats --all-approx" 2 "wavetool: --all-approx: stats reports the bands of trim_approx=True*" "$WT" stats --transform swt --all-approx rgb8.png
case_ "-l 0 with swt" 1 "wavetool: rgb8.png: --transform swt needs at least 1 level*" "$WT" decompose --transform swt -l 0 rgb8.png x.png
case_ "--layers to .jpg" 1 "wavetool: *lay.jpg: --layers writes 16-bit PNG layers*" "$WT" decompose --transform starlet --layers rgb8.png lay.jpg
expect "nothing written for x.png" test ! -e x.png
printf 'wavetool layers 1\ntransform starlet\n' >bad_layers.txt
case_ "truncated sidecar" 1 "wavetool: bad_layers.txt: not a wavetool layers file (header)*" "$WT" reconstruct bad_layers.txt x.png
sed 's/lay_w2.png/missing.png/' lay_layers.txt >miss_layers.txt
case_ "sidecar naming a missing layer" 1 "wavetool: missing.png: *" "$WT" reconstruct miss_layers.txt x.png
$PY -c '
import zipfile, json
z = zipfile.ZipFile("st.npz"); out = zipfile.ZipFile("stbad.npz", "w")
for n in z.namelist():
    if n != "w2.npy": out.writestr(n, z.read(n))
out.close()'
case_ "starlet .npz without w2" 1 "wavetool: stbad.npz: *" "$WT" reconstruct stbad.npz x.png
case_ "memory need checked before allocating (--max-memory)" 1 "wavetool: sq.png: a 3-level swt of 32x48 with 1 channels needs 0.0 GiB (10 full-size bands), more than the 0.0 GiB allowed (--max-memory)" \
    "$WT" decompose --transform swt -l 3 --max-memory 60K sq.png x.npz
expect "nothing written for x.npz" test ! -e x.npz

tap_done
