#!/usr/bin/python3
"""The loader and the JSON Schema agree on what is a valid config.

usage: schema_agreement.py TPCOST SCHEMA CATALOGUE BAD_DIR EXAMPLE...

1. `tpcost schema` prints exactly the committed schema file.
2. Every example config validates against the schema and loads (exit 0).
3. Every malformed config of the catalogue is rejected by the loader (exit 2); those marked
   schema_must_reject are rejected by the schema too, those marked false are valid JSON the
   schema cannot judge (a unit that overflows, ...), and null marks files that are not JSON.
Uses Debian's python3-jsonschema, an implementation independent of tpcost's loader.
"""
import json
import subprocess
import sys

import jsonschema

tpcost, schema_path, catalogue_path, bad_dir, *examples = sys.argv[1:]
failures = []

printed = subprocess.run([tpcost, "schema"], capture_output=True, text=True, check=True).stdout
with open(schema_path, encoding="utf-8") as f:
    committed = f.read()
if printed != committed:
    failures.append(f"{schema_path} differs from `tpcost schema`; regenerate it")
schema = json.loads(committed)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)


def loader_accepts(path):
    run = subprocess.run([tpcost, "sweep", "--config", path, "--print-config"],
                         capture_output=True, text=True)
    if run.returncode not in (0, 2):
        failures.append(f"{path}: loader exited {run.returncode}: {run.stderr.strip()}")
    return run.returncode == 0


for path in examples:
    with open(path, encoding="utf-8") as f:
        errors = list(validator.iter_errors(json.load(f)))
    if errors:
        failures.append(f"{path}: schema rejects an example: {errors[0].message}")
    if not loader_accepts(path):
        failures.append(f"{path}: loader rejects an example")

with open(catalogue_path, encoding="utf-8") as f:
    catalogue = json.load(f)
judged = 0
for case in catalogue:
    path = f"{bad_dir}/{case['file']}"
    if loader_accepts(path):
        failures.append(f"{path}: loader accepts a malformed config")
    expect = case["schema_must_reject"]
    if expect is None:
        continue
    with open(path, encoding="utf-8") as f:
        document = json.load(f)
    schema_rejects = not validator.is_valid(document)
    judged += 1
    if schema_rejects != expect:
        failures.append(f"{path}: schema {'rejects' if schema_rejects else 'accepts'} it, "
                        f"expected the schema to {'reject' if expect else 'accept'} it")

print(f"{len(examples)} examples, {len(catalogue)} malformed configs, {judged} judged by the schema")
for failure in failures:
    print("FAIL:", failure)
sys.exit(1 if failures else 0)
