/* GOST R 34.10's scalar multiplications (k G, k P, a G + b P) and the
 * curve steps under them, written once and instantiated per implementation
 * row (impl.h): mul_portable.c, mul_mulx.c, mul_avx512ifma.c each define
 * the row's field operations and scan, then include this file, which
 * defines the row's table.
 *
 * The including file defines, before the include:
 *   fe_mul, fe_sqr, fe_add, fe_sub   static inline field operations with
 *                                    field.h's gostx__fe_mul (...) signatures
 *   GX_SCAN(r, tab, entries, limbs, idx)
 *                                    the masked table scan (scalar.c's
 *                                    gostx__sc_scan_portable's contract)
 *   GX_ROW, GX_ROW_NAME              the table's symbol and its row name
 * and where the row has curve steps in lanes of its own (ec.h: p = 2^(64 n)
 * - c with c < 2^14; on the Weierstrass curves also a = -3):
 *   GX_LANE_POINT_ADD, GX_LANE_POINT_DBL_N, GX_LANE_JAC_DBL_N,
 *   GX_LANE_ED_MUL, GX_LANE_ED_MUL2, GX_LANE_ED_MUL_BASE
 *                                    (ec.h's gostx__ec_*_ifma signatures)
 * No ISA is named here: the row's own file names it. No include guard:
 * one instance per file. Not installed. */
#include "gost3410/ec.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The lane code's sums are sized for p = 2^(64 n) - c, c < 2^14 (field_ifma.h). */
#define LANES_FIT(C) ((C)->fp.c && (C)->fp.c < (1u << 14))
/* The G tables' entries per row (the odd multiples of a GX_W-bit digit),
 * and the width of verification's NAF of b. */
#define ROW_ENTRIES (1 << (GX_W - 1))
#define VAR_W 5

static const gx_fe gx_zero = {0};

/* out[i] = 1 / in[i] for m nonzero values (Montgomery's trick: one
 * inversion); vartime: the variable-time inversion, for public values only. */
static void batch_inv(const gx_mont *M, gx_fe *out, gx_fe *in, int m, int vartime) {
  gx_fe acc, t;
  memcpy(out[0], in[0], sizeof acc);
  for (int i = 1; i < m; i++) fe_mul(M, out[i], out[i - 1], in[i]);
  if (vartime) {
    gostx__fe_from_mont(M, t, out[m - 1]);
    gostx__fe_inv_public(M, acc, t);
    gostx__fe_to_mont(M, acc, acc);
  } else {
    gostx__fe_inv(M, acc, out[m - 1]);
  }
  for (int i = m - 1; i > 0; i--) {
    fe_mul(M, t, acc, out[i - 1]); /* 1 / in[i] */
    fe_mul(M, acc, acc, in[i]);
    memcpy(out[i], t, sizeof t);
  }
  memcpy(out[0], acc, sizeof acc);
}

/* r = the point of a table of 2^(w-1) entries at |d| / 2, negated when d < 0:
 * all entries read with masks; y sits y_off limbs into an entry. */
static void sc_select(const gx_curve *C, uint64_t *r, const uint64_t *tab, int entry_limbs,
                      int y_off, int d) {
  uint64_t neg = 0 - ((uint64_t)(int64_t)d >> 63), ad = ((uint64_t)d ^ neg) - neg;
  GX_SCAN(r, tab, ROW_ENTRIES, entry_limbs, ad >> 1);
  gx_fe ny;
  fe_sub(&C->fp, ny, gx_zero, r + y_off);
  gostx__fe_cmov(r + y_off, ny, neg, C->n);
}

#include "gost3410/mul_weier.h"
#include "gost3410/mul_jac.h"
#include "gost3410/mul_edwards.h"

/* a G + b P on the Weierstrass curves: the Jacobian form first, the
 * complete formulas when P's small multiples meet infinity (its
 * exceptional cases; public data). */
static void w_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P) {
  if (mul2_jac(C, r, a, b, P)) mul2_complete(C, r, a, b, P);
}

/* The row's field operations as functions, for the tests (impl.h's
 * struct gostx_gx_field: GX_ROW's name with _field). */
static void row_fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  fe_mul(M, r, a, b);
}
static void row_fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) { fe_sqr(M, r, a); }
static void row_fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  fe_add(M, r, a, b);
}
static void row_fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  fe_sub(M, r, a, b);
}

const struct gostx_gx_impl GX_ROW = {
    GX_ROW_NAME,
    {w_mul_base, w_mul, w_mul2_vartime},
    {ed_mul_base, ed_mul, ed_mul2_vartime},
    point_add,
    point_dbl_n,
    jac_dbl_n,
    mul_ref,
    mul2_jac,
    mul2_complete,
    ed_in_subgroup_vartime,
    point_from_affine,
    point_to_affine,
};

#define GX_FIELD_TABLE_(row) row##_field
#define GX_FIELD_TABLE(row) GX_FIELD_TABLE_(row)
const struct gostx_gx_field GX_FIELD_TABLE(GX_ROW) = {&GX_ROW, row_fe_mul, row_fe_sqr, row_fe_add,
                                                      row_fe_sub};
