#!/usr/bin/env bash
# Instructions of one tpcost run, counted by valgrind's callgrind: unlike perf's CPU time they
# do not depend on the machine's load (perf's hardware counters are often unavailable in
# containers, where startup.sh prints n/a). Prints the total and the shares of the dynamic
# loader and of main, next to /bin/true. With TPCOST_STATIC_RUNTIME (the default) the binary
# is a static PIE and loads nothing; with the shared libstdc++, libfmt, yaml-cpp and toml++ the
# loader's symbol lookups were 2.8 M of 3.9 M instructions of `tpcost sweep`.
#   bench/startup_callgrind.sh [BINARY]      (default build/ci/src/tpcost; needs valgrind)
set -euo pipefail
bin=${1:-build/ci/src/tpcost}
command -v valgrind >/dev/null || { echo "startup_callgrind.sh: needs valgrind" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() {
  local label=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$@" >/dev/null 2>"$out/err"
  local total main
  total=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/err")
  main=$(callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null |
    awk '/:main \[/ {gsub(",", "", $1); print $1; exit}' || true)
  printf '%-26s %10s instructions, %10s in main (the rest: loader, libc start-up)\n' \
    "$label" "$total" "${main:-?}"
}
count "/bin/true" /bin/true
count "tpcost --version" "$bin" --version
count "tpcost sweep" "$bin" sweep
count "tpcost sweep --gpu h100" "$bin" sweep --gpu h100 --tp 1..8
