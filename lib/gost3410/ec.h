/* GOST R 34.10-2012 internals: Montgomery arithmetic modulo a public odd
 * modulus of 4 or 8 64-bit limbs (used for both p and q; for p = 2^(64 n) - c
 * a folding reduction with R = 1, the same calls), the curve table and
 * projective points. Not installed. */
#ifndef GOSTX_GOST3410_EC_H
#define GOSTX_GOST3410_EC_H

#include <stddef.h>
#include <stdint.h>

#include "gost3410/field_impl.h"
#include "gostx/gost3410.h"

#define GX_MAXN 8 /* limbs of the largest (512-bit) modulus */

typedef uint64_t gx_fe[GX_MAXN]; /* little-endian limbs; only n are used */

typedef struct gx_mont {
  int n;          /* limbs: 4 or 8 */
  uint64_t m[GX_MAXN];
  uint64_t m0inv; /* -m^-1 mod 2^64 */
  uint64_t c;     /* nonzero when m = 2^(64 n) - c: then R = 1 (plain residues) */
  uint64_t one[GX_MAXN]; /* R mod m (1 in Montgomery form), R = 2^(64 n) */
  uint64_t r2[GX_MAXN];  /* R^2 mod m */
  uint64_t r3[GX_MAXN];  /* R^3 mod m */
  int mulx;       /* products by field_x86_64.c (set from lib/dispatch.c's choice) */
  int ifma;       /* the lane-parallel IFMA code (ec_edwards_ifma.c, ec_ifma.c) may
                   * run: the dispatcher chose it, and m = 2^(64 n) - c with the
                   * c < 2^14 its lane sums are sized for (field_ifma.h) */
} gx_mont;

/* gx_mul and gx_sqr through MULX/ADX (x86-64 only: chosen only where the CPU has both). */
void gx_mul_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gx_sqr_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* gx_add and gx_sub in x86-64 registers (4 limbs, or 8 for m = 2^512 - c;
 * with the MULX field). */
/* k P on an Edwards set with p = 2^(64 n) - c (n = 4 or 8, c < 2^14) by
 * AVX-512 IFMA (ec_edwards_ifma.c; x86-64 only, where gx_mont's ifma is
 * set): from the neutral, for each signed digit of dig (nd of them, top
 * first) GX_ED_W doublings (none before the first) and the addition of the
 * table's entry |d| / 2 (entries cached points (X, Y, Z, d T), 4 n limbs
 * each), negated for d < 0; the result (x : y : z : t), each below p. */
#define GX_ED_W 5
#define GX_ED_IFMA_ENTRIES (1 << (GX_ED_W - 1))
void gx_ed_mul_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                    const uint64_t *tab, int entries, const int8_t *dig, int nd);
/* a G + b P for public a and b (verification; variable time) by AVX-512
 * IFMA: gx_ed_mul2_vartime's loop over the NAF digits db (of b, nb of them,
 * over the nodd cached odd multiples of P) and da (of a, na, over the ng
 * affine (u, v, d u v) odd multiples of G). */
#define GX_ED_IFMA_ODD 8
#define GX_ED_IFMA_G 32
void gx_ed_mul2_ifma_vartime(uint64_t c, int n, uint64_t *x, uint64_t *y, uint64_t *z,
                             uint64_t *t, const uint64_t *odd, int nodd, const int8_t *db, int nb,
                             const uint64_t *gtab, int ng, const int8_t *da, int na);
void gx_add_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gx_sub_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);

