/* MGM's field reductions on PCLMULQDQ, shared by mgm_clmul.c, mgm_vpclmul.c
 * and mgm_avx512.c, and the Karatsuba step of the first two (not a header of its own: the includer defines TARGET,
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

/* lo, mid, hi ^= the Karatsuba partial products of h * x in each 128-bit
 * lane: h0 x0, h1 x1 and (h0 + h1)(x0 + x1). The middle term still holds
 * h0 x0 + h1 x1; those are removed once, from the sums, at the end. Three
 * multiplies instead of four (2.15 vs 2.50 ns per block on Zen 3:
 * PCLMULQDQ is the busiest unit). V and XOR, SHUF32, CLMUL are one width's
 * vector type and intrinsics (__m128i, _mm_ in mgm_clmul.c; __m256i,
 * _mm256_ in mgm_vpclmul.c), so the step is written once for both. */
#define KARATSUBA_ACC(V, XOR, SHUF32, CLMUL, h, x)         \
  do {                                                     \
    V hs_ = XOR(h, SHUF32(h, 0x4e));                       \
    V xs_ = XOR(x, SHUF32(x, 0x4e));                       \
    lo = XOR(lo, CLMUL(h, x, 0x00));                       \
    hi = XOR(hi, CLMUL(h, x, 0x11));                       \
    mid = XOR(mid, CLMUL(hs_, xs_, 0x00));                 \
  } while (0)

#endif
