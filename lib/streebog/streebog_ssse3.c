/* Streebog compression g_N on SSSE3, constant time: streebog_ct.h with each
 * 256-bit vector as two xmm registers (moves between halves are free). */
#include "arch.h"

#ifdef GOSTX_ARCH_X86_64
#include <tmmintrin.h>

#include "streebog/impl.h"

#define SB_ATTR __attribute__((always_inline, target("ssse3")))
typedef struct {
  __m128i lo, hi;
} V;

static inline SB_ATTR V v_pair(__m128i lo, __m128i hi) { return (V){lo, hi}; }
static inline SB_ATTR V v_load(const void *p) {
  return v_pair(_mm_load_si128((const __m128i *)p), _mm_load_si128((const __m128i *)p + 1));
}
static inline SB_ATTR V v_load2(const uint8_t *lo, const uint8_t *hi) {
  return v_pair(_mm_loadu_si128((const __m128i *)lo), _mm_loadu_si128((const __m128i *)hi));
}
static inline SB_ATTR void v_store2(uint8_t *lo, uint8_t *hi, V v) {
  _mm_storeu_si128((__m128i *)lo, v.lo);
  _mm_storeu_si128((__m128i *)hi, v.hi);
}
static inline SB_ATTR V v_set1(int b) {
  const __m128i x = _mm_set1_epi8((char)b);
  return v_pair(x, x);
}
/* One lane-local two-operand operation on both halves. */
#define SB_PAIR_OP(name, op) \
  static inline SB_ATTR V name(V a, V b) { return v_pair(op(a.lo, b.lo), op(a.hi, b.hi)); }
SB_PAIR_OP(v_xor, _mm_xor_si128)
SB_PAIR_OP(v_and, _mm_and_si128)
SB_PAIR_OP(v_or, _mm_or_si128)
SB_PAIR_OP(v_add, _mm_add_epi8)
SB_PAIR_OP(v_sub, _mm_sub_epi8)
SB_PAIR_OP(v_min, _mm_min_epu8)
SB_PAIR_OP(v_cmpeq, _mm_cmpeq_epi8)
SB_PAIR_OP(v_shuf, _mm_shuffle_epi8)
SB_PAIR_OP(v_unpacklo8, _mm_unpacklo_epi8)
SB_PAIR_OP(v_unpackhi8, _mm_unpackhi_epi8)
SB_PAIR_OP(v_unpacklo16, _mm_unpacklo_epi16)
SB_PAIR_OP(v_unpackhi16, _mm_unpackhi_epi16)
SB_PAIR_OP(v_unpacklo32, _mm_unpacklo_epi32)
SB_PAIR_OP(v_unpackhi32, _mm_unpackhi_epi32)
SB_PAIR_OP(v_unpacklo64, _mm_unpacklo_epi64)
SB_PAIR_OP(v_unpackhi64, _mm_unpackhi_epi64)
#undef SB_PAIR_OP
static inline SB_ATTR V v_srl4(V a) { return v_pair(_mm_srli_epi16(a.lo, 4), _mm_srli_epi16(a.hi, 4)); }
static inline SB_ATTR V v_lolo(V a, V b) { return v_pair(a.lo, b.lo); }
static inline SB_ATTR V v_hihi(V a, V b) { return v_pair(a.hi, b.hi); }
static inline SB_ATTR V v_swap(V a) { return v_pair(a.hi, a.lo); }

#include "streebog_ct.h"

static __attribute__((target("ssse3"))) void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  sb_compress(h, n, m);
}

const struct gostx_streebog_impl gostx_streebog_ssse3 = {"ssse3", compress};

#endif
