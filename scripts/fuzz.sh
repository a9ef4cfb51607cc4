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
#   FUZZ_CHUNK=N                with FUZZ_RUNS: restart each process after about N new inputs
#                               (make fuzz-long passes 500000). A long ASan process slows ten-fold
#                               as its allocator state grows (docs/fuzzing.md); a fresh one reloads
#                               the shared corpus and goes on at full speed. Inputs are counted
#                               without those reloads.
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

# Runs one process's share of FUZZ_RUNS inputs, as processes of at most FUZZ_CHUNK new inputs
# each; a process first replays the corpus (its INITED line counts those), which is not counted.
run_share() {
  local target=$1 i=$2 share=$3 bin=$4
  shift 4
  local chunk=${FUZZ_CHUNK:-0} left=$share c=0
  ((chunk > 0)) || chunk=$share
  while ((left > 0)); do
    local this=$((chunk < left ? chunk : left)) log=$work/$target.$i.$c.log
    # The replay is at most the corpus's files, plus what the other processes add meanwhile.
    local replay
    replay=$(($(find "$work/$target" -maxdepth 1 -type f | wc -l) + 1000))
    "$bin" "$work/$target" -runs=$((this + replay)) "$@" 2>"$log" || {
      tail -40 "$log"
      return 1
    }
    local fresh
    fresh=$(awk '/INITED/ {sub("#", "", $1); r = $1} /^stat::number_of_executed_units/ {n = $2}
      END {print n - r}' "$log")
    ((fresh > 0)) || fresh=1
    left=$((left - fresh))
    c=$((c + 1))
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
    local flags=(-timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -max_len=65536 -seed="$seed"
      -print_final_stats=1 -artifact_prefix="$work/artifacts/")
    # A dictionary of the reader's syntax (tests/fuzz/dict), where the target has one.
    [[ ! -f tests/fuzz/dict/$target.dict ]] || flags+=(-dict="tests/fuzz/dict/$target.dict")
    if [[ -n ${FUZZ_RUNS:-} ]]; then
      run_share "$target" "$i" "$per_job" "$bin" "${flags[@]}" &
    else
      "$bin" "$work/$target" -max_total_time="$limit" "${flags[@]}" 2>"$work/$target.$i.0.log" || {
        tail -40 "$work/$target.$i.0.log"
        false
      } &
    fi
    pids+=($!)
  done
  local failed=0
  for ((i = 0; i < jobs; ++i)); do
    wait "${pids[$i]}" || failed=1
  done
  if ((failed)); then
    echo "fuzz: ${target}_fuzzer FAILED; reproducer in $work/artifacts/" >&2
    exit 1
  fi
  local counts
  counts=$(for log in "$work/$target".*.log; do
    awk '/INITED/ {sub("#", "", $1); r = $1} /^stat::number_of_executed_units/ {n = $2}
      END {print n + 0, r + 0}' "$log"
  done | awk '{n += $1; r += $2; p += 1} END {print n - r, r, p}')
  local inputs replayed processes took=$((SECONDS - start))
  read -r inputs replayed processes <<<"$counts"
  echo "fuzz: ${target}_fuzzer clean: $inputs inputs in $took s ($((inputs / (took > 0 ? took : 1)))/s;" \
    "$processes process(es); their corpus replays, $replayed inputs, not counted)"
}

for target in $targets; do
  corpus "$target"
  case $target in
    config | units) run "$target" "$seconds" ;;
    *) run "$target" "$reader_seconds" ;;
  esac
done
