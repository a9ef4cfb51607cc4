#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time (default 30 s),
# starting from the seed corpus (example configs, the malformed-config catalogue, unit strings).
# Fails if a fuzzer finds a crash, a leak, undefined behaviour or a timeout.
# Usage: scripts/fuzz.sh [seconds-per-target]
# With FUZZ_RUNS=N (make fuzz-long), every target runs N inputs instead, however long it takes.
# The seed is fixed (FUZZ_SEED, default 1) so that a clean local run predicts a clean CI run
# of the same commit; make fuzz-long passes FUZZ_SEED=0, a random seed per run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
if [[ -n "${FUZZ_RUNS:-}" ]]; then
  limit=(-runs="$FUZZ_RUNS")
else
  limit=(-max_total_time="$seconds")
fi

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2

work=build/fuzz/run
rm -rf "$work"
mkdir -p "$work/config" "$work/units" "$work/artifacts"
cp examples/configs/*.json tests/config/bad/*.json tests/config/*.json "$work/config/"
cp tests/fuzz/corpus/units/* "$work/units/"

for target in config units; do
  echo "fuzz: ${target}_fuzzer for ${FUZZ_RUNS:-${seconds} s} ${FUZZ_RUNS:+runs}"
  build/fuzz/tests/fuzz/${target}_fuzzer "$work/$target" "${limit[@]}" \
    -timeout=10 -rss_limit_mb=2048 -max_len=65536 -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" 2>"$work/$target.log" || {
    tail -40 "$work/$target.log"
    echo "fuzz: ${target}_fuzzer FAILED; reproducer in $work/artifacts/" >&2
    exit 1
  }
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|DONE" \
    "$work/$target.log"
done

# The io readers (HF config, interconnect profile, nccl-tests text and JSON) in one target whose
# first input byte picks the reader: each seed is a fixture behind its reader's byte.
io_seconds=${READER_SECONDS:-5}
mkdir -p "$work/io"
seed() {
  local byte=$1
  shift
  for f in "$@"; do
    { printf "\\x$byte"; cat "$f"; } >"$work/io/$byte-$(basename "$f")"
  done
}
hostile=tests/cli/data/hostile
seed 00 examples/hf/*.json tests/cli/data/*.json $hostile/hf_*.json
seed 01 tests/config/profiles/*.json $hostile/profile_*.json
seed 02 tests/data/nccl/*.txt tests/data/nccl/bad/*.txt $hostile/nccl_*.txt
seed 03 tests/fuzz/corpus/io/*.json $hostile/nccl_*.json
if [[ -n "${FUZZ_RUNS:-}" ]]; then
  io_limit=(-runs="$FUZZ_RUNS")
else
  io_limit=(-max_total_time="$io_seconds")
fi
echo "fuzz: io_fuzzer for ${FUZZ_RUNS:-${io_seconds} s} ${FUZZ_RUNS:+runs}"
build/fuzz/tests/fuzz/io_fuzzer "$work/io" "${io_limit[@]}" -timeout=10 -rss_limit_mb=2048 \
  -max_len=65536 -seed="${FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix="$work/artifacts/" 2>"$work/io.log" || {
  tail -40 "$work/io.log"
  echo "fuzz: io_fuzzer FAILED; reproducer in $work/artifacts/" >&2
  exit 1
}
grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)|DONE" "$work/io.log"

# The readers of other frameworks' configs (tests/fuzz/*_fuzzer.cpp for src/formats/): a few
# seconds each, seeded with the fixtures under tests/config/megatron and tests/config/formats.
bash scripts/fuzz-readers.sh "${READER_SECONDS:-5}"
