#!/usr/bin/env bash
# tests/embed/run.sh SOURCE_ROOT BUILD_DIR — builds the README's embedding example (tests/embed/embed.cpp)
# against gyre from an install of BUILD_DIR (pkg-config) and as a meson subproject with apps, tools and
# tests off, and runs each build both ways: every worker a thread of one process, and two processes over
# loopback TCP. All four outputs must be the same. On the install it also checks what an embedder gets:
# every installed header compiles alone from the install tree, every one is reachable from <gyre/gyre.hpp>,
# gyre.pc states C++20 and requires nothing publicly, libgyre.so exports every function the headers
# declare and nothing of Asio, nlohmann_json, libsodium or oneTBB (check_exports.py, needs clang++). And the
# README's embedding example must be embed.cpp.
set -euo pipefail
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
command -v clang++ >/dev/null || fail "clang++ is needed for the export check (tools/dev/install-deps.sh installs clang)"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# run_both NAME PROGRAM: PROGRAM's output in one process and as process 0 of 2, in $work/NAME.*;
# they must agree, have an epoch line per epoch and a line per block, and process 1 must print nothing.
run_both() {
  local name=$1 program=$2 port
  "$program" >"$work/$name.threads" || fail "$name: the run in one process failed"
  # 2 workers × 5 epochs: every block visited 10 times.
  if [ "$(grep -c '^epoch ' "$work/$name.threads")" -ne 5 ] || [ "$(grep -c '^block .*(10 visits)$' "$work/$name.threads")" -ne 4 ]; then
    fail "$name: expected 5 epochs and 4 blocks of 10 visits, got: $(cat "$work/$name.threads")"
  fi
  port=$(free_port)
  GYRE_TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  export GYRE_TOKEN GYRE_COORDINATOR=127.0.0.1:$port
  # As a launcher starts them (PMI's variables, as MPICH's mpiexec sets them).
  PMI_RANK=1 PMI_SIZE=2 "$program" >"$work/$name.rank1" &
  pids+=($!)
  PMI_RANK=0 PMI_SIZE=2 "$program" >"$work/$name.processes" || fail "$name: process 0 of 2 failed"
  wait "${pids[-1]}" || fail "$name: process 1 of 2 failed"
  [ ! -s "$work/$name.rank1" ] || fail "$name: process 1 printed $(cat "$work/$name.rank1")"
  diff -u "$work/$name.threads" "$work/$name.processes" || fail "$name: one process and two processes disagree"
  echo "$name: one process and two processes agree"
}

# The README's embedding example is embed.cpp, from its #include on.
python3 - "$src/README.md" "$src/tests/embed/embed.cpp" <<'PY' || fail "README.md's embedding example differs from tests/embed/embed.cpp"
import sys
example = open(sys.argv[2]).read().split('\n', 1)[1]
sys.exit(0 if any(b.split('```', 1)[0] == example for b in open(sys.argv[1]).read().split('```cpp\n')[1:]) else 1)
PY

echo "== installed, through pkg-config"
meson install -C "$build" --no-rebuild --quiet --destdir "$work/root" >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name']=='prefix'][0])")
pc=$(find "$work/root" -name gyre.pc | head -1)
lib=$(find "$work/root" -name 'libgyre.so' | head -1)
inc=$(dirname "$(dirname "$(find "$work/root" -path '*/include/gyre/gyre.hpp' | head -1)")")
pkg() { PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --define-variable=prefix="$work/root$prefix" "$@" gyre; }
case " $(pkg --cflags) " in *" -std=c++20 "*) ;; *) fail "gyre.pc's Cflags do not state C++20: $(pkg --cflags)" ;; esac
[ -z "$(pkg --print-requires)" ] || fail "gyre.pc requires $(pkg --print-requires): no installed header includes them"
! grep -qi eigen "$pc" || fail "gyre.pc names Eigen, which no installed header includes"

# Each installed header alone, with nothing but the install tree on the include path: an installed
# header that includes an uninstalled one fails here.
headers=$(cd "$inc" && find gyre -name '*.hpp' | sort)
# Two at a time (CI has 2 cores); a header that fails prints its errors and its name.
export inc
echo "$headers" | xargs -P 2 -I{} sh -c 'echo "#include <{}>" | g++ -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic \
  -Werror -I "$inc" -x c++ - || { echo "installed header {} does not compile alone" >&2; exit 255; }' ||
  fail "an installed header does not compile alone (named above)"

# Every installed header is part of the API: reachable from <gyre/gyre.hpp>.
echo '#include <gyre/gyre.hpp>' | g++ -std=c++20 -M -MT x -I "$inc" -x c++ - >"$work/deps"
reached=$(grep -oE "$inc/gyre/[^[:space:]]+[.]hpp" "$work/deps" | sed "s|^$inc/||" | sort -u)
[ "$headers" = "$reached" ] || fail "installed headers that <gyre/gyre.hpp> does not include: $(comm -23 <(echo "$headers") <(echo "$reached") | tr '\n' ' ')"
echo "$(echo "$headers" | wc -l) installed headers, each compiles alone and is part of <gyre/gyre.hpp>"
# The installed API names no cereal, Asio or oneTBB type: none of their headers is included.
private=$(cd "$inc" && grep -lE '#include <(cereal|boost|oneapi|tbb)/' $headers || true)
[ -z "$private" ] || fail "installed headers that include cereal, Asio or oneTBB: $private"
python3 "$src/tests/embed/check_exports.py" "$inc" "$lib"

