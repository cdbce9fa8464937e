/* Point helpers on field.c's operations (public data, a few products per
 * operation: no row's field needed): the generator, the curve equation,
 * and verification's last step. The conversions of every operation's
 * points in and out, the curve steps and the scalar multiplications are
 * the rows' (mul_template.h). */
#include "gost3410/ec.h"

#include <string.h>

void gostx__ec_point_generator(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->X, C->gx, sizeof r->X);
  memcpy(r->Y, C->gy, sizeof r->Y);
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

int gostx__ec_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y) {
  const gx_mont *M = &C->fp;
  int n = C->n;
  if (!gostx__fe_lt(x, M->m, n) || !gostx__fe_lt(y, M->m, n)) return 0;
  gx_fe X, Y, l, r;
  gostx__fe_to_mont(M, X, x);
  gostx__fe_to_mont(M, Y, y);
  gostx__fe_sqr(M, l, Y);
  gostx__fe_sqr(M, r, X);
  gostx__fe_add(M, r, r, C->a0);
  gostx__fe_mul(M, r, r, X);
  gostx__fe_add(M, r, r, C->b0);
  gostx__fe_sub(M, l, l, r);
  return gostx__fe_is_zero(l, n) != 0;
}

/* Verification's last step without an inversion: whether the affine x of A
 * (not infinity) is r mod q, i.e. X = x Z for one of x = r, r + q, ... < p
 * (x taken into the internal coordinates). Public values: variable time. */
int gostx__ec_point_x_is(const gx_curve *C, const gx_point *A, const uint64_t *r) {
  int n = C->n;
  gx_fe x, t;
  if (gostx__fe_is_zero(A->Z, n)) return 0;
  memcpy(x, r, sizeof x);
  for (;;) {
    if (!gostx__fe_lt(x, C->fp.m, n)) return 0;
    gostx__fe_to_mont(&C->fp, t, x);
    if (C->iso) gostx__fe_mul(&C->fp, t, t, C->u2);
    gostx__fe_mul(&C->fp, t, t, A->Z);
    if (!memcmp(t, A->X, (size_t)n * 8)) return 1;
    uint64_t c = 0; /* x += q */
    for (int i = 0; i < n; i++) {
      uint64_t s = x[i] + c;
      c = s < c;
      x[i] = s + C->q[i];
      c += x[i] < s;
    }
    if (c) return 0;
  }
}
