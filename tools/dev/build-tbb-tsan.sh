#!/usr/bin/env bash
# tools/dev/build-tbb-tsan.sh PREFIX — build Debian's oneTBB source with ThreadSanitizer into PREFIX.
#
# Debian's libtbb12 is not instrumented, so TSan cannot see the synchronisation inside it (task
# hand-over, the small-object pool, parallel_for joins) and reports every access ordered only by
# TBB as a race. Rebuilding the same version from the Debian source with -fsanitize=thread makes
# those edges visible, so the TSan run needs no suppressions.
set -euo pipefail
prefix=$(realpath -m "$1")
[ -f "$prefix/lib/pkgconfig/tbb.pc" ] && exit 0
"$(dirname "$0")/install-deps.sh" cmake xz-utils
if ! grep -rqs "deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  cat > /etc/apt/sources.list.d/gyre-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(dpkg-query -W -f='${Version}' libtbb-dev)
(cd "$work" && apt-get source --download-only -qq "onetbb=$version" 2>/dev/null) ||
  (cd "$work" && apt-get source --download-only -qq onetbb)
tar -C "$work" -xf "$work"/onetbb_*.orig.tar.*
src=$(find "$work" -maxdepth 1 -type d -name 'oneTBB-*' | head -1)
# GCC warns that it cannot instrument atomic_thread_fence; TBB builds with -Werror.
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-Wno-tsan \
  -DTBB_TEST=OFF -DTBB_EXAMPLES=OFF -DTBBMALLOC_BUILD=OFF -DTBB_SANITIZE=thread \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
ninja -C "$work/build" -j"$(nproc)" >/dev/null
ninja -C "$work/build" install >/dev/null
