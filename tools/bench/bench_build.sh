# tools/bench/bench_build.sh — sourced by the benchmark scripts: which build they run, and the load line they print before each run.

# bench_build TARGET...: sets `bin`. With GYRE_BENCH_BUILD, that build as it is: nothing is
# configured or compiled there, and a TARGET it lacks stops the script with the ninja command
# that makes it. Without, build-bench (-Dnative=true, release, no tests), configured the first
# time and brought up to date for the TARGETs (all of it when none is named).
bench_build() {
  if [ -n "${GYRE_BENCH_BUILD:-}" ]; then
    bin=$GYRE_BENCH_BUILD
    if [ ! -f "$bin/build.ninja" ]; then
      echo "GYRE_BENCH_BUILD=$bin: not a meson build directory" >&2
      exit 2
    fi
    local target
    for target in "$@"; do
      if [ ! -e "$bin/$target" ]; then
        echo "GYRE_BENCH_BUILD=$bin has no $target: ninja -C $bin $target" >&2
        exit 2
      fi
    done
    return 0
  fi
  bin=build-bench
  [ -f build-bench/build.ninja ] || meson setup build-bench -Dnative=true -Dbuildtype=release -Dtests=false >/dev/null
  ninja -C build-bench -j"$(nproc)" "$@" >/dev/null
}

# load_line: the 1, 5 and 15 minute load averages as a comment line. Runs on a shared machine
# drift with what else runs; the line says what did.
load_line() { echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"; }
