#!/bin/bash
# Issue 17 item 3, second device call (build-gpu built, sm_90, release):
# full gpu_check and memcheck (db3: its replay pairs and two epyramids) with
# everything on; A/B of the small-image launch path in 2 alternated rounds:
# base (WT_CUDA_SMALL_TILES=0 WT_CUDA_PDL=0: plans kept and replayed as a
# graph, the first call's "new"), tiles (tiles shrunk to fill the SMs),
# pdl (programmatic dependent launches), both (the default); 512x512 3
# levels, and 8192x8192 haar/db3 once per build (unchanged: big grids);
# then the batch of 1024 images of 256x256 (symmetric and periodization)
# and ncu's view of its db3 levels. Logs under $OUT.
set -u
B=${1:-build-gpu}
W=$B/cli/wavetool
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 90 $B/tests/gpu_check > $OUT/gpu_check.log 2>&1
echo "gpu_check exit $?"; grep -E "^gpu_check: .*(cases|replayed)" $OUT/gpu_check.log
grep -E "^FAIL" $OUT/gpu_check.log | head -5
bench() {
    $W bench --device cuda --size 512x512 -l 3 -w haar,db3,cdf97,legall53 --method auto --repeat 300
    $W bench --device cuda --size 512x512 -l 3 -w bior4.4 -m periodization --method auto --repeat 300
    [ "$1" = 1 ] && $W bench --device cuda -l 3 -w haar,db3 --method conv --repeat 30
}
for r in 1 2; do
    for v in base tiles pdl both; do
        echo "== round $r: $v"
        case $v in
        base) WT_CUDA_SMALL_TILES=0 WT_CUDA_PDL=0 bench $r ;;
        tiles) WT_CUDA_PDL=0 bench $r ;;
        pdl) WT_CUDA_SMALL_TILES=0 bench $r ;;
        both) bench $r ;;
        esac
    done
done > $OUT/ab.txt 2>&1
python3 tools/ab_table.py $OUT/ab.txt
echo "== batch 1024 x 256x256 (default)"
$W bench --device cuda --size 256x256 --batch 1024 -l 3 -w haar,db3,cdf97,legall53,bior4.4 \
    -m symmetric,periodization --method auto --repeat 30 2>&1 | tee $OUT/batch.txt | grep -E "%$"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
for m in symmetric; do
    echo "== ncu db3 batch $m forward levels: name, grid, ns, dram rd, dram wr, warps active %"
    timeout 45 ncu --csv --print-units base --launch-skip 3 --launch-count 3 --kernel-name regex:dwt_ \
        --metrics $M $W bench --device cuda --size 256x256 --batch 1024 -l 3 -w db3 -m $m \
        --method conv --forward --repeat 1 > $OUT/ncu_batch_$m.csv 2>&1
    python3 - $OUT/ncu_batch_$m.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print(open(sys.argv[1]).read()[-400:]); sys.exit()
h = rows[0]; I = {k: h.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
k = collections.OrderedDict()
for r in rows[1:]:
    d = k.setdefault(r[I["ID"]], {"name": r[I["Kernel Name"]][:40]})
    d[r[I["Metric Name"]]] = r[I["Metric Value"]].replace(",", "")
for d in k.values():
    print(d["name"], d.get("launch__grid_size"), d.get("gpu__time_duration.sum"),
          d.get("dram__bytes_read.sum"), d.get("dram__bytes_write.sum"),
          d.get("sm__warps_active.avg.pct_of_peak_sustained_active"))
PY
done
timeout 45 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/gpu_check --quick \
    --no-large --wavelet db3 > $OUT/memcheck.log 2>&1
echo "memcheck db3 exit $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log)"
