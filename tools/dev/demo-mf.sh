#!/usr/bin/env bash
# tools/dev/demo-mf.sh — quick start: build, generate planted ratings, train MF in one process on all cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/build.sh tools/gyre-gen apps/mf/gyre-mf  # only what the demo runs
data=build/demo
mkdir -p "$data"
build/tools/gyre-gen ratings --users 20000 --items 5000 --ratings 1000000 --rank 8 --noise 0.1 --seed 1 \
  --train "$data/train.tsv" --test "$data/test.tsv"
build/apps/mf/gyre-mf --train "$data/train.tsv" --test "$data/test.tsv" --rank 8 --epochs 20 \
  --out "$data/model" --metrics "$data/metrics.jsonl"
echo "model in $data/model, metrics in $data/metrics.jsonl"
