#!/usr/bin/env python3
"""Every codec and shared CLI service in its one home: base64 and DER
lengths are lib/asn1's (include/gostx/base64.h and gostx/der.h, lib/asn1/der.h's
writer and gostx__der_header); what two commands share is cli/common's.
Lists, in the C of lib/, cli/ and integrations/ (and python/gostx's code)
outside lib/asn1/, what looks like a codec of its own: a base64 alphabet
written out, a base64 character mapping ('+' to 62, 'a' + 26 ...), a DER
length encoder (a long-form count byte 0x81..0x84 stored, 0x80 | count, a
header's size chosen by 128/256); and in cli/, a cross-command include: a
file of one command's folder (cli/X/, or the simple commands at cli/'s
top) including a file of another's, or cli/common including a command's
(cli/commands.h, the subcommand table, excepted). Exit 1 when any is
outside KNOWN (all of them with --strict). Run from anywhere:
scripts/codec_homes.py [--root DIR] [--quiet] [--strict]."""
import argparse
import os
import re
import sys

HOME = "lib/asn1/"
TREES = ["lib", "cli", "integrations", "python/gostx"]
EXTS = (".c", ".h", ".py")

CHECKS = [
    ("a base64 alphabet", re.compile(r"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789[+-][/_]")),
    ("a base64 character mapping",
     re.compile(r"'[+\-]'\s*\?\s*62\b|==\s*'[+\-]'\s*\)?\s*\?\s*62\b|'a'\s*[-+]\s*26\b|'0'\s*[-+]\s*52\b")),
    ("a DER length encoder (a long-form count byte)", re.compile(r"(?<![=!<>])=\s*0x8[1-4]\b")),
    ("a DER length encoder (0x80 | count)",
     re.compile(r"0x80\s*\|\s*(?:\(\s*(?:uint8_t|unsigned char|size_t)\s*\)\s*)?\(?\s*[A-Za-z_]\w*\s*\)?\s*[);,]")),
    ("a DER length encoder (a header sized by 128/256)",
     re.compile(r"<\s*(?:128|0x80)\s*\?[^;]*<\s*(?:256|0x100)\s*\?")),
]

# Known, each with why it stays, keyed "path: kind". None: cli/ and
# integrations/ write DER headers through gostx/der.h's gostx_der_header.
KNOWN = {
}


def strip_comments(text):
    """C comments and // lines blanked, line count kept (prose may name an
    alphabet; code may not)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def scan(root):
    found = []  # (path, line, kind, text)
    for tree in TREES:
        top = os.path.join(root, tree)
        for d, dirs, files in os.walk(top):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(EXTS):
                    continue
                path = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                if path.startswith(HOME):
                    continue
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                if not any(rx.search(text) for _, rx in CHECKS):
                    continue  # most files: nothing to place by line
                if f.endswith((".c", ".h")):
                    text = strip_comments(text)
                for no, line in enumerate(text.split("\n"), 1):
                    for kind, rx in CHECKS:
                        if rx.search(line):
                            found.append((path, no, kind, line.strip()))
    return found


CROSS = "a cross-command include"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
CLI_SHARED = "cli/common/"
CLI_TABLE = "cli/commands.h"  # every command's entry point, included by each


def command_of(path):
    """A cli/ file's command folder: cli/X/ for X, "" for cli/'s top."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def cross_includes(root):
    """(path, line, kind, text): each quoted include of a cli/ file that
    reaches another command's file (its own folder first, then cli/common,
    the command's include directory)."""
    found = []
    top = os.path.join(root, "cli")
    for d, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
            with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                text = strip_comments(fh.read())
            for no, line in enumerate(text.split("\n"), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                for base in (d, os.path.join(root, CLI_SHARED)):
                    cand = os.path.normpath(os.path.join(base, m.group(1)))
                    if os.path.isfile(cand):
                        break
                else:
                    continue  # a system or public header
                target = os.path.relpath(cand, root).replace(os.sep, "/")
                if not target.startswith("cli/") or target == CLI_TABLE:
                    continue
                mine, theirs = command_of(path), command_of(target)
                if theirs != mine and theirs != "common":
                    found.append((path, no, CROSS, f"{line.strip()} ({target})"))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--quiet", action="store_true", help="only the summary line")
    ap.add_argument("--strict", action="store_true", help="count the known ones too")
    a = ap.parse_args()
    new = known = 0
    for path, no, kind, line in scan(a.root) + cross_includes(a.root):
        key = f"{path}: {kind}"
        is_known = key in KNOWN and not a.strict
        known += is_known
        new += not is_known
        if not a.quiet:
            why = f" (known: {KNOWN[key]})" if is_known else ""
            print(f"{path}:{no}: {kind}{why}: {line}")
    print(f"codec_homes: {new} codec(s) or cross-command include(s) outside their home, "
          f"{known} known")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
