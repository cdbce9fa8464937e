#!/usr/bin/env python3
"""The file graph of lib/: which file includes which, which file calls a
gostx_ / gostx__ function another file defines, and which file reads a
gostx_ / gostx__ table (a file-scope object) another file defines. Reports include/call cycles
between files and edges from a lower layer to a higher one (LAYERS below,
lowest first); and a file of cli/ including a header of lib/ other than
CLI_MAY_INCLUDE (lib/ike's manager). The same include/call cycles between the files of
cli/ (any function another file defines, not only gostx_ ones), and import cycles between
the modules of python/gostx (deferred imports in functions count: they hold a cycle
together as well as top-level ones). Exit 1 when any exists outside KNOWN (all of them with
--strict); --all prints every edge. Run from anywhere:
scripts/layers.py [--root DIR] [--all] [--quiet] [--strict]."""
import ast
import argparse
import fnmatch
import os
import re
import sys

# Lowest first. A file belongs to the first layer with a pattern that matches
# its path under lib/; a file in no layer is an error (so new folders get one).
LAYERS = [
    ("base", ["internal.h", "arch.h", "levels.def", "common.c", "cpu.c", "random.c",
              "x86_avx512*"]),
    # the one strict DER reader and writer and PEM, under every file format
    # lib/ reads or writes (keys, certificates, TLS 1.2's key exchange)
    ("asn1", ["asn1/*"]),
    # helpers the kernels share with the layers above (counter blocks, the XTS walk)
    ("blockops", ["blockops/*"]),
    # one ISA per file, their tables and templates (lib/tls's padding scan too)
    ("kernels", ["magma/impl.h", "magma/sbox*", "magma/magma_*", "magma/sliced_*",
                 "kuznyechik/impl.h", "kuznyechik/kuz_*", "mgm/impl.h", "mgm/mgm_*.c", "mgm/mgm_reduce_*",
                 "streebog/impl.h", "streebog/streebog_*", "gost3410/impl.h",
                 "tls/pad_scan*"]),
    # GOST R 34.10 (lib/gost3410) below the dispatcher, lowest first: the
    # field (no curve; the MULX bodies for the rows that have them), the
    # curve type, the scalar helpers both curve models share (recoding, NAF,
    # scans, the G tables' cache), the point helpers and the IFMA lane forms
    # of curve steps, the scalar multiplications' template, and its
    # instances: one file per implementation row, the only files whose
    # tables the dispatcher reads (mul_<isa>.c: a new row's file)
    ("ec_field", ["gost3410/field*"]),
    ("ec_type", ["gost3410/ec.h"]),
    ("ec_scalar", ["gost3410/scalar.c", "gost3410/select_*"]),
    ("ec_formulas", ["gost3410/ec.c", "gost3410/ec_ifma.c", "gost3410/ec_edwards_ifma.c"]),
    ("ec_template", ["gost3410/mul_*.h"]),
    ("ec_rows", ["gost3410/mul_*.c"]),
    ("dispatch", ["dispatch.h", "dispatch.c"]),
    # the block cipher and hash APIs over the chosen kernels
    ("primitives", ["magma/magma.c", "kuznyechik/kuz.c", "streebog/streebog.c"]),
    # the gostx_cipher handle: the only door the modes use
    ("cipher", ["cipher_ops.h", "cipher.c"]),
    ("modes", ["modes/*", "gost89/*", "mgm/mgm.c", "mgm/*.h", "gost94/*", "kdf/*"]),
    # legacy SHA-1 and 3DES, only for the PFX files others write (RFC 7292's
    # own MAC and PBE around CryptoPro's key bag): leaves, used by lib/pkcs12
    ("legacy", ["sha1/*", "des3/*", "rc2/*"]),
    # GOST R 34.10 above the dispatcher: the curve table (a curve loaded on
    # the dispatcher's row), the front that picks the curve model, the API
    ("ec_curve", ["gost3410/curves.c"]),
    ("ec_front", ["gost3410/ec_front.c"]),
    ("ec_api", ["gost3410/gost3410.c", "gost3410/ecdh.c", "gost3410/ecdh.h"]),
    # the key files over lib/asn1: what the formats share, PKCS#8 and
    # SubjectPublicKeyInfo, then the readers that tell them apart, PBES2
    # (it decrypts to a PKCS#8) and PEM
    ("key_formats", ["gost3410/keys_der.*", "gost3410/pkcs8.c", "gost3410/spki.c"]),
    ("key_files", ["gost3410/keys.c", "gost3410/pbes2.*", "gost3410/keys_pem.c"]),
    # the key object over them
    ("key_object", ["gost3410/key.c", "gost3410/key_internal.h"]),
    ("above", ["bulk/*", "container/*", "esp/*", "luks/*", "gpu/*", "sizes.c"]),
    # certificates (parsing, names, policy, paths, writing) over lib/asn1,
    # under the TLS that verifies the peer's chain with them
    ("x509", ["x509/*"]),
    # lib/tls, lowest first: the key schedules, suites and TLSTREE of both
    # versions; TLS 1.2's key exchange (GOST KEG and KExp15 in DER); the
    # record interface and its two instances; the connection's object, its
    # buffers and transport, records out (io.c); what both handshakes share
    # (messages' readers and writers, the hello parsers, chains, tickets);
    # TLS 1.2's handshake; TLS 1.3's: what both sides use, each side (which
    # hands a TLS 1.2 ServerHello or ClientHello down), its state machine;
    # the connection API that reads records and drives them (conn.c)
    ("tls_keys", ["tls/tls_internal.h", "tls/keys.c", "tls/tls12_internal.h",
                  "tls/tls12_keys.c"]),
    ("tls_kx", ["tls/tls12_kx.c"]),
    ("tls_record", ["tls/rec.h", "tls/record.c", "tls/tls12_record.c"]),
    ("tls_io", ["tls/conn.h", "tls/io.c"]),
    ("tls_hs_common", ["tls/hs.h", "tls/hs_common.c", "tls/hello.c", "tls/ticket.c"]),
    ("tls_hs12", ["tls/handshake12.c"]),
    ("tls_hs13_common", ["tls/hs13.h", "tls/hs13.c"]),
    ("tls_hs13_sides", ["tls/handshake_client.c", "tls/handshake_server.c"]),
    ("tls_hs13", ["tls/handshake.c"]),
    ("tls_conn", ["tls/config.c", "tls/conn.c"]),
    # IKEv2 over them: ESP's key tree for its own messages, the key
    # exchange and signatures of lib/gost3410, certificates through lib/x509
    ("ike", ["ike/*"]),
    # CMS over X.509 (the signer's chain) and the key object (signing)
    ("cms", ["cms/*"]),
    # PKCS#12 over X.509 and the key files (it reads both, and PBES2's parts)
    ("pkcs12", ["pkcs12/*"]),
    # other vendors' key containers (CryptoPro CSP) over the key object,
    # PKCS#8's unmasking and X.509 (the container's certificate)
    ("keycont", ["keycont/*"]),
    # keys on PKCS#11 tokens: URIs, modules, C_Sign / C_DeriveKey, over the
    # key object and X.509 (the certificate stored with a key)
    ("pkcs11", ["pkcs11/*"]),
]

