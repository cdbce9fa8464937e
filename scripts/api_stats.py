#!/usr/bin/env python3
"""Counts the public C API: every GOSTX_API function declared in include/gostx/*.h,
how many take 10 or more parameters (and which).

  python3 scripts/api_stats.py [--list] [--max N] [INCLUDE_DIR]

--max N: exit 1 when any public function takes N or more parameters (the
ctest test_api_params runs it with 10: a long parameter list is an options
struct, as gostx_x509_verify_opts is). Issue 68 set the rule.
--allow NAME,...: functions not yet converted, left out of --max (each one
still listed); one named that no longer needs it is an error too, so the
list only shrinks."""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)


def split_params(params):
    """Top-level commas only (a function-pointer parameter has its own)."""
    depth, cur, out = 0, "", []
    for ch in params:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    if out == ["void"]:
        return []
    return out


def functions(include_dir):
    """(header, name, parameter count) for each public function."""
    out = []
    for name in sorted(os.listdir(include_dir)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(include_dir, name), encoding="utf-8") as f:
            text = strip_comments(f.read())
        # A declaration runs from GOSTX_API to its ';'.
        for m in re.finditer(r"\bGOSTX_API\b([^;{]*);", text):
            decl = m.group(1)
            fm = re.search(r"(\w+)\s*\(", decl)
            if not fm:
                continue  # an exported variable
            start = fm.end()
            depth, i = 1, start
            while depth and i < len(decl):
                depth += {"(": 1, ")": -1}.get(decl[i], 0)
                i += 1
            out.append((name, fm.group(1), len(split_params(decl[start:i - 1]))))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("include_dir", nargs="?", default=os.path.join(ROOT, "include", "gostx"))
    ap.add_argument("--list", action="store_true", help="every function, not only the long ones")
    ap.add_argument("--max", type=int, default=0,
                    help="fail when a function takes this many parameters or more")
    ap.add_argument("--allow", default="", help="comma-separated names --max leaves out")
    args = ap.parse_args()
    allow = {a for a in args.allow.split(",") if a}
    funcs = functions(args.include_dir)
    limit = args.max or 10
    long = [f for f in funcs if f[2] >= limit]
    print(f"public functions: {len(funcs)}")
    print(f"with {limit} or more parameters: {len(long)}")
    for header, name, n in (funcs if args.list else long):
        print(f"  {n:2d}  {header}: {name}")
    bad = [f for f in long if f[1] not in allow]
    stale = sorted(allow - {f[1] for f in long})
    if args.max and bad:
        print(f"api_stats: {len(bad)} public functions take {args.max} or more parameters: "
              + ", ".join(f[1] for f in bad) + ": give them an options struct "
              "(include/gostx/x509.h's gostx_x509_verify_opts)", file=sys.stderr)
        return 1
    if args.max and stale:
        print("api_stats: allowed but no longer long (drop from the list): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
