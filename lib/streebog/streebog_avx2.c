/* Streebog compression g_N on AVX2, constant time: streebog_ct.h on ymm
 * registers (vperm2i128 for the moves between 128-bit halves). */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#include <immintrin.h>

#include "streebog/impl.h"

#define SB_ATTR __attribute__((always_inline, target("avx2")))
typedef __m256i V;

static inline SB_ATTR V v_load(const void *p) { return _mm256_load_si256((const __m256i *)p); }
static inline SB_ATTR V v_load2(const uint8_t *lo, const uint8_t *hi) {
  return _mm256_loadu2_m128i((const __m128i *)hi, (const __m128i *)lo);
}
static inline SB_ATTR void v_store2(uint8_t *lo, uint8_t *hi, V v) {
  _mm256_storeu2_m128i((__m128i *)hi, (__m128i *)lo, v);
}
static inline SB_ATTR V v_set1(int b) { return _mm256_set1_epi8((char)b); }
static inline SB_ATTR V v_xor(V a, V b) { return _mm256_xor_si256(a, b); }
static inline SB_ATTR V v_and(V a, V b) { return _mm256_and_si256(a, b); }
static inline SB_ATTR V v_srl4(V a) { return _mm256_srli_epi16(a, 4); }
static inline SB_ATTR V v_or(V a, V b) { return _mm256_or_si256(a, b); }
static inline SB_ATTR V v_add(V a, V b) { return _mm256_add_epi8(a, b); }
static inline SB_ATTR V v_sub(V a, V b) { return _mm256_sub_epi8(a, b); }
static inline SB_ATTR V v_min(V a, V b) { return _mm256_min_epu8(a, b); }
static inline SB_ATTR V v_cmpeq(V a, V b) { return _mm256_cmpeq_epi8(a, b); }
static inline SB_ATTR V v_shuf(V table, V idx) { return _mm256_shuffle_epi8(table, idx); }
static inline SB_ATTR V v_unpacklo8(V a, V b) { return _mm256_unpacklo_epi8(a, b); }
static inline SB_ATTR V v_unpackhi8(V a, V b) { return _mm256_unpackhi_epi8(a, b); }
static inline SB_ATTR V v_unpacklo16(V a, V b) { return _mm256_unpacklo_epi16(a, b); }
static inline SB_ATTR V v_unpackhi16(V a, V b) { return _mm256_unpackhi_epi16(a, b); }
static inline SB_ATTR V v_unpacklo32(V a, V b) { return _mm256_unpacklo_epi32(a, b); }
static inline SB_ATTR V v_unpackhi32(V a, V b) { return _mm256_unpackhi_epi32(a, b); }
static inline SB_ATTR V v_unpacklo64(V a, V b) { return _mm256_unpacklo_epi64(a, b); }
static inline SB_ATTR V v_unpackhi64(V a, V b) { return _mm256_unpackhi_epi64(a, b); }
static inline SB_ATTR V v_lolo(V a, V b) { return _mm256_permute2x128_si256(a, b, 0x20); }
static inline SB_ATTR V v_hihi(V a, V b) { return _mm256_permute2x128_si256(a, b, 0x31); }
static inline SB_ATTR V v_swap(V a) { return _mm256_permute2x128_si256(a, a, 0x01); }

#define SB_OPAQUE(p) __asm__("" : "+r"(p)) /* 163 vs 148 MB/s on Zen 4 */

#include "streebog_ct.h"

static __attribute__((target("avx2"))) void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  sb_compress(h, n, m);
}

const struct gostx_streebog_impl gostx_streebog_avx2 = {"avx2", compress};

#endif
