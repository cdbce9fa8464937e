#!/usr/bin/env python3
"""Generate lib/kuznyechik/kuz_tables.h (circuits, declarations) and
kuz_tables.c (the tables' data) for the constant-time portable
Kuznyechik core (GOST R 34.12-2015, RFC 7801) from the standard's pi and the
coefficients of l.

The portable core works on bit planes: plane b is a uint64_t whose bits are
bit b of 64 bytes (of four blocks, lane 16*blk + j for byte j, or of 64
blocks). Byte 0 of a block is a_15, the most significant byte. Everything
below is indexed only by public values (round, plane, diagonal), never by data.

The output holds
  kuz_sbox_fwd(p), kuz_sbox_inv(p): pi and pi^-1 on eight planes as
      straight-line Boolean circuits, built from the GF(2^4) decomposition of
      pi (see DEC_* below): two 8x8 GF(2) matrices, 4-bit functions by the
      small circuits of scripts/kuz_sbox4_circuits.py (found with a SAT
      solver by scripts/sbox4_search.py), GF(2^4) multiplications and a
      masked XOR. Shared XORs come from Paar's greedy heuristic. Each circuit is
      evaluated on all 256 inputs while it is built and must reproduce
      PI / PI^-1.
  KUZ_LSTEP_W(W, X, D): one R step of L on bit planes for the vector files'
      bitsliced path, a straight-line program of 174 XORs (Paar's heuristic,
      ordered for 16 registers; see "One R step" below), checked against the
      step's GF(2) matrix before it is printed.
  gostx__kuz_lmask_fwd[16][8], gostx__kuz_lmask_inv[16][8]: L and L^-1 as
      16 diagonals. For diagonal d, bit k of the coefficient that multiplies
      byte j and lands in byte (j - d) mod 16 is bit j of mask[d][k]
      (replicated to the four 16-lane groups).
  gostx__kuz_lcol_fwd[128][2], gostx__kuz_lcol_inv[128][2]: L and L^-1 as
      GF(2) columns, for the one-block path (entry 8*j + b: image of bit b of
      byte j, as two little-endian words).
  gostx__kuz_pi, gostx__kuz_pi_inv, gostx__kuz_lmatrix_fwd/inv: pi, pi^-1
      and the GF(2^8) matrices of L and L^-1, for future table-driven fast
      paths (the portable core does not use them).
  gostx__kuz_c[32][16]: the iteration constants C_1..C_32 = L(Vec128(i)).

Usage: python3 scripts/gen_kuz_tables.py [DIR]   (writes DIR/kuz_tables.h and
       DIR/kuz_tables.c; DIR defaults to lib/kuznyechik)
       python3 scripts/gen_kuz_tables.py --lstep-search N   (seeds for LSTEP_SEED)
"""
import itertools
import sys

from kuz_sbox4_circuits import SBOX4_CIRCUITS

# pi (GOST R 34.12-2015 section 4.1.1, RFC 7801 section 2): scripts/gost_pi.py.
from gost_pi import PI
PI_INV = [0] * 256
for _i, _v in enumerate(PI):
    PI_INV[_v] = _i
assert sorted(PI) == list(range(256))

# l's coefficients for a_15..a_0 (bytes 0..15 of the string), section 4.1.2.
LC = [148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1]


def gf_mul(a, b, n, poly):
    """Product in GF(2^n) modulo poly (its bits, x^n's included)."""
    r = 0
    for i in range(n):
        if b >> i & 1:
            r ^= a << i
    for i in range(2 * n - 2, n - 1, -1):
        if r >> i & 1:
            r ^= poly << (i - n)
    return r


def gmul(a, b):
    """GF(2^8) product modulo x^8 + x^7 + x^6 + x + 1."""
    return gf_mul(a, b, 8, 0x1C3)


def R(a):
    s = 0
    for j in range(16):
        s ^= gmul(LC[j], a[j])
    return [s] + a[:15]


def L(a):
    for _ in range(16):
        a = R(a)
    return a


def R_inv(a):
    b = a[1:] + [a[0]]
    s = 0
    for j in range(16):
        s ^= gmul(LC[j], b[j])
    return a[1:] + [s]


def L_inv(a):
    for _ in range(16):
        a = R_inv(a)
    return a


