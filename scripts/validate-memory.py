#!/usr/bin/env python3
"""Peak memory, predicted against measured, on the development rows (docs/memory.md).

Each row of tests/reference/dev_memory_rows.json is a training run with the arguments it ran
with and the peak memory it logged:

- Megatron-LM functional tests: torch.cuda.memory_stats()["allocated_bytes.all.peak"], logged
  by the last global rank (the last pipeline stage). The row's arguments are written out as a
  launch script and read by `tpcost step --from`, as a user would point tpcost at the script;
  the prediction compared is the last stage's `allocated_bytes`.
- torchtitan's NVFP4 doc table and its end-2024 H100 benchmark tables: the peak *reserved*
  memory; the prediction compared is the fullest stage's `reserved_bytes`.

A row tpcost cannot read or cost is listed with tpcost's own one-line reason; one whose GPU
count the repository does not state (the release tests) is listed as not judged. Nothing here
is fitted: the rows judge the model, they do not tune it.

  validate-memory.py --tpcost BIN                 the table (markdown) and the summary
  validate-memory.py --tpcost BIN --check FILE    exit 1 when FILE's table differs from the rows'
  validate-memory.py --tpcost BIN --write FILE    rewrite the table between the markers in FILE
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = os.path.join(ROOT, "tests", "reference", "dev_memory_rows.json")
BEGIN = "<!-- memory-validation:begin (scripts/validate-memory.py --write) -->"
END = "<!-- memory-validation:end -->"
GIB = float(1 << 30)

# The tokenizers whose vocabulary the launch script does not state and tpcost's reader does not
# know: given as --vocab (before Megatron's padding, which the reader applies).
TOKENIZER_VOCAB = {
    # Nemotron's 256k SentencePiece model (nemotron_2_256k.model): 256,000 pieces
    # (NVIDIA Nemotron-4 15B technical report, arXiv:2402.16819, Sec. 2).
    "nemotron_2_256k.model": 256000,
}


def script_of(args):
    lines = ["#!/bin/bash", "torchrun pretrain_gpt.py \\"]
    items = list(args.items())
    for i, (k, v) in enumerate(items):
        tail = " \\" if i + 1 < len(items) else ""
        if v is True:
            lines.append(f"  {k}{tail}")
        else:
            value = str(v)
            if any(c in value for c in " $*|()"):
                value = "'" + value.replace("'", "'\\''") + "'"
            lines.append(f"  {k} {value}{tail}")
    return "\n".join(lines) + "\n"


def run_tpcost(binary, argv):
    p = subprocess.run([binary, "step", *argv, "--format", "json"], capture_output=True,
                       text=True, timeout=60)
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if ln.startswith("tpcost: error")]
        reason = lines[0] if lines else (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return None, reason.replace("tpcost: error: ", "")
    return json.loads(p.stdout), None


def megatron_row(binary, row, tmp):
    if row["gpus"] is None:
        return None, "not judged: the GPU count (hence d, which shards the distributed optimizer) is not in the repository"
    path = os.path.join(tmp, "run.sh")
    with open(path, "w") as f:
        f.write(script_of(row["args"]))
    argv = ["--from", path, "--gpus", str(row["gpus"]), "--gpu", row["gpu"]]
    model = str(row["args"].get("--tokenizer-model", ""))
    for name, vocab in TOKENIZER_VOCAB.items():
        if model.endswith(name):
            argv += ["--vocab", str(vocab)]
    report, reason = run_tpcost(binary, argv)
    if report is None:
        return None, reason.replace(tmp + os.sep, "")  # the same text wherever it runs
    stage = report["memory"]["stages"][-1]
    return stage["allocated_bytes"], None


def torchtitan_row(binary, row):
    m, lay = row["model"], row["layout"]
    argv = ["--stack", "fsdp2", "--gpu", row["gpu"], "--gpus", str(row["gpus"]),
            "--arch", "llama", "--layers", str(m["layers"]), "--hidden", str(m["hidden"]),
            "--ffn", str(m["ffn"]), "--heads", str(m["heads"]), "--kv-heads", str(m["kv_heads"]),
            "--vocab", str(m["vocab"]), "--seq", str(row["seq_len"]),
            "--micro-batch", str(row["micro_batch"]),
            "--global-batch", str(row["global_batch"]), "--zero", "3", "--recompute", "selective"]
    if "head_dim" in m:
        argv += ["--head-dim", str(m["head_dim"])]
    fp8 = str(row.get("fp8") or "")
    if fp8 == "fp8-current":  # torchao's float8 tensorwise: dynamic (current) scaling
        argv += ["--precision", "fp8-current"]
    elif fp8.startswith("nvfp4"):
        argv += ["--precision", "nvfp4"]
    elif fp8.startswith("mxfp8"):
        argv += ["--precision", "mxfp8"]
    report, reason = run_tpcost(binary, argv)
    if report is None:
        return None, reason
    peak = report["memory"]["peak_stage"]
    return report["memory"]["stages"][peak]["reserved_bytes"], None


def judge(binary):
    with open(ROWS) as f:
        rows = json.load(f)["rows"]
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if "args" in row:
                predicted, reason = megatron_row(binary, row, tmp)
            else:
                predicted, reason = torchtitan_row(binary, row)
            measured = row["measured"]["GiB"] * GIB
            out.append({"row": row, "predicted": predicted, "measured": measured,
                        "reason": reason})
    return out


def table(results):
    judged = [r for r in results if r["predicted"] is not None]
    lines = []
    errs = {"allocated": [], "reserved": []}
    for r in judged:
        e = r["predicted"] / r["measured"] - 1.0
        r["error"] = e
        errs[r["row"]["measured"]["metric"]].append(e)
    lines.append("| run | GPU | measured | predicted | error |")
    lines.append("|---|---|---:|---:|---:|")
    for r in results:
        row = r["row"]
        name = row["id"].removeprefix("mlm-").removeprefix("tt-")
        metric = row["measured"]["metric"]
        if r["predicted"] is None:
            lines.append(f"| {name} | {row['gpu']} | {r['measured'] / GIB:.2f} GiB {metric} | - | {r['reason']} |")
        else:
            lines.append(f"| {name} | {row['gpu']} | {r['measured'] / GIB:.2f} GiB {metric} | "
                         f"{r['predicted'] / GIB:.2f} GiB | {100 * r['error']:+.1f}% |")
    lines.append("")
    for metric, e in errs.items():
        if e:
            a = [abs(x) for x in e]
            worst = max(e, key=abs)
            lines.append(f"- {metric}: {len(e)} runs judged, mean |error| {100 * statistics.mean(a):.1f}%, "
                         f"median {100 * statistics.median(a):.1f}%, bias {100 * statistics.mean(e):+.1f}%, "
                         f"worst {100 * worst:+.1f}%; within 10%: {sum(x <= 0.10 for x in a)}, "
                         f"within 25%: {sum(x <= 0.25 for x in a)}")
    unread = [r for r in results if r["predicted"] is None]
    lines.append(f"- not judged: {len(unread)} of {len(results)} runs (the reason is in the table)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tpcost", required=True)
    ap.add_argument("--check")
    ap.add_argument("--write")
    a = ap.parse_args()
    text = table(judge(a.tpcost))
    target = a.check or a.write
    if not target:
        sys.stdout.write(text)
        return 0
    with open(target) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        print(f"validate-memory.py: {target} has no {BEGIN} ... {END} markers", file=sys.stderr)
        return 2
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = head + BEGIN + "\n" + text + END + tail
    if a.check:
        if new != doc:
            print(f"validate-memory.py: {target}: the memory table is stale; run "
                  f"scripts/validate-memory.py --tpcost BIN --write {target}", file=sys.stderr)
            return 1
        return 0
    with open(target, "w") as f:
        f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
