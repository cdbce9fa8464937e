/* The 128-bit word of the x86-64 kernels (kuz_ssse3.c, and kuz_avx2.c's
 * xmm batches and narrow path): W2, two 64-bit lanes; the S-box circuits'
 * ~a & b as one pandn (kuz_tables.h's KUZ_ANDN picks it for W2 words); and
 * LOAD2/STORE2, two blocks (32 bytes) <-> their low and high halves, one
 * block per lane. Included after <emmintrin.h> (or <immintrin.h>). */
#ifndef GOSTX_KUZ_W2_H
#define GOSTX_KUZ_W2_H

typedef uint64_t W2 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) W2 andn_w2(W2 a, W2 b) {
  return (W2)_mm_andnot_si128((__m128i)a, (__m128i)b);
}

#define LOAD2(p, lo, hi)                                                     \
  do {                                                                       \
    __m128i x_ = _mm_loadu_si128((const __m128i *)(const void *)(p));        \
    __m128i y_ = _mm_loadu_si128((const __m128i *)(const void *)((p) + 16)); \
    (lo) = (W2)_mm_unpacklo_epi64(x_, y_);                                   \
    (hi) = (W2)_mm_unpackhi_epi64(x_, y_);                                   \
  } while (0)
#define STORE2(p, lo, hi)                                                                              \
  do {                                                                                                 \
    _mm_storeu_si128((__m128i *)(void *)(p), _mm_unpacklo_epi64((__m128i)(lo), (__m128i)(hi)));        \
    _mm_storeu_si128((__m128i *)(void *)((p) + 16), _mm_unpackhi_epi64((__m128i)(lo), (__m128i)(hi))); \
  } while (0)

#endif
