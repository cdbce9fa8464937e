/* The MULX/ADX field operations of the rows that have them (mul_mulx.c,
 * mul_avx512ifma.c; x86-64 only), for mul_template.h: where the modulus
 * has 4 limbs or is 2^512 - c, the bodies inline (field_x86_64.h,
 * field_x86_64_8.h), so a product or a sum costs no call (the 8-limb
 * product and squaring: one direct call); other moduli go to
 * field_x86_64.c's gostx__fe_mul_mulx and the rest. The tests of M are on
 * public data (which modulus) and the same at every call of a curve. Not
 * installed. */
#ifndef GOSTX_GOST3410_FIELD_MULX_H
#define GOSTX_GOST3410_FIELD_MULX_H

#include "gost3410/field.h"
#include "gost3410/field_x86_64.h"
#include "gost3410/field_x86_64_8.h"

#ifdef GX_FIELD_X86_64
/* Forced inline: the template's unit is large enough that GCC's unit-growth
 * limit otherwise leaves them out of line in the hot formulas (a call per
 * product, +3 % on k P). */
#define GX_FE_INLINE static inline __attribute__((always_inline))

GX_FE_INLINE void fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4 && M->c)
    mul4_pm(M, r, a, b);
  else if (M->c)
    gostx__fe_mul8_pm(M, r, a, b);
  else
    gostx__fe_mul_mulx(M, r, a, b);
}

GX_FE_INLINE void fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  if (M->n == 4 && M->c)
    sqr4_pm(M, r, a);
  else if (M->c)
    gostx__fe_sqr8_pm(M, r, a);
  else
    gostx__fe_sqr_mulx(M, r, a);
}

GX_FE_INLINE void fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    add4(M, r, a, b);
  else if (M->c)
    add8_pm(M, r, a, b);
  else
    gostx__fe_add(M, r, a, b);
}

GX_FE_INLINE void fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    sub4(M, r, a, b);
  else if (M->c)
    sub8_pm(M, r, a, b);
  else
    gostx__fe_sub(M, r, a, b);
}
#endif

#endif
