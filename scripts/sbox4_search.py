#!/usr/bin/env python3
"""Search small Boolean circuits for the 4-bit functions in the decomposition
of Kuznyechik's pi (scripts/gen_kuz_tables.py) with a SAT solver, and write
them to scripts/kuz_sbox4_circuits.py, which the generator reads and checks.

Not part of the build: the circuits are stored, and the generator verifies
each one on all 16 inputs and the whole S-box on all 256. Needs python-sat
(pip install python-sat). Run time: minutes per function.

Model: k gates, each a 2-input function g with g(0,0) = 0, i.e. AND, OR, XOR
or AND with one input complemented (vpand, vpor, vpxor, vpandn on x86: one
instruction each). Such gates are 0 on the all-zero input, so an output with
f(0) = 1 is produced complemented and flagged; gen_kuz_tables.py absorbs the
flag in the consumer (an AND becomes an ANDN, an XOR chain carries a parity)
or spends one NOT. For each k the SAT instance says: gate i reads nodes j < l
< i (one-hot over pairs), its truth table has three free bits, every gate is
used, each output equals some node, on all 16 inputs. k goes down from a
start value until the solver times out or proves there is no circuit.
--symmetry orders independent neighbouring gates by their input pairs; it
made the searches slower here (inv at 20 gates: 193 s without, no answer in
400 s at 21 with), so it is off by default.

Usage: python3 scripts/sbox4_search.py [--start K] [--timeout S] [NAME ...]
"""
import argparse
import multiprocessing
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def functions():
    """The 4-bit tables the generator asks for, by name (LSB-first nibbles)."""
    import gen_kuz_tables
    return gen_kuz_tables.SBOX4_TABLES