def matrix(f):
    """M[i][j] with f(x)_i = XOR_j M[i][j] * x_j (f linear over GF(2^8))."""
    m = [[0] * 16 for _ in range(16)]
    for j in range(16):
        e = [0] * 16
        e[j] = 1
        col = f(e)
        for i in range(16):
            m[i][j] = col[i]
    return m


def apply_matrix(m, x):
    out = []
    for i in range(16):
        s = 0
        for j in range(16):
            s ^= gmul(m[i][j], x[j])
        out.append(s)
    return out


REP = 0x0001000100010001  # replicate a 16-lane value to the four groups


def lmasks(m):
    masks = []
    for d in range(16):
        row = []
        for k in range(8):
            v = 0
            for j in range(16):
                c = m[(j - d) % 16][j]
                if c >> k & 1:
                    v |= 1 << j
            row.append(v * REP)
        masks.append(row)
    return masks


# ---------------------------------------------------------------------------
# S-box circuit


def paar(targets, nvars, rng=None, shared_only=False):
    """Paar's greedy common-subexpression elimination for XOR targets given as
    sets of variable indices: repeatedly define v[new] = v[a] ^ v[b] for the
    pair (a, b) that most targets contain. Ties go to the smallest pair, or to
    rng's choice. Returns (ops, rows): ops[k] = (new, a, b), and rows[t] the
    set of values whose XOR is target t. By default pairs are taken until
    every target is one value; with shared_only, only while a pair is shared
    by two targets or more (the rest is left to the caller to accumulate)."""
    rows = [set(t) for t in targets]
    ops = []
    while True:
        count = {}
        for r in rows:
            for pair in itertools.combinations(sorted(r), 2):
                count[pair] = count.get(pair, 0) + 1
        best = max(count.values(), default=0)
        if best < (2 if shared_only else 1):
            return ops, rows
        ties = sorted(p for p, k in count.items() if k == best)
        a, b = rng.choice(ties) if rng else ties[0]
        n = nvars + len(ops)
        ops.append((n, a, b))
        for r in rows:
            if a in r and b in r:
                r -= {a, b}
                r.add(n)


# ---------------------------------------------------------------------------
# One R step of L on bit planes, as a straight-line XOR program
#
# The vector files run L as sixteen R steps over a window of 16 bytes x 8
# planes in memory; a step computes l = sum_i c_i x_i, eight output planes.
# Plane j of l is the XOR of the window words (byte i, plane b) for which bit
# j of c_i * t^b is set: an 8 x 128 matrix over GF(2) (423 ones). Paar's
# heuristic with random tie-breaking finds a program of 173 XORs (the form
# written by hand before, pair sums and coefficient bits, needed ~215 and a
# second pass over the outputs). The order of the operations matters as much
# as their number: AVX2 has 16 vector registers and the step is bounded by
# its loads, so the program is ordered by a greedy list scheduler that counts
# what a machine with 16 registers would execute (window words as memory
# operands, a load where neither operand is in a register, a store per value
# evicted while still needed), and the best of LSTEP_TRIES orders is kept.
# LSTEP_SEED was found by --lstep-search; the program is checked against the
# matrix before it is printed.
LSTEP_SEED = 45
LSTEP_TRIES = 30
LSTEP_REGS = 16


def lstep_rows():
    """rows[j]: the window words (8 * i + b) XORed into output plane j."""
    return [{8 * i + b for i in range(16) for b in range(8) if gmul(LC[i], 1 << b) >> j & 1}
            for j in range(8)]


