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
#include "magma/sliced_zmm.h"
/* SB_LO / SB_HI / SB_LOOKUP: the core's defaults (AND 0x0f, VPSHUFB). */

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_avx512bw = {"avx512bw", avx512bw_encrypt, avx512bw_decrypt,
                                                      avx512bw_mk_init, avx512bw_mk_blocks, ONE_IMIT16,
                                                      ONE_CHAIN, 1024, CTR_FILL};

#endif
