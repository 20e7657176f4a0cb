#!/usr/bin/env bash
# tools/dev/test.sh [MESON TEST ARGS...] — quick start: build, fetch the real data the LDA, Lasso and
# MF tests read (from Debian packages), and run the unit and integration suites. With arguments,
# they go to `meson test` instead: `tools/dev/test.sh --suite slow` runs the slow suite (the
# install-and-subproject embed test, which compiles the library again; CI runs it).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh
tools/dev/build.sh
tools/data/fetch-corpora.sh bible >/dev/null
tools/data/fetch-regression.sh diabetes >/dev/null
tools/data/fetch-ratings.sh insteval >/dev/null
tools/data/fetch-digits.sh >/dev/null
if [ "$#" -eq 0 ]; then set -- --suite unit --suite integration; fi
meson test -C build --print-errorlogs "$@"
