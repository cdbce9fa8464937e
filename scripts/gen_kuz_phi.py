#!/usr/bin/env python3
"""Find the field isomorphism that lib/kuznyechik/kuz_avx512.c uses, and
print it as GFNI matrices (docs/KUZNYECHIK.md, "AVX-512").

Kuznyechik multiplies in GF(2^8) = GF(2)[t]/(t^8 + t^7 + t^6 + t + 1)
(0x1C3); GFNI's gf2p8mulb reduces by the AES polynomial x^8 + x^4 + x^3 + x + 1
(0x11B). Both are GF(2^8), so an isomorphism phi exists: phi(t) = beta for a
root beta of t^8 + t^7 + t^6 + t + 1 in the AES field, and phi is GF(2)-linear
(phi(sum b_k t^k) = sum b_k beta^k), i.e. an 8x8 bit matrix that
gf2p8affineqb applies to every byte. There are eight roots (beta^(2^m)); the
smallest byte value is taken. The script checks phi(a*b) = phi(a)*phi(b) and
phi^-1(phi(a)) = a on all inputs before printing.

gf2p8affineqb's matrix operand: output bit i of a byte is the parity of
(byte 7-i of the 64-bit matrix) AND (input byte).

Usage: python3 scripts/gen_kuz_phi.py
"""


def mul(a, b, poly):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= poly
    return r


def power(a, n, poly):
    r = 1
    for _ in range(n):
        r = mul(r, a, poly)
    return r


KUZ, AES = 0x1C3, 0x11B


def is_root(beta):
    # t^8 + t^7 + t^6 + t + 1 evaluated at beta in the AES field
    v = 0
    for k in (8, 7, 6, 1, 0):
        v ^= power(beta, k, AES)
    return v == 0


def columns_to_apply(cols):
    """A linear byte map from the images of bits 0..7."""
    def f(x):
        r = 0
        for k in range(8):
            if x >> k & 1:
                r ^= cols[k]
        return r
    return f


def gfni_qword(f):
    """The gf2p8affineqb matrix of the linear byte map f."""
    q = 0
    for i in range(8):  # output bit i
        row = 0
        for k in range(8):  # input bit k
            if f(1 << k) >> i & 1:
                row |= 1 << k
        q |= row << (8 * (7 - i))
    return q


def main():
    roots = [b for b in range(256) if is_root(b)]
    assert len(roots) == 8, roots
    beta = roots[0]
    phi = columns_to_apply([power(beta, k, AES) for k in range(8)])
    image = [phi(x) for x in range(256)]
    assert sorted(image) == list(range(256))
    inv = [0] * 256
    for x, y in enumerate(image):
        inv[y] = x
    phi_inv = columns_to_apply([inv[1 << k] for k in range(8)])
    for a in range(256):
        assert phi_inv(phi(a)) == a
        for b in range(256):
            assert phi(mul(a, b, KUZ)) == mul(phi(a), phi(b), AES)
    print("roots of t^8+t^7+t^6+t+1 in the AES field:", " ".join("0x%02x" % r for r in roots))
    print("beta = phi(t) = 0x%02x" % beta)
    print("phi     images of bits 0..7:", " ".join("0x%02x" % phi(1 << k) for k in range(8)))
    print("phi^-1  images of bits 0..7:", " ".join("0x%02x" % phi_inv(1 << k) for k in range(8)))
    print("gf2p8affineqb matrix of phi:    0x%016x" % gfni_qword(phi))
    print("gf2p8affineqb matrix of phi^-1: 0x%016x" % gfni_qword(phi_inv))


if __name__ == "__main__":
    main()
