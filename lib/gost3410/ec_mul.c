/* The scalar multiplications on the Weierstrass curves (the Edwards sets'
 * are ec_edwards.c's; ec_front.c picks): k P by signed windows, the 4-bit
 * reference the tests check it against, multiples of the generator from a
 * per-curve table, and the two-scalar multiplication of verification. The table has a row per signed GX_W-bit
 * digit of the scalar: row i holds (2j + 1) 2^(w i) G for j < 2^(w-1), in
 * affine form, so k G is one mixed addition per digit and no doubling
 * (GX_DIGITS(n) additions: 43 for 256 bits, 86 for 512, against 256 or 512
 * doublings). Built on the first use of a curve, under a lock. */
#include "gost3410/ec.h"
#include "gost3410/field_inline.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ROW_ENTRIES (1 << (GX_W - 1))


static void set_infinity(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->Y, C->fp.one, sizeof r->Y);
}

/* The reference (tests, curve self-test): fixed 4-bit windows from the top, 4 doublings and one addition of a table
 * entry per window. The entry is chosen by reading all 16 with masks, so
 * neither the branches nor the addresses depend on the scalar. */
void gostx__ec_point_mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  gx_point tab[16], acc, sel;
  int n = C->n;
  set_infinity(C, &tab[0]);
  tab[1] = *P;
  for (int i = 2; i < 16; i++) gostx__ec_point_add(C, &tab[i], &tab[i - 1], P);
  set_infinity(C, &acc);
  for (int w = 16 * n - 1; w >= 0; w--) {
    for (int d = 0; d < 4; d++) gostx__ec_point_add(C, &acc, &acc, &acc);
    uint64_t nib = (k[w / 16] >> (4 * (w % 16))) & 15;
    memset(&sel, 0, sizeof sel);
    for (uint64_t i = 0; i < 16; i++) {
      uint64_t diff = i ^ nib;
      uint64_t mask = ((diff | (0 - diff)) >> 63) - 1; /* all-ones iff i == nib */
      const uint64_t *src = (const uint64_t *)&tab[i];
      uint64_t *dst = (uint64_t *)&sel;
      for (size_t j = 0; j < sizeof sel / 8; j++) dst[j] |= src[j] & mask;
    }
    gostx__ec_point_add(C, &acc, &acc, &sel);
  }
  *r = acc;
  memset(tab, 0, sizeof tab);
  memset(&sel, 0, sizeof sel);
}

/* Signed odd windows of GX_W bits from the top: w doublings and one addition
 * of a table entry (P, 3P, ..., (2^w - 1) P, read whole with masks) per
 * window. k must be < q and P of order q (the odd-scalar trick negates). */
void gostx__ec_point_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  gx_point tab[1 << (GX_W - 1)], acc, P2, sel;
  gx_fe ko;
  int8_t dig[GX_DIGITS(GX_MAXN)];
  int n = C->n, nd = GX_DIGITS(n);
  uint64_t flip = gostx__sc_make_odd(C, ko, k);
  gostx__sc_recode_odd(dig, ko, n);
  tab[0] = *P;
  gostx__ec_point_add(C, &P2, P, P);
  for (int i = 1; i < (1 << (GX_W - 1)); i++) gostx__ec_point_add(C, &tab[i], &tab[i - 1], &P2);
  gostx__sc_select(C, (uint64_t *)&acc, (const uint64_t *)tab, 3 * GX_MAXN, GX_MAXN, dig[nd - 1]);
  for (int i = nd - 2; i >= 0; i--) {
    gostx__ec_point_dbl_n(C, &acc, &acc, GX_W);
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_VKO, (const uint8_t *)&dig[i], 1);
    gostx__sc_select(C, (uint64_t *)&sel, (const uint64_t *)tab, 3 * GX_MAXN, GX_MAXN, dig[i]);
    gostx__ec_point_add(C, &acc, &acc, &sel);
  }
  gostx__ec_point_neg_if(C, &acc, flip);
  *r = acc;
  memset(tab, 0, sizeof tab);
  memset(&sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
}

static uint64_t *build_table(const gx_curve *C) {
  int n = C->n, rows = GX_DIGITS(n);
  uint64_t *tab = malloc((size_t)rows * ROW_ENTRIES * 2 * (size_t)n * 8);
  if (!tab) return NULL;
  gx_point B, B2, pts[ROW_ENTRIES];
  gx_fe z[ROW_ENTRIES], zi[ROW_ENTRIES], t;
  gostx__ec_point_generator(C, &B);
  for (int r = 0; r < rows; r++) {
    pts[0] = B;
    gostx__ec_point_add(C, &B2, &B, &B);
    for (int j = 1; j < ROW_ENTRIES; j++) gostx__ec_point_add(C, &pts[j], &pts[j - 1], &B2);
    for (int j = 0; j < ROW_ENTRIES; j++) memcpy(z[j], pts[j].Z, sizeof z[j]);
    gostx__fe_batch_inv(&C->fp, zi, z, ROW_ENTRIES, 0);
    for (int j = 0; j < ROW_ENTRIES; j++) {
      uint64_t *e = tab + ((size_t)r * ROW_ENTRIES + (size_t)j) * 2 * (size_t)n;
      fe_mul(&C->fp, t, pts[j].X, zi[j]);
      memcpy(e, t, (size_t)n * 8);
      fe_mul(&C->fp, t, pts[j].Y, zi[j]);
      memcpy(e + n, t, (size_t)n * 8);
    }
    for (int s = 0; s < GX_W; s++) gostx__ec_point_add(C, &B, &B, &B);
  }
  return tab;
}

