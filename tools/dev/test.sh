#!/usr/bin/env bash
# tools/dev/test.sh — quick start: build, fetch the real data the LDA, Lasso and MF tests read (from
# Debian packages), and run every test suite (unit, integration, slow, embed).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/build.sh
tools/data/fetch-corpora.sh bible >/dev/null
tools/data/fetch-regression.sh diabetes >/dev/null
tools/data/fetch-ratings.sh insteval >/dev/null
tools/data/fetch-digits.sh >/dev/null
meson test -C build --print-errorlogs "$@"
