/* Points of y^2 = x^3 + a x + b in projective coordinates with the complete
 * addition law of Renes, Costello and Batina (2016, algorithm 1, any a): one
 * formula for P + Q, P + P and sums with infinity, so scalar multiplication
 * has no exceptional cases to branch on. (The formula is complete on points
 * of odd order; the cofactor-4 curves only ever feed it points of the order-q
 * subgroup: G, or a peer key multiplied by the cofactor first.) */
#include "gost3410/ec.h"
#include "gost3410/field_inline.h"

#include "internal.h"

#include <string.h>

/* r = a x: additions when a = -3 or 3, else a product. */
static void mul_a(const gx_curve *C, uint64_t *r, const uint64_t *x) {
  static const gx_fe zero = {0};
  if (C->a_small) { /* a public property of the curve */
    gx_fe t;
    fe_add(&C->fp, t, x, x);
    fe_add(&C->fp, t, t, x);
    if (C->a_small < 0)
      fe_sub(&C->fp, r, zero, t);
    else
      memcpy(r, t, sizeof t);
  } else {
    fe_mul(&C->fp, r, C->a, x);
  }
}

/* The second half of the complete addition, shared by the projective and the
 * mixed forms, from t0 = X1 X2, t1 = Y1 Y2, t2 = Z1 Z2,
 * t3 = X1 Y2 + X2 Y1, t4 = X1 Z2 + X2 Z1, t5 = Y1 Z2 + Y2 Z1. */
static void add_finish(const gx_curve *C, gx_point *r, gx_fe t0, gx_fe t1, gx_fe t2, gx_fe t3,
                       gx_fe t4, gx_fe t5) {
  const gx_mont *M = &C->fp;
  gx_fe X3, Y3, Z3;
  mul_a(C, Z3, t4);
  fe_mul(M, X3, C->b3, t2);
  fe_add(M, Z3, X3, Z3);
  fe_sub(M, X3, t1, Z3);
  fe_add(M, Z3, t1, Z3);
  fe_mul(M, Y3, X3, Z3);
  fe_add(M, t1, t0, t0);
  fe_add(M, t1, t1, t0);
  mul_a(C, t2, t2);
  fe_mul(M, t4, C->b3, t4);
  fe_add(M, t1, t1, t2);
  fe_sub(M, t2, t0, t2);
  mul_a(C, t2, t2);
  fe_add(M, t4, t4, t2);
  fe_mul(M, t0, t1, t4);
  fe_add(M, Y3, Y3, t0);
  fe_mul(M, t0, t5, t4);
  fe_mul(M, X3, X3, t3);
  fe_sub(M, X3, X3, t0);
  fe_mul(M, t0, t3, t1);
  fe_mul(M, Z3, t5, Z3);
  fe_add(M, Z3, Z3, t0);
  memcpy(r->X, X3, sizeof X3);
  memcpy(r->Y, Y3, sizeof Y3);
  memcpy(r->Z, Z3, sizeof Z3);
}

void gostx__ec_point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q) {
  const gx_mont *M = &C->fp;
  gx_fe t0, t1, t2, t3, t4, t5, u;
  if (C->lanes && C->a_small == -3) { /* the row's lane code (public: the curve's) */
    C->lanes->point_add(C, r, P, Q);
    return;
  }
  fe_mul(M, t0, P->X, Q->X);
  fe_mul(M, t1, P->Y, Q->Y);
  fe_mul(M, t2, P->Z, Q->Z);
  fe_add(M, t3, P->X, P->Y);
  fe_add(M, t4, Q->X, Q->Y);
  fe_mul(M, t3, t3, t4);
  fe_add(M, t4, t0, t1);
  fe_sub(M, t3, t3, t4);
  fe_add(M, t4, P->X, P->Z);
  fe_add(M, t5, Q->X, Q->Z);
  fe_mul(M, t4, t4, t5);
  fe_add(M, t5, t0, t2);
  fe_sub(M, t4, t4, t5);
  fe_add(M, t5, P->Y, P->Z);
  fe_add(M, u, Q->Y, Q->Z);
  fe_mul(M, t5, t5, u);
  fe_add(M, u, t1, t2);
  fe_sub(M, t5, t5, u);
  add_finish(C, r, t0, t1, t2, t3, t4, t5);
}

/* Z2 = 1: t2 = Z1, t4 = X1 + X2 Z1, t5 = Y1 + Y2 Z1; two products fewer. */
void gostx__ec_point_add_affine(const gx_curve *C, gx_point *r, const gx_point *P, const uint64_t *x,
                         const uint64_t *y) {
  const gx_mont *M = &C->fp;
  gx_fe t0, t1, t2, t3, t4, t5;
  fe_mul(M, t0, P->X, x);
  fe_mul(M, t1, P->Y, y);
  memcpy(t2, P->Z, sizeof t2);
  fe_add(M, t3, P->X, P->Y);
  fe_add(M, t4, x, y);
  fe_mul(M, t3, t3, t4);
  fe_add(M, t4, t0, t1);
  fe_sub(M, t3, t3, t4);
  fe_mul(M, t4, x, P->Z);
  fe_add(M, t4, t4, P->X);
  fe_mul(M, t5, y, P->Z);
  fe_add(M, t5, t5, P->Y);
  add_finish(C, r, t0, t1, t2, t3, t4, t5);
}

/* One doubling of the Jacobian (X : Y : Z) (x = X/Z^2, y = Y/Z^3) in place:
 * 3M + 5S for a = -3, 3M + 6S and a product by a otherwise, against 14 to 17
 * products for the complete addition used as a doubling. Exceptional only
 * at points of order 2, which never reach it (odd-order points only);
 * infinity keeps Z = 0. */
