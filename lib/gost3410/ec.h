/* GOST R 34.10-2012 internals above the field (field.h), stratum by stratum
 * (scripts/layers.py): the curve table (curves.c), the scalar helpers both
 * curve models share (scalar.c), the point formulas (ec.c; their IFMA lane
 * forms ec_ifma.c, ec_edwards_ifma.c), the scalar multiplications of each
 * model (ec_mul.c, ec_jac.c: Weierstrass; ec_edwards.c: the twisted Edwards
 * sets) and the front that picks the model (ec_front.c), which gost3410.c
 * and keys.c call. Not installed. */
#ifndef GOSTX_GOST3410_EC_H
#define GOSTX_GOST3410_EC_H

#include <stddef.h>
#include <stdint.h>

#include "gost3410/field.h"
#include "gost3410/field_impl.h"
#include "gostx/gost3410.h"

/* k P on an Edwards set with p = 2^(64 n) - c (n = 4 or 8, c < 2^14) by
 * AVX-512 IFMA (ec_edwards_ifma.c; x86-64 only: the "avx512ifma" row's
 * lanes->ed_mul): from the neutral, for each signed digit of dig (nd of them, top
 * first) GX_ED_W doublings (none before the first) and the addition of the
 * table's entry |d| / 2 (entries cached points (X, Y, Z, d T), 4 n limbs
 * each), negated for d < 0; the result (x : y : z : t), each below p. */
#define GX_ED_W 5
#define GX_ED_IFMA_ENTRIES (1 << (GX_ED_W - 1))
void gostx__ec_ed_mul_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                    const uint64_t *tab, int entries, const int8_t *dig, int nd);
/* a G + b P for public a and b (verification; variable time) by AVX-512
 * IFMA: gostx__ec_ed_mul2_vartime's loop over the NAF digits db (of b, nb of them,
 * over the nodd cached odd multiples of P) and da (of a, na, over the ng
 * affine (u, v, d u v) odd multiples of G). */
#define GX_ED_IFMA_ODD 8
#define GX_ED_IFMA_G 32
void gostx__ec_ed_mul2_ifma_vartime(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z,
                             uint64_t *t, const uint64_t *odd, int nodd, const int8_t *db, int nb,
                             const uint64_t *gtab, int ng, const int8_t *da, int na);
/* ---- curves ---- */
typedef struct gx_curve_def {
  int id;
  const char *name, *oid;
  int n;        /* limbs */
  int cofactor;
  const char *p, *a, *b, *q, *x, *y; /* big-endian hex */
  const char *ed_d; /* the twisted Edwards sets (e = 1): d, big-endian hex; else NULL */
} gx_curve_def;

