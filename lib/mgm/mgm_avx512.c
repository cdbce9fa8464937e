/* MGM's multiply-accumulate with VPCLMULQDQ on 512-bit registers: four
 * 128-bit blocks, or eight 64-bit blocks, per instruction. The method of
 * mgm_clmul.c and mgm_vpclmul.c: byte reversal to natural bit order,
 * Karatsuba partial products summed unreduced, one reduction per call after
 * the four lanes' sums are folded together. Fewer ops than a straight port:
 * the Karatsuba operand (h0 + h1, x0 + x1) of each lane is two unpacks and
 * one XOR for h and x together, the middle product multiplies its two
 * halves (immediate 0x10), and two products join a sum in one three-way
 * XOR (VPTERNLOGD). A short tail (fewer blocks than a register holds) goes
 * through a zero-padded copy: zero blocks add zero products.
 * No branch or address depends on data. Verified under emulation (make
 * emu); not yet timed on AVX-512 hardware. */
#include "mgm/impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

#define TARGET GOSTX_TARGET_AVX512

/* PSHUFB works per 128-bit lane, so the masks repeat in every lane. */
#define BSWAP128 \
  _mm512_broadcast_i32x4(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define BSWAP64X2 \
  _mm512_broadcast_i32x4(_mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7))

#define XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

#include "mgm_reduce_x86.h"

/* The XOR of the four 128-bit lanes. */
TARGET static inline __m128i fold_lanes(__m512i v) {
  __m256i t = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  return _mm_xor_si128(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

#define LOAD4(p) _mm512_shuffle_epi8(_mm512_loadu_si512((const void *)(p)), bswap)

/* Per lane: (h0 + h1, x0 + x1), the operands of the Karatsuba middle term. */
#define KSUM(h, x) _mm512_xor_si512(_mm512_unpacklo_epi64(h, x), _mm512_unpackhi_epi64(h, x))

/* lo, mid, hi ^= the Karatsuba partial products of four lanes of h * x, for
 * one register pair (MUL_ACC4) or two (MUL_ACC8). The middle sums still
 * hold h0 x0 + h1 x1; those are removed once, at the end. */
#define MUL_ACC4(h, x)                                                 \
  do {                                                                 \
    __m512i k_ = KSUM(h, x);                                           \
    lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(h, x, 0x00));   \
    hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(h, x, 0x11));   \
    mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(k_, k_, 0x10)); \
  } while (0)
#define MUL_ACC8(h0, x0, h1, x1)                                                            \
  do {                                                                                      \
    __m512i k0_ = KSUM(h0, x0), k1_ = KSUM(h1, x1);                                         \
    lo = XOR3(lo, _mm512_clmulepi64_epi128(h0, x0, 0x00), _mm512_clmulepi64_epi128(h1, x1, 0x00)); \
    hi = XOR3(hi, _mm512_clmulepi64_epi128(h0, x0, 0x11), _mm512_clmulepi64_epi128(h1, x1, 0x11)); \
    mid = XOR3(mid, _mm512_clmulepi64_epi128(k0_, k0_, 0x10),                               \
               _mm512_clmulepi64_epi128(k1_, k1_, 0x10));                                   \
  } while (0)