def lstep_schedule(ops, rows, nin, rng, jitter):
    """A greedy order of the program's operations: ('t', n) defines value n,
    ('a', j, v) XORs value v into output j (the first one starts it; the last
    one completes it). Returns (modelled instruction count, order)."""
    define = {n: (a, b) for n, a, b in ops}
    uses = {}
    for n, a, b in ops:
        uses[a] = uses.get(a, 0) + 1
        uses[b] = uses.get(b, 0) + 1
    for r in rows:
        for v in r:
            uses[v] = uses.get(v, 0) + 1
    todo_t = set(define)
    todo_a = [(j, v) for j, r in enumerate(rows) for v in sorted(r)]
    left = [len(r) for r in rows]
    ready = set(range(nin))
    in_reg, in_mem, open_acc = set(), set(range(nin)), set()
    cost = 0
    order = []

    def make_room(keep):
        nonlocal cost
        while len(in_reg) + len(open_acc) >= LSTEP_REGS:
            # evict: dead values first, then values that memory still holds
            v = min((x for x in in_reg if x not in keep),
                    key=lambda x: (uses[x] > 0, x not in in_mem, uses[x], x))
            in_reg.discard(v)
            if uses[v] > 0 and v not in in_mem:
                in_mem.add(v)
                cost += 1  # spill store

    def free_dead(*vs):
        for v in vs:
            if uses[v] == 0:
                in_reg.discard(v)

    while todo_t or todo_a:
        cands = []
        for n in todo_t:
            a, b = define[n]
            if a in ready and b in ready:
                score = 2 * (a not in in_reg and b not in in_reg)
                score += not any(v in in_reg and uses[v] == 1 for v in (a, b))
                cands.append((score + jitter * rng.random(), 0, n, 0))
        for j, v in todo_a:
            if v in ready:
                score = (v not in in_reg) * 0.5
                if j not in open_acc:
                    score += 0.5 if v in in_reg else 1
                if v in in_reg and uses[v] == 1:
                    score -= 1
                cands.append((score + jitter * rng.random(), 1, j, v))
        _, kind, x, v = min(cands)
        if kind == 0:
            a, b = define[x]
            todo_t.discard(x)
            if a not in in_reg and b not in in_reg:
                make_room({a, b})
                in_reg.add(a)
                cost += 1  # load
            uses[a] -= 1
            uses[b] -= 1
            free_dead(a, b)
            make_room({a, b})
            in_reg.add(x)
            ready.add(x)
            cost += 1
            order.append(("t", x))
        else:
            todo_a.remove((x, v))
            uses[v] -= 1
            if x in open_acc:
                cost += 1
            else:
                open_acc.add(x)
                if v not in in_reg:
                    cost += 1  # load
                make_room({v})
            free_dead(v)
            left[x] -= 1
            if left[x] == 0:
                open_acc.discard(x)
                cost += 1  # store
            order.append(("a", x, v))
    return cost, order


def lstep_program(seed=LSTEP_SEED, tries=LSTEP_TRIES):
    """(C statements, XOR count, modelled instructions) of one R step."""
    import random
    rng = random.Random(seed)
    nin = 128
    target = lstep_rows()
    ops, rows = paar(target, nin, rng, shared_only=True)
    xors = len(ops) + sum(len(r) - 1 for r in rows)
    cost, order = min((lstep_schedule(ops, rows, nin, rng, 1.5 if t else 0.0)
                       for t in range(tries)), key=lambda co: co[0])
    define = {n: (a, b) for n, a, b in ops}
    name, val = {}, {v: 1 << v for v in range(nin)}
    acc, left = [0] * 8, [len(r) for r in rows]

    def ref(v):
        return "X(%d, %d)" % (v >> 3, v & 7) if v < nin else name[v]

    lines = []
    for step in order:
        if step[0] == "t":
            a, b = define[step[1]]
            name[step[1]] = "t%d" % len(name)
            val[step[1]] = val[a] ^ val[b]
            lines.append("W %s = %s ^ %s;" % (name[step[1]], ref(a), ref(b)))
            continue
        _, j, v = step
        if left[j] == len(rows[j]):
            lines.append("W a%d = %s;" % (j, ref(v)))
        else:
            lines.append("a%d ^= %s;" % (j, ref(v)))
        acc[j] ^= val[v]
        left[j] -= 1
        if left[j] == 0:
            lines.append("D(%d) = a%d;" % (j, j))
    for j, r in enumerate(target):
        assert acc[j] == sum(1 << v for v in r), "R step program is wrong"
    return lines, xors, cost


def lstep_search(n):
    """Prints the seeds whose program models fewest instructions."""
    best = None
    for seed in range(n):
        _, xors, cost = lstep_program(seed)
        if best is None or (cost, xors) < best:
            best = (cost, xors)
            print("seed %d: %d XORs, %d modelled instructions" % (seed, xors, cost), flush=True)