typedef struct gx_curve {
  const gx_curve_def *def;
  /* The implementation row's (gostx__ec_curve_use): its masked scan, and
   * its lane code where it has some and p = 2^(64 n) - c with c < 2^14
   * (field_ifma.h's bound), else NULL: the formulas of ec.c, ec_edwards.c. */
  void (*scan)(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
  const struct gostx_gx_lanes *lanes;
  int n, len;        /* limbs, bytes */
  gx_mont fp, fq;
  gx_fe a, b3;       /* Montgomery form mod p */
  gx_fe gx, gy;      /* generator, Montgomery form */
  gx_fe q;           /* order, normal form */
  gx_fe b;           /* b, Montgomery form (internal coordinates) */
  int a_small;       /* a = -3 or 3 (after the change of coordinates below): products
                      * by a become additions; 0: a general a */
  int iso;           /* internal (x, y) = (u^2 x, u^3 y) of the standard's (x, y) */
  gx_fe u2, u3, u2i, u3i; /* u^2, u^3 and their inverses, Montgomery form */
  gx_fe a0, b0;      /* the standard's a and b (curve equation check) */
  int index;         /* position in the curve table (for per-curve caches) */
  int edwards;       /* scalar multiplications in ec_edwards.c (def->ed_d set) */
  gx_fe ed_d, ed_s, ed_t; /* d, s = (e - d)/4, t = (e + d)/6 (Montgomery form) */
  gx_fe ed_sx, ed_tx, ed_sy; /* s u^2, t u^2, s u^3: Edwards -> internal Weierstrass */
} gx_curve;

const gx_curve_def *gostx__ec_curve_def_by_id(int id);
const gx_curve_def *gostx__ec_curve_def_by_name(const char *name);
/* 0, or GOSTX_EINVAL for an unknown id (a copy of the cached curve, on the
 * implementation row lib/dispatch.c chose: once per operation). */
int gostx__ec_curve_load(gx_curve *C, int id);
/* C's products on another row (the tests walk every row this way). */
void gostx__ec_curve_use(gx_curve *C, const struct gostx_gx_field_impl *impl);
/* The process-wide curve, built on first use (thread-safe); NULL when unknown. */
const gx_curve *gostx__ec_curve_get(int id);
#define GX_NCURVES 9

/* ---- points: projective (X : Y : Z), Montgomery form; infinity is (0 : 1 : 0) ---- */
typedef struct gx_point {
  gx_fe X, Y, Z;
} gx_point;

/* A row's curve steps in lanes (ec_ifma.c and ec_edwards_ifma.c's, for the
 * "avx512ifma" row): each the same result as the formula it replaces. */
struct gostx_gx_lanes {
  /* Weierstrass, a = -3: gostx__ec_point_add, gostx__ec_point_dbl_n, and
   * count gostx__ec_jac_dbl in place. */
  void (*point_add)(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q);
  void (*point_dbl_n)(const gx_curve *C, gx_point *r, const gx_point *P, int count);
  void (*jac_dbl_n)(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);
  /* The Edwards sets' k P and a G + b P loops (gostx__ec_ed_mul_ifma and
   * gostx__ec_ed_mul2_ifma_vartime above). */
  void (*ed_mul)(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                 const uint64_t *tab, int entries, const int8_t *dig, int nd);
  void (*ed_mul2_vartime)(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                          const uint64_t *odd, int nodd, const int8_t *db, int nb,
                          const uint64_t *gtab, int ng, const int8_t *da, int na);
};


void gostx__ec_point_add(const gx_curve *C, gx_point *r, const gx_point *p, const gx_point *q);
/* The same on AVX-512 IFMA (ec_ifma.c; x86-64 only): for p = 2^(64 n) - c
 * with c < 2^14 and a = -3 (the "avx512ifma" row's lanes->point_add). */
void gostx__ec_point_add_ifma(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q);
/* One Jacobian doubling in place (x = X/Z^2, y = Y/Z^3). */
void gostx__ec_jac_dbl(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z);
/* r = 2^count P (Jacobian doublings inside; any P of odd order or infinity). */
void gostx__ec_point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count);
/* The same on AVX-512 IFMA (ec_ifma.c; x86-64 only), under the same
 * conditions as gostx__ec_point_add_ifma. */
void gostx__ec_point_dbl_n_ifma(const gx_curve *C, gx_point *r, const gx_point *P, int count);
/* count gostx__ec_jac_dbl in place on AVX-512 IFMA (ec_ifma.c; the same conditions). */
void gostx__ec_jac_dbl_n_ifma(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);
/* r = P + (x, y) for an affine (x, y), Montgomery form, not infinity. */
void gostx__ec_point_add_affine(const gx_curve *C, gx_point *r, const gx_point *P, const uint64_t *x,
                         const uint64_t *y);
/* r = k P for a scalar 0 < k < q (normal form) and P of order q: signed
 * windows, constant time in k and P. */
void gostx__ec_point_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* r = k P, any k < 2^(64 n), any P: the plain 4-bit-window reference the
 * tests check the fast paths against (constant time too). */
void gostx__ec_point_mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* r = k G, 0 < k < q, from the curve's precomputed table: constant time in
 * k; -1 (nothing written) when there is no memory for the table (the front
 * then runs k P on G). The same for gostx__ec_ed_mul_base. */
int gostx__ec_point_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
/* r = a G + b P for public a, b < q (verification): variable time. */
void gostx__ec_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P);

/* out[i] = 1 / in[i] (Montgomery form), one inversion; vartime for public values. */
void gostx__fe_batch_inv(const gx_mont *M, gx_fe *out, gx_fe *in, int m, int vartime);
/* The curve's G table (ec_mul.c: row i holds (2j + 1) 2^(GX_W i) G, j <
 * 2^(GX_W - 1), affine x, y of n limbs each), built on first use; NULL when
 * memory ran out. */