def instance(table, k, symmetry=False):
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool
    n = 4
    pool = IDPool()
    V = pool.id
    cl = []
    nodes = n + k
    rows = range(1, 16)        # row 0 is 0 on every gate

    def val(node, t):          # a literal, or a constant for an input node
        return bool(t >> node & 1) if node < n else V(("x", node, t))

    def pairs(i):
        return [(j, l) for j in range(i) for l in range(j + 1, i)]

    for i in range(n, nodes):
        sel = [V(("s", i, j, l)) for (j, l) in pairs(i)]
        cl.append(sel)
        cl.extend(CardEnc.atmost(sel, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
        f = {pq: V(("f", i, pq)) for pq in (1, 2, 3)}
        cl.append([f[1], f[2], f[3]])          # not constant 0
        cl.append([f[1], -f[2], -f[3]])        # not the first input
        cl.append([-f[1], f[2], -f[3]])        # not the second input
        for (j, l), s in zip(pairs(i), sel):
            for t in rows:
                xi = V(("x", i, t))
                for p in (0, 1):
                    for q in (0, 1):
                        c = [-s]
                        possible = True
                        for lit, want in ((val(j, t), p), (val(l, t), q)):
                            if isinstance(lit, bool):
                                possible &= lit == bool(want)
                            else:
                                c.append(-lit if want else lit)
                        if not possible:
                            continue
                        if p == q == 0:
                            cl.append(c + [-xi])
                        else:
                            cl.append(c + [-xi, f[2 * p + q]])
                            cl.append(c + [xi, -f[2 * p + q]])
    for i in range(n, nodes - 1 if symmetry else n):   # symmetry breaking
        for q in pairs(i + 1):
            if i in q:
                continue
            for p in pairs(i):
                if q < p:
                    cl.append([-V(("s", i, p[0], p[1])), -V(("s", i + 1, q[0], q[1]))])
    for i in range(n, nodes):                  # every gate is used
        uses = [V(("s", h, min(j, i), max(j, i)))
                for h in range(i + 1, nodes) for j in range(h) if j != i]
        uses += [V(("o", o, i)) for o in range(4)]
        cl.append(uses)
    for o in range(4):
        want = [(table[t] >> o & 1) ^ (table[0] >> o & 1) for t in range(16)]
        cl.append([V(("o", o, i)) for i in range(nodes)])
        for i in range(nodes):
            for t in rows:
                lit = val(i, t)
                if isinstance(lit, bool):
                    if lit != bool(want[t]):
                        cl.append([-V(("o", o, i))])
                        break
                else:
                    cl.append([-V(("o", o, i)), lit if want[t] else -lit])
    return cl, V


def solve(args):
    """One k, in its own process (so a timeout can kill the solver)."""
    table, k, symmetry, conn = args
    from pysat.solvers import Solver
    cl, V = instance(table, k, symmetry)
    with Solver(name="cadical153", bootstrap_with=cl) as s:
        if not s.solve():
            conn.send(None)
            return
        m = {v for v in s.get_model() if v > 0}
    gates = []
    for i in range(4, 4 + k):
        for j in range(i):
            for l in range(j + 1, i):
                if V(("s", i, j, l)) in m:
                    fb = [0] + [int(V(("f", i, pq)) in m) for pq in (1, 2, 3)]
                    gates.append((j, l, fb))
    outs = []
    for o in range(4):
        i = next(i for i in range(4 + k) if V(("o", o, i)) in m)
        outs.append((i, table[0] >> o & 1))
    conn.send((gates, outs))


def check(table, gates, outs):
    for t in range(16):
        v = [t >> i & 1 for i in range(4)]
        for (j, l, fb) in gates:
            v.append(fb[2 * v[j] + v[l]])
        for o, (i, neg) in enumerate(outs):
            assert v[i] ^ neg == table[t] >> o & 1


def search(name, table, start, timeout, symmetry):
    best = None
    k = start
    while k > 0:
        rd, wr = multiprocessing.Pipe(False)
        p = multiprocessing.Process(target=solve, args=((table, k, symmetry, wr),))
        t0 = time.time()
        p.start()
        got = rd.poll(timeout)
        res = rd.recv() if got else None
        p.kill()
        p.join()
        if not got:
            print("%s: k=%d timed out after %ds" % (name, k, timeout), file=sys.stderr)
            break
        if res is None:
            print("%s: k=%d impossible" % (name, k), file=sys.stderr)
            break
        check(table, *res)
        best = res
        print("%s: k=%d found in %.0fs" % (name, k, time.time() - t0), file=sys.stderr)
        k -= 1
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--start", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--symmetry", action="store_true")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "kuz_sbox4_circuits.py"))
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    funcs = functions()
    old = {}
    if os.path.exists(a.out):
        ns = {}
        exec(open(a.out).read(), ns)
        old = ns["SBOX4_CIRCUITS"]
    for name in a.names or list(funcs):
        res = search(name, funcs[name], a.start, a.timeout, a.symmetry)
        if res and (name not in old or len(res[0]) < len(old[name][1])):
            old[name] = (funcs[name], res[0], res[1])
            write(a.out, funcs, old)


def write(path, funcs, found):
    """The circuits module, rewritten after each function (searches are long)."""
    with open(path, "w") as f:
        f.write('"""Small circuits for the 4-bit functions of pi\'s decomposition, found by\n'
                'scripts/sbox4_search.py and checked by scripts/gen_kuz_tables.py.\n'
                'name: (table, gates, outputs). Nodes 0..3 are the input bits (LSB first),\n'
                'gate i (node 4 + i) = (j, l, g) computes g[2 * node_j + node_l];\n'
                'output bit k = (node, complemented)."""\n\nSBOX4_CIRCUITS = {\n')
        for name in funcs:
            if name in found:
                t, gates, outs = found[name]
                f.write("    %r: (%r,\n        %r,\n        %r),\n"
                        % (name, list(t), [tuple(x[:2]) + (list(x[2]),) for x in gates],
                           [tuple(o) for o in outs]))
        f.write("}\n")


if __name__ == "__main__":
    main()
