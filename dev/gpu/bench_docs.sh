#!/bin/bash
# One device call (about 4 minutes with the build): `wavetool bench --all
# --format json` of the working tree on this GPU, and the GPU's name, driver
# and clocks (nvidia-smi, sampled while the bench runs), as
#   $OUT/gpu-bench-all-SLUG.json      the bench's rows
#   $OUT/gpu-bench-all-SLUG.gpu.csv   nvidia-smi --format=csv
#   $OUT/gpu-bench-all-SLUG.md        the table (bench/bench_table.py)
# SLUG: the GPU's model in lower case (h100, h200; SLUG=... to choose).
# Put the .json and .gpu.csv in bench/results/ and run
# bench/gpu_docs_tables.sh: it rewrites docs/gpu-bench-all-*.{md,png}.
# From the project's root with .gpu-deps and .gpu-libs carried
# (dev/gpu/gpu_env.sh). BUILD=dir: an existing build (default build-gpu,
# built when absent); REPEAT (10): runs per row.
set -u
. dev/gpu/gpu_env.sh # toolchain, libraries, build()
OUT=${OUT:-/tmp/bench-docs}
B=${BUILD:-build-gpu}
REPEAT=${REPEAT:-10}
mkdir -p "$OUT"
if [ ! -x "$B/cli/wavetool" ]; then
    build "$B" . || exit 1
fi
name=$(nvidia-smi -i 0 --query-gpu=name --format=csv,noheader)
slug=${SLUG:-$(echo "$name" | awk '{print tolower($2)}')}
f=$OUT/gpu-bench-all-$slug
query=name,memory.total,driver_version,clocks.current.sm,clocks.max.sm,clocks.current.memory
query=$query,clocks.max.memory,power.limit
timeout 420 "$B/cli/wavetool" bench --device cuda --all --format json --repeat "$REPEAT" \
    >"$f.json" 2>"$f.err" &
bench=$!
for _ in $(seq 30); do # the clocks under load, 30 s in
    kill -0 $bench 2>/dev/null || break
    sleep 1
done
nvidia-smi -i 0 --query-gpu=$query --format=csv >"$f.gpu.csv"
wait $bench
echo "bench --all exit $?, $(grep -c '^{' "$f.json") rows; $(tail -n 1 "$f.gpu.csv")"
python3 bench/bench_table.py "$f.json" --title "$(echo "$slug" | tr a-z A-Z)" \
    --gpu "$f.gpu.csv" -o "$f.md" && head -n 1 "$f.md"
