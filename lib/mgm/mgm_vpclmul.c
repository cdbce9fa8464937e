/* MGM's multiply-accumulate with VPCLMULQDQ on 256-bit registers (AVX2):
 * two 128-bit blocks, or four 64-bit blocks, per instruction. Same method as
 * mgm_clmul.c (byte reversal to natural bit order, unreduced sums, one
 * reduction per call); the two lanes' sums are folded together at the end
 * and reduced with the 128-bit code below. No branch or address depends on
 * data. */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#ifdef GOSTX_EMULATE_AVX512
/* Emulated builds run VPCLMULQDQ on SIMDe with the AVX-512 set (lib/cpu.c
 * claims it there), so that valgrind, whose CPU has no VPCLMULQDQ, can
 * check this row too (scripts/check_ct.sh). */
#include "x86_avx512_emu.h"
#define TARGET
#else
#include <immintrin.h>
#define TARGET __attribute__((target("avx2,pclmul,vpclmulqdq")))
#endif

#include "mgm/impl.h"

/* PSHUFB works per 128-bit lane, so the masks repeat in both lanes. */
#define BSWAP128 \
  _mm256_broadcastsi128_si256(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define BSWAP64X2 \
  _mm256_broadcastsi128_si256(_mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7))

#include "mgm_reduce_x86.h"

TARGET static inline __m128i fold_lanes(__m256i v) {
  return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

#define LOAD2(p) _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(p)), bswap)

/* lo, mid, hi ^= the Karatsuba partial products of two lanes of h * x
 * (mgm_reduce_x86.h). */
#define MUL_ACC2(h, x) \
  KARATSUBA_ACC(__m256i, _mm256_xor_si256, _mm256_shuffle_epi32, _mm256_clmulepi64_epi128, h, x)

TARGET static void mul_acc128(uint8_t acc[16], const uint8_t *h, const uint8_t *x,
                              size_t nblocks) {
  const __m256i bswap = BSWAP128;
  /* acc enters lane 0 of lo: it is already reduced, so it adds as is. */
  const __m128i acc0 =
      _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)acc), _mm256_castsi256_si128(bswap));
  __m256i lo = _mm256_zextsi128_si256(acc0);
  __m256i mid = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 4 <= nblocks; i += 4) {
    __m256i h0 = LOAD2(h + 16 * i), x0 = LOAD2(x + 16 * i);
    __m256i h1 = LOAD2(h + 16 * i + 32), x1 = LOAD2(x + 16 * i + 32);
    MUL_ACC2(h0, x0);
    MUL_ACC2(h1, x1);
  }
  if (i + 2 <= nblocks) {
    __m256i h0 = LOAD2(h + 16 * i), x0 = LOAD2(x + 16 * i);
    MUL_ACC2(h0, x0);
    i += 2;
  }
  if (i < nblocks) { /* one block left: the upper lane multiplies zeros */
    __m256i h0 = _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i *)(h + 16 * i)));
    __m256i x0 = _mm256_zextsi128_si256(_mm_loadu_si128((const __m128i *)(x + 16 * i)));
    h0 = _mm256_shuffle_epi8(h0, bswap);
    x0 = _mm256_shuffle_epi8(x0, bswap);
    MUL_ACC2(h0, x0);
  }
  __m128i l = fold_lanes(lo), m = fold_lanes(mid), u = fold_lanes(hi);
  m = _mm_xor_si128(m, _mm_xor_si128(_mm_xor_si128(l, u), acc0)); /* l holds acc too */
  l = _mm_xor_si128(l, _mm_slli_si128(m, 8));
  u = _mm_xor_si128(u, _mm_srli_si128(m, 8));
  _mm_storeu_si128((__m128i *)acc,
                   _mm_shuffle_epi8(reduce128(l, u), _mm256_castsi256_si128(bswap)));
}

TARGET static void mul_acc64(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  const __m256i bswap = BSWAP64X2;
  const __m128i bswap1 = _mm256_castsi256_si128(bswap);
  __m256i s0 = _mm256_zextsi128_si256(_mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)acc), bswap1));
  __m256i s1 = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= nblocks; i += 8) {
    __m256i h0 = LOAD2(h + 8 * i), x0 = LOAD2(x + 8 * i);
    __m256i h1 = LOAD2(h + 8 * i + 32), x1 = LOAD2(x + 8 * i + 32);
    s0 = _mm256_xor_si256(s0, _mm256_clmulepi64_epi128(h0, x0, 0x00));
    s1 = _mm256_xor_si256(s1, _mm256_clmulepi64_epi128(h0, x0, 0x11));
    s0 = _mm256_xor_si256(s0, _mm256_clmulepi64_epi128(h1, x1, 0x00));
    s1 = _mm256_xor_si256(s1, _mm256_clmulepi64_epi128(h1, x1, 0x11));
  }
  __m128i s = _mm_xor_si128(fold_lanes(s0), fold_lanes(s1));
  for (; i + 2 <= nblocks; i += 2) {
    __m128i hv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(h + 8 * i)), bswap1);
    __m128i xv = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(x + 8 * i)), bswap1);
    s = _mm_xor_si128(s, _mm_clmulepi64_si128(hv, xv, 0x00));
    s = _mm_xor_si128(s, _mm_clmulepi64_si128(hv, xv, 0x11));
  }
  if (i < nblocks) {
    __m128i hv = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(h + 8 * i)), bswap1);
    __m128i xv = _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(x + 8 * i)), bswap1);
    s = _mm_xor_si128(s, _mm_clmulepi64_si128(hv, xv, 0x00));
  }
  _mm_storel_epi64((__m128i *)acc, _mm_shuffle_epi8(reduce64(s), bswap1));
}

const struct gostx_mgm_impl gostx_mgm_vpclmul = {"vpclmul", mul_acc128, mul_acc64};

#endif
