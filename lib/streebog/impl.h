/* Streebog's implementation table and its ISA tables, shared by the hash,
 * its ISA files, the dispatcher and the tests. Not installed. */
#ifndef GOSTX_STREEBOG_IMPL_H
#define GOSTX_STREEBOG_IMPL_H

#include "internal.h"

/* Streebog compression g_N(h, m): h = E(LPS(h ^ N), m) ^ h ^ m, all 64-byte
 * little-endian strings as the standard's internal vectors. */
struct gostx_streebog_impl {
  const char *name;
  void (*compress)(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]);
};

/* The ISA tables (lib/streebog/streebog_*.c); lib/dispatch.c chooses. */
extern const struct gostx_streebog_impl gostx_streebog_portable;
#ifdef GOSTX_ARCH_X86_64
/* Constant time: pi by vpshufb on nibbles, L by nibble tables
 * (streebog_ct.h). */
extern const struct gostx_streebog_impl gostx_streebog_ssse3;
extern const struct gostx_streebog_impl gostx_streebog_avx2;
/* The 8 fused LPS tables, indexed by state bytes: leaks through the cache,
 * chosen only by its name "sbtable" (GOSTX_IMPL=sbtable). */
extern const struct gostx_streebog_impl gostx_streebog_sbtable;
/* What streebog_ct.h reads: vpshufb operands (both 128-bit halves). */
struct gostx__sb_ct_tables {
  /* pi's decomposition (streebog_ct_tables.c): alpha and its inverse on the
   * low and high nibble (into and out of the alpha domain the state is kept
   * in), then log, log of the inverse, nu1 o exp, nu0, log o phi, sigma o
   * exp, each 16 entries in both halves */
  _Alignas(32) uint8_t alpha[2][32], alphainv[2][32];
  _Alignas(32) uint8_t log[32], nlog[32], nu1exp[32], nu0[32], logphi[32], sigmaexp[32];
  /* alpha o L o omega: [k][b][v]: input bytes k | k + 4 to output bytes b | b + 4,
   * v = the right nibble, the left nibble, then both with the input's halves
   * swapped */
  _Alignas(32) uint8_t l[4][4][4][32];
  /* alpha(C_r) as words 0, 1, 4, 5 and 2, 3, 6, 7 */
  _Alignas(32) uint64_t c[12][2][4];
};
const struct gostx__sb_ct_tables *gostx__sb_ct_tables(void);
/* The same pieces for streebog_avx512bw.c, as 64-byte vpshufb operands.
 * That file keeps lane q of its vector kk (0, 1) = words [A_w, B_w],
 * w = kk + 2q. */
struct gostx__sb_zmm_tables {
  _Alignas(64) uint8_t alpha[2][64], alphainv[2][64];
  _Alignas(64) uint8_t log[64], nlog[64], nu1exp[64], nu0[64], logphi[64], sigmaexp[64];
  /* alpha o L o omega: [kk][d][j][h], lane q: input byte kk + 2q to output
   * byte j + 2((q + d) mod 4), h = 0 the right nibble, 1 the left */
  _Alignas(64) uint8_t l[2][4][2][2][64];
  /* alpha(C_r) in the B words: lane q of [kk] = [0, C_r word kk + 2q] */
  _Alignas(64) uint64_t c[12][2][8];
};
const struct gostx__sb_zmm_tables *gostx__sb_zmm_tables(void);
/* Table-free, constant-time: AVX-512 F/BW + VBMI + GFNI (lib/x86_avx512.h). */
extern const struct gostx_streebog_impl gostx_streebog_avx512;
/* Constant time, AVX-512 F/BW only (Skylake-SP, Cascade Lake): streebog_ct.h's
 * method on zmm words. */
extern const struct gostx_streebog_impl gostx_streebog_avx512bw;
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_streebog_impl gostx_streebog_neon; /* sliced, table-free */
#endif

#endif
