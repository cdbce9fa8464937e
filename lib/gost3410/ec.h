/* GOST R 34.10-2012 internals above the field (field.h), stratum by stratum
 * (scripts/layers.py): the curve type, the scalar helpers both curve models
 * share (scalar.c, select_avx2.c), the point helpers (ec.c) and the IFMA
 * lane forms of curve steps (ec_ifma.c, ec_edwards_ifma.c), the rows' scalar
 * multiplications (mul_template.h, one instance per row: impl.h), then
 * above the dispatcher the curve table (curves.c) and the front that picks
 * the curve model (ec_front.c), which gost3410.c and keys.c call. Not
 * installed. */
#ifndef GOSTX_GOST3410_EC_H
#define GOSTX_GOST3410_EC_H

#include <stddef.h>
#include <stdint.h>

#include "gost3410/field.h"
#include "gost3410/impl.h"
#include "gostx/gost3410.h"

/* k P on an Edwards set with p = 2^(64 n) - c (n = 4 or 8, c < 2^14) by
 * AVX-512 IFMA (ec_edwards_ifma.c; x86-64 only: the "avx512ifma" row's
 * GX_LANE_ED_MUL): from the neutral, for each signed digit of dig (nd of them, top
 * first) GX_ED_W doublings (none before the first) and the addition of the
 * table's entry |d| / 2 (entries cached points (X, Y, Z, d T), 4 n limbs
 * each), negated for d < 0; the result (x : y : z : t), each below p. */
#define GX_ED_W 5
#define GX_ED_IFMA_ENTRIES (1 << (GX_ED_W - 1))
void gostx__ec_ed_mul_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                    const uint64_t *tab, int entries, const int8_t *dig, int nd);
/* a G + b P for public a and b (verification; variable time) by AVX-512
 * IFMA: mul_edwards.h's ed_mul2_vartime loop over the NAF digits db (of b, nb of them,
 * over the nodd cached odd multiples of P) and da (of a, na, over the ng
 * affine (u, v, d u v) odd multiples of G). */
#define GX_ED_IFMA_ODD 8
#define GX_ED_IFMA_G 32
void gostx__ec_ed_mul2_ifma_vartime(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z,
                             uint64_t *t, const uint64_t *odd, int nodd, const int8_t *db, int nb,
                             const uint64_t *gtab, int ng, const int8_t *da, int na);
/* k G on an Edwards set by AVX-512 IFMA, the same conditions: from the
 * neutral, for digit i of dig (nd of them) the addition of entry |d| / 2 of
 * the G table's row i (rows of GX_ED_IFMA_G affine entries (u, v, d u v),
 * 3 n limbs each), negated for d < 0; the result (x : y : z : t), each
 * below p. */
void gostx__ec_ed_mul_base_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z,
                                uint64_t *t, const uint64_t *tab, const int8_t *dig, int nd);
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
  /* The implementation row the curve's multiplications run on (impl.h):
   * lib/dispatch.c's choice (gostx__ec_curve_load), or the one a test
   * named (gostx__ec_curve_use). */
  const struct gostx_gx_impl *impl;
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
  int edwards;       /* scalar multiplications in Edwards form (def->ed_d set) */
  gx_fe ed_d, ed_s, ed_t; /* d, s = (e - d)/4, t = (e + d)/6 (Montgomery form) */
  gx_fe ed_sx, ed_tx, ed_sy; /* s u^2, t u^2, s u^3: Edwards -> internal Weierstrass */
} gx_curve;

const gx_curve_def *gostx__ec_curve_def_by_id(int id);
const gx_curve_def *gostx__ec_curve_def_by_name(const char *name);
/* 0, or GOSTX_EINVAL for an unknown id: a copy of the cached curve, on the
 * implementation row lib/dispatch.c chooses (asked once per operation). */
int gostx__ec_curve_load(gx_curve *C, int id);
/* C's multiplications on another row (the tests walk every row this way). */
void gostx__ec_curve_use(gx_curve *C, const struct gostx_gx_impl *impl);
/* The process-wide curve, built on first use (thread-safe), on the row the
 * dispatcher chose then; NULL when unknown. */
const gx_curve *gostx__ec_curve_get(int id);
#define GX_NCURVES 9

/* ---- points: projective (X : Y : Z), Montgomery form; infinity is (0 : 1 : 0) ---- */
typedef struct gx_point {
  gx_fe X, Y, Z;
} gx_point;

