/* Streebog compression g_N, constant time, on AVX-512 F/BW without VBMI or
 * GFNI (Skylake-SP, Cascade Lake): dispatch name "avx512bw". The method of
 * streebog_ct.h (pi through its decomposition, L by nibble tables on the
 * byte-sliced form, every value alpha-mapped; tables from
 * streebog_ct_tables.c) on zmm words, which halves the instructions: those
 * CPUs run 256-bit shuffles on one port, as they do 512-bit ones.
 *
 * Layout: two vectors; lane q of vector kk holds the 64-bit words
 * [A_w, B_w], w = kk + 2q (A the data path, B the key path: the two LPS of
 * a round share every instruction). Read bytewise, lane q of vector kk is
 * byte w of the 8 words of P(A) and of P(B), so S runs in place and P is
 * free. L: output byte b of each word is the XOR over the 8 input bytes of
 * a nibble table (input byte, b); vpshufb stays inside a lane, so product
 * (kk, d, j) takes input lane q to output byte j + 2((q + d) mod 4), and
 * the sum of those for each d is rotated by d lanes: 32 vpshufb and 6 lane
 * rotations per round. The result, sliced by output byte (vector j, lane q
 * = byte j + 2q), goes back to words with 2 byte unpacks and 2 VPERMT2W.
 * No address and no branch depends on the data. */
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE
#include "streebog/impl.h"

#define ZB_ATTR __attribute__((always_inline)) GOSTX_TARGET_AVX512BW
typedef __m512i Z;

static inline ZB_ATTR Z zload(const void *p) { return _mm512_load_si512(p); }
static inline ZB_ATTR Z zxor3(Z a, Z b, Z c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }

/* A bytewise linear map given by its nibble tables m. */
static inline ZB_ATTR Z zbytemap(const uint8_t m[2][64], Z x) {
  const Z m0f = _mm512_set1_epi8(0x0f);
  return _mm512_xor_si512(_mm512_shuffle_epi8(zload(m[0]), _mm512_and_si512(x, m0f)),
                          _mm512_shuffle_epi8(zload(m[1]), _mm512_and_si512(_mm512_srli_epi16(x, 4), m0f)));
}

/* pi on every byte, as streebog_ct.h's sb_s: l' ^ nu1(0) into *left,
 * r' ^ sigma(0) into *right. */
static inline ZB_ATTR void zs(const struct gostx__sb_zmm_tables *t, Z a, Z *left, Z *right) {
  const Z m0f = _mm512_set1_epi8(0x0f), m15 = _mm512_set1_epi8(15);
  const Z r = _mm512_and_si512(a, m0f), l = _mm512_and_si512(_mm512_srli_epi16(a, 4), m0f);
  Z e = _mm512_add_epi8(_mm512_shuffle_epi8(zload(t->log), l), _mm512_shuffle_epi8(zload(t->nlog), r));
  e = _mm512_min_epu8(e, _mm512_sub_epi8(e, m15));
  /* nu1 o exp of it, or nu0(l) where r = 0 (there e is past bit 7) */
  const __mmask64 r0 = _mm512_cmpeq_epi8_mask(r, _mm512_setzero_si512());
  const Z l2 = _mm512_mask_blend_epi8(r0, _mm512_shuffle_epi8(zload(t->nu1exp), e),
                                      _mm512_shuffle_epi8(zload(t->nu0), l));
  Z f = _mm512_add_epi8(_mm512_shuffle_epi8(zload(t->logphi), l2), _mm512_shuffle_epi8(zload(t->log), r));
  f = _mm512_min_epu8(f, _mm512_sub_epi8(f, m15));
  *left = l2;
  *right = _mm512_shuffle_epi8(zload(t->sigmaexp), f);
}

/* Lanes moved up by d (lane q to lane q + d mod 4): qword i from i - 2d. */
static inline ZB_ATTR Z zrot(Z x, int d) {
  const Z i = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  return _mm512_permutexvar_epi64(_mm512_and_si512(_mm512_sub_epi64(i, _mm512_set1_epi64(2 * d)),
                                                   _mm512_set1_epi64(7)), x);
}

