#!/usr/bin/env bash
# Runs one phase of a make target (`make test`, `make test-asan`, `make tidy`) and prints how
# long it took, so that a CI log shows where its time goes. Usage: scripts/phase.sh NAME COMMAND
# [ARG...]; PHASE_TARGET names the target in the line (default: make test).
set -euo pipefail
name=$1
shift
start=$(date +%s)
status=0
"$@" || status=$?
echo "${PHASE_TARGET:-make test}: phase '$name' took $(($(date +%s) - start)) s (exit $status)"
exit "$status"
