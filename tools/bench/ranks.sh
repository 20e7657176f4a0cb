# tools/bench/ranks.sh — sourced by the benchmarks that run an app as P ranks on loopback and read
# each rank's peak RSS and wall time from /usr/bin/time -v. Uses $work (where the time files go)
# and, in report, $one_kb and $one_s (the one-process run's figures).
export GYRE_TOKEN=${GYRE_TOKEN:-bench-ranks-token}
peak_kb() { awk '/Maximum resident set size/ {print $6}' "$1"; }
wall_s() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + t[i]; print s}' "$1"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# run_ranks P TAG BINARY ARGS...: P ranks of BINARY ARGS (reading a P-part partition, or a text
# file by byte ranges), each with --threads 1 and under /usr/bin/time -v into $work/time-TAG-r.txt.
run_ranks() {
  local P=$1 tag=$2 port pids=() r
  shift 2
  port=$(free_port)
  for ((r = 0; r < P; ++r)); do
    /usr/bin/time -v "$@" --threads 1 --processes "$P" --process-rank $r \
      --coordinator 127.0.0.1:"$port" --listen-host 127.0.0.1 2>"$work/time-$tag-$r.txt" >/dev/null &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}
# report P TAG LABEL COMMAND [WHAT]: the largest rank's peak RSS (and every rank's) and the slowest
# rank's wall time, against P=1's ($one_kb, $one_s); WHAT names the wall time's span.
report() {
  local P=$1 tag=$2 label=$3 cmd=$4 what=${5:-to first epoch} worst_kb=0 worst_s=0 ranks="" r kb s
  for ((r = 0; r < P; ++r)); do
    kb=$(peak_kb "$work/time-$tag-$r.txt"); s=$(wall_s "$work/time-$tag-$r.txt")
    ranks+=" $((kb / 1024))"
    (( kb > worst_kb )) && worst_kb=$kb
    [ "$(echo "$s > $worst_s" | bc)" = 1 ] && worst_s=$s
  done
  printf '%-40s %8d MiB = %.2fx P=1 (ranks:%s)   # %s\n' "P=$P $label peak RSS, largest rank" $((worst_kb / 1024)) \
    "$(echo "scale=4; $worst_kb / $one_kb" | bc)" "$ranks" "$cmd"
  printf '%-40s %8.2f s = %.2fx P=1   # the same runs, start to exit, slowest rank\n' "P=$P $label $what" \
    "$worst_s" "$(echo "scale=4; $worst_s / $one_s" | bc)"
}