# The structure of pi found by Biryukov, Perrin and Udovenko ("Reverse-
# engineering the S-box of Streebog, Kuznyechik and STRIBOBr1", 2016), over
# GF(2^4) = GF(2)[x]/(x^4 + x^3 + 1):
#   (l, r) = alpha(x);  l' = nu0(l) if r = 0 else nu1(l * r^-1);
#   r' = sigma(r * phi(l'));  pi(x) = omega(l' || r').
# main() checks this against PI before any code is emitted, and every circuit
# is checked on all 256 inputs as it is built.
DEC_INV = [0x0, 0x1, 0xc, 0x8, 0x6, 0xf, 0x4, 0xe, 0x3, 0xd, 0xb, 0xa, 0x2, 0x9, 0x7, 0x5]
DEC_NU0 = [0x2, 0x5, 0x3, 0xb, 0x6, 0x9, 0xe, 0xa, 0x0, 0x4, 0xf, 0x1, 0x8, 0xd, 0xc, 0x7]
DEC_NU1 = [0x7, 0x6, 0xc, 0x9, 0x0, 0xf, 0x8, 0x1, 0x4, 0x5, 0xb, 0xe, 0xd, 0x2, 0x3, 0xa]
DEC_SIGMA = [0xc, 0xd, 0x0, 0x4, 0x8, 0xb, 0xa, 0xe, 0x3, 0x9, 0x5, 0x2, 0xf, 0x1, 0x6, 0x7]
DEC_PHI = [0xb, 0x2, 0xb, 0x8, 0xc, 0x4, 0x1, 0xc, 0x6, 0x3, 0x5, 0x8, 0xe, 0x3, 0x6, 0xb]
# 8x8 matrices over GF(2); row y, column x: output bit 7-y takes input bit 7-x.
DEC_ALPHA = [[0, 0, 0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 0, 1, 1],
             [1, 1, 1, 0, 1, 1, 1, 1], [1, 0, 0, 0, 1, 0, 1, 0], [0, 1, 0, 0, 0, 1, 0, 0],
             [0, 0, 0, 1, 1, 0, 1, 0], [0, 0, 1, 0, 0, 0, 0, 0]]
DEC_OMEGA = [[0, 0, 0, 0, 1, 0, 1, 0], [0, 0, 0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0, 0, 0],
             [1, 0, 0, 1, 1, 0, 1, 0], [0, 0, 0, 0, 1, 0, 0, 0], [0, 1, 0, 0, 0, 1, 0, 0],
             [1, 0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 0, 1]]


def _inv4(t):
    return [t.index(v) for v in range(16)]


# The 4-bit functions the circuits below use, by the names of
# scripts/kuz_sbox4_circuits.py (psi = phi followed by GF(2^4) inversion).
SBOX4_TABLES = {
    "inv": DEC_INV, "nu0": DEC_NU0, "nu1": DEC_NU1, "phi": DEC_PHI, "sigma": DEC_SIGMA,
    "sigma_inv": _inv4(DEC_SIGMA), "nu0_inv": _inv4(DEC_NU0), "nu1_inv": _inv4(DEC_NU1),
    "psi": [DEC_INV[DEC_PHI[v]] for v in range(16)],
}


def bitmat_apply(mat, a):
    r = 0
    for x in range(8):
        if a >> (7 - x) & 1:
            for y in range(8):
                r ^= mat[y][x] << (7 - y)
    return r


def bitmat_inverse(mat):
    """Inverse over GF(2), same row/column convention (via the preimages)."""
    pre = {bitmat_apply(mat, v): v for v in range(256)}
    assert len(pre) == 256
    inv = [[0] * 8 for _ in range(8)]
    for x in range(8):
        v = pre[1 << (7 - x)]
        for y in range(8):
            inv[y][x] = v >> (7 - y) & 1
    return inv


def gf16_mul(a, b):
    """GF(2^4) product modulo x^4 + x^3 + 1."""
    return gf_mul(a, b, 4, 0x19)


def decomposed_pi(x):
    y = bitmat_apply(DEC_ALPHA, x)
    l, r = y >> 4, y & 15
    l = DEC_NU0[l] if r == 0 else DEC_NU1[gf16_mul(l, DEC_INV[r])]
    r = DEC_SIGMA[gf16_mul(r, DEC_PHI[l])]
    return bitmat_apply(DEC_OMEGA, l << 4 | r)


