/* Magma / GOST 28147-89, AVX2: the byte-sliced core (sliced_core.h) on
 * 256-bit registers, 32 blocks per group. Blocks that do not fill a group
 * run through a padded group; a single block goes to the portable core,
 * which is faster for it (docs/MAGMA.md has the numbers). */
#include "magma/impl.h"

#ifdef GOSTX_ARCH_X86_64
#include <immintrin.h>

#define TARGET __attribute__((target("avx2")))
#define FN(name) avx2_##name
#define V __m256i
#define V_BYTES 32
#define V_LOADU(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define V_LOADA(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define V_STOREU(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), (v))
#define V_SET1_32(x) _mm256_set1_epi32((int)(x))
#define V_AND _mm256_and_si256
#define V_OR _mm256_or_si256
#define V_XOR _mm256_xor_si256
#define V_ADD8 _mm256_add_epi8
#define V_ADD32 _mm256_add_epi32
#define V_ADD64 _mm256_add_epi64
#define V_SET1_64(x) _mm256_set1_epi64x((long long)(x))
#define V_SUB8 _mm256_sub_epi8
#define V_GT8 _mm256_cmpgt_epi8
#define V_EQ8 _mm256_cmpeq_epi8
#define V_SRL16 _mm256_srli_epi16
#define V_SHUF _mm256_shuffle_epi8
#define V_UNPLO16 _mm256_unpacklo_epi16
#define V_UNPHI16 _mm256_unpackhi_epi16
#define V_UNPLO32 _mm256_unpacklo_epi32
#define V_UNPHI32 _mm256_unpackhi_epi32
#define V_UNPLO64 _mm256_unpacklo_epi64
#define V_UNPHI64 _mm256_unpackhi_epi64

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx2 = {"avx2", avx2_encrypt, avx2_decrypt,
                                                  avx2_mk_init, avx2_mk_blocks, ONE_IMIT16, ONE_CHAIN, 1024,
                                                  CTR_FILL};

#endif
