#!/usr/bin/env python3
"""Generate lib/streebog/streebog_tables.h from the constants of
GOST R 34.11-2012 (RFC 6986 section 6): the S-box pi, the byte permutation
tau, the 64x64 binary matrix A and the twelve iteration constants C_1..C_12.

The output holds
  gostx_streebog_lps[8][256]: the fused S, P and L steps. For a state given
      as eight little-endian 64-bit words x[0..7], word j of LPS(x) is
      XOR over k of lps[k][byte j of x[k]].
  gostx_streebog_c[12][8]: C_1..C_12 as little-endian 64-bit words.
  gostx_streebog_affine[8][8], gostx_streebog_ct[12][8]: the table-free
      AVX-512 compression's constants (lib/streebog/streebog_avx512.c): L
      split into 8x8 bit matrices in GF2P8AFFINEQB's operand format, and
      C_1..C_12 in that code's transposed state layout (see avx512_consts).

Usage: python3 scripts/gen_streebog_tables.py > lib/streebog/streebog_tables.h
"""
import sys

# pi (RFC 6986 section 6.2), the same S-box as Kuznyechik's: scripts/gost_pi.py.
from gost_pi import PI

# tau (RFC 6986 section 6.3): the transpose of an 8x8 byte matrix.
TAU = [(i % 8) * 8 + i // 8 for i in range(64)]

# A (RFC 6986 section 6.4): row i is multiplied by bit 63-i of the input.
A = [
    0x8e20faa72ba0b470, 0x47107ddd9b505a38, 0xad08b0e0c3282d1c, 0xd8045870ef14980e,
    0x6c022c38f90a4c07, 0x3601161cf205268d, 0x1b8e0b0e798c13c8, 0x83478b07b2468764,
    0xa011d380818e8f40, 0x5086e740ce47c920, 0x2843fd2067adea10, 0x14aff010bdd87508,
    0x0ad97808d06cb404, 0x05e23c0468365a02, 0x8c711e02341b2d01, 0x46b60f011a83988e,
    0x90dab52a387ae76f, 0x486dd4151c3dfdb9, 0x24b86a840e90f0d2, 0x125c354207487869,
    0x092e94218d243cba, 0x8a174a9ec8121e5d, 0x4585254f64090fa0, 0xaccc9ca9328a8950,
    0x9d4df05d5f661451, 0xc0a878a0a1330aa6, 0x60543c50de970553, 0x302a1e286fc58ca7,
    0x18150f14b9ec46dd, 0x0c84890ad27623e0, 0x0642ca05693b9f70, 0x0321658cba93c138,
    0x86275df09ce8aaa8, 0x439da0784e745554, 0xafc0503c273aa42a, 0xd960281e9d1d5215,
    0xe230140fc0802984, 0x71180a8960409a42, 0xb60c05ca30204d21, 0x5b068c651810a89e,
    0x456c34887a3805b9, 0xac361a443d1c8cd2, 0x561b0d22900e4669, 0x2b838811480723ba,
    0x9bcf4486248d9f5d, 0xc3e9224312c8c1a0, 0xeffa11af0964ee50, 0xf97d86d98a327728,
    0xe4fa2054a80b329c, 0x727d102a548b194e, 0x39b008152acb8227, 0x9258048415eb419d,
    0x492c024284fbaec0, 0xaa16012142f35760, 0x550b8e9e21f7a530, 0xa48b474f9ef5dc18,
    0x70a6a56e2440598e, 0x3853dc371220a247, 0x1ca76e95091051ad, 0x0edd37c48a08a6d8,
    0x07e095624504536c, 0x8d70c431ac02a736, 0xc83862965601dd1b, 0x641c314b2b8ee083,
]

# C_1..C_12 (RFC 6986 section 6.5) as printed: big-endian 512-bit numbers.
C_PRINTED = [
    "b1085bda1ecadae9ebcb2f81c0657c1f2f6a76432e45d016714eb88d7585c4fc"
    "4b7ce09192676901a2422a08a460d31505767436cc744d23dd806559f2a64507",
    "6fa3b58aa99d2f1a4fe39d460f70b5d7f3feea720a232b9861d55e0f16b50131"
    "9ab5176b12d699585cb561c2db0aa7ca55dda21bd7cbcd56e679047021b19bb7",
    "f574dcac2bce2fc70a39fc286a3d843506f15e5f529c1f8bf2ea7514b1297b7b"
    "d3e20fe490359eb1c1c93a376062db09c2b6f443867adb31991e96f50aba0ab2",
    "ef1fdfb3e81566d2f948e1a05d71e4dd488e857e335c3c7d9d721cad685e353f"
    "a9d72c82ed03d675d8b71333935203be3453eaa193e837f1220cbebc84e3d12e",
    "4bea6bacad4747999a3f410c6ca923637f151c1f1686104a359e35d7800fffbd"
    "bfcd1747253af5a3dfff00b723271a167a56a27ea9ea63f5601758fd7c6cfe57",
    "ae4faeae1d3ad3d96fa4c33b7a3039c02d66c4f95142a46c187f9ab49af08ec6"
    "cffaa6b71c9ab7b40af21f66c2bec6b6bf71c57236904f35fa68407a46647d6e",
    "f4c70e16eeaac5ec51ac86febf240954399ec6c7e6bf87c9d3473e33197a93c9"
    "0992abc52d822c3706476983284a05043517454ca23c4af38886564d3a14d493",
    "9b1f5b424d93c9a703e7aa020c6e41414eb7f8719c36de1e89b4443b4ddbc49a"
    "f4892bcb929b069069d18d2bd1a5c42f36acc2355951a8d9a47f0dd4bf02e71e",
    "378f5a541631229b944c9ad8ec165fde3a7d3a1b258942243cd955b7e00d0984"
    "800a440bdbb2ceb17b2b8a9aa6079c540e38dc92cb1f2a607261445183235adb",
    "abbedea680056f52382ae548b2e4f3f38941e71cff8a78db1fffe18a1b336103"
    "9fe76702af69334b7a1e6c303b7652f43698fad1153bb6c374b4c7fb98459ced",
    "7bcd9ed0efc889fb3002c6cd635afe94d8fa6bbbebab07612001802114846679"
    "8a1d71efea48b9caefbacd1d7d476e98dea2594ac06fd85d6bcaa4cd81f32d1b",
    "378ee767f11631bad21380b00449b17acda43c32bcdf1d77f82012d430219f9b"
    "5d80ef9d1891cc86e71da4aa88e12852faf417d5d9b21b9948bc924af11bd720",
]

MASK64 = (1 << 64) - 1


def l64(b):
    """l(b) for a 64-bit word: XOR of A[i] over the set bits 63-i of b."""
    r = 0
    for i in range(64):
        if (b >> (63 - i)) & 1:
            r ^= A[i]
    return r


def check_facts():
    assert sorted(PI) == list(range(256)), "pi is not a permutation"
    assert len(A) == 64 and len(C_PRINTED) == 12
    assert all(len(c) == 128 for c in C_PRINTED)
    # tau is an involution (a transpose), so P is its own inverse.
    assert all(TAU[TAU[i]] == i for i in range(64))


def lps_reference(state):
    """S, P and L step by step on 64 bytes (byte 0 = least significant)."""
    s = [PI[b] for b in state]
    p = [s[TAU[i]] for i in range(64)]
    out = []
    for j in range(8):
        w = int.from_bytes(bytes(p[8 * j:8 * j + 8]), "little")
        out += list(l64(w).to_bytes(8, "little"))
    return out


def transpose(v):
    """The transposed layout: byte 8q + p is byte q of word p (v: 64 bytes)."""
    return [v[8 * (i % 8) + i // 8] for i in range(64)]


def gf2p8affine_byte(aq, x):
    """One byte of GF2P8AFFINEQB with imm8 = 0, as the Intel SDM defines it:
    result bit i = parity(A.byte[7 - i] AND x), A the 64-bit matrix operand."""
    r = 0
    for i in range(8):
        r |= (bin((aq >> (8 * (7 - i))) & x & 0xff).count("1") & 1) << i
    return r


def avx512_consts():
    """L as 8 x 8 bit matrices B[k][j]: byte j of l(w) is XOR over k of
    B[k][j](byte k of w). Bit t of input byte k is bit 8k + t of w, which
    adds row A[63 - 8k - t]; so bit i of output byte j gets input bit t when
    bit 8j + i of A[63 - 8k - t] is set. GF2P8AFFINEQB takes output bit i's
    row mask from byte 7 - i of its 64-bit operand."""
    mats = []
    for k in range(8):
        row = []
        for j in range(8):
            q = 0
            for i in range(8):
                mask = 0
                for t in range(8):
                    if (A[63 - 8 * k - t] >> (8 * j + i)) & 1:
                        mask |= 1 << t
                q |= mask << (8 * (7 - i))
            row.append(q)
        mats.append(row)
    return mats


def avx512_lps_model(mats, yt):
    """LPS as streebog_avx512.c computes it, on a state in the transposed
    layout, returning the transposed result: S on every byte, then for each
    input word k a byte permute putting byte k of every word p at byte p of
    every qword j (qword j = output byte j), one GF2P8AFFINEQB with matrix
    B[k][j] in qword j, and the XOR of the eight products."""
    z = [PI[b] for b in yt]
    out = [0] * 64
    for k in range(8):
        bcast = [z[8 * (i % 8) + k] for i in range(64)]  # byte 8j + p <- byte 8p + k
        for i in range(64):
            out[i] ^= gf2p8affine_byte(mats[k][i // 8], bcast[i])
    return out


def main():
    check_facts()
    # Word j of P(S(x)) has, as its byte k, pi(x[8k + j]); L is linear, so
    # l(word j) = XOR_k l(pi(x[8k + j]) << 8k) = XOR_k T[k][x[8k + j]].
    tables = [[l64(PI[v] << (8 * k)) for v in range(256)] for k in range(8)]

    # Self-check the fused tables against the step-by-step definition.
    import random
    rng = random.Random(1)
    for _ in range(64):
        x = [rng.randrange(256) for _ in range(64)]
        want = lps_reference(x)
        got = []
        for j in range(8):
            w = 0
            for k in range(8):
                w ^= tables[k][x[8 * k + j]]
            got += list(w.to_bytes(8, "little"))
        assert got == want

    consts = []
    for c in C_PRINTED:
        v = int(c, 16)
        consts.append([(v >> (64 * j)) & MASK64 for j in range(8)])

    # The AVX-512 constants, and the model of that code against the definition.
    mats = avx512_consts()
    for _ in range(64):
        x = [rng.randrange(256) for _ in range(64)]
        assert avx512_lps_model(mats, transpose(x)) == transpose(lps_reference(x))
    consts_t = []
    for c in consts:
        cb = transpose(list(b"".join(w.to_bytes(8, "little") for w in c)))
        consts_t.append([int.from_bytes(bytes(cb[8 * q:8 * q + 8]), "little") for q in range(8)])

    w = sys.stdout.write

    def rows8(name, rows):
        """A C array of 8-word rows, four words a line."""
        w("static const uint64_t %s[%d][8] = {\n" % (name, len(rows)))
        for r in rows:
            w("  {" + ", ".join("0x%016xULL" % t for t in r[:4]) + ",\n")
            w("   " + ", ".join("0x%016xULL" % t for t in r[4:]) + "},\n")
        w("};\n\n")

    w("/* generated by scripts/gen_streebog_tables.py, do not edit.\n")
    w(" * Streebog (GOST R 34.11-2012) fused LPS tables and iteration constants.\n")
    w(" * Word j of LPS(x), x as eight little-endian 64-bit words, is\n")
    w(" * XOR_k gostx_streebog_lps[k][(x[k] >> 8j) & 0xff]. */\n")
    w("#ifndef GOSTX_STREEBOG_TABLES_H\n#define GOSTX_STREEBOG_TABLES_H\n\n")
    w("#include <stdint.h>\n\n")
    w("static const uint64_t gostx_streebog_lps[8][256] = {\n")
    for k in range(8):
        w("  {\n")
        for i in range(0, 256, 4):
            w("    " + ", ".join("0x%016xULL" % t for t in tables[k][i:i + 4]) + ",\n")
        w("  },\n")
    w("};\n\n")
    w("/* C_1..C_12, little-endian 64-bit words (word 0 = least significant). */\n")
    rows8("gostx_streebog_c", consts)
    w("/* For the table-free AVX-512 compression (streebog_avx512.c). The state is\n")
    w(" * held transposed: byte 8q + p of the vector is byte q of word p.\n")
    w(" * gostx_streebog_affine[k][j]: the 8x8 bit matrix giving byte j of l(w) from\n")
    w(" * byte k of w, as GF2P8AFFINEQB's operand (output bit i = parity(byte 7 - i\n")
    w(" * AND input)); l(w) byte j = XOR_k affine[k][j](byte k of w).\n")
    w(" * gostx_streebog_ct: C_1..C_12 in the transposed layout. */\n")
    rows8("gostx_streebog_affine", mats)
    rows8("gostx_streebog_ct", consts_t)
    w("#endif\n")


if __name__ == "__main__":
    main()