MASK256 = (1 << 256) - 1


class Circuit:
    """Straight-line code on uint64_t planes. Every wire also carries its value
    on all 256 inputs (bit x = the wire for input byte x), so the result is
    checked exhaustively as it is built."""

    def __init__(self):
        self.lines = []
        self.ops = 0
        self.n = 0
        self.inputs = []
        for b in range(8):
            v = 0
            for x in range(256):
                if x >> b & 1:
                    v |= 1 << x
            self.inputs.append(("x%d" % b, v))
            self.lines.append("  const uint64_t x%d = p[%d];" % (b, b))

    def _new(self, expr, val):
        name = "t%d" % self.n
        self.n += 1
        self.lines.append("  const uint64_t %s = %s;" % (name, expr))
        self.ops += 1
        return (name, val & MASK256)

    def xor(self, a, b):
        return self._new("%s ^ %s" % (a[0], b[0]), a[1] ^ b[1])

    def and_(self, a, b):
        return self._new("%s & %s" % (a[0], b[0]), a[1] & b[1])

    def or_(self, a, b):
        return self._new("%s | %s" % (a[0], b[0]), a[1] | b[1])

    def not_(self, a):
        return self._new("~%s" % a[0], ~a[1])

    def linear(self, targets, wires):
        """XOR of the wires in each target set (non-empty), with shared XORs
        found by Paar's heuristic."""
        ops, rows = paar(targets, len(wires))
        final = [next(iter(r)) if r else None for r in rows]
        pool = list(wires)
        for (_, a, b) in ops:
            pool.append(self.xor(pool[a], pool[b]))
        return [pool[f] for f in final]

    def bitmat(self, mat, bits):
        """An 8x8 GF(2) matrix on planes given LSB first."""
        targets = []
        for ob in range(8):
            y = 7 - ob
            targets.append({7 - x for x in range(8) if mat[y][x]})
        return self.linear(targets, bits)

    def andn(self, a, b):
        """~a & b: one vpandn on x86 vector words."""
        return self._new("KUZ_ANDN(%s, %s)" % (a[0], b[0]), ~a[1] & b[1])

    def gate(self, fb, a, b):
        """The 2-input gate with truth table fb[2*a + b], fb[0] = 0."""
        op = tuple(fb)
        if op == (0, 0, 0, 1):
            return self.and_(a, b)
        if op == (0, 1, 1, 0):
            return self.xor(a, b)
        if op == (0, 1, 1, 1):
            return self.or_(a, b)
        if op == (0, 0, 1, 0):
            return self.andn(b, a)
        if op == (0, 1, 0, 0):
            return self.andn(a, b)
        raise ValueError(fb)

    def sbox4_found(self, name, q):
        """A 4-bit function by its stored small circuit (scripts/sbox4_search.py).
        Returns (wire, neg) pairs, LSB first: output k is the wire, complemented
        when neg (gates with g(0,0) = 0 cannot make a function with f(0) = 1),
        and the consumer decides where the complement is absorbed."""
        table, gates, outs = SBOX4_CIRCUITS[name]
        assert list(table) == SBOX4_TABLES[name], name
        nodes = list(q)
        for (j, l, fb) in gates:
            nodes.append(self.gate(fb, nodes[j], nodes[l]))
        res = [(nodes[g], neg) for (g, neg) in outs]
        for x in range(256):  # on every input byte: the nibble q carries, mapped
            v = sum((q[i][1] >> x & 1) << i for i in range(4))
            for k, (w, neg) in enumerate(res):
                assert (w[1] >> x & 1) ^ neg == table[v] >> k & 1, (name, k, v)
        return res

    def plain(self, wn):
        """Materialize a (wire, neg) pair."""
        w, neg = wn
        return self.not_(w) if neg else w

    def and_n(self, a, b):
        """AND of two (wire, neg) pairs, as a (wire, neg) pair, one gate."""
        (wa, na), (wb, nb) = a, b
        if na and nb:
            return (self.or_(wa, wb), 1)       # ~a & ~b = ~(a | b)
        if na:
            return (self.andn(wa, wb), 0)
        if nb:
            return (self.andn(wb, wa), 0)
        return (self.and_(wa, wb), 0)

    def xor_n(self, a, b):
        return (self.xor(a[0], b[0]), a[1] ^ b[1])

    def gf16_mul_n(self, a, b):
        """GF(2^4) product of (wire, neg) operands; complements ride along as
        parities through the XORs and come out as neg flags."""
        c = [None] * 7
        for i in range(4):
            for j in range(4):
                t = self.and_n(a[i], b[j])
                c[i + j] = t if c[i + j] is None else self.xor_n(c[i + j], t)
        # x^4 = x^3 + 1, x^5 = x^3 + x + 1, x^6 = x^3 + x^2 + x + 1
        c56 = self.xor_n(c[5], c[6])
        r0 = self.xor_n(self.xor_n(c[0], c[4]), c56)
        r1 = self.xor_n(c[1], c56)
        r2 = self.xor_n(c[2], c[6])
        r3 = self.xor_n(self.xor_n(c[3], c[4]), c56)
        return [r0, r1, r2, r3]

    def bitmat_n(self, mat, bits):
        """bitmat on (wire, neg) inputs: the complements are applied to the
        inputs or, where fewer NOTs are needed, to the outputs (the matrix is
        linear, so an input complement flips every output that uses it)."""
        negin = [n for (_, n) in bits]
        outneg = []
        for ob in range(8):
            y = 7 - ob
            outneg.append(sum(negin[7 - x] for x in range(8) if mat[y][x]) & 1)
        if sum(outneg) < sum(negin):
            outs = self.bitmat(mat, [w for (w, _) in bits])
            return [self.not_(o) if n else o for o, n in zip(outs, outneg)]
        return self.bitmat(mat, [self.plain(b) for b in bits])

    def select_zero(self, o, a, h):
        """a where the mask o is all-ones, else h, when a is 0 wherever o is 0
        (a = a product with a zero factor there): a ^ (~o & h), two gates."""
        wh, nh = h
        if nh:
            t = (self.or_(o, wh), 1)            # ~o & ~h = ~(o | h)
        else:
            t = (self.andn(o, wh), 0)
        return self.xor_n(a, t)

    def emit(self, outs, table, fname):
        for x in range(256):
            y = 0
            for k in range(8):
                y |= (outs[k][1] >> x & 1) << k
            assert y == table[x], (fname, x, y, table[x])
        # The circuit is a macro over the word type W, so vector ISA files run
        # the same (checked) gates on 128/256-bit words; the portable core
        # instantiates it with uint64_t.
        lines = [ln.replace("const uint64_t ", "const W ").replace("p[", "(p)[")
                 for ln in self.lines]
        lines += ["  (p)[%d] = %s;" % (k, outs[k][0]) for k in range(8)]
        macro = fname.upper() + "_W"
        body = " \\\n".join(["#define %s(W, p) do {" % macro] + lines + ["} while (0)"])
        return ("/* %d bitwise operations, on any word type W with ^ & | ~ */\n%s\n"
                "static inline void %s(uint64_t p[8]) { %s(uint64_t, p); }\n"
                % (self.ops, body, fname, macro))


