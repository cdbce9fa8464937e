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
extern const struct gostx_streebog_impl gostx_streebog_x86; /* baseline x86-64 */
/* Table-free, constant-time: AVX-512 F/BW + VBMI + GFNI (lib/x86_avx512.h). */
extern const struct gostx_streebog_impl gostx_streebog_avx512;
#endif
#ifdef GOSTX_ARCH_AARCH64
extern const struct gostx_streebog_impl gostx_streebog_neon; /* sliced, table-free */
#endif

#endif
