/* Streebog compression g_N (GOST R 34.11-2012 section 8) without tables:
 * AVX-512 F/BW + VBMI + GFNI, dispatch name "avx512".
 *
 * Unlike streebog_portable.c and streebog_sbtable.c nothing here reads memory at
 * an address that depends on data: pi is looked up with byte permutes from
 * four registers holding the whole 256-byte S-box, and L is a GF(2) matrix
 * product done with GF2P8AFFINEQB. Secret state only ever moves through
 * registers, permute indexes and arithmetic, and there are no branches on
 * it, so this level removes Streebog's cache-timing exception
 * (docs/STREEBOG.md, tests/ct/expected-leaks.supp).
 *
 * Layout. The 64-byte state lives in one zmm, TRANSPOSED: byte 8q + p of
 * the vector is byte q of the state's little-endian word p (the standard's
 * internal vectors are read as eight little-endian 64-bit words, as in
 * streebog_portable.c). Inputs are transposed on the way in and the result
 * on the way out (three byte permutes per compression); the round constants
 * are stored transposed (streebog_tables.h, gostx_streebog_ct). The XORs of
 * the rounds do not care about the layout.
 *
 * LPS in that layout. Word p of P(S(x)) has as its byte k the value
 * z[k][p] = pi(byte p of word k of x), and L is linear, so
 *   byte j of LPS(x)[p] = XOR_k B[k][j](z[k][p]),
 * with B[k][j] the 8x8 bit matrix mapping byte k of an L input to byte j of
 * its output. GF2P8AFFINEQB applies one 8x8 matrix per qword to all 8 bytes
 * of that qword. So for each k: apply pi to the whole state (once, before
 * the eight permutes, since pi acts bytewise), byte-permute so that byte
 * 8j + p holds z[k][p] for every j (in the transposed layout z[k][p] sits at
 * byte 8p + k: a "column broadcast"), and multiply qword j by B[k][j]. The
 * XOR of the eight products has, at byte 8j + p, byte j of word p of
 * LPS(x): the result is again in the transposed layout, so P costs nothing
 * and no transpose is needed between rounds.
 *
 * Per LPS: 2 VPERMI2B + VPMOVB2M + VPBLENDMB (pi), 8 VPERMB, 8 GF2P8AFFINEQB
 * and the XOR of the eight products with the round's key or constant folded
 * in: 4 VPTERNLOGQ on the data path, 5 VPTERNLOGQ + 1 VPXORQ on the key path
 * (which yields both K and K ^ C): 50 vector instructions per round, ~630
 * per compression (docs/STREEBOG.md). The key schedule
 * K_{i+1} = LPS(K_i ^ C_i) and the data path are independent within a round
 * and are interleaved. The matrices (in GF2P8AFFINEQB's bit order) and the
 * transposed constants are generated, and checked against the standard's
 * step-by-step LPS on a model of this code, by scripts/gen_streebog_tables.py.
 *
 * Like the other SIMD files, registers holding the state are not wiped;
 * there are no local arrays of secret data to clear, and GCC 12 and clang 14
 * keep compress() entirely in registers (no spills). */
#include "streebog/impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE
#include "kuznyechik/kuz_tables.h" /* gostx__kuz_pi: Streebog's pi is Kuznyechik's */
#include "streebog_tables.h"

/* VPERMB indexes. Qword q of the transpose index is SB_COL(q), bytes
 * 8p + q for p = 0..7: byte 8q + p takes byte 8p + q, the 8x8 transpose
 * (its own inverse). The column broadcast for input word k (byte 8j + p
 * takes byte 8p + k, every j) is that same qword k in all eight qwords. */
#define SB_ROW 0x3830282018100800ULL /* bytes 0, 8, 16, ..., 56 (little-endian) */
#define SB_ONES 0x0101010101010101ULL
#define SB_COL(k) ((long long)(SB_ROW + (unsigned long long)(k) * SB_ONES))

/* The loop-invariant vectors: pi in four 64-byte pieces, the eight column
 * broadcasts and the eight L matrices (qword j of mat[k] = B[k][j]). */
struct sb_vecs {
  __m512i pi[4];
  __m512i col[8];
  __m512i mat[8];
};

static GOSTX_TARGET_AVX512 inline __m512i xor3(__m512i a, __m512i b, __m512i c) {
  return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

/* pi on all 64 bytes: VPERMI2B looks bytes up in a 128-byte table (two
 * registers) by the low 7 bits of each index; the top bit picks the half. */
static GOSTX_TARGET_AVX512 inline __m512i sbox(__m512i x, const struct sb_vecs *v) {
  __m512i lo = _mm512_permutex2var_epi8(v->pi[0], x, v->pi[1]);
  __m512i hi = _mm512_permutex2var_epi8(v->pi[2], x, v->pi[3]);
  return _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), lo, hi);
}

