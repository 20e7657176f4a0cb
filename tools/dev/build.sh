#!/usr/bin/env bash
# tools/dev/build.sh — install what is missing, configure build/ (once) and compile; extra args go to meson setup.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh
[ -f build/build.ninja ] || meson setup build "$@" >/dev/null
ninja -C build -j"$(nproc)" >/dev/null
