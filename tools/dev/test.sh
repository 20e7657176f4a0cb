#!/usr/bin/env bash
# tools/dev/test.sh — quick start: build, fetch the real corpus the LDA tests read (from a Debian
# package), and run every test suite (unit, integration, slow, embed).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/build.sh
tools/data/fetch-corpora.sh bible >/dev/null
meson test -C build --print-errorlogs "$@"
