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
#include "magma/sliced_zmm.h"
/* VPERMB indexes 64 bytes by the low 6 bits; the table repeats every 16. */
#define SB_LO(s, m0f) (s)
#define SB_HI(s, m0f) _mm512_srli_epi16((s), 4)
#define SB_LOOKUP(table, idx) _mm512_permutexvar_epi8((idx), (table))

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512 = {"avx512", avx512_encrypt, avx512_decrypt,
                                                    avx512_mk_init, avx512_mk_blocks, ONE_IMIT16, ONE_CHAIN};

#endif
