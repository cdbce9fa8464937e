/* MGM's multiply-accumulate on AArch64 with PMULL (the 64x64-bit carry-less
 * multiply of the Crypto extension). Same contract as mgm_portable.c:
 * acc ^= sum_i H_i (x) X_i, and the same plan as mgm_clmul.c: one byte
 * reversal makes a big-endian block the register's natural integer, the
 * 128x128 products are summed unreduced (lo, mid, hi) and reduced once per
 * call. Schoolbook (four multiplies per block): PMULL is not the scarce unit
 * on ARM cores that PCLMULQDQ is on x86. No branch or address depends on
 * data. */
#include "arch.h"

#ifdef GOSTX_ARCH_AARCH64
#include <arm_neon.h>

#include "mgm/impl.h"

#define TARGET __attribute__((target("+crypto")))

TARGET static inline uint64x2_t pmull(uint64_t a, uint64_t b) {
  return vreinterpretq_u64_p128(vmull_p64((poly64_t)a, (poly64_t)b));
}

/* 16 big-endian bytes <-> the 128-bit integer (lane 0 = low 64 bits). */
static inline uint64x2_t load_be128(const uint8_t *p) {
  uint8x16_t r = vrev64q_u8(vld1q_u8(p));
  return vreinterpretq_u64_u8(vextq_u8(r, r, 8));
}
static inline void store_be128(uint8_t *p, uint64x2_t v) {
  uint8x16_t r = vrev64q_u8(vreinterpretq_u8_u64(v));
  vst1q_u8(p, vextq_u8(r, r, 8));
}
static inline uint64_t load_be64(const uint8_t *p) {
  return vget_lane_u64(vreinterpret_u64_u8(vrev64_u8(vld1_u8(p))), 0);
}
static inline void store_be64(uint8_t *p, uint64_t v) {
  vst1_u8(p, vrev64_u8(vreinterpret_u8_u64(vdup_n_u64(v))));
}

/* (hi:lo) mod x^128 + x^7 + x^2 + x + 1, as mgm_reduce_x86.h: the top word
 * times r = 0x87 folds into the middle, then the new third word times r. */
TARGET static inline uint64x2_t reduce128(uint64x2_t lo, uint64x2_t hi) {
  const uint64x2_t zero = vdupq_n_u64(0);
  uint64x2_t a = pmull(vgetq_lane_u64(hi, 1), 0x87);
  lo = veorq_u64(lo, vextq_u64(zero, a, 1)); /* low word of a onto word 1 */
  hi = veorq_u64(hi, vextq_u64(a, zero, 1)); /* high word of a onto word 2 */
  return veorq_u64(lo, pmull(vgetq_lane_u64(hi, 0), 0x87));
}

TARGET static void mul_acc128(uint8_t acc[16], const uint8_t *h, const uint8_t *x,
                              size_t nblocks) {
  uint64x2_t lo = load_be128(acc), mid = vdupq_n_u64(0), hi = vdupq_n_u64(0);
  for (size_t i = 0; i < nblocks; i++) {
    uint64x2_t hv = load_be128(h + 16 * i), xv = load_be128(x + 16 * i);
    uint64_t h0 = vgetq_lane_u64(hv, 0), h1 = vgetq_lane_u64(hv, 1);
    uint64_t x0 = vgetq_lane_u64(xv, 0), x1 = vgetq_lane_u64(xv, 1);
    lo = veorq_u64(lo, pmull(h0, x0));
    hi = veorq_u64(hi, pmull(h1, x1));
    mid = veorq_u64(mid, veorq_u64(pmull(h0, x1), pmull(h1, x0)));
  }
  const uint64x2_t zero = vdupq_n_u64(0);
  lo = veorq_u64(lo, vextq_u64(zero, mid, 1));
  hi = veorq_u64(hi, vextq_u64(mid, zero, 1));
  store_be128(acc, reduce128(lo, hi));
}

/* 64-bit blocks: each product is one PMULL, all summed in one register,
 * then (p1, p0) mod x^64 + x^4 + x^3 + x + 1 with r = 0x1b: p1 r has 67
 * bits, whose top 3 bits times r once more. */
TARGET static void mul_acc64(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  uint64x2_t s = vsetq_lane_u64(load_be64(acc), vdupq_n_u64(0), 0);
  for (size_t i = 0; i < nblocks; i++) s = veorq_u64(s, pmull(load_be64(h + 8 * i), load_be64(x + 8 * i)));
  uint64x2_t a = pmull(vgetq_lane_u64(s, 1), 0x1b);
  uint64x2_t b = pmull(vgetq_lane_u64(a, 1), 0x1b);
  store_be64(acc, vgetq_lane_u64(s, 0) ^ vgetq_lane_u64(a, 0) ^ vgetq_lane_u64(b, 0));
}

const struct gostx_mgm_impl gostx_mgm_neon = {"pmull", mul_acc128, mul_acc64};

#endif
