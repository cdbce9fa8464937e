/* The GOST R 34.10-2012 implementations lib/dispatch.c chooses between
 * (name first, as every implementation table), one file each: the scalar
 * multiplications (mul_template.h) instantiated on a row's field operations
 * and table scan: mul_portable.c (field.c's products, the portable scan),
 * mul_mulx.c (MULX/ADX products, AVX2 scans), mul_avx512ifma.c (those, and
 * the curve steps in AVX-512 IFMA lanes). A curve is loaded on one row per
 * operation (gostx__ec_curve_load); the front (ec_front.c) picks the curve
 * model and calls the row's entry. Kernel level: dispatch.c includes this,
 * not ec.h. Not installed. */
#ifndef GOSTX_GOST3410_IMPL_H
#define GOSTX_GOST3410_IMPL_H

#include <stdint.h>

struct gx_mont;  /* field.h */
struct gx_curve; /* ec.h */
struct gx_point;

/* One curve model's scalar multiplications (ec.h's front names them):
 * k G (-1, nothing written, when there is no memory for the G table),
 * k P, and a G + b P for public a and b (variable time). */
struct gostx_gx_model {
  int (*mul_base)(const struct gx_curve *C, struct gx_point *r, const uint64_t *k);
  void (*mul)(const struct gx_curve *C, struct gx_point *r, const uint64_t *k,
              const struct gx_point *P);
  void (*mul2_vartime)(const struct gx_curve *C, struct gx_point *r, const uint64_t *a,
                       const uint64_t *b, const struct gx_point *P);
};

struct gostx_gx_impl {
  const char *name;
  struct gostx_gx_model weier, edwards;
  /* The Weierstrass steps and paths the front names one by one (ec.h):
   * the complete addition, runs of projective and of in-place Jacobian
   * doublings, the 4-bit reference k P, verification's Jacobian and
   * complete-formula a G + b P; the Edwards sets' subgroup check; the
   * points in from affine and out to it. */
  void (*point_add)(const struct gx_curve *C, struct gx_point *r, const struct gx_point *P,
                    const struct gx_point *Q);
  void (*point_dbl_n)(const struct gx_curve *C, struct gx_point *r, const struct gx_point *P,
                      int count);
  void (*jac_dbl_n)(const struct gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);
  void (*mul_ref)(const struct gx_curve *C, struct gx_point *r, const uint64_t *k,
                  const struct gx_point *P);
  int (*mul2_jac)(const struct gx_curve *C, struct gx_point *r, const uint64_t *a,
                  const uint64_t *b, const struct gx_point *P);
  void (*mul2_complete)(const struct gx_curve *C, struct gx_point *r, const uint64_t *a,
                        const uint64_t *b, const struct gx_point *P);
  int (*ed_in_subgroup_vartime)(const struct gx_curve *C, const struct gx_point *P);
  void (*from_affine)(const struct gx_curve *C, struct gx_point *r, const uint64_t *x,
                      const uint64_t *y);
  uint64_t (*to_affine)(const struct gx_curve *C, uint64_t *x, uint64_t *y,
                        const struct gx_point *P);
};
/* A row's field operations, for the tests only (test_gost3410 holds each
 * row's against field.c's, ct_check runs the MULX ones): a table beside
 * the row (mul_template.h's GX_ROW##_field), not in what the library
 * dispatches. */
struct gostx_gx_field {
  const struct gostx_gx_impl *row;
  void (*fe_mul)(const struct gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
  void (*fe_sqr)(const struct gx_mont *M, uint64_t *r, const uint64_t *a);
  void (*fe_add)(const struct gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
  void (*fe_sub)(const struct gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
};
extern const struct gostx_gx_impl gostx_gx_portable, gostx_gx_mulx, gostx_gx_avx512ifma;
extern const struct gostx_gx_field gostx_gx_portable_field, gostx_gx_mulx_field,
    gostx_gx_avx512ifma_field;

#endif