const uint64_t *gostx__ec_base_table(const gx_curve *C);
/* The G table of kind (GX_TABLE_*) for curve C: built by build on the
 * curve's first use (under a lock), then shared; NULL when memory ran out. */
enum { GX_TABLE_WEIER, GX_TABLE_EDWARDS, GX_TABLE_KINDS };
const uint64_t *gostx__sc_table(const gx_curve *C, int kind,
                                uint64_t *(*build)(const gx_curve *C));
/* Width-w NAF of a public scalar of n limbs; returns the digit count. */
int gostx__sc_wnaf(int8_t *dig, const uint64_t *k, int n, int w);
/* The twisted Edwards sets (C->edwards; ec_edwards.c): the same
 * multiplications in extended Edwards coordinates, Weierstrass points in and
 * out. The front (below) sends those curves there. */
int gostx__ec_ed_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
void gostx__ec_ed_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
void gostx__ec_ed_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                        const gx_point *P);
/* 1 when P (a point of the curve, Z = 1) has order q, i.e. q P = O; 0 for
 * every point with a small-order part, infinity included. For public points
 * only (variable time): the subgroup check of the cofactor-4 sets. */
int gostx__ec_ed_in_subgroup_vartime(const gx_curve *C, const gx_point *P);
/* r = a G + b P (public a, b < q), all in Jacobian coordinates with affine
 * tables (ec_jac.c); -1 (nothing written) when P's small multiples meet
 * infinity: the caller then uses gostx__ec_point_mul2_vartime. */
int gostx__ec_point_mul2_jac(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                      const gx_point *P);
/* 1 when A is not infinity and its affine x is r mod q (r < q, public). */
int gostx__ec_point_x_is(const gx_curve *C, const gx_point *A, const uint64_t *r);

/* ---- scalar helpers (scalar.c) ---- */
/* Signed odd digits of GX_W bits, shared by the variable and the
 * fixed-base multiplications. 6 against 5: k G 8-9% faster (43 rows of 32
 * entries against 52 of 16), VKO unchanged within noise. */
#define GX_W 6
#define GX_DIGITS_W(n, w) ((64 * (n) + (w) - 1) / (w))
#define GX_DIGITS(n) GX_DIGITS_W(n, GX_W)
void gostx__sc_recode_odd(int8_t *dig, const uint64_t *k, int n);
void gostx__sc_recode_odd_w(int8_t *dig, const uint64_t *k, int n, int w);
void gostx__sc_select(const gx_curve *C, uint64_t *r, const uint64_t *tab, int entry_limbs, int y_off,
               int d);
/* r = entry idx of a table of `entries` entries of `limbs` limbs (8, 12,
 * 16, 24 or 32), every entry read under a mask: constant time in idx. The
 * row's scan (C->scan): portable, or AVX2 (select_avx2.c) on the MULX rows. */
void gostx__sc_scan_portable(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
void gostx__sc_scan_avx2(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
uint64_t gostx__sc_make_odd(const gx_curve *C, uint64_t *r, const uint64_t *k);
void gostx__ec_point_neg_if(const gx_curve *C, gx_point *P, uint64_t mask);
void gostx__ec_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y);
void gostx__ec_point_generator(const gx_curve *C, gx_point *r);
/* Affine normal-form coordinates; returns all-ones when r was infinity. */
uint64_t gostx__ec_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P);
/* Whether affine (x, y), normal form, each < p, satisfies the curve equation. */
int gostx__ec_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y);

/* ---- the front (ec_front.c): the curve model's multiplications ---- */
/* k G (0 < k < q) and k P (P of order q): constant time in k and P. */
void gostx__ec_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
void gostx__ec_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* a G + b P for public a, b < q (verification): variable time. */
void gostx__ec_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                            const gx_point *P);

/* Sign with an explicit nonce k (big-endian, len bytes), for the known-answer
 * tests only: not exported from the shared library. */
int gostx_gost3410_sign_with_k(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               const uint8_t *digest, size_t digest_len, const uint8_t *k,
                               size_t k_len, uint8_t *sig, size_t sig_len);
/* 0 when G is on the curve and q G is infinity (for the tests). */
int gostx_gost3410_selftest_curve(gostx_gost3410_curve curve);

#endif
