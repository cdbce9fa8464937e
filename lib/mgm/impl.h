/* MGM internals shared by the mode, its ISA files, the bulk engine and the
 * tests: the constant-time field multiplications, the two counter starts and
 * the multiply-accumulate tables. Not installed. */
#ifndef GOSTX_MGM_IMPL_H
#define GOSTX_MGM_IMPL_H

#include "internal.h"

/* r = a * b in GF(2^128) mod x^128 + x^7 + x^2 + x + 1; blocks are big-endian
 * numbers (byte 0 holds the coefficients of x^127..x^120). r may alias a or b. */
void gostx__mgm_gf128_mul(uint8_t r[16], const uint8_t a[16], const uint8_t b[16]);
/* r = a * b in GF(2^64) mod x^64 + x^4 + x^3 + x + 1, same conventions. */
void gostx__mgm_gf64_mul(uint8_t r[8], const uint8_t a[8], const uint8_t b[8]);

/* Y1 = E(0 || nonce) and Z1 = E(1 || nonce) (n = block length bytes each).
 * Same argument checks as gostx_mgm_init. */
int gostx__mgm_y1z1(const gostx_cipher *c, const uint8_t *nonce, size_t nonce_len, uint8_t *y1,
                    uint8_t *z1);

/* For the bulk engine (lib/bulk/mgm_mt.c): nblocks full blocks starting at
 * the counters y and z (both advanced past them). crypt: out = in xor E(Y_i);
 * hash: sum ^= H_i (x) ciphertext block (out when encrypting, in when
 * decrypting or hashing only). The same core as the one-shot and streaming
 * calls; in and out may be equal; out unused when !crypt. */
void gostx__mgm_blocks(const gostx_cipher *c, int decrypt, uint8_t *y, uint8_t *z, uint8_t *sum,
                       const uint8_t *in, uint8_t *out, size_t nblocks, int crypt, int hash);

/* One message of gostx__mgm_many: the one-shot calls' arguments, the nonce
 * n bytes. tag: written when sealing, checked when opening (then read
 * only). status: set by the call, GOSTX_OK, GOSTX_EAUTH (open: nothing
 * written to out) or an argument error as the one-shot calls return. */
struct gostx__mgm_msg {
  const uint8_t *nonce, *aad;
  size_t aad_len;
  const uint8_t *in;
  size_t len;
  uint8_t *out, *tag;
  int status;
};
/* gostx_mgm_encrypt (decrypt 0) or gostx_mgm_decrypt (1) of count messages
 * under c, all with tags of tag_len bytes: what one call per message
 * computes, with the cipher calls of the short messages shared (lib/esp's
 * bursts: a packet costs its blocks, not a call's set-up). */
void gostx__mgm_many(const gostx_cipher *c, int decrypt, struct gostx__mgm_msg *m, size_t count,
                     size_t tag_len);

/* ---- Implementation table (filled by lib/dispatch.c) ---- */
/* MGM's multiply-accumulate: acc ^= sum_{i<nblocks} H_i (x) X_i in GF(2^128)
 * (mul_acc128, 16-byte blocks) or GF(2^64) (mul_acc64, 8-byte blocks), every
 * value a big-endian block as in RFC 9058; h and x hold nblocks blocks each,
 * any alignment. nblocks may be 0. */
struct gostx_mgm_impl {
  const char *name;
  void (*mul_acc128)(uint8_t acc[16], const uint8_t *h, const uint8_t *x, size_t nblocks);
  void (*mul_acc64)(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks);
};

/* The ISA tables (lib/mgm/mgm_*.c); lib/dispatch.c chooses. */
extern const struct gostx_mgm_impl gostx_mgm_portable;
#ifdef GOSTX_ARCH_X86_64
extern const struct gostx_mgm_impl gostx_mgm_clmul;   /* PCLMULQDQ + SSSE3 */
extern const struct gostx_mgm_impl gostx_mgm_vpclmul; /* VPCLMULQDQ + AVX2 */
extern const struct gostx_mgm_impl gostx_mgm_avx512;  /* VPCLMULQDQ on 512-bit registers */
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_mgm_impl gostx_mgm_neon; /* PMULL, lib/mgm/mgm_neon.c */
#endif

#endif
