#!/usr/bin/env bash
# Checks the completion scripts against the program's own --help: every subcommand and every
# flag of every subcommand must appear in each script, and bash, zsh and fish (those installed)
# must offer them when completing. The lists come from --help, not from a hand-written list.
# Usage: check_completions.sh TPCOST_BINARY
set -euo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# shellcheck source=help.sh
source "$here/help.sh"
mapfile -t subcommands < <(subcommands_of_help)
[ ${#subcommands[@]} -gt 0 ] || { echo "FAIL: no subcommands found in --help" >&2; exit 1; }
mapfile -t root_flags < <(flags_of)
echo "subcommands: ${subcommands[*]}"

"$bin" completion bash > "$work/tpcost.bash"
"$bin" completion zsh > "$work/_tpcost"
"$bin" completion fish > "$work/tpcost.fish"

# 1. Every name appears as a whole word in every script.
appears() {  # file word
  grep -qE -- "(^|[^-[:alnum:]])$(printf '%s' "$2" | sed 's/[.[\*^$]/\\&/g')([^-[:alnum:]]|$)" "$1"
}
has_flag() {  # script condition flag; fish names flags without dashes (-s b -l batch), after
  # the condition that says where they apply
  local script=$1 condition=$2 flag=$3
  if [ "$script" = tpcost.fish ]; then
    case $flag in
      --*) grep -qE -- "$condition'.* -l ${flag#--}( |$)" "$work/$script" ;;
      *) grep -qE -- "$condition'.* -s ${flag#-}( |$)" "$work/$script" ;;
    esac
  else
    appears "$work/$script" "$flag"
  fi
}
for script in tpcost.bash _tpcost tpcost.fish; do
  for sub in "${subcommands[@]}"; do
    appears "$work/$script" "$sub" || fail "$script lacks the subcommand '$sub'"
  done
  for flag in "${root_flags[@]}"; do
    has_flag "$script" "__fish_use_subcommand" "$flag" || fail "$script lacks '$flag'"
  done
  for sub in "${subcommands[@]}"; do
    while read -r flag; do
      has_flag "$script" "__fish_seen_subcommand_from $sub" "$flag" ||
        fail "$script lacks '$flag' of $sub"
    done < <(flags_of "$sub")
  done
done

# 2. The shells offer them. $1: shell name; the function completes "tpcost WORDS...".
expect_offers() {  # label, expected words (one per line) in $expected, offered in $offered
  local missing
  missing=$(comm -23 <(sort -u <<<"$expected") <(sort -u <<<"$offered"))
  [ -z "$missing" ] || fail "$1 does not offer: $(tr '\n' ' ' <<<"$missing")"
}
bash_offers() {
  bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _tpcost; printf "%s\n" "${COMPREPLY[@]}"' _ "$work/tpcost.bash" tpcost "$@"
}
fish_offers() { fish --no-config -c "source $work/tpcost.fish; complete -C'tpcost $*'" | cut -f1; }
zsh_offers() { zsh -f "$here/zsh_complete.zsh" "$work" "tpcost $*"; }

for sh in bash zsh fish; do
  if ! command -v "$sh" >/dev/null 2>&1; then
    echo "SKIP: $sh is not installed; its script was only checked as text"
    continue
  fi
  before=$failures
  expected=$(printf '%s\n' "${subcommands[@]}")
  offered=$("${sh}_offers" "")
  expect_offers "$sh: tpcost <TAB>"
  for sub in "${subcommands[@]}"; do
    expected=$(flags_of "$sub")
    offered=$("${sh}_offers" "$sub" -)
    expect_offers "$sh: tpcost $sub -<TAB>"
  done
  [ "$failures" -eq "$before" ] && echo "$sh: offers every subcommand and flag"
done
case "$("$bin" completion zsh | zsh -n 2>&1 && echo ok)" in ok) ;; *) fail "zsh -n rejects the zsh script" ;; esac
if command -v fish >/dev/null 2>&1; then
  fish --no-execute "$work/tpcost.fish" || fail "fish --no-execute rejects the fish script"
fi
bash -n "$work/tpcost.bash" || fail "bash -n rejects the bash script"

if [ "$failures" -gt 0 ]; then
  echo "$failures completion check(s) failed" >&2
  exit 1
fi
echo "completion scripts: every subcommand and flag of --help is in bash, zsh and fish"
