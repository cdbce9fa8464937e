/* MGM's field reductions on PCLMULQDQ, shared by mgm_clmul.c, mgm_vpclmul.c
 * and mgm_avx512.c (not a header of its own: the includer defines TARGET,
 * its function attribute, and includes the intrinsics first). */
#ifndef GOSTX_MGM_REDUCE_X86_H
#define GOSTX_MGM_REDUCE_X86_H

/* (hi:lo) mod x^128 + x^7 + x^2 + x + 1. With r = x^7 + x^2 + x + 1 = 0x87
 * and hi = (p3, p2): p3 x^192 = (p3 r) x^64, whose top 7 bits land on p2;
 * then p2 x^128 = p2 r. */
TARGET static inline __m128i reduce128(__m128i lo, __m128i hi) {
  const __m128i r = _mm_cvtsi32_si128(0x87);
  __m128i a = _mm_clmulepi64_si128(hi, r, 0x01); /* p3 r, 71 bits */
  lo = _mm_xor_si128(lo, _mm_slli_si128(a, 8));
  hi = _mm_xor_si128(hi, _mm_srli_si128(a, 8)); /* p2 += top of p3 r */
  return _mm_xor_si128(lo, _mm_clmulepi64_si128(hi, r, 0x00));
}

/* (p1, p0) mod x^64 + x^4 + x^3 + x + 1 in the low word, r = 0x1b:
 * p1 x^64 = p1 r (67 bits), whose top 3 bits times r again. */
TARGET static inline __m128i reduce64(__m128i p) {
  const __m128i r = _mm_cvtsi32_si128(0x1b);
  __m128i a = _mm_clmulepi64_si128(p, r, 0x01);
  __m128i b = _mm_clmulepi64_si128(a, r, 0x01);
  return _mm_xor_si128(p, _mm_xor_si128(a, b)); /* low word is the result */
}

#endif
