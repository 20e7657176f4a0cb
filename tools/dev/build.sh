#!/usr/bin/env bash
# tools/dev/build.sh [TARGET...] — install what building needs, configure build/ (once) and compile the
# targets named (ninja's output paths, e.g. apps/mf/gyre-mf), or everything. GYRE_SETUP_ARGS go to meson setup.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/install-deps.sh --build
# shellcheck disable=SC2086
[ -f build/build.ninja ] || meson setup build ${GYRE_SETUP_ARGS:-} >/dev/null
ninja -C build -j"$(nproc)" "$@" >/dev/null