void gx_mont_init(gx_mont *M, const uint64_t *m, int n);
void gx_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b); /* a b / R */
void gx_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a); /* a a / R */
void gx_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gx_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gx_to_mont(const gx_mont *M, uint64_t *r, const uint64_t *a);   /* a < R */
void gx_from_mont(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = (a mod m) in normal form for a 2n-limb number (wide reduction). */
void gx_reduce_wide(const gx_mont *M, uint64_t *r, const uint64_t *lo, const uint64_t *hi);
/* r = a^-1 = a^(m - 2) for prime m (Montgomery form in and out), 0 for 0;
 * constant time in a: division steps (gx_inv_divsteps), or Fermat's power
 * where the build has no 128-bit product. */
void gx_inv(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = a^-1 mod m for 0 <= a < m (normal form in and out; 0 for 0) by
 * division steps, constant time (field_inv.c); -1 (nothing written) where
 * the build has no 128-bit product. */
int gx_inv_divsteps(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* The same for a public a, stopping as soon as the answer is known (about
 * two thirds of the fixed count): -1 without a 128-bit product. */
int gx_inv_divsteps_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = a^e for a public exponent e of n limbs (Montgomery form in and out). */
void gx_pow(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *e);
/* All-ones when a (n limbs) is zero / a < m, else 0; no branches. */
uint64_t gx_is_zero(const uint64_t *a, int n);
uint64_t gx_lt(const uint64_t *a, const uint64_t *b, int n);
/* Big-endian bytes (8 n of them) <-> limbs. */
void gx_load_be(uint64_t *r, const uint8_t *in, int n);
void gx_store_be(uint8_t *out, const uint64_t *a, int n);
/* r = mask ? a : r, n limbs. */
void gx_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, int n);

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

const gx_curve_def *gx_curve_def_by_id(int id);
const gx_curve_def *gx_curve_def_by_name(const char *name);
/* 0, or GOSTX_EINVAL for an unknown id (a copy of the cached curve). */
int gx_curve_load(gx_curve *C, int id);
/* The process-wide curve, built on first use (thread-safe); NULL when unknown. */
const gx_curve *gx_curve_get(int id);
#define GX_NCURVES 9

/* ---- points: projective (X : Y : Z), Montgomery form; infinity is (0 : 1 : 0) ---- */
typedef struct gx_point {
  gx_fe X, Y, Z;
} gx_point;

void gx_point_add(const gx_curve *C, gx_point *r, const gx_point *p, const gx_point *q);
/* The same on AVX-512 IFMA (ec_ifma.c; x86-64 only): for p = 2^(64 n) - c
 * with c < 2^14 and a = -3, where gx_mont's ifma is set (gx_point_add
 * tests all three). */
void gx_point_add_ifma(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q);
/* One Jacobian doubling in place (x = X/Z^2, y = Y/Z^3). */
void gx_jac_dbl(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z);
/* r = 2^count P (Jacobian doublings inside; any P of odd order or infinity). */
void gx_point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count);
/* The same on AVX-512 IFMA (ec_ifma.c; x86-64 only), under the same
 * conditions as gx_point_add_ifma (gx_point_dbl_n tests them). */
void gx_point_dbl_n_ifma(const gx_curve *C, gx_point *r, const gx_point *P, int count);
/* count gx_jac_dbl in place on AVX-512 IFMA (ec_ifma.c; the same conditions). */
void gx_jac_dbl_n_ifma(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count);
/* r = P + (x, y) for an affine (x, y), Montgomery form, not infinity. */
void gx_point_add_affine(const gx_curve *C, gx_point *r, const gx_point *P, const uint64_t *x,
                         const uint64_t *y);
/* r = k P for a scalar 0 < k < q (normal form) and P of order q: signed
 * windows, constant time in k and P. */
void gx_point_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* r = k P, any k < 2^(64 n), any P: the plain 4-bit-window reference the
 * tests check the fast paths against (constant time too). */
void gx_point_mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
/* r = k G, 0 < k < q, from the curve's precomputed table: constant time in k. */
void gx_point_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
/* r = a G + b P for public a, b < q (verification): variable time. */
void gx_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P);

/* r = a^-1 mod M's modulus (normal form in and out) for a public a < m;
 * variable time. 0 for 0. gx_inv_vartime: the binary extended Euclid (the
 * tests' second opinion); gx_inv_public: the variable-time division steps,
 * ~4x faster, Euclid where the build has no 128-bit product. */
