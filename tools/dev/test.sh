#!/usr/bin/env bash
# tools/dev/test.sh — quick start: build and run every test suite (unit, integration, slow, embed).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/dev/build.sh
meson test -C build --print-errorlogs "$@"
