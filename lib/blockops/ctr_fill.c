/* Counter blocks for the counter modes (CTR, CTR-ACPKM, MGM): below the
 * cipher handle and the kernels, so that a kernel's own ctr entry and the
 * generic keystream of lib/cipher.c share it without calling up. */
#include "internal.h"

/* Loops on whole words per block: a memcpy of a variable n per block cost a
 * third of Magma CTR's time once the cipher was vectorised. */
void gostx__ctr_fill(uint8_t *dst, uint8_t *ctr, size_t n, unsigned inc, size_t count) {
  if (n == 16) {
    uint64_t hi = gostx_load64_be(ctr), lo = gostx_load64_be(ctr + 8);
    for (size_t i = 0; i < count; i++, dst += 16) {
      gostx_store64_be(dst, hi);
      gostx_store64_be(dst + 8, lo);
      if (inc == GOSTX__CTR_LEFT) {
        hi++;
      } else {
        lo++;
        if (inc == GOSTX__CTR_FULL) hi += (uint64_t)(lo == 0);
      }
      /* MGM's counters are secret: without these GCC runs the loop on the
       * counter itself (exit when hi == hi0 + count: a compare of a secret). */
      GOSTX_VALUE_BARRIER(hi);
      GOSTX_VALUE_BARRIER(lo);
    }
    gostx_store64_be(ctr, hi);
    gostx_store64_be(ctr + 8, lo);
  } else {
    if (inc == GOSTX__CTR_FULL) {
      uint64_t v = gostx_load64_be(ctr);
      for (size_t i = 0; i < count; i++, dst += 8, v++) {
        gostx_store64_be(dst, v);
        GOSTX_VALUE_BARRIER(v); /* a secret counter (TLS 1.2's IV): as above */
      }
      gostx_store64_be(ctr, v);
      return;
    }
    /* one 32-bit half moves, the other is copied from a local (the word
     * forms with masks measured 8 % slower in Magma-MGM) */
    const size_t var = inc == GOSTX__CTR_RIGHT ? 4 : 0, fix = 4 - var;
    uint8_t fixed[4];
    uint32_t w = gostx_load32_be(ctr + var);
    memcpy(fixed, ctr + fix, 4);
    for (size_t i = 0; i < count; i++, dst += 8, w++) {
      memcpy(dst + fix, fixed, 4);
      gostx_store32_be(dst + var, w);
      GOSTX_VALUE_BARRIER(w);
    }
    gostx_store32_be(ctr + var, w);
  }
}
