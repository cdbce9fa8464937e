/* Magma / GOST 28147-89, AArch64 NEON: the byte-sliced core (sliced_core.h)
 * on 128-bit registers, 16 blocks per group, as magma_ssse3.c does on x86.
 * TBL is PSHUFB's twin for the 16-entry S-box tables and the byte
 * permutations (every index used is below 16, where the two agree); ZIP1 /
 * ZIP2 are the unpacks. A single block goes to the portable core. */
#include "magma/impl.h"

#ifdef GOSTX_ARCH_AARCH64
#include <arm_neon.h>

#define TARGET
#define FN(name) neon_##name
#define V uint8x16_t
#define V_BYTES 16
#define PAIR_GROUPS 1 /* 32 registers: two groups (16 state registers) fit */
#define V_LOADU(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define V_LOADA(p) vld1q_u8((const uint8_t *)(const void *)(p))
#define V_STOREU(p, v) vst1q_u8((uint8_t *)(void *)(p), (v))
#define V_SET1_32(x) vreinterpretq_u8_u32(vdupq_n_u32((uint32_t)(x)))
#define V_AND vandq_u8
#define V_OR vorrq_u8
#define V_XOR veorq_u8
#define V_ADD8 vaddq_u8
#define V_SUB8 vsubq_u8
#define V_GT8(a, b) vcgtq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b))
#define V_EQ8 vceqq_u8
#define V_SRL16(a, n) vreinterpretq_u8_u16(vshrq_n_u16(vreinterpretq_u16_u8(a), (n)))
#define V_SHUF(d, i) vqtbl1q_u8((d), (i))
#define ZIP_(op, t, a, b) vreinterpretq_u8_##t(op(vreinterpretq_##t##_u8(a), vreinterpretq_##t##_u8(b)))
#define V_UNPLO16(a, b) ZIP_(vzip1q_u16, u16, a, b)
#define V_UNPHI16(a, b) ZIP_(vzip2q_u16, u16, a, b)
#define V_UNPLO32(a, b) ZIP_(vzip1q_u32, u32, a, b)
#define V_UNPHI32(a, b) ZIP_(vzip2q_u32, u32, a, b)
#define V_UNPLO64(a, b) ZIP_(vzip1q_u64, u64, a, b)
#define V_UNPHI64(a, b) ZIP_(vzip2q_u64, u64, a, b)

#include "magma/sliced_core.h"

const struct gostx_magma_impl gostx_magma_neon = {"neon", neon_encrypt, neon_decrypt,
                                                  neon_mk_init, neon_mk_blocks, ONE_IMIT16, ONE_CHAIN, 0,
                                                  CTR_FILL};

#endif
