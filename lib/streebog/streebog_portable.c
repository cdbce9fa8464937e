/* Streebog compression g_N (GOST R 34.11-2012 section 8), portable C.
 *
 * SECURITY NOTE (known exception to the library's constant-time rule):
 * LPS is computed with 8 lookups per output word into 8 precomputed tables
 * of 256 uint64 (16 KiB; lib/streebog/streebog_tables.h). The table indexes
 * are bytes of the hash state, and for HMAC, the KDFs and PBKDF2 that state
 * depends on the key, so a cache-timing attacker sharing the CPU could in
 * principle learn about it. This is the standard practice for Streebog in
 * software; the table-free AVX-512/GFNI fast path (dispatch level) is meant
 * to remove the exception. See docs/STREEBOG.md. */
#include "streebog/impl.h"
#include "streebog_tables.h"

/* out = LPS(in) on 8 little-endian words. out must not alias in. */
static inline void lps(uint64_t out[8], const uint64_t in[8]) {
  for (int j = 0; j < 8; j++) {
    const unsigned sh = 8u * (unsigned)j;
    out[j] = gostx_streebog_lps[0][(in[0] >> sh) & 0xff] ^
             gostx_streebog_lps[1][(in[1] >> sh) & 0xff] ^
             gostx_streebog_lps[2][(in[2] >> sh) & 0xff] ^
             gostx_streebog_lps[3][(in[3] >> sh) & 0xff] ^
             gostx_streebog_lps[4][(in[4] >> sh) & 0xff] ^
             gostx_streebog_lps[5][(in[5] >> sh) & 0xff] ^
             gostx_streebog_lps[6][(in[6] >> sh) & 0xff] ^
             gostx_streebog_lps[7][(in[7] >> sh) & 0xff];
  }
}

/* h = E(LPS(h ^ N), m) ^ h ^ m, where E(K, m) runs 12 rounds of
 * state = LPS(K_i ^ state), K_{i+1} = LPS(K_i ^ C_i), then XORs K_13. */
static void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  uint64_t hw[8], mw[8], k[8], s[8], t[8];
  for (int i = 0; i < 8; i++) {
    hw[i] = gostx_load64_le(h + 8 * i);
    mw[i] = gostx_load64_le(m + 8 * i);
    t[i] = hw[i] ^ gostx_load64_le(n + 8 * i);
  }
  lps(k, t);
  for (int i = 0; i < 8; i++) s[i] = mw[i];
  for (int r = 0; r < 12; r++) {
    for (int i = 0; i < 8; i++) t[i] = k[i] ^ s[i];
    lps(s, t);
    for (int i = 0; i < 8; i++) t[i] = k[i] ^ gostx_streebog_c[r][i];
    lps(k, t);
  }
  for (int i = 0; i < 8; i++) gostx_store64_le(h + 8 * i, k[i] ^ s[i] ^ hw[i] ^ mw[i]);
  gostx_memzero(hw, sizeof hw);
  gostx_memzero(mw, sizeof mw);
  gostx_memzero(k, sizeof k);
  gostx_memzero(s, sizeof s);
  gostx_memzero(t, sizeof t);
}

const struct gostx_streebog_impl gostx_streebog_portable = {"portable", compress};
