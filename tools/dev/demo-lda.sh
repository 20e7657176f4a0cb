#!/usr/bin/env bash
# tools/dev/demo-lda.sh — build, fetch the King James Bible (Debian package), learn 20 topics in one process on all cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/build.sh apps/lda/gyre-lda  # only what the demo runs
tools/data/fetch-corpora.sh bible
corpus="${GYRE_DATA_DIR:-$HOME/.cache/gyre/corpora}/bible/docs.txt"
data=build/demo-lda
mkdir -p "$data"
build/apps/lda/gyre-lda --corpus "$corpus" --topics 20 --alpha 0.1 --epochs 50 --min-count 5 \
  --out "$data/model" --metrics "$data/metrics.jsonl"
echo "model in $data/model, metrics in $data/metrics.jsonl"
