/* XTS tweak steps on zmm registers (four 128-bit tweaks each), shared by
 * kuz_avx512.c's 16-block passes and kuz_avx512_sliced.c's 64-block groups:
 *   v * alpha^k = (v << k across the 128 bits) ^ (top k bits) * 0x87,
 * the shift as two 64-bit shifts and the low half's carry moved up
 * (vpunpcklqdq with zero), the fold as one carry-less multiply of the high
 * half's top bits by 0x87 (< 2^(k+8), in the low half). Include after
 * x86_avx512.h, inside GOSTX_HAVE_AVX512_CODE. */
#ifndef GOSTX_KUZ_XTS_AVX512_H
#define GOSTX_KUZ_XTS_AVX512_H

#define KUZ_TW_INLINE static inline __attribute__((always_inline)) GOSTX_TARGET_AVX512

/* v * alpha^k in every 128-bit lane, 1 <= k <= 56. */
KUZ_TW_INLINE __m512i gostx__kuz_tw_mul(__m512i v, unsigned k) {
  const __m512i top = _mm512_srli_epi64(v, 64 - k);
  const __m512i up = _mm512_unpacklo_epi64(_mm512_setzero_si512(), top);
  const __m512i fold = _mm512_clmulepi64_epi128(top, _mm512_set1_epi64(0x87), 0x01);
  return _mm512_ternarylogic_epi64(_mm512_slli_epi64(v, k), up, fold, 0x96);
}

/* tw[0..3] = the tweaks T_0..T_15 (T_j in lane j % 4 of register j / 4)
 * from T_0 (16 bytes at t): lane l of register 0 by alpha^l (variable
 * shifts), registers 1..3 by alpha^4, alpha^8, alpha^12. */
KUZ_TW_INLINE void gostx__kuz_tw_start(__m512i tw[4], const uint8_t *t) {
  const __m512i v = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)t));
  const __m512i k = _mm512_set_epi64(3, 3, 2, 2, 1, 1, 0, 0); /* lane l: alpha^l */
  /* top k bits: >> (63 - k) then >> 1 (a count of 64 is never used) */
  const __m512i top =
      _mm512_srli_epi64(_mm512_srlv_epi64(v, _mm512_sub_epi64(_mm512_set1_epi64(63), k)), 1);
  const __m512i up = _mm512_unpacklo_epi64(_mm512_setzero_si512(), top);
  const __m512i fold = _mm512_clmulepi64_epi128(top, _mm512_set1_epi64(0x87), 0x01);
  tw[0] = _mm512_ternarylogic_epi64(_mm512_sllv_epi64(v, k), up, fold, 0x96);
  tw[1] = gostx__kuz_tw_mul(tw[0], 4);
  tw[2] = gostx__kuz_tw_mul(tw[0], 8);
  tw[3] = gostx__kuz_tw_mul(tw[0], 12);
}

#endif