def sbox_fwd_circuit():
    """l' = nu1(l * r^-1) ^ (~o & (nu0(l) ^ nu1(0))) with o all-ones where
    r != 0 (for r = 0 the product is 0 and nu1(0) cancels): a masked XOR
    instead of a select. r' = sigma(r * phi(l')), pi = omega(l' || r')."""
    c = Circuit()
    y = c.bitmat(DEC_ALPHA, c.inputs)
    r, l = y[0:4], y[4:8]
    rinv = c.sbox4_found("inv", r)
    o = c.or_(c.or_(r[0], r[1]), c.or_(r[2], r[3]))
    g = c.sbox4_found("nu1", [c.plain(w) for w in c.gf16_mul_n([(w, 0) for w in l], rinv)])
    h = c.sbox4_found("nu0", l)
    l1 = [c.plain(c.select_zero(o, g[k], (h[k][0], h[k][1] ^ g[k][1]))) for k in range(4)]
    p = c.sbox4_found("phi", l1)
    r1 = c.sbox4_found("sigma", [c.plain(w) for w in c.gf16_mul_n([(w, 0) for w in r], p)])
    out = c.bitmat_n(DEC_OMEGA, r1 + [(w, 0) for w in l1])
    return c.emit(out, PI, "kuz_sbox_fwd")


