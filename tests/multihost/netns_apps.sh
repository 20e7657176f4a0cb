#!/usr/bin/env bash
# tests/multihost/netns_apps.sh BUILD_DIR — gyre-mf, gyre-lda and gyre-lasso as 3 "hosts": one rank per network
# namespace, joined by veth pairs through a bridge namespace, all made and removed here. Each
# rank reads its byte range of the input file; the model files must be bitwise identical to
# --workers 3 in one process. Needs root and iproute2; otherwise it says so and exits 77
# (meson's "skipped").
set -euo pipefail
build=$(realpath "$1")
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "skipped: needs root and iproute2 (ip netns) to build the test hosts"
  exit 77
fi
tag="gyre$$"
work=$(mktemp -d)
cleanup() {
  for i in 0 1 2; do ip netns del "$tag-h$i" 2>/dev/null || true; done
  ip netns del "$tag-br" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The hosts: 10.77.0.1-3/24 on one bridge. These addresses exist only inside our namespaces.
ip netns add "$tag-br"
ip -n "$tag-br" link add br0 type bridge
ip -n "$tag-br" link set br0 up
for i in 0 1 2; do
  ip netns add "$tag-h$i"
  ip link add "$tag-v$i" type veth peer name "$tag-b$i"
  ip link set "$tag-v$i" netns "$tag-h$i"
  ip link set "$tag-b$i" netns "$tag-br"
  ip -n "$tag-br" link set "$tag-b$i" master br0 up
  ip -n "$tag-h$i" addr add "10.77.0.$((i + 1))/24" dev "$tag-v$i"
  ip -n "$tag-h$i" link set "$tag-v$i" up
  ip -n "$tag-h$i" link set lo up
done

# run_hosts NAME BINARY "ARGS..." FILES...: BINARY ARGS as one process with --workers 3, then as 3
# ranks, one per host; the FILES written under --out (without FILES: the --out file itself) must be the same.
run_hosts() {
  local name=$1 binary=$2 args=$3
  shift 3
  # shellcheck disable=SC2086 # ARGS is a word list
  "$binary" $args --workers 3 --out "$work/$name-single"
  local pids=() status=0
  for i in 0 1 2; do
    # shellcheck disable=SC2086
    ip netns exec "$tag-h$i" timeout 120 "$binary" $args --processes 3 --process-rank $i \
      --coordinator 10.77.0.1:7700 --connect-timeout 30 --out "$work/$name-multi" >"$work/$name-log$i.txt" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do
    if ! wait "${pids[$i]}"; then
      echo "$name: rank $i failed:"
      cat "$work/$name-log$i.txt"
      status=1
    fi
  done
  [ "$status" -eq 0 ] || exit 1
  # gyre-mf's and gyre-lda's ranks each write their part of the model; its export is what one process writes.
  if [ "$name" = gyre-mf ] || [ "$name" = gyre-lda ]; then
    "$binary" export --model "$work/$name-multi" --out "$work/$name-multi-whole"
    mv "$work/$name-multi" "$work/$name-multi-parts"
    mv "$work/$name-multi-whole" "$work/$name-multi"
  fi
  if [ "$#" -eq 0 ]; then
    cmp "$work/$name-single" "$work/$name-multi" || { echo "$name: --out differs between 3 hosts and one process"; exit 1; }
  fi
  for f in "$@"; do
    cmp "$work/$name-single/$f" "$work/$name-multi/$f" || { echo "$name: $f differs between 3 hosts and one process"; exit 1; }
  done
  echo "$name: 3 ranks in 3 network namespaces, each reading its byte range: output identical to --workers 3"
}

export GYRE_TOKEN=netns-test
"$build/tools/gyre-gen" ratings --users 500 --items 300 --ratings 20000 --rank 4 --noise 0.1 --seed 4 \
  --train "$work/train.tsv" --test "$work/test.tsv" >/dev/null
run_hosts gyre-mf "$build/apps/mf/gyre-mf" \
  "--train $work/train.tsv --test $work/test.tsv --rank 4 --epochs 4 --depth 2 --threads 1 --seed 8 --ring random --quiet" \
  user_factors.tsv item_factors.tsv model.json

"$build/tools/gyre-gen" corpus --docs 300 --vocab 200 --topics 4 --doc-length 40 --seed 3 --out "$work/corpus" >/dev/null
run_hosts gyre-lda "$build/apps/lda/gyre-lda" \
  "--corpus $work/corpus/docword.txt --topics 4 --epochs 5 --depth 2 --threads 1 --seed 6 --ring random --quiet" \
  word_topic.tsv doc_topic.tsv model.json topics.txt

"$build/tools/gyre-gen" regression --samples 1200 --features 300 --nnz-per-row 20 --support 10 --correlation 0.5 \
  --noise 0.1 --seed 8 --out "$work/regression" >/dev/null
run_hosts gyre-lasso "$build/apps/lasso/gyre-lasso" \
  "--data $work/regression/data.libsvm --path 4 --lambda-ratio 0.05 --batch 16 --depth 3 --threads 1 --tol 1e-10 --quiet"