TARGET static void mul_acc128(uint8_t acc[16], const uint8_t *h, const uint8_t *x,
                              size_t nblocks) {
  const __m512i bswap = BSWAP128;
  const __m128i bswap1 = _mm512_castsi512_si128(bswap);
  __m512i lo = _mm512_setzero_si512(), mid = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 8 <= nblocks; i += 8) {
    __m512i h0 = LOAD4(h + 16 * i), x0 = LOAD4(x + 16 * i);
    __m512i h1 = LOAD4(h + 16 * i + 64), x1 = LOAD4(x + 16 * i + 64);
    MUL_ACC8(h0, x0, h1, x1);
  }
  if (i + 4 <= nblocks) {
    __m512i h0 = LOAD4(h + 16 * i), x0 = LOAD4(x + 16 * i);
    MUL_ACC4(h0, x0);
    i += 4;
  }
  if (i < nblocks) { /* 1..3 blocks: the missing lanes multiply zeros */
    _Alignas(64) uint8_t hb[64] = {0}, xb[64] = {0};
    memcpy(hb, h + 16 * i, 16 * (nblocks - i));
    memcpy(xb, x + 16 * i, 16 * (nblocks - i));
    __m512i h0 = LOAD4(hb), x0 = LOAD4(xb);
    MUL_ACC4(h0, x0);
    gostx_memzero(hb, sizeof hb);
    gostx_memzero(xb, sizeof xb);
  }
  __m128i l = fold_lanes(lo), m = fold_lanes(mid), u = fold_lanes(hi);
  GOSTX_CT_PLANT(GOSTX_PLANT_MGM, &l, sizeof l);
  m = _mm_xor_si128(m, _mm_xor_si128(l, u));
  l = _mm_xor_si128(l, _mm_slli_si128(m, 8));
  u = _mm_xor_si128(u, _mm_srli_si128(m, 8));
  /* acc is already reduced (degree < 128): it adds to the low half. */
  l = _mm_xor_si128(l, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)acc), bswap1));
  _mm_storeu_si128((__m128i *)(void *)acc, _mm_shuffle_epi8(reduce128(l, u), bswap1));
}

/* Eight 64-bit blocks per register: each product is one VPCLMULQDQ lane,
 * 127 bits, summed in two registers (even and odd blocks). */
TARGET static void mul_acc64(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  const __m512i bswap = BSWAP64X2;
  const __m128i bswap1 = _mm512_castsi512_si128(bswap);
  __m512i s0 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 16 <= nblocks; i += 16) {
    __m512i h0 = LOAD4(h + 8 * i), x0 = LOAD4(x + 8 * i);
    __m512i h1 = LOAD4(h + 8 * i + 64), x1 = LOAD4(x + 8 * i + 64);
    s0 = XOR3(s0, _mm512_clmulepi64_epi128(h0, x0, 0x00), _mm512_clmulepi64_epi128(h1, x1, 0x00));
    s1 = XOR3(s1, _mm512_clmulepi64_epi128(h0, x0, 0x11), _mm512_clmulepi64_epi128(h1, x1, 0x11));
  }
  if (i + 8 <= nblocks) {
    __m512i h0 = LOAD4(h + 8 * i), x0 = LOAD4(x + 8 * i);
    s0 = _mm512_xor_si512(s0, _mm512_clmulepi64_epi128(h0, x0, 0x00));
    s1 = _mm512_xor_si512(s1, _mm512_clmulepi64_epi128(h0, x0, 0x11));
    i += 8;
  }
  if (i < nblocks) { /* 1..7 blocks, zero-padded */
    _Alignas(64) uint8_t hb[64] = {0}, xb[64] = {0};
    memcpy(hb, h + 8 * i, 8 * (nblocks - i));
    memcpy(xb, x + 8 * i, 8 * (nblocks - i));
    __m512i h0 = LOAD4(hb), x0 = LOAD4(xb);
    s0 = _mm512_xor_si512(s0, _mm512_clmulepi64_epi128(h0, x0, 0x00));
    s1 = _mm512_xor_si512(s1, _mm512_clmulepi64_epi128(h0, x0, 0x11));
    gostx_memzero(hb, sizeof hb);
    gostx_memzero(xb, sizeof xb);
  }
  __m128i s = fold_lanes(_mm512_xor_si512(s0, s1));
  GOSTX_CT_PLANT(GOSTX_PLANT_MGM, &s, sizeof s);
  s = _mm_xor_si128(s, _mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)(const void *)acc), bswap1));
  _mm_storel_epi64((__m128i *)(void *)acc, _mm_shuffle_epi8(reduce64(s), bswap1));
}

const struct gostx_mgm_impl gostx_mgm_avx512 = {"avx512", mul_acc128, mul_acc64};

#endif