# No -std flag of our own: gyre.pc's Cflags must bring C++20.
# shellcheck disable=SC2046
g++ -Wall -Wextra -Wpedantic -Werror "$src/tests/embed/embed.cpp" $(pkg --cflags --libs) -o "$work/embed-installed"
LD_LIBRARY_PATH=$(dirname "$lib") run_both installed "$work/embed-installed"

# An embedder's own apps from the install: matrix factorisation on the rotation engine and ridge
# regression on the rounds engine, each in one process, as two processes (the same output), and
# started in the background and cancelled mid-run. Their plumbing stays small.
for app in embed_mf embed_ridge; do
  # shellcheck disable=SC2046
  g++ -Wall -Wextra -Wpedantic -Werror -O1 "$src/tests/embed/$app.cpp" $(pkg --cflags --libs) -o "$work/$app"
  LD_LIBRARY_PATH=$(dirname "$lib") "$work/$app" >"$work/$app.threads" || fail "$app: the run in one process failed: $(cat "$work/$app.threads")"
  port=$(free_port)
  LD_LIBRARY_PATH=$(dirname "$lib") PMI_RANK=1 PMI_SIZE=2 GYRE_COORDINATOR=127.0.0.1:$port "$work/$app" >"$work/$app.rank1" &
  pids+=($!)
  LD_LIBRARY_PATH=$(dirname "$lib") PMI_RANK=0 PMI_SIZE=2 GYRE_COORDINATOR=127.0.0.1:$port "$work/$app" >"$work/$app.processes" ||
    fail "$app: process 0 of 2 failed: $(cat "$work/$app.processes")"
  wait "${pids[-1]}" || fail "$app: process 1 of 2 failed"
  [ ! -s "$work/$app.rank1" ] || fail "$app: process 1 printed $(cat "$work/$app.rank1")"
  diff -u "$work/$app.threads" "$work/$app.processes" || fail "$app: one process and two processes disagree"
  if LD_LIBRARY_PATH=$(dirname "$lib") timeout 60 "$work/$app" cancel >"$work/$app.cancel"; then fail "$app: a cancelled run succeeded"; fi
  grep -q "^$app: the job was cancelled$" "$work/$app.cancel" || fail "$app: the cancelled run said $(cat "$work/$app.cancel")"
  echo "$app: one process and two processes agree; cancelled mid-run: $(grep -c . "$work/$app.cancel") lines before the cancel"
done
python3 - "$work/embed_mf.threads" "$work/embed_ridge.threads" <<'PY' || fail "the embedder's apps did not converge"
import re, sys
rmse = [float(x) for x in re.findall(r'rmse ([0-9.]+)', open(sys.argv[1]).read())]
gradient = float(re.search(r'largest gradient entry (\S+)', open(sys.argv[2]).read()).group(1))
print(f"matrix factorisation: rmse {rmse[0]:.4f} -> {rmse[-1]:.4f} in {len(rmse)} epochs; ridge: largest gradient entry {gradient:.2g}")
sys.exit(0 if len(rmse) == 10 and rmse[-1] < rmse[0] / 5 and gradient < 1e-9 else 1)
PY
plumbing=$(python3 "$src/tests/embed/plumbing_lines.py" "$src/tests/embed/embed_mf.cpp" "$src/tests/embed/embed_ridge.cpp")
echo "$plumbing"
python3 - "$plumbing" <<'PY' || fail "an embedder's plumbing grew (at most 27 lines on rotation, 19 on rounds)"
import re, sys
counts = dict(re.findall(r'(\S+): (\d+) lines', sys.argv[1]))
sys.exit(0 if int(counts['embed_mf.cpp']) <= 27 and int(counts['embed_ridge.cpp']) <= 19 else 1)
PY

echo "== as a meson subproject, with -Dgyre:apps=false -Dgyre:tools=false -Dgyre:tests=false"
mkdir -p "$work/sub/subprojects"
cp "$src/tests/embed/meson.build" "$src/tests/embed/embed.cpp" "$work/sub/"
ln -s "$src" "$work/sub/subprojects/gyre"
# --force-fallback-for: the subproject even where a gyre.pc is installed. --buildtype=plain: no
# debug information, which only made this build slower (the runs below need none). -Dunity=subprojects:
# gyre's sources compiled in unity chunks, as in gyre's own builds (unity is the outer project's
# option); libgyre.so links its objects whole (gyre's meson.build), which keeps clear of meson
# 1.0.1's unity-object bug that once made this build non-unity.
meson setup "$work/sub/build" "$work/sub" --force-fallback-for=gyre -Dgyre:apps=false -Dgyre:tools=false \
  -Dgyre:tests=false --buildtype=plain -Dunity=subprojects >/dev/null
targets=$(meson introspect "$work/sub/build" --targets | python3 -c "import json,sys; print(' '.join(sorted(t['name'] for t in json.load(sys.stdin))))")
[ "$targets" = "embed gyre gyre_internal" ] || fail "the subproject builds more than the library: $targets"
ninja -C "$work/sub/build" -j2 >/dev/null
run_both subproject "$work/sub/build/embed"

diff -u "$work/installed.threads" "$work/subproject.threads" || fail "the installed and subproject builds disagree"
echo "all four runs print the same:"
cat "$work/installed.threads"
