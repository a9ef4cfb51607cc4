#!/usr/bin/env bash
# Runs clang-tidy with the project's curated checks (.clang-tidy, every warning an error) over
# every translation unit of src/ and examples/, which between them include every header of
# include/tpcost, in parallel. Usage: scripts/tidy.sh [BUILD_DIR] (default build/ci, configured
# by `cmake --preset ci`, which writes compile_commands.json). Exit 1 on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
jobs=${JOBS:-2}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: no $build/compile_commands.json; run cmake --preset ci first" >&2
  exit 2
fi
# The sources of the compilation database under src/ and examples/ (not the tests: Catch2's
# macros trip several bugprone checks by design).
files=$(python3 - "$build/compile_commands.json" "$PWD" <<'PY'
import json, os, sys
root = sys.argv[2]
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.relpath(os.path.join(entry["directory"], entry["file"]), root)
    if path.startswith(("src/", "examples/")) and path not in seen:
        seen.add(path)
        print(path)
PY
)
count=$(echo "$files" | wc -l)
echo "tidy: $count translation units, $jobs at a time"
log=$build/tidy.log
# One clang-tidy per file; a file it fails on (a finding, or clang-tidy itself crashing) is named
# on a line of its own, and the other files still run.
echo "$files" | xargs -P "$jobs" -I{} sh -c \
  'clang-tidy -p "$1" --quiet "$2" || echo "tidy: FAILED $2 (exit $?)"' sh "$build" {} \
  >"$log" 2>&1 || true
# clang-tidy prints "N warnings generated." for the warnings it suppressed in other headers; the
# findings are the lines naming a check.
if grep -q -E "^tidy: FAILED " "$log"; then
  grep -v -E "^[0-9]+ warnings? (and [0-9]+ errors? )?generated\.$|^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing" "$log" >&2 || true
  echo "tidy: clang-tidy failed on the files above (.clang-tidy)" >&2
  exit 1
fi
echo "tidy: clean"
