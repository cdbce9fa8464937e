/* Kuznyechik internals shared by the portable core, the key schedule, future
 * ISA files and the tests. Not installed.
 *
 * Byte order: a 16-byte string is the standard's a_15||...||a_0 read left to
 * right, so byte[0] = a_15 is the most significant byte (RFC 7801). */
#ifndef GOSTX_KUZ_IMPL_H
#define GOSTX_KUZ_IMPL_H

#include "internal.h"

/* The transforms of GOST R 34.12-2015 on one 16-byte string, constant time.
 * out may equal in. */
void gostx__kuz_S(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_S_inv(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_R(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_R_inv(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_L(uint8_t out[16], const uint8_t in[16]);
void gostx__kuz_L_inv(uint8_t out[16], const uint8_t in[16]);

/* Iteration constant C_i = L(Vec128(i)), i = 1..32; out is zeroed for other i. */
void gostx__kuz_C(uint8_t out[16], unsigned i);

/* The portable block functions (the dispatcher's always-usable row). They
 * read only k->ek; k->dk holds L^-1(K_1)..L^-1(K_10) for table-driven fast
 * paths (S^-1 L^-1 X[K] = S^-1 X[L^-1 K] L^-1), filled by gostx_kuz_set_key.
 * Constant-time circuits, masks and the generated tables of kuz_tables.h
 * (scripts/gen_kuz_tables.py: pi, pi^-1, L as GF(2^8) matrices, ...) can be
 * shared with the ISA files. */
void gostx__kuz_portable_encrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks);
void gostx__kuz_portable_decrypt(const gostx_kuz_key *k, const uint8_t *in, uint8_t *out,
                                 size_t nblocks);

/* Key schedule core (portable, constant time): K1..K10 from the 32-byte key. */
void gostx__kuz_expand(uint8_t rk[10][16], const uint8_t key[32]);
/* GF(2^8) product mod x^8 + x^7 + x^6 + x + 1, for building tables of public
 * constants at start-up (it branches on its operands: never call it on secrets). */
uint8_t gostx__kuz_gf_mul(uint8_t a, uint8_t b);

#endif
