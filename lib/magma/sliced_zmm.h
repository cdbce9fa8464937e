/* The zmm operations of the byte-sliced core (sliced_core.h) that both
 * AVX-512 Magma files use (magma_avx512.c: + VBMI; magma_avx512bw.c: F/BW
 * only): 64 blocks per group, carries in mask registers, three-way XORs as
 * VPTERNLOGD. The includer defines TARGET and FN first, and after this the
 * S-box hooks (SB_*) if it has better lookups than the core's VPSHUFB. */
#ifndef GOSTX_MAGMA_SLICED_ZMM_H
#define GOSTX_MAGMA_SLICED_ZMM_H

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
#define V_ADD32 _mm512_add_epi32
#define V_ADD64 _mm512_add_epi64
#define V_SET1_64(x) _mm512_set1_epi64((long long)(x))
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
#define V_XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

#endif
