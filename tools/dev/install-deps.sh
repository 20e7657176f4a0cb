#!/usr/bin/env bash
# tools/dev/install-deps.sh [--build] [PACKAGE...] — install gyre's build and test dependencies
# from Debian 12 packages (as root). --build: only what building needs (the demos install no more).
set -euo pipefail
packages=(meson ninja-build g++ pkg-config libtbb-dev libeigen3-dev libboost-dev libcereal-dev
          doctest-dev libcli11-dev nlohmann-json3-dev libsodium-dev)
if [ "${1:-}" = --build ]; then
  shift
else
  # openmpi-bin: the mpirun tests; gnuplot-nox: the benchmarks' plots. clang: the embedding test's
  # check of the exported API reads the installed headers with clang's AST. liblinear-tools: the peer
  # whose L1 logistic regression the logistic loss's objective is tested against.
  packages+=(openmpi-bin python3 gnuplot-nox iproute2 clang liblinear-tools)
fi
packages+=("$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