/* The AVX-512 IFMA lane forms of the "avx512ifma" row's Weierstrass steps
 * (ec_ifma.c; x86-64 only), for p = 2^(64 n) - c with c < 2^14 and a = -3:
 * the complete addition, count projective doublings, and count Jacobian
 * doublings in place (x = X/Z^2, y = Y/Z^3), each the same result as
 * mul_weier.h's formula. */
void gostx__ec_point_add_ifma(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q);
void gostx__ec_point_dbl_n_ifma(const gx_curve *C, gx_point *r, const gx_point *P, int count);
void gostx__ec_jac_dbl_n_ifma(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);

/* ---- point helpers on field.c's operations (ec.c) ---- */
void gostx__ec_point_generator(const gx_curve *C, gx_point *r);
/* Whether affine (x, y), normal form, each < p, satisfies the curve equation. */
int gostx__ec_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y);
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
/* Width-w NAF of a public scalar of n limbs; returns the digit count. */
int gostx__sc_wnaf(int8_t *dig, const uint64_t *k, int n, int w);
/* r = entry idx of a table of `entries` entries of `limbs` limbs (8, 12,
 * 16, 24 or 32), every entry read under a mask: constant time in idx. The
 * rows' scans (mul_template.h's GX_SCAN): portable, or AVX2 (select_avx2.c)
 * on the MULX rows. */
void gostx__sc_scan_portable(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
void gostx__sc_scan_avx2(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
/* k or q - k, whichever is odd; all-ones when q - k was taken. */
uint64_t gostx__sc_make_odd(const gx_curve *C, uint64_t *r, const uint64_t *k);
/* The G table of kind (GX_TABLE_*) for curve C: built by build on the
 * curve's first use (under a lock), then shared by every row (the same
 * numbers on each); NULL when memory ran out. */
enum { GX_TABLE_WEIER, GX_TABLE_EDWARDS, GX_TABLE_KINDS };
const uint64_t *gostx__sc_table(const gx_curve *C, int kind,
                                uint64_t *(*build)(const gx_curve *C));

/* ---- the front (ec_front.c): the curve model picked, the curve's row called ---- */
/* k G (0 < k < q) and k P (P of order q): constant time in k and P. */
void gostx__ec_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
void gostx__ec_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* a G + b P for public a, b < q (verification): variable time. */
void gostx__ec_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                            const gx_point *P);
/* The row's single paths (impl.h), for the API's checks and the tests:
 * the complete addition (any points of odd order, infinity included);
 * r = 2^count P; count Jacobian doublings of (X : Y : Z) in place; r = k P
 * by the plain 4-bit-window reference (any k < 2^(64 n), any P; constant
 * time too); verification's a G + b P in Jacobian coordinates (-1, nothing
 * written, when P's small multiples meet infinity) and by the complete
 * formulas (Weierstrass curves); 1 when P (a point of an Edwards set, Z =
 * 1) has order q, 0 for every point with a small-order part, infinity
 * included (public points only: variable time). */
void gostx__ec_point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q);
void gostx__ec_point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count);
void gostx__ec_jac_dbl_n(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);
void gostx__ec_point_mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
int gostx__ec_point_mul2_jac(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                             const gx_point *P);
void gostx__ec_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a,
                                  const uint64_t *b, const gx_point *P);
int gostx__ec_ed_in_subgroup_vartime(const gx_curve *C, const gx_point *P);
/* Affine (x, y), normal form, each < p, into a point; and a point's affine
 * normal-form coordinates, all-ones returned when it was infinity
 * (constant time: the points of secret scalars go through it). */
void gostx__ec_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y);
uint64_t gostx__ec_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P);

/* Sign with an explicit nonce k (big-endian, len bytes), for the known-answer
 * tests only: not exported from the shared library. */
int gostx_gost3410_sign_with_k(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               const uint8_t *digest, size_t digest_len, const uint8_t *k,
                               size_t k_len, uint8_t *sig, size_t sig_len);
/* KEG (gostx_gost3410_keg) over any VKO: d's or an external key's
 * (gostx_gost3410_key_keg); len the curve's size, 0 for an unknown one. */
typedef int (*gostx__vko_fn)(const void *ctx, const uint8_t *peer_pub, size_t pub_len,
                             const uint8_t *ukm, size_t ukm_len, uint8_t *out, size_t out_len);
int gostx__keg(size_t len, gostx__vko_fn vko, const void *ctx, const uint8_t *peer_pub,
               size_t pub_len, const uint8_t *h, size_t h_len, uint8_t *out, size_t out_len);
/* 0 when G is on the curve and q G is infinity (for the tests). */
int gostx_gost3410_selftest_curve(gostx_gost3410_curve curve);

#endif
