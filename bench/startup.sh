#!/usr/bin/env bash
# Start-up cost of the tpcost binary, for scripts that call it thousands of times: the CPU
# time (task-clock) and user-space instructions of one run, averaged over N runs by perf stat,
# next to /bin/true and two empty C++ programs as floors: one linked like tpcost (fmt header-only,
# libstdc++ static: TPCOST_STATIC_RUNTIME), one with the shared libstdc++ and libfmt.
# Instructions do not depend on the machine's load; the CPU time does, so compare rows of one
# run of this script.
#   bench/startup.sh [BINARY] [N]      (default build/ci/src/tpcost, 300 runs)
set -euo pipefail
bin=${1:-build/ci/src/tpcost}
n=${2:-300}
command -v perf >/dev/null || { echo "startup.sh: needs perf (Debian: linux-perf)" >&2; exit 2; }
floor=$(mktemp -d)
trap 'rm -rf "$floor"' EXIT
printf '#include <fmt/format.h>\nint main() { fmt::print("0.1.0\\n"); }\n' >"$floor/floor.cpp"
c++ -O2 -std=c++20 -DFMT_HEADER_ONLY "$floor/floor.cpp" -o "$floor/cxx-floor-static" \
  -static-libstdc++ -static-libgcc
c++ -O2 -std=c++20 "$floor/floor.cpp" -o "$floor/cxx-floor" -lfmt
measure() {
  local label=$1
  shift
  # perf stat -x, prints "value,unit,event,..." on stderr.
  perf stat -x, -r "$n" -e task-clock,instructions:u "$@" 2>"$floor/stat" >/dev/null || true
  local ms insns
  ms=$(awk -F, '$3 ~ /task-clock/ {printf "%.3f", $1}' "$floor/stat")
  insns=$(awk -F, '$3 ~ /instructions/ {if ($1 ~ /^[0-9.]+$/) printf "%.0f", $1 / 1000; else printf "n/a"}' "$floor/stat")
  printf '%-34s %9s ms CPU  %9s k instructions\n' "$label" "$ms" "$insns"
}
measure "/bin/true" /bin/true
measure "C++ floor (static libstdc++)" "$floor/cxx-floor-static"
measure "C++ floor (shared libstdc++, libfmt)" "$floor/cxx-floor"
measure "tpcost --version" "$bin" --version
measure "tpcost sweep" "$bin" sweep
measure "tpcost sweep --tp 1..64 --format json" "$bin" sweep --tp 1..64 --format json
measure "tpcost step (llama-3-8b, 16 GPUs)" "$bin" step -m llama-3-8b -g h100-sxm -i ib-ndr \
  -n 16 -t 8 -G 64 -s 4096
measure "tpcost --help (every command)" "$bin" --help
