#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (the `fuzz` preset) and runs each from its seed corpus
# (example configs, the malformed-config catalogue, unit strings, the readers' fixtures). Fails
# if a fuzzer finds a crash, a leak, undefined behaviour or a timeout.
#   scripts/fuzz.sh [seconds]   each target for a bounded time: `seconds` (default 30) for the
#                               config and unit parsers, READER_SECONDS (default 5) for the rest
#   FUZZ_RUNS=N                 (make fuzz-long) each target for N inputs instead, split over
#                               FUZZ_JOBS processes (default 1), however long it takes
#   FUZZ_TARGETS="config hf_config"   only these targets (default: all)
#   FUZZ_RESUME=DIR             add DIR/<target>/* (an earlier run's corpus, saved before this
#                               script clears build/fuzz/run) to each target's seed corpus
#   FUZZ_TIMEOUT=S              seconds one input may take before libFuzzer calls it a hang
#                               (default 10; make fuzz-long passes 60: the limit is wall-clock,
#                               so on a loaded machine a niced fuzzer's 40 ms input can exceed 10 s)
# The seed is fixed (FUZZ_SEED, default 1) so that a clean local run predicts a clean CI run of
# the same commit; make fuzz-long passes FUZZ_SEED=0, a random seed per process.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
reader_seconds=${READER_SECONDS:-5}
jobs=${FUZZ_JOBS:-1}
all_targets="config units io hf_config megatron_script megatron_log nemo_yaml torchtitan_toml
  deepspeed_json"
targets=${FUZZ_TARGETS:-$all_targets}

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j 2

work=build/fuzz/run
rm -rf "$work"
mkdir -p "$work/artifacts"

# The seed corpus of each target.
corpus() {
  local dir=$work/$1
  mkdir -p "$dir"
  case $1 in
    config) cp examples/configs/*.json tests/config/bad/*.json tests/config/*.json "$dir/" ;;
    units) cp tests/fuzz/corpus/units/* "$dir/" ;;
    io)
      # One target for the io readers; an input's first byte picks the reader (io_fuzzer.cpp),
      # so each fixture goes in behind its reader's byte.
      local hostile=tests/cli/data/hostile
      behind 00 "$dir" examples/hf/*.json tests/cli/data/*.json $hostile/hf_*.json
      behind 01 "$dir" tests/config/profiles/*.json $hostile/profile_*.json
      behind 02 "$dir" tests/data/nccl/*.txt tests/data/nccl/bad/*.txt $hostile/nccl_*.txt
      behind 03 "$dir" tests/fuzz/corpus/io/*.json $hostile/nccl_*.json
      ;;
    hf_config) cp examples/hf/*.json tests/cli/data/*.json tests/cli/data/hostile/hf_*.json "$dir/" ;;
    megatron_script) cp tests/config/megatron/*.sh "$dir/" ;;
    megatron_log) cp tests/config/megatron/*.log "$dir/" ;;
    nemo_yaml) cp tests/config/formats/*.yaml "$dir/" ;;
    torchtitan_toml) cp tests/config/formats/*.toml "$dir/" ;;
    deepspeed_json) cp tests/config/formats/*.json "$dir/" ;;
    *) echo "fuzz: no target '$1' (targets: $all_targets)" >&2; exit 2 ;;
  esac
  if [[ -n ${FUZZ_RESUME:-} && -d $FUZZ_RESUME/$1 ]]; then
    find "$FUZZ_RESUME/$1" -maxdepth 1 -type f -exec cp -t "$dir/" {} +
    echo "fuzz: $1 resumes from $(find "$dir" -type f | wc -l) inputs (seeds and $FUZZ_RESUME/$1)"
  fi
}
behind() {
  local byte=$1 dir=$2
  shift 2
  for f in "$@"; do
    { printf "\\x$byte"; cat "$f"; } >"$dir/$byte-$(basename "$f")"
  done
}

# Runs one target: for FUZZ_RUNS inputs over `jobs` processes sharing the corpus, or for a time.
run() {
  local target=$1 limit=$2
  local bin=build/fuzz/tests/fuzz/${target}_fuzzer pids=() i
  local per_job=$((${FUZZ_RUNS:-0} / jobs))
  echo "fuzz: ${target}_fuzzer for ${FUZZ_RUNS:-$limit s}${FUZZ_RUNS:+ inputs over $jobs process(es)}"
  local start=$SECONDS
  for ((i = 0; i < jobs; ++i)); do
    local seed=${FUZZ_SEED:-1}
    [[ $seed == 0 ]] || seed=$((seed + i))
    local bound=(-max_total_time="$limit")
    # A dictionary of the reader's syntax (tests/fuzz/dict), where the target has one.
    [[ ! -f tests/fuzz/dict/$target.dict ]] || bound+=(-dict="tests/fuzz/dict/$target.dict")
    [[ -z ${FUZZ_RUNS:-} ]] || bound=(-runs="$per_job" "${bound[@]:1}")
    "$bin" "$work/$target" "${bound[@]}" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 \
      -seed="$seed" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
      2>"$work/$target.$i.log" &
    pids+=($!)
  done
  local failed=0
  for ((i = 0; i < jobs; ++i)); do
    wait "${pids[$i]}" || { failed=1; tail -40 "$work/$target.$i.log"; }
  done
  if ((failed)); then
    echo "fuzz: ${target}_fuzzer FAILED; reproducer in $work/artifacts/" >&2
    exit 1
  fi
  local inputs
  inputs=$(cat "$work/$target".*.log | awk '/^stat::number_of_executed_units/ {n += $2} END {print n + 0}')
  local took=$((SECONDS - start))
  echo "fuzz: ${target}_fuzzer clean: $inputs inputs in $took s ($((inputs / (took > 0 ? took : 1)))/s)"
}

for target in $targets; do
  corpus "$target"
  case $target in
    config | units) run "$target" "$seconds" ;;
    *) run "$target" "$reader_seconds" ;;
  esac
done
