#!/usr/bin/env python3
"""Search a GF(2^8) basis for the AVX2 one-block Kuznyechik L (lib/kuznyechik/kuz_avx2.c).

The narrow kernel computes L(x) (or L^-1(x)) as the sum, over output byte i,
input byte j and basis element k with bit k set in the coordinates of M[i][j],
of x_j * beta_k moved to byte i. One vpshufb moves one term into every output
byte, so basis element k costs as many shuffles as the most terms any output
byte has for it, w_k. The eight products sit in four ymm registers, two per
register (one per 128-bit half), so a pair costs max(w_a, w_b) shuffles; the
script pairs the w in sorted order and minimises the sum by hill climbing from
random starts (seeded, so the output repeats). Any basis gives the same bytes;
only the shuffle count changes (over 1, 2, 4, .., 128 it is 50 a round).

Prints the basis and the per-pair shuffle counts to put in kuz_l_basis and
kuz_n_sel. Usage: python3 scripts/kuz_l_basis.py [restarts]
"""
import random
import sys

POLY = 0x1C3  # x^8 + x^7 + x^6 + x + 1
LC = [148, 32, 133, 16, 194, 192, 1, 251, 1, 192, 194, 16, 133, 32, 148, 1]


def gmul(a, b):
    p = 0
    for _ in range(8):
        if b & 1:
            p ^= a
        b >>= 1
        a = ((a << 1) ^ (POLY if a & 0x80 else 0)) & 0xFF
    return p


def r_step(s):
    """R on bytes in memory order (byte 0 is a_15 of the standard)."""
    x = 0
    for c, v in zip(LC, s):
        x ^= gmul(v, c)
    return [x] + s[:15]


def r_inv_step(t):
    s = t[1:]
    x = t[0]
    for c, v in zip(LC[:15], s):
        x ^= gmul(v, c)
    return s + [x]


def matrix(step):
    """M[i][j]: the coefficient of input byte j in output byte i of step^16."""
    m = [[0] * 16 for _ in range(16)]
    for j in range(16):
        v = [0] * 16
        v[j] = 1
        for _ in range(16):
            v = step(v)
        for i in range(16):
            m[i][j] = v[i]
    return m


def cost(m, basis):
    """Shuffles for this basis (None if it does not span), and the w_k sorted."""
    coord = {}
    for c in range(256):
        v = 0
        for k in range(8):
            if c >> k & 1:
                v ^= basis[k]
        coord[v] = c
    if len(coord) < 256:
        return None
    w = sorted((max(sum(coord[m[i][j]] >> k & 1 for j in range(16)) for i in range(16))
                for k in range(8)), reverse=True)
    return sum(w[0::2]), w


def search(m, restarts, rng):
    best = None
    for r in range(restarts):
        basis = [1 << k for k in range(8)] if r == 0 else [rng.randrange(1, 256) for _ in range(8)]
        while cost(m, basis) is None:
            basis = [rng.randrange(1, 256) for _ in range(8)]
        score = lambda b: (lambda c: None if c is None else c[0] + sum(c[1]) / 1000)(cost(m, b))
        cur = score(basis)
        improved = True
        while improved:
            improved = False
            for k in range(8):
                for v in range(1, 256):
                    cand = basis[:k] + [v] + basis[k + 1:]
                    s = score(cand)
                    if s is not None and s < cur:
                        basis, cur, improved = cand, s, True
        if best is None or cur < best[0]:
            best = (cur, basis)
    return best[1]


def main():
    restarts = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(1)
    for name, step in (("L", r_step), ("L^-1", r_inv_step)):
        m = matrix(step)
        std = cost(m, [1 << k for k in range(8)])
        basis = search(m, restarts, rng)
        total, w = cost(m, basis)
        pairs = [max(w[2 * s], w[2 * s + 1]) for s in range(4)]
        print(f"{name}: basis {{{', '.join(map(str, basis))}}}, shuffles per pair "
              f"{{{', '.join(map(str, pairs))}}} = {total} (standard basis: {std[0]})")


if __name__ == "__main__":
    main()