/* The eight products whose XOR is LPS(x); x and the result transposed. */
static GOSTX_TARGET_AVX512 inline void lps_terms(__m512i t[8], __m512i x, const struct sb_vecs *v) {
  const __m512i z = sbox(x, v);
  for (int k = 0; k < 8; k++)
    t[k] = _mm512_gf2p8affine_epi64_epi8(_mm512_permutexvar_epi8(v->col[k], z), v->mat[k], 0);
}

static GOSTX_TARGET_AVX512 inline __m512i load_ct(int i) {
  return _mm512_loadu_si512((const void *)gostx_streebog_ct[i]);
}

/* h = E(LPS(h ^ N), m) ^ h ^ m. With x_r = K_{r+1} ^ (data state) the input
 * of round r's data LPS and kc_r = K_{r+1} ^ C_r that of its key LPS:
 *   K_{r+2} = LPS(kc_r),  x_{r+1} = LPS(x_r) ^ K_{r+2},  kc_{r+1} = K_{r+2} ^ C_{r+1},
 * and after the 12 rounds x_12 = K_13 ^ state, so h' = x_12 ^ h ^ m. */
static GOSTX_TARGET_AVX512 void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  struct sb_vecs v;
  for (int i = 0; i < 4; i++) v.pi[i] = _mm512_loadu_si512((const void *)(gostx__kuz_pi + 64 * i));
  for (int k = 0; k < 8; k++) {
    v.col[k] = _mm512_set1_epi64(SB_COL(k));
    v.mat[k] = _mm512_loadu_si512((const void *)gostx_streebog_affine[k]);
  }
  const __m512i tr = _mm512_set_epi64(SB_COL(7), SB_COL(6), SB_COL(5), SB_COL(4), SB_COL(3),
                                      SB_COL(2), SB_COL(1), SB_COL(0));
  __m512i t[8], u[8], a, b;

  /* K_1 = LPS(h ^ N); x_0 = K_1 ^ m; kc_0 = K_1 ^ C_1. */
  const __m512i hn = _mm512_xor_si512(_mm512_loadu_si512((const void *)h),
                                      _mm512_loadu_si512((const void *)n));
  lps_terms(t, _mm512_permutexvar_epi8(tr, hn), &v);
  a = xor3(t[0], t[1], t[2]);
  b = xor3(t[3], t[4], t[5]);
  __m512i key = xor3(a, b, _mm512_xor_si512(t[6], t[7]));
  __m512i kc = xor3(a, b, xor3(t[6], t[7], load_ct(0)));
  __m512i x = _mm512_xor_si512(key, _mm512_permutexvar_epi8(tr, _mm512_loadu_si512((const void *)m)));

  for (int r = 0; r < 11; r++) {
    lps_terms(t, kc, &v); /* key schedule */
    lps_terms(u, x, &v);  /* data path, independent of the line above */
    a = xor3(t[0], t[1], t[2]);
    b = xor3(t[3], t[4], t[5]);
    key = xor3(a, b, _mm512_xor_si512(t[6], t[7]));
    /* kc from the partial XORs rather than key ^ C: one level shorter. */
    kc = xor3(a, b, xor3(t[6], t[7], load_ct(r + 1)));
    x = xor3(xor3(u[0], u[1], u[2]), xor3(u[3], u[4], u[5]), xor3(u[6], u[7], key));
    if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_STREEBOG, &x, sizeof x);
  }
  /* Round 12: x_12 = LPS(x_11) ^ K_13, K_13 = LPS(kc_11); the 16 products at once. */
  lps_terms(t, kc, &v);
  lps_terms(u, x, &v);
  a = xor3(xor3(t[0], t[1], t[2]), xor3(t[3], t[4], t[5]), xor3(t[6], t[7], u[0]));
  b = xor3(xor3(u[1], u[2], u[3]), xor3(u[4], u[5], u[6]), u[7]);
  x = _mm512_xor_si512(a, b);
  /* h and m are read again rather than held across the rounds, where the
   * compiler would spill them to the stack (and leave them there); the
   * empty asm hides that these are the pointers already read. */
  __asm__("" : "+r"(h), "+r"(m));
  _mm512_storeu_si512((void *)h, xor3(_mm512_permutexvar_epi8(tr, x), _mm512_loadu_si512((const void *)h),
                                      _mm512_loadu_si512((const void *)m)));
}

const struct gostx_streebog_impl gostx_streebog_avx512 = {"avx512", compress};

#endif
