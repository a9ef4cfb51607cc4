#!/bin/sh
# Issue 29/23: every flag of `tpcost step` is a what-if of `tpcost check` too (check.cpp derives
# them from add_step_flags). The exceptions are step's job-input and report flags, which check
# replaces with its file arguments and its rules.
# Usage: check_takes_step_flags.sh TPCOST
set -u
bin=$1
flags() { "$bin" "$1" --help | grep -oE '^ {2,4}(-[A-Za-z0-9],)?--[a-z0-9-]+' | sed 's/.*--/--/' | sort -u; }
step=$(flags step) || exit 1
check=$(flags check) || exit 1
missing=$(printf '%s\n' "$step" | grep -vxE -- '--(config|from|print-config|help|require-fit|no-header|quiet)' |
  while read -r f; do printf '%s\n' "$check" | grep -qxF -- "$f" || printf '%s ' "$f"; done)
test "$(printf '%s\n' "$step" | wc -l)" -gt 80 || { echo "FAIL: too few step flags read" >&2; exit 1; }
test -z "$missing" || { echo "FAIL: check lacks step's $missing" >&2; exit 1; }
