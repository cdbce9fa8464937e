/* MGM internals shared by the mode, its ISA files and the tests: the
 * constant-time field multiplications and the multiply-accumulate tables
 * (the mode's own calls for the bulk engine: mgm_internal.h). Not installed. */
#ifndef GOSTX_MGM_IMPL_H
#define GOSTX_MGM_IMPL_H

#include "internal.h"

/* r = a * b in GF(2^128) mod x^128 + x^7 + x^2 + x + 1; blocks are big-endian
 * numbers (byte 0 holds the coefficients of x^127..x^120). r may alias a or b. */
void gostx__mgm_gf128_mul(uint8_t r[16], const uint8_t a[16], const uint8_t b[16]);
/* r = a * b in GF(2^64) mod x^64 + x^4 + x^3 + x + 1, same conventions. */
void gostx__mgm_gf64_mul(uint8_t r[8], const uint8_t a[8], const uint8_t b[8]);

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
