#!/usr/bin/env python3
"""docs/DESIGN.md against the tree (ctest test_design_doc).

Both ways:
- every folder of lib/ and cli/, every public header include/gostx/*.h and
  every source file of lib/ and cli/ (.c .h .cu .def) is named in DESIGN.md,
  a file by its name (its folder's section says where it lives);
- every path DESIGN.md names under lib/, cli/ or include/ exists, and every
  file name in a folder's entry of the layout (section 2) is in that folder
  or, for the tests, tools and headers an entry points to, elsewhere in the
  tree.

usage: design_doc.py [--root DIR] [--doc FILE] [--quiet]
Exit 1 with one line per drift; 0 when the document and the tree agree.
"""
import argparse
import re
import sys
from pathlib import Path

SOURCE_SUFFIXES = {".c", ".h", ".cu", ".def"}
# A path in the text: lib/..., cli/... or include/..., a folder (trailing /)
# or a file; words like "lib/'s" stop at the quote.
PATH_RE = re.compile(r"\b((?:lib|cli|include)/[A-Za-z0-9_./-]*[A-Za-z0-9_/])")


def named_paths(text):
    for m in PATH_RE.finditer(text):
        p = m.group(1).rstrip(".")
        if "*" in p:
            continue
        yield p


# An entry of the layout: a line starting with a folder of lib/ or cli/,
# then its indented continuation lines.
ENTRY_RE = re.compile(r"^((?:lib|cli)/(?:[a-z0-9_]+/)?)[ ,]", re.M)
FILE_RE = re.compile(r"(?<![/.\w])([a-z0-9_]+\.(?:c|h|cu|def))\b")


def layout_entries(text):
    """(folder, entry text) for each folder entry of section 2's block."""
    start = text.find("## 2. Layout")
    block = text[start:text.find("```", text.find("```", start) + 3)]
    heads = list(ENTRY_RE.finditer(block))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(block)
        body = block[m.start():end]
        # The entry ends at the next line that starts at column 0.
        lines = body.split("\n")
        kept = [lines[0]] + [l for l in lines[1:] if l.startswith(" ")]
        yield m.group(1), "\n".join(kept)


def drifts(root, doc_path):
    text = doc_path.read_text(encoding="utf-8")
    words = set(re.findall(r"[A-Za-z0-9_.+-]+", text))
    out = []
    # The tree -> the document.
    for top in ("lib", "cli"):
        for d in sorted(p for p in (root / top).iterdir() if p.is_dir()):
            rel = f"{top}/{d.name}/"
            if rel not in text:
                out.append(f"folder {rel} is not in {doc_path.name}")
        for f in sorted((root / top).rglob("*")):
            if f.is_file() and f.suffix in SOURCE_SUFFIXES and f.name not in words:
                out.append(f"{f.relative_to(root)} is not named in {doc_path.name}")
    for h in sorted((root / "include" / "gostx").glob("*.h")):
        stem = h.stem
        # The layout lists the area headers by stem ("one header per area
        # (common, cipher, ...)"); either form counts.
        if f"include/gostx/{h.name}" not in text and not re.search(rf"\b{re.escape(stem)}\b", text):
            out.append(f"include/gostx/{h.name} is not named in {doc_path.name}")
    # The document -> the tree.
    for p in sorted(set(named_paths(text))):
        if not (root / p).exists():
            out.append(f"{doc_path.name} names {p}, which does not exist")
    anywhere = set()
    for top in ("lib", "cli", "include", "tests", "bench", "integrations", "python", "scripts"):
        if (root / top).is_dir():
            # not python/_csrc/: the sdist's copy of lib/ (pyproject.toml),
            # left by a Python build, would name every removed lib/ file
            anywhere |= {f.name for f in (root / top).rglob("*")
                         if f.is_file() and "_csrc" not in f.parts}
    for folder, entry in layout_entries(text):
        for name in sorted(set(FILE_RE.findall(entry))):
            if name not in anywhere:
                out.append(f"{doc_path.name}'s entry {folder} names {name}, which is nowhere in the tree")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--doc", default=None)
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    root = Path(a.root)
    doc = Path(a.doc) if a.doc else root / "docs" / "DESIGN.md"
    found = drifts(root, doc)
    for line in found:
        print(line)
    if not a.quiet:
        print(f"design_doc: {len(found)} drift(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
