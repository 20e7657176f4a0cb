#!/bin/sh
# include/mirror.sh OUT HEADER... — links each public header as OUT/gyre/<its path below the last "/gyre/">,
# after removing what an earlier run left in OUT/gyre.
set -eu
out=$1
shift
rm -rf "$out/gyre"
for h in "$@"; do
  case $h in
    */gyre/*) rel=gyre/${h##*/gyre/} ;;
    *) echo "mirror.sh: $h is not under a gyre/ directory" >&2; exit 1 ;;
  esac
  mkdir -p "$out/$(dirname "$rel")"
  ln -s "$h" "$out/$rel"
done
