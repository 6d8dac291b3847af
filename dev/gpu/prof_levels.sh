#!/bin/bash
# Per-level profile of the fast kernels on the GPU machine (ncu): time,
# DRAM bytes, L2 traffic from L1, instructions, occupancy and shared-memory
# bank conflicts of each level's kernel, for the cases given as
# "wavelet method mode" triples (default: the issue's targets).
# Usage: dev/gpu/prof_levels.sh BUILDDIR [CASE...]   (writes $OUT/prof_*.csv)
set -u
B=${1:-build-gpu}
shift
W=$B/cli/wavetool
[ $# -gt 0 ] || set -- "haar conv periodization" "db3 conv periodization" "db3 conv symmetric" \
    "bior4.4 conv periodization" "cdf97 lifting symmetric" "legall53 lifting symmetric"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
for spec in "$@"; do
    set -- $spec
    for d in forward inverse; do
        skip=0; [ $d = inverse ] && skip=3 # the bench runs one forward first
        f=${OUT:-/tmp}/prof_$1_$2_$3_$d.csv
        timeout 120 ncu --csv --print-units base --launch-skip $skip --launch-count 3 --kernel-name regex:dwt_ \
            --metrics $M $W bench -w $1 --method $2 -m $3 -l 3 --$d --repeat 1 > "$f" 2>&1
        echo "== $spec $d"
        python3 - "$f" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print(open(sys.argv[1]).read()[-600:]); sys.exit()
h = rows[0]; I = {k: h.index(k) for k in ("ID", "Kernel Name", "Metric Name", "Metric Value")}
k = collections.OrderedDict()
for r in rows[1:]:
    k.setdefault(r[I["ID"]], {})[r[I["Metric Name"]]] = r[I["Metric Value"]].replace(",", "")
short = {"gpu__time_duration.sum": "ns", "dram__bytes_read.sum": "rdMB", "dram__bytes_write.sum": "wrMB",
         "lts__t_sectors_srcunit_tex_op_read.sum": "L2rdMB", "smsp__inst_executed.sum": "Minst",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occ%", "launch__registers_per_thread": "regs",
         "launch__occupancy_limit_registers": "limR", "launch__occupancy_limit_shared_mem": "limS",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum": "Mconfl",
         "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue%"}
for i, m in k.items():
    out = []
    for key, s in short.items():
        v = float(m.get(key, "nan"))
        if s in ("rdMB", "wrMB"): v /= 1e6
        if s == "L2rdMB": v = v * 32 / 1e6
        if s in ("Minst", "Mconfl"): v /= 1e6
        out.append(f"{s}={v:.1f}" if s != "ns" else f"{s}={v:.0f}")
    print("  L%d" % (list(k).index(i) + 1), " ".join(out))
PY
    done
done