void gostx__ec_jac_dbl(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z) {
  const gx_mont *M = &C->fp;
  gx_fe t0, t1, t2, t3, zz;
  fe_sqr(M, t1, Y); /* Y^2 */
  fe_sqr(M, zz, Z); /* Z^2 */
  fe_add(M, Z, Y, Z);
  fe_sqr(M, Z, Z);
  fe_sub(M, Z, Z, t1);
  fe_sub(M, Z, Z, zz); /* Z3 = (Y + Z)^2 - Y^2 - Z^2 = 2 Y Z */
  fe_mul(M, t2, X, t1); /* X Y^2 */
  if (C->a_small == -3) { /* the curve's form: public */
    fe_sub(M, t3, X, zz);
    fe_add(M, t0, X, zz);
    fe_mul(M, t3, t3, t0);
    fe_add(M, t0, t3, t3);
    fe_add(M, t3, t0, t3); /* m = 3 (X - Z^2)(X + Z^2) */
  } else {
    fe_sqr(M, t0, X);
    fe_sqr(M, zz, zz);
    mul_a(C, zz, zz);
    fe_add(M, t3, t0, t0);
    fe_add(M, t3, t3, t0);
    fe_add(M, t3, t3, zz); /* m = 3 X^2 + a Z^4 */
  }
  fe_add(M, t0, t2, t2);
  fe_add(M, t0, t0, t0); /* s = 4 X Y^2 */
  fe_sqr(M, t1, t1); /* u = Y^4 */
  /* X3 = m^2 - 2 s, Y3 = m (s - X3) - 8 u */
  fe_sqr(M, X, t3);
  fe_sub(M, X, X, t0);
  fe_sub(M, X, X, t0);
  fe_sub(M, t0, t0, X);
  fe_mul(M, Y, t3, t0);
  fe_add(M, t1, t1, t1);
  fe_add(M, t1, t1, t1);
  fe_add(M, t1, t1, t1);
  fe_sub(M, Y, Y, t1);
}

/* count doublings of P in Jacobian coordinates, converted from and back to
 * projective around the run (6 products); infinity comes back as
 * (0 : 1 : 0) through a mask. */
void gostx__ec_point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count) {
  const gx_mont *M = &C->fp;
  gx_fe X, Y, Z, t0;
  if (C->lanes && C->a_small == -3) { /* the row's lane code (public: the curve's) */
    C->lanes->point_dbl_n(C, r, P, count);
    return;
  }
  /* projective -> Jacobian: (X Z, Y Z^2, Z) */
  fe_mul(M, X, P->X, P->Z);
  fe_sqr(M, t0, P->Z);
  fe_mul(M, Y, P->Y, t0);
  memcpy(Z, P->Z, sizeof Z);
  for (int i = 0; i < count; i++) gostx__ec_jac_dbl(C, X, Y, Z);
  /* Jacobian -> projective: (X Z, Y, Z^3) */
  fe_mul(M, r->X, X, Z);
  fe_sqr(M, t0, Z);
  fe_mul(M, r->Z, t0, Z);
  memcpy(r->Y, Y, sizeof Y);
  gostx__fe_cmov(r->Y, M->one, gostx__fe_is_zero(r->Z, C->n), C->n);
}

void gostx__ec_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y) {
  memset(r, 0, sizeof *r);
  gostx__fe_to_mont(&C->fp, r->X, x);
  gostx__fe_to_mont(&C->fp, r->Y, y);
  if (C->iso) { /* into the internal coordinates (curves.c) */
    fe_mul(&C->fp, r->X, r->X, C->u2);
    fe_mul(&C->fp, r->Y, r->Y, C->u3);
  }
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

void gostx__ec_point_generator(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->X, C->gx, sizeof r->X);
  memcpy(r->Y, C->gy, sizeof r->Y);
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

void gostx__ec_point_neg_if(const gx_curve *C, gx_point *P, uint64_t mask) {
  static const gx_fe zero = {0};
  gx_fe ny;
  fe_sub(&C->fp, ny, zero, P->Y);
  gostx__fe_cmov(P->Y, ny, mask, C->n);
}

uint64_t gostx__ec_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P) {
  gx_fe zi, t, zx, zy;
  uint64_t inf = gostx__fe_is_zero(P->Z, C->n);
  gostx__fe_inv(&C->fp, zi, P->Z);
  memcpy(zx, zi, sizeof zx);
  memcpy(zy, zi, sizeof zy);
  if (C->iso) { /* back to the standard's coordinates */
    fe_mul(&C->fp, zx, zi, C->u2i);
    fe_mul(&C->fp, zy, zi, C->u3i);
  }
  fe_mul(&C->fp, t, P->X, zx);
  gostx__fe_from_mont(&C->fp, x, t);
  fe_mul(&C->fp, t, P->Y, zy);
  gostx__fe_from_mont(&C->fp, y, t);
  return inf;
}

int gostx__ec_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y) {
  const gx_mont *M = &C->fp;
  int n = C->n;
  if (!gostx__fe_lt(x, M->m, n) || !gostx__fe_lt(y, M->m, n)) return 0;
  gx_fe X, Y, l, r;
  gostx__fe_to_mont(M, X, x);
  gostx__fe_to_mont(M, Y, y);
  fe_sqr(M, l, Y);
  fe_sqr(M, r, X);
  fe_add(M, r, r, C->a0);
  fe_mul(M, r, r, X);
  fe_add(M, r, r, C->b0);
  fe_sub(M, l, l, r);
  return gostx__fe_is_zero(l, n) != 0;
}
