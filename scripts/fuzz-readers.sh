#!/usr/bin/env bash
# Runs the libFuzzer targets of the config readers (Megatron-LM script and log, Megatron-Bridge
# YAML, torchtitan TOML, DeepSpeed JSON) for a bounded time each, from their fixtures.
# Needs the `fuzz` preset built (scripts/fuzz.sh builds it). Usage: scripts/fuzz-readers.sh [s]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
if [[ -n "${FUZZ_RUNS:-}" ]]; then  # make fuzz-long: a set number of inputs per target
  limit=(-runs="$FUZZ_RUNS")
else
  limit=(-max_total_time="$seconds")
fi
work=build/fuzz/run-readers
rm -rf "$work"
mkdir -p "$work/artifacts"
declare -A seeds=(
  [megatron_script]="tests/config/megatron/*.sh"
  [megatron_log]="tests/config/megatron/*.log"
  [nemo_yaml]="tests/config/formats/*.yaml"
  [torchtitan_toml]="tests/config/formats/*.toml"
  [deepspeed_json]="tests/config/formats/*.json"
)
for target in megatron_script megatron_log nemo_yaml torchtitan_toml deepspeed_json; do
  mkdir -p "$work/$target"
  # shellcheck disable=SC2086
  cp ${seeds[$target]} "$work/$target/"
  echo "fuzz: ${target}_fuzzer for ${seconds} s"
  build/fuzz/tests/fuzz/${target}_fuzzer "$work/$target" "${limit[@]}" \
    -timeout=10 -rss_limit_mb=2048 -max_len=65536 -seed="${FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" 2>"$work/$target.log" || {
    tail -40 "$work/$target.log"
    echo "fuzz: ${target}_fuzzer FAILED; reproducer in $work/artifacts/" >&2
    exit 1
  }
  grep -E "^stat::(number_of_executed_units|new_units_added)|DONE" "$work/$target.log"
done
