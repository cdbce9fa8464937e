/* GOST 28147-89 S-box parameter sets, once, as an X-macro:
 * GOSTX_MAGMA_SBOX_SETS(X) calls X(id, row0, ..., row7) for each set, id the
 * value of its GOSTX_SBOX_* constant (cipher.h) and each row a packed
 * uint64_t constant expression (entry j in bits 4j..4j+3). lib/magma/sbox.c
 * makes the library's table of it; the GPU's bitsliced Magma (lib/gpu)
 * builds its S-box circuits from the same constants at compile time.
 *
 * Values: RFC 4357 section 11.2 (CryptoPro A/B/C/D, GOST R 34.11-94 test set)
 * and RFC 7836 / RFC 8891 section 4.1 (id-tc26-gost-28147-param-Z, Magma's
 * pi'_0..pi'_7); cross-checked against a second published copy (pygost's
 * table) and, for Z, A and the test set, against known-answer vectors in
 * tests/test_magma.c and tests/test_gost89.c. id-Gost28147-89-TestParamSet
 * and id-GostR3411-94-CryptoProParamSet: RFC 4357 sections 11.2 and 11.1,
 * checked against gost-engine's tables and its outputs (CRYPT_PARAMS
 * 1.2.643.2.2.31.0 in tests/test_gost89_openssl.sh, md_gost94 in
 * tests/test_gost94_openssl.sh). Row i is pi_i, applied to
 * nibble i of the 32-bit word (row 0 = least significant nibble). */
#ifndef GOSTX_MAGMA_SBOX_SETS_H
#define GOSTX_MAGMA_SBOX_SETS_H

#define GOSTX_MAGMA_P(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p)                         \
  ((uint64_t)(a) | (uint64_t)(b) << 4 | (uint64_t)(c) << 8 | (uint64_t)(d) << 12 |         \
   (uint64_t)(e) << 16 | (uint64_t)(f) << 20 | (uint64_t)(g) << 24 | (uint64_t)(h) << 28 | \
   (uint64_t)(i) << 32 | (uint64_t)(j) << 36 | (uint64_t)(k) << 40 | (uint64_t)(l) << 44 | \
   (uint64_t)(m) << 48 | (uint64_t)(n) << 52 | (uint64_t)(o) << 56 | (uint64_t)(p) << 60)

