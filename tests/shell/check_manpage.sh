#!/usr/bin/env bash
# Checks the man page that `tpcost manpage` generates: groff renders it without a warning, and
# it documents every subcommand and flag that --help lists, and every exit code.
# Usage: check_manpage.sh TPCOST_BINARY
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=help.sh
source "$here/help.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

"$bin" manpage > "$work/tpcost.1"
if command -v groff >/dev/null 2>&1; then
  groff -man -Tutf8 -ww -z "$work/tpcost.1" 2> "$work/warnings" || fail "groff failed"
  [ ! -s "$work/warnings" ] || fail "groff warns: $(head -5 "$work/warnings")"
  # The rendered page, for the checks below: flags read as typed (groff prints \- as '-').
  groff -man -Tascii -P-cbou "$work/tpcost.1" > "$work/tpcost.txt" 2>/dev/null
else
  echo "SKIP: groff is not installed; the page was only checked as roff source"
  sed 's/\\-/-/g; s/\\f[BIRP]//g' "$work/tpcost.1" > "$work/tpcost.txt"
fi

mapfile -t subcommands < <(subcommands_of_help)
[ ${#subcommands[@]} -gt 0 ] || fail "no subcommands found in --help"
for sub in "${subcommands[@]}"; do
  grep -qE "^\.SS \"tpcost $sub" "$work/tpcost.1" || fail "no section for 'tpcost $sub'"
  while read -r flag; do
    grep -qE -- "(^|[ ,])$flag([ ,]|$)" "$work/tpcost.txt" || fail "'$flag' of $sub is missing"
  done < <(flags_of "$sub")
done
while read -r flag; do
  grep -qE -- "(^|[ ,])$flag([ ,]|$)" "$work/tpcost.txt" || fail "'$flag' of tpcost is missing"
done < <(flags_of)

# Exit codes: every code of --help's "Exit codes:" line has an entry under EXIT STATUS.
codes=$("$bin" --help | sed -n '/^Exit codes:/,$p' | grep -oE '(^|[:,] )[0-9]+ ' | grep -oE '[0-9]+')
[ -n "$codes" ] || fail "no exit codes in --help"
status=$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$work/tpcost.1")
for code in $codes; do
  grep -qx "\.B $code" <<<"$status" || fail "exit code $code is not under EXIT STATUS"
done

if [ "$failures" -gt 0 ]; then
  echo "$failures man page check(s) failed" >&2
  exit 1
fi
echo "man page: renders cleanly; documents ${#subcommands[@]} subcommands, every flag and exit codes $(tr '\n' ' ' <<<"$codes")"
