/* Kuznyechik on SSSE3-level x86-64 (the instructions used are SSE2), constant
 * time: the bitsliced kernel of kuz_bs_template.h on 128-bit words, 128
 * blocks per batch, for CPUs without AVX2. Calls of fewer than
 * KUZ_SSSE3_WIDE_MIN blocks (and such remainders) go to the portable core,
 * which is as fast there (measured crossover, bench/kuz_speed.c). */
#include "impl.h"

#ifdef GOSTX_ARCH_X86_64
#include <emmintrin.h>
#include <pmmintrin.h> /* movddup: the key-mask broadcast */

typedef uint64_t W2 __attribute__((vector_size(16)));

/* The S-box circuits' ~a & b as one pandn each (see kuz_tables.h; the
 * header's own uint64_t instances take the plain form). */
static inline __attribute__((always_inline)) W2 andn_w2(W2 a, W2 b) {
  return (W2)_mm_andnot_si128((__m128i)a, (__m128i)b);
}
#define KUZ_ANDN(a, b) _Generic((a), W2: andn_w2, default: kuz_andn_u64)((a), (b))
#include "kuz_tables.h"

#define KUZ_SSSE3_WIDE_MIN 64

/* Two blocks (32 bytes) <-> their low and high halves, one block per lane. */
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

#define BS_ATTR __attribute__((target("ssse3")))
#define BS_W W2
#define BS_LANES 2
#define BS_NAME(x) x##_x2
#define BS_LOAD_GROUP LOAD2
#define BS_STORE_GROUP STORE2
#define BS_BCAST_MEM(p) ((W2)_mm_castpd_si128(_mm_loaddup_pd((const double *)(const void *)(p))))
#define BS_WIDE_MIN KUZ_SSSE3_WIDE_MIN
#include "kuz_bs_template.h"

/* batch: one 128-block bitsliced batch, what the multi-key calls fill. */
const struct gostx_kuz_impl gostx_kuz_ssse3 = {"ssse3", encrypt_blocks_x2, decrypt_blocks_x2,
                                               BS_MK_MAX, BS_MK_MAX, sizeof(struct mk_x2),
                                               mk_init_x2, mk_encrypt_x2, mk_decrypt_x2,
                                               NULL, NULL, NULL, 0, NULL, NULL, 0};

#endif
