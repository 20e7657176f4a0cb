#!/usr/bin/env bash
# tools/dev/demo-mf.sh — quick start: build, generate planted ratings, train MF in one process on all cores.
# GYRE_DEMO_BUILD=DIR uses the binaries of an existing build instead of building build/, and
# GYRE_DEMO_DATA=DIR writes the data and model there instead of build/demo (the test that holds
# the README to this demo's figure sets both).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${GYRE_DEMO_BUILD:-build}
data=${GYRE_DEMO_DATA:-build/demo}
[ -n "${GYRE_DEMO_BUILD:-}" ] || tools/dev/build.sh tools/gyre-gen apps/mf/gyre-mf  # only what the demo runs
mkdir -p "$data"
"$bin/tools/gyre-gen" ratings --users 20000 --items 5000 --ratings 1000000 --rank 8 --noise 0.1 --seed 1 \
  --train "$data/train.tsv" --test "$data/test.tsv"
"$bin/apps/mf/gyre-mf" --train "$data/train.tsv" --test "$data/test.tsv" --rank 8 --epochs 20 \
  --out "$data/model" --metrics "$data/metrics.jsonl"
echo "model in $data/model, metrics in $data/metrics.jsonl"