# Files that must reach the ciphers only through the gostx_cipher handle (or a
# primitive's public calls): no edge from them into these layers.
SEALED = (["modes/*", "gost89/*", "bulk/*", "esp/*", "container/*", "luks/*", "ike/*"],
          ["kernels", "dispatch"])
# The one file of the sealed folders that reaches past the handle: the batch
# lanes drive the multi-key kernels (gostx__kuz_mk_* / gostx__magma_mk_*, and
# the dispatcher's answer to whether Kuznyechik has them).
SEALED_EXCEPT = ["bulk/lanes.c"]

# What is there today outside the cipher layer's cleanup (issue 30), each
# "a -> b" (an upward edge) or "cycle: a b ..." (its sorted members): the
# check fails on anything else. Remove a line when its cause is fixed.
KNOWN = {
}

# cli/ reaches lib/ through the public headers (include/gostx/) only, but
# for these internal headers: the tunnel's IKE daemon (cli/tunnel/ike/) and
# its data path take lib/ike's manager, never the engine under it; `gostx
# p11` (cli/cmd_p11.c) drives a PKCS#11 module through the standard's
# types, which pkcs11/cryptoki.h alone declares. Each may include nothing
# of lib/ itself (so nothing comes in through it).
CLI_MAY_INCLUDE = {"ike/manager.h", "pkcs11/cryptoki.h"}

SKIP_NAMES = {"if", "for", "while", "switch", "return", "sizeof"}