#define GOSTX_MAGMA_SBOX_SETS(X) \
  X(0 /* GOSTX_SBOX_TC26_Z */, \
    GOSTX_MAGMA_P(12, 4, 6, 2, 10, 5, 11, 9, 14, 8, 13, 7, 0, 3, 15, 1), \
    GOSTX_MAGMA_P(6, 8, 2, 3, 9, 10, 5, 12, 1, 14, 4, 7, 11, 13, 0, 15), \
    GOSTX_MAGMA_P(11, 3, 5, 8, 2, 15, 10, 13, 14, 1, 7, 4, 12, 9, 6, 0), \
    GOSTX_MAGMA_P(12, 8, 2, 1, 13, 4, 15, 6, 7, 0, 10, 5, 3, 14, 9, 11), \
    GOSTX_MAGMA_P(7, 15, 5, 10, 8, 1, 6, 13, 0, 9, 3, 14, 11, 4, 2, 12), \
    GOSTX_MAGMA_P(5, 13, 15, 6, 9, 2, 12, 10, 11, 7, 8, 1, 4, 3, 14, 0), \
    GOSTX_MAGMA_P(8, 14, 2, 5, 6, 9, 1, 12, 15, 4, 11, 0, 13, 10, 3, 7), \
    GOSTX_MAGMA_P(1, 7, 14, 13, 0, 5, 8, 3, 4, 15, 10, 6, 9, 12, 11, 2)) \
  X(1 /* GOSTX_SBOX_CRYPTOPRO_A */, \
    GOSTX_MAGMA_P(9, 6, 3, 2, 8, 11, 1, 7, 10, 4, 14, 15, 12, 0, 13, 5), \
    GOSTX_MAGMA_P(3, 7, 14, 9, 8, 10, 15, 0, 5, 2, 6, 12, 11, 4, 13, 1), \
    GOSTX_MAGMA_P(14, 4, 6, 2, 11, 3, 13, 8, 12, 15, 5, 10, 0, 7, 1, 9), \
    GOSTX_MAGMA_P(14, 7, 10, 12, 13, 1, 3, 9, 0, 2, 11, 4, 15, 8, 5, 6), \
    GOSTX_MAGMA_P(11, 5, 1, 9, 8, 13, 15, 0, 14, 4, 2, 3, 12, 7, 10, 6), \
    GOSTX_MAGMA_P(3, 10, 13, 12, 1, 2, 0, 11, 7, 5, 9, 4, 8, 15, 14, 6), \
    GOSTX_MAGMA_P(1, 13, 2, 9, 7, 10, 6, 0, 8, 12, 4, 5, 15, 3, 11, 14), \
    GOSTX_MAGMA_P(11, 10, 15, 5, 0, 12, 14, 8, 6, 2, 3, 9, 1, 7, 13, 4)) \
  X(2 /* GOSTX_SBOX_CRYPTOPRO_B */, \
    GOSTX_MAGMA_P(8, 4, 11, 1, 3, 5, 0, 9, 2, 14, 10, 12, 13, 6, 7, 15), \
    GOSTX_MAGMA_P(0, 1, 2, 10, 4, 13, 5, 12, 9, 7, 3, 15, 11, 8, 6, 14), \
    GOSTX_MAGMA_P(14, 12, 0, 10, 9, 2, 13, 11, 7, 5, 8, 15, 3, 6, 1, 4), \
    GOSTX_MAGMA_P(7, 5, 0, 13, 11, 6, 1, 2, 3, 10, 12, 15, 4, 14, 9, 8), \
    GOSTX_MAGMA_P(2, 7, 12, 15, 9, 5, 10, 11, 1, 4, 0, 13, 6, 8, 14, 3), \
    GOSTX_MAGMA_P(8, 3, 2, 6, 4, 13, 14, 11, 12, 1, 7, 15, 10, 0, 9, 5), \
    GOSTX_MAGMA_P(5, 2, 10, 11, 9, 1, 12, 3, 7, 4, 13, 0, 6, 15, 8, 14), \
    GOSTX_MAGMA_P(0, 4, 11, 14, 8, 3, 7, 1, 10, 2, 9, 6, 15, 13, 5, 12)) \
  X(3 /* GOSTX_SBOX_CRYPTOPRO_C */, \
    GOSTX_MAGMA_P(1, 11, 12, 2, 9, 13, 0, 15, 4, 5, 8, 14, 10, 7, 6, 3), \
    GOSTX_MAGMA_P(0, 1, 7, 13, 11, 4, 5, 2, 8, 14, 15, 12, 9, 10, 6, 3), \
    GOSTX_MAGMA_P(8, 2, 5, 0, 4, 9, 15, 10, 3, 7, 12, 13, 6, 14, 1, 11), \
    GOSTX_MAGMA_P(3, 6, 0, 1, 5, 13, 10, 8, 11, 2, 9, 7, 14, 15, 12, 4), \
    GOSTX_MAGMA_P(8, 13, 11, 0, 4, 5, 1, 2, 9, 3, 12, 14, 6, 15, 10, 7), \
    GOSTX_MAGMA_P(12, 9, 11, 1, 8, 14, 2, 4, 7, 3, 6, 5, 10, 0, 15, 13), \
    GOSTX_MAGMA_P(10, 9, 6, 8, 13, 14, 2, 0, 15, 3, 5, 11, 4, 1, 12, 7), \
    GOSTX_MAGMA_P(7, 4, 0, 5, 10, 2, 15, 14, 12, 6, 1, 11, 13, 9, 3, 8)) \
  X(4 /* GOSTX_SBOX_CRYPTOPRO_D */, \
    GOSTX_MAGMA_P(15, 12, 2, 10, 6, 4, 5, 0, 7, 9, 14, 13, 1, 11, 8, 3), \
    GOSTX_MAGMA_P(11, 6, 3, 4, 12, 15, 14, 2, 7, 13, 8, 0, 5, 10, 9, 1), \
    GOSTX_MAGMA_P(1, 12, 11, 0, 15, 14, 6, 5, 10, 13, 4, 8, 9, 3, 7, 2), \
    GOSTX_MAGMA_P(1, 5, 14, 12, 10, 7, 0, 13, 6, 2, 11, 4, 9, 3, 15, 8), \
    GOSTX_MAGMA_P(0, 12, 8, 9, 13, 2, 10, 11, 7, 3, 6, 5, 4, 14, 15, 1), \
    GOSTX_MAGMA_P(8, 0, 15, 3, 2, 5, 14, 11, 1, 10, 4, 7, 12, 9, 13, 6), \
    GOSTX_MAGMA_P(3, 0, 6, 15, 1, 14, 9, 2, 13, 8, 12, 4, 11, 10, 5, 7), \
    GOSTX_MAGMA_P(1, 10, 6, 8, 15, 11, 0, 4, 12, 3, 5, 9, 7, 13, 2, 14)) \
  X(5 /* GOSTX_SBOX_TEST_3411_94 */, \
    GOSTX_MAGMA_P(4, 10, 9, 2, 13, 8, 0, 14, 6, 11, 1, 12, 7, 15, 5, 3), \
    GOSTX_MAGMA_P(14, 11, 4, 12, 6, 13, 15, 10, 2, 3, 8, 1, 0, 7, 5, 9), \
    GOSTX_MAGMA_P(5, 8, 1, 13, 10, 3, 4, 2, 14, 15, 12, 7, 6, 0, 9, 11), \
    GOSTX_MAGMA_P(7, 13, 10, 1, 0, 8, 9, 15, 14, 4, 6, 12, 11, 2, 5, 3), \
    GOSTX_MAGMA_P(6, 12, 7, 1, 5, 15, 13, 8, 4, 10, 9, 14, 0, 3, 11, 2), \
    GOSTX_MAGMA_P(4, 11, 10, 0, 7, 2, 1, 13, 3, 6, 8, 5, 9, 12, 15, 14), \
    GOSTX_MAGMA_P(13, 11, 4, 1, 3, 15, 5, 9, 0, 10, 14, 7, 6, 8, 2, 12), \
    GOSTX_MAGMA_P(1, 15, 13, 0, 5, 7, 10, 4, 9, 2, 3, 14, 6, 11, 8, 12)) \
  X(6 /* GOSTX_SBOX_TEST_28147 */, \
    GOSTX_MAGMA_P(4, 2, 15, 5, 9, 1, 0, 8, 14, 3, 11, 12, 13, 7, 10, 6), \
    GOSTX_MAGMA_P(12, 9, 15, 14, 8, 1, 3, 10, 2, 7, 4, 13, 6, 0, 11, 5), \
    GOSTX_MAGMA_P(13, 8, 14, 12, 7, 3, 9, 10, 1, 5, 2, 4, 6, 15, 0, 11), \
    GOSTX_MAGMA_P(14, 9, 11, 2, 5, 15, 7, 1, 0, 13, 12, 6, 10, 4, 3, 8), \
    GOSTX_MAGMA_P(3, 14, 5, 9, 6, 8, 0, 13, 10, 11, 7, 12, 2, 1, 15, 4), \
    GOSTX_MAGMA_P(8, 15, 6, 11, 1, 9, 12, 5, 13, 3, 7, 10, 0, 14, 2, 4), \
    GOSTX_MAGMA_P(9, 11, 12, 0, 3, 6, 7, 5, 4, 8, 14, 15, 1, 10, 2, 13), \
    GOSTX_MAGMA_P(12, 6, 5, 2, 11, 0, 9, 13, 3, 14, 7, 10, 15, 4, 1, 8)) \
  X(7 /* GOSTX_SBOX_CRYPTOPRO_3411_94 */, \
    GOSTX_MAGMA_P(10, 4, 5, 6, 8, 1, 3, 7, 13, 12, 14, 0, 9, 2, 11, 15), \
    GOSTX_MAGMA_P(5, 15, 4, 0, 2, 13, 11, 9, 1, 7, 6, 3, 12, 14, 10, 8), \
    GOSTX_MAGMA_P(7, 15, 12, 14, 9, 4, 1, 0, 3, 11, 5, 2, 6, 10, 8, 13), \
    GOSTX_MAGMA_P(4, 10, 7, 12, 0, 15, 2, 8, 14, 1, 6, 5, 13, 11, 9, 3), \
    GOSTX_MAGMA_P(7, 6, 4, 11, 9, 12, 2, 10, 1, 8, 0, 14, 15, 13, 3, 5), \
    GOSTX_MAGMA_P(7, 6, 2, 4, 13, 9, 15, 0, 10, 1, 5, 11, 8, 14, 12, 3), \
    GOSTX_MAGMA_P(13, 14, 4, 1, 7, 0, 5, 10, 3, 12, 8, 15, 6, 2, 9, 11), \
    GOSTX_MAGMA_P(1, 3, 10, 9, 5, 11, 4, 15, 8, 6, 7, 14, 13, 0, 2, 12))

#endif
