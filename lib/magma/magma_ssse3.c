/* Magma / GOST 28147-89, SSSE3: the byte-sliced core (sliced_core.h) on
 * 128-bit registers, 16 blocks per group. Blocks that do not fill a group
 * run through a padded group; a single block goes to the portable core,
 * which is faster for it (docs/MAGMA.md has the numbers). */
#include "magma/impl.h"

#ifdef GOSTX_ARCH_X86_64
#include <immintrin.h>

#define TARGET __attribute__((target("ssse3")))
#define FN(name) ssse3_##name
#define V __m128i
#define V_BYTES 16
#define PAIR_GROUPS 0 /* pairs of 16-block groups measured no faster here (633 vs 640-650 MB/s) */
#define V_LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define V_LOADA(p) _mm_load_si128((const __m128i *)(const void *)(p))
#define V_STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), (v))
#define V_SET1_32(x) _mm_set1_epi32((int)(x))
#define V_AND _mm_and_si128
#define V_OR _mm_or_si128
#define V_XOR _mm_xor_si128
#define V_ADD8 _mm_add_epi8
#define V_ADD32 _mm_add_epi32
#define V_ADD64 _mm_add_epi64
#define V_SET1_64(x) _mm_set1_epi64x((long long)(x))
#define V_SUB8 _mm_sub_epi8
#define V_GT8 _mm_cmpgt_epi8
#define V_EQ8 _mm_cmpeq_epi8
#define V_SRL16 _mm_srli_epi16
#define V_SHUF _mm_shuffle_epi8
#define V_UNPLO16 _mm_unpacklo_epi16
#define V_UNPHI16 _mm_unpackhi_epi16
#define V_UNPLO32 _mm_unpacklo_epi32
#define V_UNPHI32 _mm_unpackhi_epi32
#define V_UNPLO64 _mm_unpacklo_epi64
#define V_UNPHI64 _mm_unpackhi_epi64

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_ssse3 = {"ssse3", ssse3_encrypt, ssse3_decrypt,
                                                   ssse3_mk_init, ssse3_mk_blocks, ONE_IMIT16, ONE_CHAIN, 1024,
                                                   CTR_FILL};

#endif
