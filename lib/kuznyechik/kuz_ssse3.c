/* Kuznyechik on SSSE3-level x86-64, constant time: the bitsliced kernel of
 * kuz_bs_template.h on 128-bit words, 128 blocks per batch, for CPUs
 * without AVX2; calls of fewer than KUZ_SSSE3_WIDE_MIN blocks (and such
 * remainders), the one-block chains (CBC/CFB encryption, OFB, OMAC) and the
 * key schedule take the AVX2 file's narrow kernel (kuz_narrow.h) on pairs of
 * xmm registers. The threshold is the measured crossover of the two (a
 * padded 128-block batch against ~750 TSC ticks a block on a Golden Cove
 * core; equal at 24 blocks in gostx_kuz_encrypt_blocks calls of 8..63
 * blocks, builds with the threshold at 1 and at 64 alternating). */
#include "impl.h"

#ifdef GOSTX_ARCH_X86_64
#include <emmintrin.h>
#include <pmmintrin.h> /* movddup: the key-mask broadcast */
#include <tmmintrin.h> /* pshufb: the narrow kernel */

#include "kuz_w2.h"

/* The S-box circuits' ~a & b as one pandn each (see kuz_tables.h; the
 * header's own uint64_t instances take the plain form). */
#define KUZ_ANDN(a, b) _Generic((a), W2: andn_w2, default: kuz_andn_u64)((a), (b))
#include "kuz_tables.h"

#define KUZ_SSSE3_WIDE_MIN 24

/* ---- narrow: one block per pair of xmm (kuz_narrow.h) ----
 * The AVX2 file's one-block kernel with each ymm as two xmm registers, one
 * per half; the fold is then one XOR, no lane swap. */
typedef struct {
  __m128i h[2];
} V;
#define NARROW_TARGET __attribute__((target("ssse3")))
#define SSSE3_INLINE static inline __attribute__((always_inline, target("ssse3")))
SSSE3_INLINE V v_load(const uint8_t *p) {
  return (V){{_mm_load_si128((const __m128i *)(const void *)p),
              _mm_load_si128((const __m128i *)(const void *)(p + 16))}};
}
SSSE3_INLINE V v_block(const uint8_t *p) {
  const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
  return (V){{x, x}};
}
SSSE3_INLINE void v_store(uint8_t *p, V v) { _mm_storeu_si128((__m128i *)(void *)p, v.h[0]); }
SSSE3_INLINE V v_zero(void) { return (V){{_mm_setzero_si128(), _mm_setzero_si128()}}; }
#define V_OP2(name, op) \
  SSSE3_INLINE V name(V a, V b) { return (V){{op(a.h[0], b.h[0]), op(a.h[1], b.h[1])}}; }
V_OP2(v_xor, _mm_xor_si128)
V_OP2(v_and, _mm_and_si128)
V_OP2(v_shuf, _mm_shuffle_epi8)
V_OP2(v_adds8, _mm_adds_epi8)
SSSE3_INLINE V v_set1_8(int c) { return (V){{_mm_set1_epi8((char)c), _mm_set1_epi8((char)c)}}; }
SSSE3_INLINE V v_srl4(V a) { return (V){{_mm_srli_epi16(a.h[0], 4), _mm_srli_epi16(a.h[1], 4)}}; }
SSSE3_INLINE V v_flip_hi(void) { return (V){{_mm_setzero_si128(), _mm_set1_epi8((char)0x80)}}; }
SSSE3_INLINE V v_fold(V v, V y) {
  const __m128i t = _mm_xor_si128(v.h[0], v.h[1]);
  return (V){{_mm_xor_si128(t, y.h[0]), _mm_xor_si128(t, y.h[1])}};
}
#define V_PIN(v) __asm__("" : "+x"((v).h[0]), "+x"((v).h[1]))
#include "kuz_narrow.h"

#define BS_ATTR __attribute__((target("ssse3")))
#define BS_W W2
#define BS_LANES 2
#define BS_NAME(x) x##_x2
#define BS_LOAD_GROUP LOAD2
#define BS_STORE_GROUP STORE2
#define BS_BCAST_MEM(p) ((W2)_mm_castpd_si128(_mm_loaddup_pd((const double *)(const void *)(p))))
#define BS_WIDE_MIN KUZ_SSSE3_WIDE_MIN
#define BS_SHORT_ENC encrypt_narrow
#define BS_SHORT_DEC decrypt_narrow
#include "kuz_bs_template.h"

/* batch: one 128-block bitsliced batch, what the multi-key calls fill. */
const struct gostx_kuz_impl gostx_kuz_ssse3 = {"ssse3", encrypt_blocks_x2, decrypt_blocks_x2,
                                               BS_MK_MAX, BS_MK_MAX, sizeof(struct mk_x2),
                                               mk_init_x2, mk_encrypt_x2, mk_decrypt_x2,
                                               NULL, expand_narrow, NULL, 0, NULL, chain_narrow, 0, NULL};

#endif
