#!/usr/bin/env python3
"""Rooms and climbs: how far a newcomer walks to follow one command from its
entry function to its result (issue 82's measure).

The walk starts at a function (FILE:NAME, e.g. cli/cms/cms_enhance.c:cms_enhance)
and follows the static calls into the project's C: cli/, lib/ and
integrations/. A call resolves to a function of the caller's own file first,
then to a static inline of a header, then to a non-static function of any file
(one of the caller's own top folder where two define it). A function named
without being called (a callback: `tsa`, `&cb`'s members) is a call that the
code it is handed to makes: the callee of the call whose arguments name it,
or, set in a table first, the next call of the function into a lower room
(the library that will call it back). Each function is read once (depth
first, in the order of its calls).

Where the reader stops: lib/'s layers below --machinery (scripts/layers.py's
LAYERS, by name; "x509" by default) are the machinery under the features
(DER, ciphers, hashes, curves, key objects, the base): a newcomer reading a
data path takes gostx__der_* or gostx_streebog_* for what its name says, so
a call into them is no room and is not followed (a callback handed to one
counts as called by the function that handed it). From there up to --floor
("cms" by default, the signature formats' own layer) a call is a room
entered but not read further (certificates, paths, OCSP: lib/x509's
functions as their names say); from --floor up, and all of cli/ and
integrations/, the code is read. --floor none reads no library code (each
library call a room, its callbacks still called back); --machinery base
counts every file.

rooms: the distinct files the walk enters (a header counts where a static
inline of it is called).

climbs: calls of the walk that go back up, each calling function and callee
counted once:
  - up the stack of layers: lib/ (by layers.py's LAYERS, lowest first) <
    integrations/ < cli/common/ < a command's folder (cli/X/, cli/*.c) <
    cli/main.c: a callback from lib/ into cli/, from cli/common/ into
    cli/cms/, from lib/x509 into lib/cms;
  - or up the walk's own stack: into a file the reader entered earlier on
    the way down to the caller and left (A -> B -> A: back in a room it came
    from, with B's story half told).

Run from anywhere: scripts/walk.py [--root DIR] [--floor LAYER] [--machinery LAYER] [--list]
FILE:NAME | cms-enhance | xml-sign. Prints "rooms N climbs M" (--list: each
room and each climb). On 81a6917, the tree issue 82 read, cms-enhance
gives 34 rooms and 10 climbs where the issue counted 35 and 13
(docs/QUALITY.md, "Issue 82: before and after")."""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layers  # noqa: E402  (the include-and-call graph's parsing)

ENTRIES = {
    "cms-enhance": "cli/cms/cms_enhance.c:cms_enhance",
    "xml-sign": "cli/xml/cmd_xml.c:do_sign",
}
TREES = ["lib", "cli", "integrations"]
# What a file of each tree is linked with (a call resolves only there), and
# where its quoted includes are looked for after its own folder.
LINKED = {"lib": ["lib/"], "cli": ["cli/", "lib/", "integrations/xmldsig/"],
          "integrations": ["lib/"]}
INCLUDE_DIRS = {"lib": ["lib"], "cli": ["cli/common", "lib", "integrations/xmldsig"],
                "integrations": ["lib"]}
IDENT = re.compile(r"[A-Za-z_]\w*")


def functions(code):
    """name -> (static, start, end) of each function defined at file scope
    in code (layers.strip'd): a head of the call shape before a top-level
    brace, with no '=' before the name (an initialised table is no
    function)."""
    out, depth, last, start = {}, 0, 0, None
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[last:i]
                m = next((m for m in layers.ANY_CALL.finditer(head)
                          if not m.group(1).startswith("__")), None)
                start = None
                if (m and m.group(1) not in layers.SKIP_NAMES and "=" not in head[: m.start()]
                        and not head.strip().startswith("#")
                        and not re.match(r"\s*(struct|union|enum)\b[^(]*$", head)):
                    start = (m.group(1), re.search(r"\bstatic\b", head[: m.start()]) is not None)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if start:
                    out[start[0]] = (start[1], last, i + 1)
                    start = None
                last = i + 1
        elif c == ";" and depth == 0:
            last = i + 1
        elif c == "\n" and depth == 0 and code[last:i].lstrip().startswith("#"):
            last = i + 1
    return out


def rank(path):
    """The layer of a file, lowest first (see the docstring)."""
    if path.startswith("lib/"):
        k = layers.layer_of(path[4:])
        return k if k is not None else 0
    n = len(layers.LAYERS)
    if path.startswith("integrations/"):
        return n
    if path.startswith("cli/common/"):
        return n + 1
    if path == "cli/main.c":
        return n + 3
    return n + 2


