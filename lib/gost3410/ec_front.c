/* The front of GOST R 34.10's scalar multiplications: the one place that
 * picks the curve model (the twisted Edwards sets' or the Weierstrass
 * curves' multiplications, a public property of the curve) and calls it on
 * the curve's implementation row (impl.h), which lib/dispatch.c chose when
 * the curve was loaded (curves.c's gostx__ec_curve_load). Nothing here
 * names an ISA or chooses a row. */
#include "gost3410/ec.h"

static const struct gostx_gx_model *model(const gx_curve *C) {
  return C->edwards ? &C->impl->edwards : &C->impl->weier;
}

void gostx__ec_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  if (model(C)->mul_base(C, r, k)) { /* no memory for the G table: k P on G */
    gx_point G;
    gostx__ec_point_generator(C, &G);
    gostx__ec_mul(C, r, k, &G);
  }
}

void gostx__ec_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  model(C)->mul(C, r, k, P);
}

void gostx__ec_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                            const gx_point *P) {
  model(C)->mul2_vartime(C, r, a, b, P);
}

void gostx__ec_point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q) {
  C->impl->point_add(C, r, P, Q);
}

void gostx__ec_point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count) {
  C->impl->point_dbl_n(C, r, P, count);
}

void gostx__ec_jac_dbl_n(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count) {
  C->impl->jac_dbl_n(C, X, Y, Z, count);
}

void gostx__ec_point_mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  C->impl->mul_ref(C, r, k, P);
}

int gostx__ec_point_mul2_jac(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                             const gx_point *P) {
  return C->impl->mul2_jac(C, r, a, b, P);
}

void gostx__ec_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a,
                                  const uint64_t *b, const gx_point *P) {
  C->impl->mul2_complete(C, r, a, b, P);
}

int gostx__ec_ed_in_subgroup_vartime(const gx_curve *C, const gx_point *P) {
  return C->impl->ed_in_subgroup_vartime(C, P);
}

void gostx__ec_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y) {
  C->impl->from_affine(C, r, x, y);
}

uint64_t gostx__ec_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P) {
  return C->impl->to_affine(C, x, y, P);
}
