/* MGM's multiply-accumulate with PCLMULQDQ (and SSSE3's PSHUFB for byte
 * order). Same contract as mgm_portable.c: acc ^= sum_i H_i (x) X_i.
 *
 * Blocks are big-endian, so one byte reversal turns a block into the
 * register's natural 128-bit integer, bit k = coefficient of x^k (MGM's
 * field is not bit-reflected, unlike GCM's). The 128x128 products are
 * summed unreduced (lo, mid, hi words) and reduced once per call, the
 * aggregated-reduction idea of the GHASH white paper; unlike GHASH every
 * block has its own H_i, so there are no precomputed powers.
 * No branch or address depends on data. */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#include <immintrin.h>

#include "mgm/impl.h"

#define TARGET __attribute__((target("pclmul,ssse3")))

/* PSHUFB masks: reverse all 16 bytes / reverse each 8-byte half. */
#define BSWAP128 _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#define BSWAP64X2 _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7)

#include "mgm_reduce_x86.h"

/* lo, mid, hi ^= the Karatsuba partial products of h * x (mgm_reduce_x86.h). */
#define MUL_ACC(h, x) \
  KARATSUBA_ACC(__m128i, _mm_xor_si128, _mm_shuffle_epi32, _mm_clmulepi64_si128, h, x)

TARGET static void mul_acc128(uint8_t acc[16], const uint8_t *h, const uint8_t *x,
                              size_t nblocks) {
  const __m128i bswap = BSWAP128;
  const __m128i acc0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)acc), bswap);
  __m128i lo = acc0, mid = _mm_setzero_si128(), hi = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 4 <= nblocks; i += 4) {
    for (int j = 0; j < 4; j++) {
      __m128i hv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(h + 16 * (i + j))), bswap);
      __m128i xv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x + 16 * (i + j))), bswap);
      MUL_ACC(hv, xv);
    }
  }
  for (; i < nblocks; i++) {
    __m128i hv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(h + 16 * i)), bswap);
    __m128i xv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x + 16 * i)), bswap);
    MUL_ACC(hv, xv);
  }
  mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi)); /* lo still holds acc: cancel it */
  mid = _mm_xor_si128(mid, acc0);
  lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
  hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
  _mm_storeu_si128((__m128i *)acc, _mm_shuffle_epi8(reduce128(lo, hi), bswap));
}

/* Two 64-bit blocks per register: each product is one PCLMULQDQ, and all
 * products are 127-bit values summed in one register (two for the two
 * halves of the loop). */
TARGET static void mul_acc64(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  const __m128i bswap = BSWAP64X2;
  __m128i s0 = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)acc), bswap);
  __m128i s1 = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 4 <= nblocks; i += 4) {
    __m128i h0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(h + 8 * i)), bswap);
    __m128i x0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x + 8 * i)), bswap);
    __m128i h1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(h + 8 * i + 16)), bswap);
    __m128i x1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x + 8 * i + 16)), bswap);
    s0 = _mm_xor_si128(s0, _mm_clmulepi64_si128(h0, x0, 0x00));
    s1 = _mm_xor_si128(s1, _mm_clmulepi64_si128(h0, x0, 0x11));
    s0 = _mm_xor_si128(s0, _mm_clmulepi64_si128(h1, x1, 0x00));
    s1 = _mm_xor_si128(s1, _mm_clmulepi64_si128(h1, x1, 0x11));
  }
  for (; i < nblocks; i++) {
    __m128i hv = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(h + 8 * i)), bswap);
    __m128i xv = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(x + 8 * i)), bswap);
    s0 = _mm_xor_si128(s0, _mm_clmulepi64_si128(hv, xv, 0x00));
  }
  _mm_storel_epi64((__m128i *)acc, _mm_shuffle_epi8(reduce64(_mm_xor_si128(s0, s1)), bswap));
}

const struct gostx_mgm_impl gostx_mgm_clmul = {"pclmul", mul_acc128, mul_acc64};

#endif