void gx_inv_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a);
void gx_inv_public(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* out[i] = 1 / in[i] (Montgomery form), one inversion; vartime for public values. */
void gx_batch_inv(const gx_mont *M, gx_fe *out, gx_fe *in, int m, int vartime);
/* The curve's G table (ec_base.c: row i holds (2j + 1) 2^(GX_W i) G, j <
 * 2^(GX_W - 1), affine x, y of n limbs each), built on first use; NULL when
 * memory ran out. */
const uint64_t *gx_base_table(const gx_curve *C);
/* Width-w NAF of a public scalar of n limbs; returns the digit count. */
int gx_wnaf(int8_t *dig, const uint64_t *k, int n, int w);
/* The twisted Edwards sets (C->edwards; ec_edwards.c): the same
 * multiplications in extended Edwards coordinates, Weierstrass points in and
 * out. gx_point_mul_base and gx_point_mul send those curves there; verify
 * calls gx_ed_mul2_vartime. */
void gx_ed_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k);
void gx_ed_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P);
void gx_ed_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                        const gx_point *P);
/* 1 when P (a point of the curve, Z = 1) has order q, i.e. q P = O; 0 for
 * every point with a small-order part, infinity included. For public points
 * only (variable time): the subgroup check of the cofactor-4 sets. */
int gx_ed_in_subgroup_vartime(const gx_curve *C, const gx_point *P);
/* r = a G + b P (public a, b < q), all in Jacobian coordinates with affine
 * tables (ec_jac.c); -1 (nothing written) when P's small multiples meet
 * infinity: the caller then uses gx_point_mul2_vartime. */
int gx_point_mul2_jac(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                      const gx_point *P);
/* 1 when A is not infinity and its affine x is r mod q (r < q, public). */
int gx_point_x_is(const gx_curve *C, const gx_point *A, const uint64_t *r);

/* Signed odd digits of GX_W bits (ec.c), shared by the variable and the
 * fixed-base multiplications. 6 against 5: k G 8-9% faster (43 rows of 32
 * entries against 52 of 16), VKO unchanged within noise. */
#define GX_W 6
#define GX_DIGITS_W(n, w) ((64 * (n) + (w) - 1) / (w))
#define GX_DIGITS(n) GX_DIGITS_W(n, GX_W)
void gx_recode_odd(int8_t *dig, const uint64_t *k, int n);
void gx_recode_odd_w(int8_t *dig, const uint64_t *k, int n, int w);
void gx_select(const gx_curve *C, uint64_t *r, const uint64_t *tab, int entry_limbs, int y_off,
               int d);
/* r = entry idx of a table of `entries` entries of `limbs` limbs (8, 12,
 * 16, 24 or 32), every entry read under a mask: constant time in idx. AVX2
 * (select_avx2.c) where the MULX field runs, else portable. */
void gx_scan(const gx_curve *C, uint64_t *r, const uint64_t *tab, int entries, int limbs,
             uint64_t idx);
void gx_scan_portable(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
void gx_scan_avx2(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx);
uint64_t gx_make_odd(const gx_curve *C, uint64_t *r, const uint64_t *k);
void gx_point_neg_if(const gx_curve *C, gx_point *P, uint64_t mask);
void gx_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y);
void gx_point_generator(const gx_curve *C, gx_point *r);
/* Affine normal-form coordinates; returns all-ones when r was infinity. */
uint64_t gx_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P);
/* Whether affine (x, y), normal form, each < p, satisfies the curve equation. */
int gx_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y);

/* Sign with an explicit nonce k (big-endian, len bytes), for the known-answer
 * tests only: not exported from the shared library. */
int gostx_gost3410_sign_with_k(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                               const uint8_t *digest, size_t digest_len, const uint8_t *k,
                               size_t k_len, uint8_t *sig, size_t sig_len);
/* 0 when G is on the curve and q G is infinity (for the tests). */
int gostx_gost3410_selftest_curve(gostx_gost3410_curve curve);

#endif
