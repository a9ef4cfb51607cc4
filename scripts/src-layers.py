#!/usr/bin/env python3
"""The layers of the CLI's sources (src/), read from their own #include lines.

Usage:
  scripts/src-layers.py                 print the measures and the diagram
  scripts/src-layers.py --check FILE    exit 1 when an include points up a layer, a source sits at
                                        src/'s root, or FILE's diagram block differs from the code
  scripts/src-layers.py --write FILE    rewrite FILE's diagram block
  --src DIR (first)                     read DIR instead of the checkout's src/ (the tests)

A module is a header and its source file (render_step.hpp + render_step.cpp). Its layer is the
folder it sits in; LAYERS lists them from the top (what the user runs) down (what everything
uses). An include of a module in the same folder or in a folder further down the list is
downward; one into a folder above it is an arrow back up, and the check fails on it. Floors are
the modules on the longest include chain. The diagram in docs/development.md is drawn from the
folder-to-folder includes, so it cannot describe a layering the code does not have.
"""
import os
import re
import sys

LAYERS = [
    ("app", "main, the usage text, the flags that end a run early"),
    ("commands", "one file per command: parse, call the core, hand the result to its renderer"),
    ("render", "one renderer per command; check's CI formats in their own files"),
    ("report", "what a command computed, as its renderer receives it; the error band"),
    ("charts", "text charts and gnuplot scripts"),
    ("options", "the flags and config files, turned into the core's inputs"),
    ("formats", "tpcost's config and the readers of other frameworks' configs"),
    ("output", "files written whole, --format, stderr notes, the sanitiser, exit codes"),
]
BEGIN = "<!-- src-layers: begin (scripts/src-layers.py --write) -->"
END = "<!-- src-layers: end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(src):
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if name.endswith((".hpp", ".cpp", ".cpp.in")):
                yield os.path.relpath(os.path.join(root, name), src)


def module_of(path):
    for suffix in (".cpp.in", ".hpp", ".cpp"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def folder_of(module):
    return module.split("/")[0] if "/" in module else "."


def graph(src):
    files = set(sources(src))
    edges = {}
    for f in sorted(files):
        with open(os.path.join(src, f), encoding="utf-8") as fh:
            text = fh.read()
        a = module_of(f)
        edges.setdefault(a, set())
        for inc in INCLUDE.findall(text):
            # The core's headers (tpcost/...) and generated files are not part of src/'s layers.
            target = inc if inc in files else os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if target not in files:
                continue
            b = module_of(target)
            if b != a:
                edges[a].add(b)
    return files, edges


def floors(edges):
    depth = {}

    def visit(m, seen):
        if m in depth:
            return depth[m]
        if m in seen:  # a cycle: count it once
            return 0
        seen = seen | {m}
        depth[m] = 1 + max((visit(n, seen) for n in edges.get(m, ())), default=0)
        return depth[m]

    return max((visit(m, frozenset()) for m in edges), default=0)


def rank(folder):
    names = [n for n, _ in LAYERS]
    return names.index(folder) if folder in names else -1


def measure(src):
    files, edges = graph(src)
    arrows = [(a, b) for a in edges for b in sorted(edges[a])]
    up = [(a, b) for a, b in arrows
          if folder_of(a) != folder_of(b) and rank(folder_of(b)) < rank(folder_of(a))]
    unknown = sorted({folder_of(m) for m in edges if folder_of(m) != "." and rank(folder_of(m)) < 0})
    root = sorted(f for f in files if "/" not in f)
    return {"files": files, "edges": edges, "arrows": arrows, "up": up, "root": root,
            "unknown": unknown, "floors": floors(edges)}


def diagram(m):
    between = {}
    for a, b in m["arrows"]:
        fa, fb = folder_of(a), folder_of(b)
        if fa != fb:
            between[(fa, fb)] = between.get((fa, fb), 0) + 1
    lines = ["```mermaid", "flowchart TD"]
    for name, what in LAYERS:
        count = sum(1 for f in m["files"] if f.startswith(name + "/"))
        lines.append(f'  {name}["{name}/ ({count} files): {what}"]')
    for (fa, fb), n in sorted(between.items(), key=lambda e: (rank(e[0][0]), rank(e[0][1]))):
        lines.append(f"  {fa} -->|{n}| {fb}")
    lines.append("```")
    lines.append("")
    lines.append(f"{len(m['files'])} files in src/, {len(m['root'])} at its root; "
                 f"{len(m['edges'])} modules, {len(m['arrows'])} includes between them, "
                 f"{len(m['up'])} pointing up a layer; {m['floors']} floors (the modules on the "
                 "longest include chain). Each arrow is labelled with the number of module "
                 "includes it stands for.")
    return "\n".join(lines)


def block(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if BEGIN not in text or END not in text:
        sys.exit(f"src-layers: {path} has no '{BEGIN}' ... '{END}' block")
    head, rest = text.split(BEGIN, 1)
    body, tail = rest.split(END, 1)
    return head, body.strip("\n"), tail


def main(argv):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    if len(argv) > 2 and argv[1] == "--src":
        src, argv = argv[2], argv[:1] + argv[3:]
    m = measure(src)
    if len(argv) == 1:
        print(diagram(m))
        for a, b in m["up"]:
            print(f"up: {a} -> {b}")
        return 0
    if len(argv) != 3 or argv[1] not in ("--check", "--write"):
        sys.exit(__doc__)
    head, body, tail = block(argv[2])
    if argv[1] == "--write":
        with open(argv[2], "w", encoding="utf-8") as fh:
            fh.write(head + BEGIN + "\n" + diagram(m) + "\n" + END + tail)
        return 0
    failed = False
    for a, b in m["up"]:
        print(f"src-layers: {a} includes {b}, a layer above it ({folder_of(b)}/ is above "
              f"{folder_of(a)}/)")
        failed = True
    for f in m["root"]:
        print(f"src-layers: src/{f} sits at src/'s root; put it in its layer's folder")
        failed = True
    for f in m["unknown"]:
        print(f"src-layers: src/{f}/ is not a layer of LAYERS in scripts/src-layers.py")
        failed = True
    if body != diagram(m):
        print(f"src-layers: the diagram in {argv[2]} is stale; run scripts/src-layers.py "
              f"--write {argv[2]}")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
