#!/usr/bin/env bash
# tests/embed/run.sh SOURCE_ROOT BUILD_DIR — builds tests/embed against gyre as a meson subproject
# and, from an install of BUILD_DIR, through pkg-config; runs both.
set -euo pipefail
src=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== as a meson subproject"
mkdir -p "$work/sub/subprojects"
cp "$src/tests/embed/meson.build" "$src/tests/embed/embed.cpp" "$work/sub/"
ln -s "$src" "$work/sub/subprojects/gyre"
meson setup "$work/sub/build" "$work/sub" -Dgyre:tests=false -Dgyre:tools=false >/dev/null
ninja -C "$work/sub/build" -j2 >/dev/null
"$work/sub/build/embed"

echo "== installed, through pkg-config"
meson install -C "$build" --no-rebuild --quiet --destdir "$work/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='prefix'][0])")
pc=$(find "$work/root" -name gyre.pc | head -1)
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$work/root$prefix" --cflags --libs gyre)
# shellcheck disable=SC2086
g++ -std=c++20 "$src/tests/embed/embed.cpp" $flags -o "$work/embed-installed"
LD_LIBRARY_PATH=$(dirname "$(find "$work/root" -name 'libgyre.so' | head -1)") "$work/embed-installed"