/* LPS of the A and B words of x[0], x[1], in place. */
static inline ZB_ATTR void zlps2(const struct gostx__sb_zmm_tables *t, Z x[2]) {
  Z lf[2], rt[2], o[2];
  zs(t, x[0], &lf[0], &rt[0]);
  zs(t, x[1], &lf[1], &rt[1]);
  for (int j = 0; j < 2; j++) {
    Z p[4];
    for (int d = 0; d < 4; d++) {
      const Z a = _mm512_xor_si512(_mm512_shuffle_epi8(zload(t->l[0][d][j][0]), rt[0]),
                                   _mm512_shuffle_epi8(zload(t->l[0][d][j][1]), lf[0]));
      p[d] = zxor3(a, _mm512_shuffle_epi8(zload(t->l[1][d][j][0]), rt[1]),
                   _mm512_shuffle_epi8(zload(t->l[1][d][j][1]), lf[1]));
    }
    o[j] = _mm512_xor_si512(zxor3(p[0], zrot(p[1], 1), zrot(p[2], 2)), zrot(p[3], 3));
  }
  /* 16-bit element w of lane q of ua (ub) = bytes 2q, 2q + 1 of A_w (B_w) */
  const Z ua = _mm512_unpacklo_epi8(o[0], o[1]), ub = _mm512_unpackhi_epi8(o[0], o[1]);
  /* element 8q + p of vector kk: piece p of A_w, 8q + 4 + p of B_w, w = kk + 2q */
  const Z i0 = _mm512_set_epi16(62, 54, 46, 38, 30, 22, 14, 6, 60, 52, 44, 36, 28, 20, 12, 4, 58, 50, 42,
                                34, 26, 18, 10, 2, 56, 48, 40, 32, 24, 16, 8, 0);
  const Z i1 = _mm512_add_epi16(i0, _mm512_set1_epi16(1));
  x[0] = _mm512_permutex2var_epi16(ua, i0, ub);
  x[1] = _mm512_permutex2var_epi16(ua, i1, ub);
}

/* A ^= B in every lane (B = the new key K; A = LPS(K ^ state) ^ K). */
static inline ZB_ATTR Z zaddkey(Z x) {
  return _mm512_mask_xor_epi64(x, 0x55, x, _mm512_unpackhi_epi64(x, x));
}

static GOSTX_TARGET_AVX512BW void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  const struct gostx__sb_zmm_tables *t = gostx__sb_zmm_tables();
  const Z hz = _mm512_loadu_si512(h), mz = _mm512_loadu_si512(m);
  /* K_1 = LPS(h ^ N), computed in both halves of every lane */
  const Z hn = zbytemap(t->alpha, _mm512_xor_si512(hz, _mm512_loadu_si512(n)));
  Z x[2] = {_mm512_unpacklo_epi64(hn, hn), _mm512_unpackhi_epi64(hn, hn)};
  zlps2(t, x);
  /* state_0 = m: A = K_1 ^ m */
  const Z ma = zbytemap(t->alpha, mz), zero = _mm512_setzero_si512();
  x[0] = _mm512_xor_si512(x[0], _mm512_unpacklo_epi64(ma, zero));
  x[1] = _mm512_xor_si512(x[1], _mm512_unpackhi_epi64(ma, zero));
  for (int r = 0; r < 12; r++) {
    __asm__("" : "+r"(t)); /* keeps GCC from hoisting the tables out of the loop */
    x[0] = _mm512_xor_si512(x[0], zload(t->c[r][0])); /* B = K ^ C */
    x[1] = _mm512_xor_si512(x[1], zload(t->c[r][1]));
    zlps2(t, x);
    x[0] = zaddkey(x[0]); /* after round 12, A = E(K, m) */
    x[1] = zaddkey(x[1]);
    if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_STREEBOG, &x[0], sizeof x[0]);
  }
  const Z e = zbytemap(t->alphainv, _mm512_unpacklo_epi64(x[0], x[1]));
  _mm512_storeu_si512(h, zxor3(e, hz, mz));
}

const struct gostx_streebog_impl gostx_streebog_avx512bw = {"avx512bw", compress};

#endif
