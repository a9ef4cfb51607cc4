#!/bin/sh
# What check writes for CI runners stays parseable whatever the file names and messages hold,
# and carries the assumed network (JUnit <properties>, SARIF notifications, a ::warning).
# Usage: ci_reports.sh TPCOST CONFIG_DIR XMLLINT PYTHON3
set -u
bin=$1 configs=$2 xmllint=$3 python=$4
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# A file name with a byte that is not UTF-8, a control byte and a newline.
name=$(printf 'x\377\001\ny&<.json')
cp "$configs/gpt3-175b-tp16-mistake.json" "$dir/$name"
cd "$dir" || exit 1

"$bin" check "$name" --format junit > junit.xml
test $? -eq 1 || fail "junit: exit code not 1"
"$xmllint" --noout junit.xml || fail "junit: not well-formed XML"
# The stray byte and the control bytes as \xNN (the output sanitiser), the markup as entities.
shown='testsuite name="x\xff\x01\x0ay&amp;&lt;.json"'
grep -qF "$shown" junit.xml || fail "junit: the name is not shown escaped"

"$bin" check "$name" --format sarif > report.sarif
test $? -eq 1 || fail "sarif: exit code not 1"
"$python" - report.sarif <<'PY' || fail "sarif: uri or message"
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
first = run["results"][0]
uri = first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
assert uri == "x%FF%01%0Ay%26%3C.json", uri
assert first["message"]["text"] == "E = 62.6%, below the 80.0% floor", first["message"]
assert run["invocations"][0]["toolExecutionNotifications"] == []
PY

# JSON: a name that is not UTF-8 is written with U+FFFD (it was exit 4, nlohmann's
# type_error.316), and the document parses.
"$bin" check "$name" --format json > report.json
test $? -eq 1 || fail "json: exit code not 1"
"$python" - report.json <<'PY' || fail "json: not parseable or the name not replaced"
import json, sys
text = open(sys.argv[1], encoding="utf-8").read()
assert "x\ufffd" in json.dumps(json.loads(text), ensure_ascii=False), text[:200]
PY

# No --interconnect: every CI format says what was assumed.
printf '%s' '{"model":{"name":"llama-3-70b"},"hardware":{"gpu":"h100-sxm"},
  "parallel":{"gpus":64,"tp":8},"batch":{"global_batch":64},"checks":{"min_mfu":0.9}}' > assumed.json
"$bin" check assumed.json --format junit > assumed.xml
"$xmllint" --noout assumed.xml || fail "junit (assumed): not well-formed"
grep -q '<property name="assumed" value="assumed: --interconnect IB-NDR between nodes' assumed.xml ||
  fail "junit: no assumed property"
"$bin" check assumed.json --format sarif > assumed.sarif
"$python" - assumed.sarif <<'PY' || fail "sarif: no assumption notification"
import json, sys
notes = json.load(open(sys.argv[1]))["runs"][0]["invocations"][0]["toolExecutionNotifications"]
assert len(notes) == 1 and notes[0]["level"] == "warning", notes
assert notes[0]["message"]["text"].startswith("assumed: --interconnect IB-NDR"), notes
PY
GITHUB_ACTIONS=true "$bin" check assumed.json > annotations.txt
head -n 1 annotations.txt | grep -q '^::warning file=assumed.json,title=tpcost check::assumed: --interconnect IB-NDR' ||
  fail "annotations: the first line is not the assumption's ::warning"
echo ok
