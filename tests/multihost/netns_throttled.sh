#!/usr/bin/env bash
# tests/multihost/netns_throttled.sh BUILD_DIR — issue 36's hang: two ranks in two network namespaces, the link
# between them throttled to 8 kbit/s (tc tbf) once training runs. The transports drop each other on the heartbeat
# timeout; every rank must then exit non-zero within 3x that timeout, naming the peer it lost — rank 0 too, whose
# scheduler waits on links that stay up. Repeated, since whether rank 0's scheduler heard a goodbye first is a race.
# Needs root, iproute2 and tc; otherwise it says so and exits 77 (meson's "skipped").
set -euo pipefail
build=$(realpath "$1")
repeats=${2:-4}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
  echo "skipped: needs root, ip and tc to build and throttle the test hosts"
  exit 77
fi
tag="gyt$$"
work=$(mktemp -d)
cleanup() {
  for i in 0 1; do ip netns del "$tag-h$i" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Two hosts, 10.78.0.1 and 10.78.0.2, joined by one veth pair. These addresses exist only inside our namespaces.
ip netns add "$tag-h0"
ip netns add "$tag-h1"
ip link add "$tag-v0" type veth peer name "$tag-v1"
for i in 0 1; do
  ip link set "$tag-v$i" netns "$tag-h$i"
  ip -n "$tag-h$i" addr add "10.78.0.$((i + 1))/24" dev "$tag-v$i"
  ip -n "$tag-h$i" link set "$tag-v$i" up
  ip -n "$tag-h$i" link set lo up
done

heartbeat=5
export GYRE_TOKEN=throttle-test
"$build/tools/gyre-gen" ratings --users 2000 --items 1000 --ratings 40000 --rank 4 --noise 0.1 --seed 4 \
  --train "$work/train.tsv" --test "$work/test.tsv" >/dev/null

status=0
for attempt in $(seq 1 "$repeats"); do
  for i in 0 1; do tc -n "$tag-h$i" qdisc del dev "$tag-v$i" root 2>/dev/null || true; done
  pids=()
  for i in 0 1; do
    rm -f "$work/end$i"
    # Each rank notes its own exit status and time: waiting for one must not delay the other's.
    (
      rc=0
      ip netns exec "$tag-h$i" timeout 120 "$build/apps/mf/gyre-mf" --train "$work/train.tsv" --rank 4 \
        --epochs 100000 --threads 1 --processes 2 --process-rank $i --coordinator 10.78.0.1:7711 \
        --connect-timeout 30 --heartbeat-timeout "$heartbeat" --out "$work/model-$attempt" >"$work/log$i.txt" 2>&1 || rc=$?
      echo "$rc $(date +%s%N)" >"$work/end$i"
    ) &
    pids+=($!)
  done
  # Throttle once training runs (rank 0 has reported an epoch), on both ends of the link.
  for _ in $(seq 1 600); do
    grep -qE "^epoch +1 " "$work/log0.txt" 2>/dev/null && break
    sleep 0.05
  done
  if ! grep -qE "^epoch +1 " "$work/log0.txt"; then
    echo "attempt $attempt: training never started"; cat "$work/log0.txt" "$work/log1.txt"; exit 1
  fi
  for i in 0 1; do tc -n "$tag-h$i" qdisc add dev "$tag-v$i" root tbf rate 8kbit burst 1600 limit 2000; done
  throttled=$(date +%s%N)
  wait "${pids[@]}"
  for i in 0 1; do
    read -r rc ended <"$work/end$i"
    took_ms=$(((ended - throttled) / 1000000))
    if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ] || [ "$took_ms" -gt $((3000 * heartbeat)) ]; then
      echo "attempt $attempt: rank $i exited $rc ${took_ms} ms after the throttle (must be non-zero within $((3 * heartbeat)) s):"
      tail -5 "$work/log$i.txt"
      status=1
    fi
  done
  if ! grep -q "rank 1" "$work/log0.txt" || ! grep -q "rank 0" "$work/log1.txt"; then
    echo "attempt $attempt: a rank's error does not name the peer it lost:"; tail -3 "$work/log0.txt" "$work/log1.txt"
    status=1
  fi
  [ "$status" -eq 0 ] || exit 1
  echo "attempt $attempt: both ranks failed within $((3 * heartbeat)) s of the throttle, naming each other:"
  for i in 0 1; do echo "  rank $i: $(grep 'error' "$work/log$i.txt" | tail -1 | cut -c1-240)"; done
done