def strip(text):
    """C text without comments and string/char literals (same line count)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def named(name):
    """A call of name, and a file-scope object of name: its name, any array
    bounds, then its initializer."""
    return (re.compile(r"\b(" + name + r")\s*\("),
            re.compile(r"\b(" + name + r")\s*(?:\[[^\]]*\]\s*)*="))


CALL, DATA = named(r"gostx_\w+")
# cli/'s functions have no common prefix: any name called, any object
ANY_CALL, ANY_DATA = named(r"[A-Za-z_]\w*")
NAME = re.compile(r"\b(gostx_\w+)\b")
IMPL_TYPE = re.compile(r"\bstruct\s+gostx_\w+_impl\b")
# The one file that reads the implementation tables (the ISA files' exports):
# every other file gets its implementation through the dispatcher's choice.
IMPL_READERS = {"dispatch.c"}


def definitions(code, call=CALL, data_rx=DATA):
    """(public, local, data, impls): the gostx_ functions defined at file
    scope, the gostx_ objects (tables) defined there without static, and which
    of those are implementation tables (a const struct gostx_..._impl)."""
    public, local, data, impls = set(), set(), set(), set()
    depth, last = 0, 0
    for i, c in enumerate(code):
        if c == "{":
            if depth == 0:
                head = code[last:i]
                m = call.search(head)
                d = data_rx.search(head)
                if d and (not m or d.start() < m.start()):
                    if not re.search(r"\b(static|extern)\b", head[: d.start()]):
                        data.add(d.group(1))
                        if IMPL_TYPE.search(head[: d.start()]):
                            impls.add(d.group(1))
                elif m and "=" not in head[: m.start()] and not head.strip().startswith("#"):
                    name = m.group(1)
                    is_static = re.search(r"\bstatic\b", head[: m.start()]) is not None
                    (local if is_static else public).add(name)
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                last = i + 1
        elif c == ";" and depth == 0:
            head = code[last:i]
            d = data_rx.search(head)  # an object with a scalar initializer
            if d and not re.search(r"\b(static|extern)\b", head[: d.start()]):
                data.add(d.group(1))
            last = i + 1
        elif c == "\n" and depth == 0 and code[last:i].lstrip().startswith("#"):
            last = i + 1  # a preprocessor line ends a head
    return public, local, data, impls


def add_includes(rel, text, files, bases, edges):
    """rel's quoted includes of files (keys of files), each looked for
    under bases in turn (rel's folder, then the include directory)."""
    for m in INCLUDE.finditer(text):
        for base in bases:
            cand = os.path.normpath(os.path.join(base, m.group(1))).replace(os.sep, "/")
            if cand in files and cand != rel:
                edges.setdefault((rel, cand), "include")
                break


def add_calls(rel, code, loc, defs, call, edges):
    """rel's calls of what another file defines (defs: name -> files). A
    call is inside a body; at file scope a name is a prototype."""
    depth, inside = 0, []
    for c in code:
        depth += (c == "{") - (c == "}")
        inside.append(depth > 0)
    for m in call.finditer(code):
        name = m.group(1)
        if not inside[m.start()] or name in loc or name in SKIP_NAMES:
            continue
        for target in defs.get(name, ()):
            if target != rel:
                edges.setdefault((rel, target), "calls " + name)


def layer_of(rel):
    for k, (_, pats) in enumerate(LAYERS):
        if any(fnmatch.fnmatch(rel, p) for p in pats):
            return k
    return None


def build(root):
    lib = os.path.join(root, "lib")
    files = {}
    for d, _, names in os.walk(lib):
        for f in names:
            if f.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(d, f), lib)
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    files[rel] = fh.read()
    defs, info, tables, impls = {}, {}, {}, set()
    for rel, text in files.items():
        code = strip(text)
        pub, loc, data, imp = definitions(code)
        impls |= imp
        info[rel] = (text, code, loc)
        for name in data:
            tables.setdefault(name, set()).add(rel)
        # a static inline in a header is everyone's who includes it
        for name in pub | (loc if rel.endswith(".h") else set()):
            defs.setdefault(name, set()).add(rel)
    edges = {}  # (a, b) -> why
    impl_reads = {}  # (a, b) -> why: a reads b's implementation table
    for rel, (text, code, loc) in info.items():
        add_includes(rel, text, files, (os.path.dirname(rel), ""), edges)
        add_calls(rel, code, loc, defs, CALL, edges)
        # a table read anywhere but in an extern declaration or a macro (whose
        # users read it)
        for m in NAME.finditer(code):
            name = m.group(1)
            if name not in tables:
                continue
            line = code[code.rfind("\n", 0, m.start()) + 1 : m.start()]
            stmt = code[max(code.rfind(ch, 0, m.start()) for ch in ";{}") + 1 : m.start()]
            if line.lstrip().startswith("#") or re.search(r"\bextern\b", stmt):
                continue
            for target in tables[name]:
                if target != rel:
                    edges.setdefault((rel, target), "reads " + name)
                    if name in impls:
                        impl_reads.setdefault((rel, target), "reads " + name)
    return files, edges, impl_reads


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def lib_target(root, src_dir, inc):
    """The file under lib/ (its path there) that a quoted include of a file
    in src_dir reaches, its own folder first, then lib/ as an include
    directory; None when it reaches none."""
    lib = os.path.realpath(os.path.join(root, "lib"))
    for cand in (os.path.join(src_dir, inc), os.path.join(lib, inc)):
        cand = os.path.realpath(cand)
        if os.path.isfile(cand):
            return os.path.relpath(cand, lib) if cand.startswith(lib + os.sep) else None
    return None


