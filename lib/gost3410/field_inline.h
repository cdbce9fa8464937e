/* The field operations the point formulas call (ec_edwards.c): where the
 * MULX field runs a 4-limb modulus or 2^512 - c, its bodies inline
 * (field_x86_64.h, field_x86_64_8.h), so a product or a sum costs no call
 * (the 8-limb product and squaring: one direct call, no dispatch);
 * everything else goes to gostx__fe_mul, gostx__fe_sqr, gostx__fe_add and gostx__fe_sub. The test of M is on public data (which field, which
 * modulus) and the same at every call of a curve. Not installed. */
#ifndef GOSTX_GOST3410_FIELD_INLINE_H
#define GOSTX_GOST3410_FIELD_INLINE_H

#include "gost3410/field.h"
#include "gost3410/field_x86_64_8.h"

static inline void fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
#ifdef GX_FIELD_X86_64
  if (M->mulx && M->n == 4 && M->c) {
    mul4_pm(M, r, a, b);
    return;
  }
  if (M->mulx && M->c) {
    gostx__fe_mul8_pm(M, r, a, b);
    return;
  }
#endif
  gostx__fe_mul(M, r, a, b);
}

static inline void fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) {
#ifdef GX_FIELD_X86_64
  if (M->mulx && M->n == 4 && M->c) {
    sqr4_pm(M, r, a);
    return;
  }
  if (M->mulx && M->c) {
    gostx__fe_sqr8_pm(M, r, a);
    return;
  }
#endif
  gostx__fe_sqr(M, r, a);
}

static inline void fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
#ifdef GX_FIELD_X86_64
  if (M->mulx && M->n == 4) {
    add4(M, r, a, b);
    return;
  }
  if (M->mulx && M->c) {
    add8_pm(M, r, a, b);
    return;
  }
#endif
  gostx__fe_add(M, r, a, b);
}

static inline void fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
#ifdef GX_FIELD_X86_64
  if (M->mulx && M->n == 4) {
    sub4(M, r, a, b);
    return;
  }
  if (M->mulx && M->c) {
    sub8_pm(M, r, a, b);
    return;
  }
#endif
  gostx__fe_sub(M, r, a, b);
}

#endif