const uint64_t *gostx__ec_base_table(const gx_curve *C) {
  return gostx__sc_table(C, GX_TABLE_WEIER, build_table);
}

int gostx__ec_point_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  const uint64_t *tab = gostx__ec_base_table(C);
  if (!tab) return -1; /* no memory for the table */
  int n = C->n, nd = GX_DIGITS(n);
  size_t row = (size_t)ROW_ENTRIES * 2 * (size_t)n;
  uint64_t sel[2 * GX_MAXN];
  gx_fe ko;
  gx_point acc;
  uint64_t flip = gostx__sc_make_odd(C, ko, k);
  int8_t dig[GX_DIGITS(GX_MAXN)];
  gostx__sc_recode_odd(dig, ko, n);
  memset(&acc, 0, sizeof acc); /* infinity (0 : 1 : 0) */
  memcpy(acc.Y, C->fp.one, sizeof acc.Y);
  for (int i = 0; i < nd; i++) {
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410, (const uint8_t *)&dig[i], 1);
    gostx__sc_select(C, sel, tab + (size_t)i * row, 2 * n, n, dig[i]);
    gostx__ec_point_add_affine(C, &acc, &acc, sel, sel + n);
  }
  gostx__ec_point_neg_if(C, &acc, flip);
  *r = acc;
  memset(sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
  memset(&acc, 0, sizeof acc);
  return 0;
}

#define VAR_W 5

void gostx__ec_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P) {
  static const gx_fe zero = {0};
  int n = C->n;
  gx_point acc, odd[1 << (VAR_W - 2)], P2, A, tmp;
  int8_t dig[64 * GX_MAXN + 1];
  /* b P by wNAF: doublings from the top, an addition per nonzero digit. */
  odd[0] = *P;
  gostx__ec_point_add(C, &P2, P, P);
  for (int i = 1; i < (1 << (VAR_W - 2)); i++) gostx__ec_point_add(C, &odd[i], &odd[i - 1], &P2);
  memset(&acc, 0, sizeof acc);
  memcpy(acc.Y, C->fp.one, sizeof acc.Y);
  int pending = 0; /* doublings owed, done in one Jacobian run before an addition */
  for (int i = gostx__sc_wnaf(dig, b, n, VAR_W) - 1; i >= 0; i--) {
    pending++;
    if (!dig[i]) continue;
    gostx__ec_point_dbl_n(C, &acc, &acc, pending);
    pending = 0;
    if (dig[i] > 0) gostx__ec_point_add(C, &acc, &acc, &odd[dig[i] >> 1]);
    if (dig[i] < 0) {
      tmp = odd[(-dig[i]) >> 1];
      fe_sub(&C->fp, tmp.Y, zero, tmp.Y);
      gostx__ec_point_add(C, &acc, &acc, &tmp);
    }
  }
  if (pending) gostx__ec_point_dbl_n(C, &acc, &acc, pending);
  /* a G from the table with direct indexes (a is public). */
  const uint64_t *tab = gostx__ec_base_table(C);
  if (!tab) {
    gx_point G;
    gostx__ec_point_generator(C, &G);
    gostx__ec_point_mul_ref(C, &A, a, &G);
  } else {
    gx_fe ao, y;
    int8_t ad[GX_DIGITS(GX_MAXN)];
    uint64_t flip = gostx__sc_make_odd(C, ao, a);
    gostx__sc_recode_odd(ad, ao, n);
    memset(&A, 0, sizeof A);
    memcpy(A.Y, C->fp.one, sizeof A.Y);
    for (int i = 0; i < GX_DIGITS(n); i++) {
      int d = ad[i], idx = (d < 0 ? -d : d) >> 1;
      const uint64_t *e = tab + ((size_t)i * ROW_ENTRIES + (size_t)idx) * 2 * (size_t)n;
      memcpy(y, e + n, (size_t)n * 8);
      if (d < 0) fe_sub(&C->fp, y, zero, y);
      gostx__ec_point_add_affine(C, &A, &A, e, y);
    }
    gostx__ec_point_neg_if(C, &A, flip);
  }
  gostx__ec_point_add(C, r, &acc, &A);
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
    if (C->iso) fe_mul(&C->fp, t, t, C->u2);
    fe_mul(&C->fp, t, t, A->Z);
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
