#!/bin/sh
# Issue 30: file names that reach check's reports pass the one output sanitiser. An invalid
# config named with a newline and "::error" starts no workflow command in the text report's
# INVALID line; a name with U+FFFE and ESC keeps JUnit well-formed and reaches no annotation raw.
# Usage: hostile_names.sh TPCOST CONFIG_DIR XMLLINT
set -u
bin=$1 configs=$2 xmllint=$3
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$dir" || exit 1

bad=$(printf 'x\n::error file=evil::injected.json')
printf '{"model": ' > "$bad"
cp "$configs/gpt3-175b-tp16-mistake.json" good.json  # with another file, a report is printed
"$bin" check "$bad" good.json > text.out 2> text.err
test $? -eq 2 || fail "INVALID: exit code not 2"
grep -q '^::' text.out text.err && fail "INVALID: a line starts a workflow command"
grep -qF 'x\x0a::error file=evil::injected.json: INVALID' text.out || fail "INVALID line not escaped"
test "$(wc -l < text.err)" -eq 1 || fail "INVALID: stderr is not one line"

odd=$(printf 'u\357\277\276\033[31m.json')
cp "$configs/gpt3-175b-tp16-mistake.json" "$odd"
"$bin" check "$odd" --format junit > junit.xml
test $? -eq 1 || fail "junit: exit code not 1"
"$xmllint" --noout junit.xml || fail "junit: U+FFFE made the XML invalid"
grep -qF 'testsuite name="u\uFFFE\x1b[31m.json"' junit.xml || fail "junit: name not sanitised"
GITHUB_ACTIONS=true "$bin" check "$odd" > gha.out 2> gha.err
test $? -eq 1 || fail "annotations: exit code not 1"
grep -q "$(printf '\033')" gha.out gha.err && fail "annotations: a raw ESC"
grep -qF '::error file=u\uFFFE\x1b[31m.json,title=tpcost' gha.err gha.out || fail "annotation not sanitised"
echo ok
