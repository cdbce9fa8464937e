/* Magma / GOST 28147-89, AVX-512 F + BW without VBMI (the avx512bw level:
 * Skylake-SP, Cascade Lake): the byte-sliced core (sliced_core.h) on 512-bit
 * registers, 64 blocks per group, as magma_avx512.c but with the S-box
 * lookups by VPSHUFB (its 16-entry tables are per 128-bit lane, which is
 * what the core's 16-byte tables are), so each nibble index needs the AND
 * with 0x0f that VPERMB saves. What AVX-512F/BW adds is kept: carries in
 * mask registers (a masked compare and a masked +1 instead of vector
 * compare, AND, OR, SUB) and three-way XORs as one VPTERNLOGD. */
#include "magma/impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

#define TARGET GOSTX_TARGET_AVX512BW
#define FN(name) avx512bw_##name
#define V __m512i
#define V_BYTES 64
/* The tables are 32-byte rows (a 16-byte table or mask twice): broadcast. */
#define V_LOADA(p) _mm512_broadcast_i64x4(_mm256_load_si256((const __m256i *)(const void *)(p)))
#define V_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define V_STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define V_SET1_32(x) _mm512_set1_epi32((int)(x))
#define V_AND _mm512_and_si512
#define V_OR _mm512_or_si512
#define V_XOR _mm512_xor_si512
#define V_ADD8 _mm512_add_epi8
#define V_SUB8 _mm512_sub_epi8
#define V_SRL16 _mm512_srli_epi16
#define V_SHUF _mm512_shuffle_epi8
#define V_UNPLO16 _mm512_unpacklo_epi16
#define V_UNPHI16 _mm512_unpackhi_epi16
#define V_UNPLO32 _mm512_unpacklo_epi32
#define V_UNPHI32 _mm512_unpackhi_epi32
#define V_UNPLO64 _mm512_unpacklo_epi64
#define V_UNPHI64 _mm512_unpackhi_epi64

/* Carries as 64-bit masks (bit i = byte i carries). */
#ifdef GOSTX_EMULATE_AVX512
#define KOR(a, b) ((__mmask64)((a) | (b)))
#else
#define KOR(a, b) _kor_mask64((a), (b))
#endif
#define CARRY_T __mmask64
#define CARRY_FIRST(x, nk) _mm512_cmpgt_epi8_mask((x), (nk))
#define CARRY_NEXT(c, x, nk) KOR(_mm512_cmpgt_epi8_mask((x), (nk)), _mm512_mask_cmpeq_epi8_mask((c), (x), (nk)))
#define ADD_CARRY(s, c) _mm512_mask_add_epi8((s), (c), (s), _mm512_set1_epi8(1))
/* SB_LO / SB_HI / SB_LOOKUP: the core's defaults (AND 0x0f, VPSHUFB). */
#define V_XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512bw = {"avx512bw", avx512bw_encrypt, avx512bw_decrypt,
                                                      avx512bw_mk_init, avx512bw_mk_blocks, ONE_IMIT16,
                                                      ONE_CHAIN};

#endif
