/* Kuznyechik on AArch64 NEON, constant time: the bitsliced kernel of
 * kuz_bs_template.h on 128-bit words (two 64-bit lanes, 128 blocks per
 * batch), as kuz_ssse3.c runs it on x86. The template is written in GCC
 * vector extensions, so this file only says how two blocks become a pair
 * of lane words and which instruction is ~a & b (BIC). Calls of fewer than
 * KUZ_NEON_WIDE_MIN blocks (and such remainders) go to the portable core. */
#include "impl.h"

#ifdef GOSTX_ARCH_AARCH64
#include <arm_neon.h>

typedef uint64_t W2 __attribute__((vector_size(16)));

/* The S-box circuits' ~a & b: BIC computes b & ~a in one instruction. */
static inline __attribute__((always_inline)) W2 andn_w2(W2 a, W2 b) {
  return (W2)vbicq_u64((uint64x2_t)b, (uint64x2_t)a);
}
#define KUZ_ANDN(a, b) _Generic((a), W2: andn_w2, default: kuz_andn_u64)((a), (b))
#include "kuz_tables.h"

/* The crossover of kuz_ssse3.c; not measured on ARM hardware here. */
#define KUZ_NEON_WIDE_MIN 64

/* Two blocks (32 bytes) <-> their low and high halves, one block per lane. */
#define LOAD2(p, lo, hi)                                            \
  do {                                                              \
    uint64x2_t x_ = vld1q_u64((const uint64_t *)(const void *)(p)); \
    uint64x2_t y_ = vld1q_u64((const uint64_t *)(const void *)((p) + 16)); \
    (lo) = (W2)vzip1q_u64(x_, y_);                                  \
    (hi) = (W2)vzip2q_u64(x_, y_);                                  \
  } while (0)
#define STORE2(p, lo, hi)                                                                  \
  do {                                                                                     \
    vst1q_u64((uint64_t *)(void *)(p), vzip1q_u64((uint64x2_t)(lo), (uint64x2_t)(hi)));    \
    vst1q_u64((uint64_t *)(void *)((p) + 16), vzip2q_u64((uint64x2_t)(lo), (uint64x2_t)(hi))); \
  } while (0)

#define BS_ATTR
#define BS_W W2
#define BS_LANES 2
#define BS_NAME(x) x##_neon
#define BS_LOAD_GROUP LOAD2
#define BS_STORE_GROUP STORE2
#define BS_BCAST_MEM(p) ((W2)vld1q_dup_u64((const uint64_t *)(const void *)(p)))
#define BS_WIDE_MIN KUZ_NEON_WIDE_MIN
#include "kuz_bs_template.h"

const struct gostx_kuz_impl gostx_kuz_neon = {"neon", encrypt_blocks_neon, decrypt_blocks_neon,
                                              BS_MK_MAX, BS_MK_MAX, sizeof(struct mk_neon),
                                              mk_init_neon, mk_encrypt_neon, mk_decrypt_neon,
                                              NULL, NULL, NULL, 0, NULL, NULL, 0, NULL};

#endif
