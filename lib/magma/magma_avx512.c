/* Magma / GOST 28147-89, AVX-512 (F + BW + VBMI): the byte-sliced core
 * (sliced_core.h) on 512-bit registers, 64 blocks per group. Two of the
 * core's hooks use what AVX-512 adds (docs/MAGMA.md counts the ops):
 *   carries live in mask registers: a compare writes a mask, the "equal and
 *   carry in" test is one compare under the incoming mask, and the carry is
 *   added as a masked +1, instead of vector compares, AND, OR and SUB;
 *   S-box lookups are VPERMB on the 16-entry table repeated four times:
 *   VPERMB reads only the index's low 6 bits, so the sum byte (low nibble)
 *   and the 16-bit shift right by 4 (high nibble) index it without the AND
 *   with 0x0f that PSHUFB needs, and three-way XORs are one VPTERNLOGD.
 * Every group runs here, a partial last one padded (until 0.2 a rest of up
 * to 32 blocks went to the AVX2 file: a cross-ISA call outside the
 * dispatcher, with a CPU check of its own). */
#include "magma/impl.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

#define TARGET GOSTX_TARGET_AVX512
#define FN(name) avx512_##name
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
/* VPERMB indexes 64 bytes by the low 6 bits; the table repeats every 16. */
#define SB_LO(s, m0f) (s)
#define SB_HI(s, m0f) _mm512_srli_epi16((s), 4)
#define SB_LOOKUP(table, idx) _mm512_permutexvar_epi8((idx), (table))
#define V_XOR3(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0x96)

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512 = {"avx512", avx512_encrypt, avx512_decrypt,
                                                    avx512_mk_init, avx512_mk_blocks, ONE_IMIT16, ONE_CHAIN};

#endif
