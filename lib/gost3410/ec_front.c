/* The front of GOST R 34.10's scalar multiplications: the one place that
 * picks the curve model (the twisted Edwards sets' in ec_edwards.c, the
 * Weierstrass curves' in ec_mul.c and ec_jac.c). The curve it is handed
 * was loaded on the implementation row lib/dispatch.c chose (curves.c's
 * gostx__ec_curve_load): which model is a public property of the curve. */
#include "gost3410/ec.h"

void gostx__ec_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  int rc = C->edwards ? gostx__ec_ed_mul_base(C, r, k) : gostx__ec_point_mul_base(C, r, k);
  if (rc) { /* no memory for the G table: k P on G */
    gx_point G;
    gostx__ec_point_generator(C, &G);
    gostx__ec_mul(C, r, k, &G);
  }
}

void gostx__ec_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  if (C->edwards)
    gostx__ec_ed_mul(C, r, k, P);
  else
    gostx__ec_point_mul(C, r, k, P);
}

/* The Weierstrass curves' Jacobian form first; the complete formulas when
 * P's small multiples meet infinity (its exceptional cases; public data). */
void gostx__ec_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                            const gx_point *P) {
  if (C->edwards)
    gostx__ec_ed_mul2_vartime(C, r, a, b, P);
  else if (gostx__ec_point_mul2_jac(C, r, a, b, P))
    gostx__ec_point_mul2_vartime(C, r, a, b, P);
}
