#!/bin/sh
# docs/'s `wavetool bench --all` tables, every GPU at once: for each
# bench/results/gpu-bench-all-SLUG.json (with its .gpu.csv where the run
# recorded one; dev/gpu/bench_docs.sh makes both on a GPU) writes
# docs/gpu-bench-all-SLUG.md, and docs/gpu-bench-all-SLUG.png where
# matplotlib is installed (bench/bench_table.py).
#   sh bench/gpu_docs_tables.sh     (PYTHON=... for another interpreter)
set -eu
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
for json in bench/results/gpu-bench-all-*.json; do
    n=$(basename "$json" .json)
    slug=${n#gpu-bench-all-}
    set -- --title "$(echo "$slug" | tr a-z A-Z)" -o "docs/$n.md"
    [ -e "bench/results/$n.gpu.csv" ] && set -- "$@" --gpu "bench/results/$n.gpu.csv"
    "$py" -c 'import matplotlib' 2>/dev/null && set -- "$@" --png "docs/$n.png"
    "$py" bench/bench_table.py "$json" "$@"
    echo "docs/$n.md"
done
