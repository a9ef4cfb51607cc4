#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time (default 30 s),
# starting from the seed corpus (example configs, the malformed-config catalogue, unit strings).
# Fails if a fuzzer finds a crash, a leak, undefined behaviour or a timeout.
# Usage: scripts/fuzz.sh [seconds-per-target]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2

work=build/fuzz/run
rm -rf "$work"
mkdir -p "$work/config" "$work/units" "$work/artifacts"
cp examples/configs/*.json tests/config/bad/*.json tests/config/*.json "$work/config/"
cp tests/fuzz/corpus/units/* "$work/units/"

for target in config units; do
  echo "fuzz: ${target}_fuzzer for ${seconds} s"
  build/fuzz/tests/fuzz/${target}_fuzzer "$work/$target" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" 2>"$work/$target.log" || {
    tail -40 "$work/$target.log"
    echo "fuzz: ${target}_fuzzer FAILED; reproducer in $work/artifacts/" >&2
    exit 1
  }
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|DONE" \
    "$work/$target.log"
done

# The readers of other frameworks' configs (tests/fuzz/*_fuzzer.cpp for src/formats/): a few
# seconds each, seeded with the fixtures under tests/config/megatron and tests/config/formats.
bash scripts/fuzz-readers.sh "${READER_SECONDS:-5}"