def cli_reach(root):
    """(a, b) pairs: a file of cli/ including b of lib/ beyond CLI_MAY_INCLUDE,
    or a header of CLI_MAY_INCLUDE (a = lib/...) including b of lib/."""
    out = []
    cli = os.path.join(root, "cli")
    for d, _, names in os.walk(cli):
        for f in sorted(names):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = strip_comments_only(fh.read())
            for m in INCLUDE.finditer(text):
                t = lib_target(root, d, m.group(1))
                if t is not None and t not in CLI_MAY_INCLUDE:
                    out.append(("cli/" + os.path.relpath(path, cli), "lib/" + t))
    for h in sorted(CLI_MAY_INCLUDE):
        path = os.path.join(root, "lib", h)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = strip_comments_only(fh.read())
        for m in INCLUDE.finditer(text):
            t = lib_target(root, os.path.dirname(path), m.group(1))
            if t is not None:
                out.append(("lib/" + h, "lib/" + t))
    return sorted(set(out))


def cli_graph(root):
    """cli/'s files and their edges (a, b) -> why, paths from root: a
    includes b (its own folder first, then cli/common, the include
    directory every command has), or calls a function b defines (a .c
    file's non-static one, a header's static inline)."""
    files, info, defs, edges = {}, {}, {}, {}
    for d, _, names in os.walk(os.path.join(root, "cli")):
        for f in names:
            if f.endswith((".c", ".h")):
                rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    files[rel] = fh.read()
    for rel, text in files.items():
        code = strip(text)
        pub, loc, _, _ = definitions(code, ANY_CALL, ANY_DATA)
        info[rel] = (code, loc)
        for name in pub | (loc if rel.endswith(".h") else set()):
            defs.setdefault(name, set()).add(rel)
    for rel, (code, loc) in info.items():
        add_includes(rel, strip_comments_only(files[rel]), files,
                     (os.path.dirname(rel), "cli/common"), edges)
        add_calls(rel, code, loc, defs, ANY_CALL, edges)
    return files, edges


def lazy_exports(tree):
    """The nodes of a module-level __getattr__ (PEP 562): a package's names
    offered on demand (gostx.tls's optional integrations), not its uses."""
    out = set()
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == "__getattr__":
            out |= {id(x) for x in ast.walk(n)}
    return out


def python_graph(root):
    """python/gostx's modules and their imports (a, b) -> why, paths from
    root: every import of a gostx module, at the top or deferred in a
    function, but a lazy export's (lazy_exports)."""
    top = os.path.join(root, "python")
    files = {}
    for d, _, names in os.walk(os.path.join(top, "gostx")):
        for f in names:
            if f.endswith(".py"):
                files[os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")] = None

    def module_file(mod):
        base = "python/" + mod.replace(".", "/")
        for cand in (base + ".py", base + "/__init__.py"):
            if cand in files:
                return cand
        return None

    edges = {}
    for rel in files:
        with open(os.path.join(root, rel), encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), rel)
        parts = rel[len("python/"):-len(".py")].split("/")
        package = parts[:-1]  # a module's and an __init__'s alike
        lazy = lazy_exports(tree)
        for n in ast.walk(tree):
            if id(n) in lazy:
                continue
            if isinstance(n, ast.ImportFrom):
                if n.level:
                    mod = ".".join(package[:len(package) - n.level + 1] + [n.module or ""]).rstrip(".")
                else:
                    mod = n.module or ""
                # from M import x: the module M.x where it is one, else M
                targets = [module_file(mod + "." + a.name) or module_file(mod) for a in n.names]
            elif isinstance(n, ast.Import):
                targets = [module_file(a.name) for a in n.names]
            else:
                continue
            for target in targets:
                if target and target != rel:
                    edges.setdefault((rel, target), f"imports (line {n.lineno})")
    return files, edges