def sbox_inv_circuit():
    """(l', r') = omega^-1(y); r = sigma^-1(r') * psi(l') with psi = phi^-1
    (phi is never 0, so r = 0 exactly where sigma^-1(r') = 0);
    l = nu1^-1(l') * r ^ (~o & nu0^-1(l')) (the product is 0 where r = 0);
    pi^-1(y) = alpha^-1(l || r)."""
    c = Circuit()
    y = c.bitmat(bitmat_inverse(DEC_OMEGA), c.inputs)
    r1, l1 = y[0:4], y[4:8]
    a = c.sbox4_found("sigma_inv", r1)
    a_plain = [c.plain(w) for w in a]
    o = c.or_(c.or_(a_plain[0], a_plain[1]), c.or_(a_plain[2], a_plain[3]))
    r = c.gf16_mul_n([(w, 0) for w in a_plain], c.sbox4_found("psi", l1))
    prod = c.gf16_mul_n(c.sbox4_found("nu1_inv", l1), r)
    h = c.sbox4_found("nu0_inv", l1)
    l = [c.select_zero(o, prod[k], h[k]) for k in range(4)]
    out = c.bitmat_n(bitmat_inverse(DEC_ALPHA), r + l)
    return c.emit(out, PI_INV, "kuz_sbox_inv")


def c_u64_rows(rows, indent="  "):
    out = []
    for row in rows:
        out.append(indent + "{" + ", ".join("0x%016xULL" % v for v in row) + "},")
    return "\n".join(out)