class Tree:
    def __init__(self, root):
        self.code, self.funcs, self.text = {}, {}, {}
        self.globals, self.inlines = {}, {}
        for top in TREES:
            for d, _, names in os.walk(os.path.join(root, top)):
                for f in sorted(names):
                    if not f.endswith((".c", ".h")):
                        continue
                    rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                    with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                        raw = fh.read()
                    self.text[rel] = layers.strip_comments_only(raw)  # for its includes
                    code = layers.strip(raw)
                    self.code[rel] = code
                    self.funcs[rel] = functions(code)
                    for name, (static, _, _) in self.funcs[rel].items():
                        if not static:
                            self.globals.setdefault(name, []).append(rel)
                        elif rel.endswith(".h"):
                            self.inlines.setdefault(name, []).append(rel)

        self.reach = {}

    def includes(self, rel):
        """The headers rel includes, directly or through others."""
        if rel not in self.reach:
            self.reach[rel] = set()
            top = rel.split("/")[0]
            mine = rel.split("/")[:2] if top == "integrations" else []
            for m in layers.INCLUDE.finditer(self.text[rel]):
                for base in [os.path.dirname(rel)] + ["/".join(mine)] * bool(mine) + INCLUDE_DIRS[top]:
                    cand = os.path.normpath(os.path.join(base, m.group(1))).replace(os.sep, "/")
                    if cand in self.code:
                        self.reach[rel] |= {cand} | self.includes(cand)
                        break
        return self.reach[rel]

    def resolve(self, name, caller):
        """The (file, name) a name in caller's file reaches, or None."""
        if name in self.funcs[caller]:
            return caller, name
        seen = self.includes(caller)
        for f in sorted(self.inlines.get(name, ())):
            if f in seen:
                return f, name
        top = caller.split("/")[0]
        linked = LINKED[top] if top != "integrations" else ["/".join(caller.split("/")[:2]) + "/", "lib/"]
        files = [f for f in self.globals.get(name, ()) if f.startswith(tuple(linked))]
        return (sorted(files)[0], name) if files else None

    def steps(self, fn):
        """fn's calls in order, each (callee, how): how is "call" or
        "callback" (named in the body and handed down; see the docstring)."""
        rel, name = fn
        _, a, b = self.funcs[rel][name]
        body = self.code[rel][a:b]
        body = body[body.index("{"):]
        calls, refs = [], []  # (position, callee, arguments' end)
        for m in IDENT.finditer(body):
            word = m.group(0)
            if word in layers.SKIP_NAMES:
                continue
            before = body[: m.start()].rstrip()
            if before.endswith((".", "->")):
                continue  # a member, not a function
            t = self.resolve(word, rel)
            if t is None or t == fn:
                continue
            after = body[m.end():].lstrip()
            if after.startswith("("):
                depth, j = 0, body.index("(", m.end())
                for k in range(j, len(body)):
                    depth += (body[k] == "(") - (body[k] == ")")
                    if depth == 0:
                        break
                calls.append((m.start(), t, k))
            elif t[0] == rel or (t[0].split("/")[0] == rel.split("/")[0] and "_" in word):
                refs.append((m.start(), t))  # not a local variable of a common name
        out = [(pos, (t, "call")) for pos, t, _ in calls]
        for pos, g in refs:
            inside = [c for c in calls if c[0] < pos < c[2]]
            if inside:  # an argument: the innermost call's callee calls it
                h = max(inside)[1]
            else:  # set in a table: handed to the next call into a lower room
                later = [c[1] for c in calls if c[0] > pos and rank(c[1][0]) < rank(rel)]
                h = later[0] if later else fn
            out.append((pos, (g, "callback", h)))
        return [step for _, step in sorted(out, key=lambda p: p[0])]


def walk(tree, entry, floor, machinery="x509"):
    """(rooms, climbs): the files in the order entered; the climbing calls
    as {(caller, callee): (the caller's file, the callee's)}."""
    names = [n for n, _ in layers.LAYERS]
    fk = names.index(floor) if floor in names else len(names)
    mk = names.index(machinery)
    rooms, seen, climbs = [], set(), {}
    handed = {}  # a function not read yet -> the callbacks it will call

    def named(fn):  # the machinery: no room, not read
        return fn[0].startswith("lib/") and rank(fn[0]) < mk

    def enter(fn, stack):
        if fn[0] not in rooms:
            rooms.append(fn[0])
        seen.add(fn)
        if not (fn[0].startswith("lib/") and rank(fn[0]) < fk):  # else taken as named
            for step in tree.steps(fn):
                if step[1] == "callback" and step[2] != fn and not named(step[2]):
                    if step[2] in seen:  # read already: it calls this one too
                        move(step[2], step[0], stack + [step[2]])
                    else:
                        handed.setdefault(step[2], []).append(step[0])
                else:
                    move(fn, step[0], stack)
        for callee in handed.pop(fn, []):
            move(fn, callee, stack)

    def move(fn, callee, stack):
        a, b = fn[0], callee[0]
        below = [f[0] for f in stack[:-1]]
        if a != b and (rank(b) > rank(a) or b in below):
            climbs.setdefault((fn, callee), (a, b))
        if callee not in seen and not named(callee):
            enter(callee, stack + [callee])

    enter(entry, [entry])
    return rooms, climbs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--floor", default="cms",
                    help="lib/'s lowest layer read (layers.py's names; none, base)")
    ap.add_argument("--machinery", default="x509",
                    help="lib/'s lowest layer that is a room (below: taken by name)")
    ap.add_argument("--list", action="store_true", help="each room and climb")
    ap.add_argument("entry", help="FILE:NAME, or " + " | ".join(ENTRIES))
    a = ap.parse_args()
    spec = ENTRIES.get(a.entry, a.entry)
    rel, _, name = spec.partition(":")
    for opt, val in (("--floor", a.floor), ("--machinery", a.machinery)):
        if val != "none" * (opt == "--floor") and val not in [n for n, _ in layers.LAYERS]:
            print(f"walk: {opt} {val}: no such layer in scripts/layers.py", file=sys.stderr)
            return 2
    tree = Tree(a.root)
    if rel not in tree.funcs or name not in tree.funcs[rel]:
        print(f"walk: no function {name} in {rel}", file=sys.stderr)
        return 2
    rooms, climbs = walk(tree, (rel, name), a.floor, a.machinery)
    if a.list:
        for r in rooms:
            print("room", r)
        for (f, g), (x, y) in sorted(climbs.items()):
            print(f"climb {x} -> {y} ({f[1]} -> {g[1]})")
    print(f"rooms {len(rooms)} climbs {len(climbs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