def strip_comments_only(text):
    """C text without its comments (the include lines' strings kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), text,
                  flags=re.S)


def cycles(nodes, edges):
    """Strongly connected components of more than one file (Tarjan)."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    ap.add_argument("--all", action="store_true", help="print every edge")
    ap.add_argument("--quiet", action="store_true", help="only the summary line")
    ap.add_argument("--strict", action="store_true", help="count the known ones too")
    a = ap.parse_args()
    files, edges, impl_reads = build(a.root)
    bad = False
    unplaced = sorted(f for f in files if layer_of(f) is None)
    for f in unplaced:
        print(f"error: lib/{f} is in no layer of scripts/layers.py")
        bad = True
    up = sorted((x, y) for (x, y) in edges
                if None not in (layer_of(x), layer_of(y)) and layer_of(x) < layer_of(y))
    cyc = cycles(files, edges)
    names = [l[0] for l in LAYERS]
    past = sorted((x, y) for (x, y) in edges
                  if any(fnmatch.fnmatch(x, p) for p in SEALED[0]) and x not in SEALED_EXCEPT
                  and layer_of(y) is not None and names[layer_of(y)] in SEALED[1])
    if a.all:
        for (x, y), why in sorted(edges.items()):
            print(f"edge {x} -> {y} ({why})")
    new = 0
    for x, y in up:
        key = f"{x} -> {y}"
        known = key in KNOWN and not a.strict
        new += not known
        if not a.quiet:
            print(f"upward{' (known)' if known else ''}: {key} "
                  f"[{LAYERS[layer_of(x)][0]} -> {LAYERS[layer_of(y)][0]}] ({edges[(x, y)]})")
    # an implementation table read by any file but the dispatcher (another
    # ISA file's table, say: it calls that code by name instead)
    isa = sorted((x, y) for (x, y) in impl_reads if x not in IMPL_READERS)
    reach = cli_reach(a.root)
    only = f"only {', '.join(sorted(CLI_MAY_INCLUDE))}, which includes nothing of lib/"
    for what, pairs, why in (("past the handle", past, edges),
                             ("implementation table read", isa, impl_reads),
                             ("cli into lib", reach, {p: only for p in reach})):
        for x, y in pairs:
            key = f"{what}: {x} -> {y}"
            known = key in KNOWN and not a.strict
            new += not known
            if not a.quiet:
                print(f"{key}{' (known)' if known else ''} ({why[(x, y)]})")
    # lib/'s cycles by their paths under lib/, cli/'s and python/gostx's
    # from the root
    cli_files, cli_edges = cli_graph(a.root)
    py_files, py_edges = python_graph(a.root)
    found = set()
    for graph_files, graph_edges in ((files, edges), (cli_files, cli_edges), (py_files, py_edges)):
        for c in cycles(graph_files, graph_edges):
            key = "cycle: " + " ".join(c)
            found.add(key)
            known = key in KNOWN and not a.strict
            new += not known
            if not a.quiet:
                inner = [f"{x} -> {y} ({graph_edges[(x, y)]})" for (x, y) in sorted(graph_edges)
                         if x in c and y in c]
                print(f"{key}{' (known)' if known else ''}\n    " + "\n    ".join(inner))
    # a KNOWN cycle that is gone: its line goes, so the list stays true
    gone = sorted(k for k in KNOWN if k.startswith("cycle: ") and k not in found)
    for key in gone:
        print(f"known but gone (remove it from KNOWN): {key}")
    ncyc = len(found)
    print(f"layers: {len(files)} files, {len(edges)} edges, {len(cyc)} cycles "
          f"({sum(len(c) for c in cyc)} files in them), {len(up)} upward edges, "
          f"{len(past)} past the cipher handle, {len(isa)} implementation table reads, "
          f"{len(reach)} cli includes into lib; cli/ {len(cli_files)} files, python/gostx "
          f"{len(py_files)} modules; {ncyc} cycles in all, {new} not known")
    return 1 if bad or new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