def main():
    M = matrix(L)
    Minv = matrix(L_inv)
    # self-checks against the standard's examples (RFC 7801 section 5)
    h = bytes.fromhex
    assert L(list(h("64a59400000000000000000000000000"))) == list(h("d456584dd0e3e84cc3166e4b7fa2890d"))
    assert [PI[v] for v in h("ffeeddccbbaa99881122334455667700")] == list(h("b66cd8887d38e8d77765aeea0c9a7efc"))
    x = list(range(3, 19))
    assert apply_matrix(M, x) == L(x) and apply_matrix(Minv, L(x)) == x
    consts = []
    for i in range(1, 33):
        consts.append(L([0] * 15 + [i]))
    assert bytes(consts[0]).hex() == "6ea276726c487ab85d27bd10dd849401"

    assert all(decomposed_pi(v) == PI[v] for v in range(256))
    fwd_src = sbox_fwd_circuit()
    inv_src = sbox_inv_circuit()

    # The header holds what has to be seen by the compiler in each includer
    # (macros, inline wrappers, extern declarations); the data is defined once
    # in kuz_tables.c instead of being copied into every file that includes it.
    h, c = [], []
    h.append("/* generated by scripts/gen_kuz_tables.py, do not edit.")
    h.append(" * Kuznyechik (GOST R 34.12-2015) bit-plane circuits and constants for the")
    h.append(" * constant-time portable core; see the script for the layout. The tables")
    h.append(" * are defined in kuz_tables.c. */")
    h.append("#ifndef GOSTX_KUZ_TABLES_H")
    h.append("#define GOSTX_KUZ_TABLES_H")
    h.append("")
    h.append("#include <stdint.h>")
    h.append("")
    h.append("/* ~a & b in the circuits below. A vector file defines KUZ_ANDN as its andnot")
    h.append(" * intrinsic before including this header: written as ~a & b, GCC computes a")
    h.append(" * NOT once for a value negated in several gates and ANDs it, ~5 % more")
    h.append(" * instructions per S-box than one vpandn per gate. kuz_andn_u64 serves the")
    h.append(" * uint64_t instances below in such a file's _Generic. */")
    h.append("#ifndef KUZ_ANDN")
    h.append("#define KUZ_ANDN(a, b) (~(a) & (b))")
    h.append("#endif")
    h.append("static inline uint64_t kuz_andn_u64(uint64_t a, uint64_t b) { return ~a & b; }")
    h.append("")
    h.append("/* pi on eight bit planes (plane b = bit b of every byte lane). */")
    h.append(fwd_src)
    h.append("/* pi^-1 on eight bit planes. */")
    h.append(inv_src)
    lines, xors, cost = lstep_program()
    h.append("/* One R step of L on bit planes, for the vector files' window in memory:")
    h.append(" * D(j) = plane j of l = sum_i c_i x_i, with X(i, b) plane b of window byte i")
    h.append(" * (c_i = %s)." % ", ".join(str(v) for v in LC))
    h.append(" * %d XORs (Paar's heuristic, seed %d), ordered for 16 vector registers" % (xors, LSTEP_SEED))
    h.append(" * (~%d instructions in the scheduler's model). W: the word type. */" % cost)
    h.append("#define KUZ_LSTEP_W(W, X, D) \\")
    h.append("  do { \\")
    for ln in lines:
        h.append("    %s \\" % ln)
    h.append("  } while (0)")
    h.append("")

    c.append("/* generated by scripts/gen_kuz_tables.py, do not edit.")
    c.append(" * The Kuznyechik tables declared in kuz_tables.h. */")
    c.append('#include "kuz_tables.h"')

    def table(ctype, name, dims, rows, comment=None):
        """The declaration (with its comment) to the header, the data to the .c."""
        if comment:
            h.extend(comment)
        h.append("extern const %s %s%s;" % (ctype, name, dims))
        c.append("const %s %s%s = {" % (ctype, name, dims))
        c.extend(rows)
        c.append("};")

    def u64_rows(rows):
        return c_u64_rows(rows).split("\n")

    c.append("")
    table("uint64_t", "gostx__kuz_lmask_fwd", "[16][8]", u64_rows(lmasks(M)), [
        "/* L as 16 diagonals: mask[d][k] has bit j set when bit k of the",
        " * coefficient of byte j in output byte (j - d) mod 16 is set. */"])
    table("uint64_t", "gostx__kuz_lmask_inv", "[16][8]", u64_rows(lmasks(Minv)))
    h.append("")
    c.append("")
    comment = [
        "/* Columns of L and L^-1 over GF(2): entry 8*j + b is the image of the",
        " * string with only bit b of byte j set, as two little-endian words",
        " * (bytes 0..7, bytes 8..15). */"]
    for nm, f in (("fwd", L), ("inv", L_inv)):
        rows = []
        for j in range(16):
            for b in range(8):
                e = [0] * 16
                e[j] = 1 << b
                y = f(e)
                rows.append([int.from_bytes(bytes(y[:8]), "little"),
                             int.from_bytes(bytes(y[8:]), "little")])
        table("uint64_t", "gostx__kuz_lcol_%s" % nm, "[128][2]", u64_rows(rows), comment)
        comment = None
    h.append("")
    c.append("")
    comment = [
        "/* For table-driven fast paths (not used by the portable core): pi, pi^-1",
        " * and L, L^-1 as 16x16 matrices over GF(2^8): L(x)_i = sum_j M[i][j] x_j. */"]
    for nm, t in (("pi", PI), ("pi_inv", PI_INV)):
        rows = ["  " + ", ".join("0x%02x" % v for v in t[r:r + 16]) + "," for r in range(0, 256, 16)]
        table("uint8_t", "gostx__kuz_%s" % nm, "[256]", rows, comment)
        comment = None
    for nm, m in (("fwd", M), ("inv", Minv)):
        rows = ["  {" + ", ".join("0x%02x" % v for v in row) + "}," for row in m]
        table("uint8_t", "gostx__kuz_lmatrix_%s" % nm, "[16][16]", rows)
    h.append("")
    c.append("")
    rows = ["  {" + ", ".join("0x%02x" % v for v in cv) + "}," for cv in consts]
    table("uint8_t", "gostx__kuz_c", "[32][16]", rows,
          ["/* Iteration constants C_1..C_32 = L(Vec128(i)) as byte strings. */"])
    h.append("")
    h.append("#endif")

    import os
    out_dir = sys.argv[1] if len(sys.argv) == 2 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "lib", "kuznyechik")
    for name, text in (("kuz_tables.h", h), ("kuz_tables.c", c)):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write("\n".join(text) + "\n")

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--lstep-search":
        lstep_search(int(sys.argv[2]))
    else:
        main()
