#!/usr/bin/env python3
"""Regenerate, or check, every tpcost output block in README.md and docs/*.md.

An output block is a fenced block whose info string is `console` (or a fence without one whose
first line starts with `$ tpcost`). Its lines that start with `$ ` are commands, continued on
the next line after a trailing backslash; everything up to the next command is what that command
printed (stdout and stderr together). Every command must start with `tpcost`; it may end in a
pipe (`| head -30`, `| grep memory`). Blocks with any other info string (`sh`, `json`, `cpp`,
`text`, ...) are never run: shell snippets to copy, config examples and output of other programs
go there.

  scripts/regen-docs.py                 rewrite every stale block in place (make docs)
  scripts/regen-docs.py --check         exit 1 naming file:line and command of each stale block
  scripts/regen-docs.py --lint          only the Markdown checks (fences, console blocks, links)

The commands run in a scratch directory whose entries link to the repository's top level, so
`tests/...` and `examples/...` paths work and files a command writes (`--out h100.json`) stay
out of the tree; the blocks of one page share it, in page order. The environment is fixed
(LC_ALL=C.UTF-8, TZ=UTC, no TPCOST_* or colour variables, stdin from /dev/null), so that two runs
print the same bytes. Figures that depend on the machine's speed are normalised before blocks
are compared (NORMALISE below); a block whose normalised text did not change is left as it is,
so a second run changes nothing.

A generated section is Markdown that tpcost prints, between `<!-- generated: tpcost ... -->`
and `<!-- generated: end -->` lines (docs/config.md's table of config keys, from the flag
registry): its lines are replaced by the command's output as they stand, outside any fence.
"""
from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

# Figures that change from run to run, and what they are compared as. Add a pattern here when a
# command prints a timing; never exclude a whole block.
NORMALISE = [
    # tpcost plan: "...; 0.5 ms on 1 thread" (the search's wall time and thread count)
    (re.compile(r"\d+(?:\.\d+)? (?:ns|us|µs|ms|s) on \d+ threads?"), "<time> on <n> threads"),
    # tpcost plan --format json: "seconds": 0.000512 (the same wall time)
    (re.compile(r'"seconds": [0-9.eE+-]+'), '"seconds": <time>'),
]

COMMAND_TIMEOUT_S = 120
GENERATED = re.compile(r"^<!-- generated: (tpcost .*) -->$")
GENERATED_END = "<!-- generated: end -->"
# `$ tpcost ...`, perhaps after environment assignments (`$ LANG=C tpcost ...`).
COMMAND = re.compile(r"^\$ (?:[A-Za-z_][A-Za-z0-9_]*=\S* )*tpcost(?:\s|$)")
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


@dataclass
class Command:
    line: int  # 1-based line of the `$ ` line in the page
    text: list[str]  # the command as written, `$ ` and continuation lines included
    output: list[str] = field(default_factory=list)

    def shell(self) -> str:
        first = self.text[0][2:]
        rest = [t for t in self.text[1:]]
        return "\n".join([first] + rest)


@dataclass
class Block:
    path: Path
    open_line: int  # 1-based line of the opening fence
    info: str
    body: list[str]  # lines between the fences
    start: int  # index of the first body line in the page's line list
    end: int  # index one past the last body line


@dataclass
class Problem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def parse_fences(path: Path, lines: list[str]) -> tuple[list[Block], list[Problem]]:
    """CommonMark fences: a closing fence uses the opening's character, is at least as long and
    has no info string. Fences inside list items (indented 4 or more) are not looked at."""
    blocks, problems = [], []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        marker, info = m.group(2), m.group(3).strip()
        if marker[0] == "`" and "`" in info:
            i += 1  # an inline code span, not a fence
            continue
        j = i + 1
        while j < len(lines):
            c = FENCE.match(lines[j])
            if c and c.group(2)[0] == marker[0] and len(c.group(2)) >= len(marker):
                if not c.group(3).strip():
                    break
                # An opening fence as long as this one, inside it: CommonMark reads it as code,
                # but its author meant a new block, so the one above was never closed. (Nest a
                # block on purpose by opening the outer one with a longer fence.)
                problems.append(Problem(path, j + 1, f"{c.group(2)}{c.group(3).strip()} opens a "
                                        f"block inside the one opened at line {i + 1}: that "
                                        "block is not closed before it"))
            j += 1
        if j == len(lines):
            problems.append(Problem(path, i + 1, f"code fence {marker}{info} is never closed "
                                    "(everything after it renders as code)"))
            break
        if any(p.line > i + 1 for p in problems if "opens a block inside" in p.message):
            break
        blocks.append(Block(path, i + 1, info.split()[0] if info else "", lines[i + 1:j], i + 1, j))
        i = j + 1
    return blocks, problems


