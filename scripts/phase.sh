#!/usr/bin/env bash
# Runs one phase of `make test` and prints how long it took, so that a CI log shows where its
# 30-minute budget goes. Usage: scripts/phase.sh NAME COMMAND [ARG...]
set -euo pipefail
name=$1
shift
start=$(date +%s)
status=0
"$@" || status=$?
echo "make test: phase '$name' took $(($(date +%s) - start)) s (exit $status)"
exit "$status"