def is_output_block(b: Block) -> bool:
    return b.info == "console" or (b.info == "" and bool(b.body) and bool(COMMAND.match(b.body[0])))


def parse_commands(b: Block) -> tuple[list[Command], list[Problem]]:
    cmds: list[Command] = []
    problems: list[Problem] = []
    k = 0
    while k < len(b.body):
        line = b.body[k]
        if line.startswith("$ "):
            cmd = Command(b.open_line + 1 + k, [line])
            while cmd.text[-1].endswith("\\") and k + 1 < len(b.body):
                k += 1
                cmd.text.append(b.body[k])
            if not COMMAND.match(line):
                problems.append(Problem(b.path, cmd.line, "a console block runs only tpcost "
                                        f"commands, not '{line[2:].split()[0]}'; mark shell "
                                        "snippets ```sh and other programs' output ```text"))
            cmds.append(cmd)
        elif not cmds:
            problems.append(Problem(b.path, b.open_line + 1 + k, "a console block must start "
                                    "with '$ tpcost ...'; mark shell snippets ```sh and other "
                                    "text ```text"))
            break
        else:
            cmds[-1].output.append(line)
        k += 1
    return cmds, problems


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
    hyphens, a repeated one suffixed -1, -2, ..."""
    lines = page.read_text(encoding="utf-8").split("\n")
    blocks, _ = parse_fences(page, lines)
    in_code = set()
    for b in blocks:
        in_code.update(range(b.start - 1, b.end + 1))
    anchors: set[str] = set()
    for n, line in enumerate(lines):
        m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
        if n in in_code or not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        candidate, k = slug, 0
        while candidate in anchors:
            k += 1
            candidate = f"{slug}-{k}"
        anchors.add(candidate)
    return anchors


def check_links(shown: Path, page: Path, lines: list[str], blocks: list[Block],
                root: Path) -> list[Problem]:
    """Relative links must name a file or folder of the repository."""
    in_code = set()
    for b in blocks:
        in_code.update(range(b.start - 1, b.end + 1))
    problems = []
    for n, line in enumerate(lines):
        if n in in_code:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, anchor = target.partition("#")
            resolved = (page.parent / file_part).resolve() if file_part else page.resolve()
            if not resolved.exists() or root.resolve() not in [resolved, *resolved.parents]:
                problems.append(Problem(shown, n + 1, f"link to {target}: no such file"))
            elif anchor and resolved.suffix == ".md" and anchor not in heading_anchors(resolved):
                problems.append(Problem(shown, n + 1, f"link to {target}: {file_part or 'this page'}"
                                        f" has no heading #{anchor}"))
    return problems


def normalise(text: str) -> str:
    for pattern, replacement in NORMALISE:
        text = pattern.sub(replacement, text)
    return text


def scratch_dir(root: Path) -> Path:
    d = Path(tempfile.mkdtemp(prefix="tpcost-docs-"))
    for entry in root.iterdir():
        if entry.name not in (".git", "build"):
            (d / entry.name).symlink_to(entry)
    return d


def environment(bin_dir: Path, home: Path) -> dict[str, str]:
    keep = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC",
            "TERM": "dumb", "COLUMNS": "100"}
    return keep


def run(cmd: Command, cwd: Path, env: dict[str, str]) -> list[str]:
    try:
        p = subprocess.run(["bash", "-c", cmd.shell()], cwd=cwd, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT_S)
        out = p.stdout.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired:
        out = f"(regen-docs: no answer after {COMMAND_TIMEOUT_S} s)\n"
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def regenerate_sections(lines: list[str], shown: Path, cwd: Path, env: dict[str, str],
                        problems: list[Problem], check: bool) -> int:
    """Replaces (or, with `check`, compares) each generated section of `lines` in place."""
    stale = 0
    n = 0
    while n < len(lines):
        m = GENERATED.match(lines[n])
        if not m:
            n += 1
            continue
        try:
            end = lines.index(GENERATED_END, n + 1)
        except ValueError:
            problems.append(Problem(shown, n + 1, f"no '{GENERATED_END}' after this line"))
            return stale
        fresh = run(Command(n + 1, ["$ " + m.group(1)]), cwd, env)
        if fresh != lines[n + 1:end]:
            stale += 1
            if check:
                problems.append(Problem(shown, n + 1, f"stale section of `{m.group(1)}`"))
            else:
                lines[n + 1:end] = fresh
        n += 1
    return stale


def find_tpcost(root: Path, given: str | None) -> Path:
    if given:
        return Path(given).resolve()
    for sub in ("build/demo", "build/ci", "build/dev"):
        p = root / sub / "src" / "tpcost"
        if p.is_file() and os.access(p, os.X_OK):
            return p.resolve()
    sys.exit("regen-docs: no tpcost binary in build/demo, build/ci or build/dev; "
             "build one (make demo) or pass --tpcost PATH")


def pages(root: Path, given: list[str]) -> list[Path]:
    if given:
        return [Path(g).resolve() for g in given]
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*", help="Markdown files (default: README.md docs/*.md)")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="the repository (default: this script's)")
    ap.add_argument("--tpcost", help="the binary (default: build/{demo,ci,dev}/src/tpcost)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="write nothing; fail on a stale block")
    mode.add_argument("--lint", action="store_true", help="only the Markdown checks")
    args = ap.parse_args()

    root = Path(args.root).resolve()
    problems: list[Problem] = []
    stale = 0
    work = Path(tempfile.mkdtemp(prefix="tpcost-docs-bin-"))
    try:
        env = None
        if not args.lint:
            (work / "bin").mkdir()
            (work / "bin" / "tpcost").symlink_to(find_tpcost(root, args.tpcost))
            (work / "home").mkdir()
            env = environment(work / "bin", work / "home")
        for page in pages(root, args.pages):
            shown = page.relative_to(root) if page.resolve().is_relative_to(root) else page
            text = page.read_text(encoding="utf-8")
            lines = text.split("\n")
            blocks, fence_problems = parse_fences(Path(shown), lines)
            problems += fence_problems
            if not fence_problems:
                problems += check_links(Path(shown), page, lines, blocks, root)
            parsed = []
            for b in blocks:
                if is_output_block(b):
                    cmds, ps = parse_commands(b)
                    problems += ps
                    if not ps:  # a block that runs anything but tpcost is reported, never run
                        parsed.append((b, cmds))
            if args.lint or fence_problems:
                continue
            cwd = scratch_dir(root)
            try:
                replacements = []
                for b, cmds in parsed:
                    new_body = []
                    for c in cmds:
                        fresh = run(c, cwd, env)
                        if normalise("\n".join(fresh)) != normalise("\n".join(c.output)):
                            stale += 1
                            if args.check:
                                diff = difflib.unified_diff(c.output, fresh, "committed",
                                                            "tpcost prints", lineterm="", n=1)
                                shown_diff = "\n".join(list(diff)[:40])
                                problems.append(Problem(Path(shown), c.line,
                                                        f"stale output of `{c.shell()}`:\n"
                                                        f"{shown_diff}"))
                            new_body += c.text + fresh
                        else:
                            new_body += c.text + c.output
                    replacements.append((b, new_body))
                if not args.check:
                    for b, body in reversed(replacements):
                        lines[b.start:b.end] = body
                stale += regenerate_sections(lines, Path(shown), cwd, env, problems, args.check)
                if not args.check:
                    new_text = "\n".join(lines)
                    if new_text != text:
                        page.write_text(new_text, encoding="utf-8")
                        print(f"regen-docs: updated {shown}")
            finally:
                shutil.rmtree(cwd, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        what = "stale block(s); run 'make docs' and commit" if stale and args.check else \
            "problem(s)"
        print(f"regen-docs: {len(problems)} {what}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
