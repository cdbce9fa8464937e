/* Multiples of the generator from a per-curve table, and the two-scalar
 * multiplication of verification. The table has a row per signed GX_W-bit
 * digit of the scalar: row i holds (2j + 1) 2^(w i) G for j < 2^(w-1), in
 * affine form, so k G is one mixed addition per digit and no doubling
 * (GX_DIGITS(n) additions: 43 for 256 bits, 86 for 512, against 256 or 512
 * doublings). Built on the first use of a curve, under a lock. */
#include "gost3410/field_inline.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ROW_ENTRIES (1 << (GX_W - 1))

static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *tables[GX_NCURVES];

/* out[i] = 1 / in[i] for m nonzero values (Montgomery's trick: one
 * inversion); vartime: the variable-time inversion, for public values only. */
void gx_batch_inv(const gx_mont *M, gx_fe *out, gx_fe *in, int m, int vartime) {
  gx_fe acc, t;
  memcpy(out[0], in[0], sizeof acc);
  for (int i = 1; i < m; i++) fe_mul(M, out[i], out[i - 1], in[i]);
  if (vartime) {
    gx_from_mont(M, t, out[m - 1]);
    gx_inv_public(M, acc, t);
    gx_to_mont(M, acc, acc);
  } else {
    gx_inv(M, acc, out[m - 1]);
  }
  for (int i = m - 1; i > 0; i--) {
    fe_mul(M, t, acc, out[i - 1]); /* 1 / in[i] */
    fe_mul(M, acc, acc, in[i]);
    memcpy(out[i], t, sizeof t);
  }
  memcpy(out[0], acc, sizeof acc);
}

static uint64_t *build_table(const gx_curve *C) {
  int n = C->n, rows = GX_DIGITS(n);
  uint64_t *tab = malloc((size_t)rows * ROW_ENTRIES * 2 * (size_t)n * 8);
  if (!tab) return NULL;
  gx_point B, B2, pts[ROW_ENTRIES];
  gx_fe z[ROW_ENTRIES], zi[ROW_ENTRIES], t;
  gx_point_generator(C, &B);
  for (int r = 0; r < rows; r++) {
    pts[0] = B;
    gx_point_add(C, &B2, &B, &B);
    for (int j = 1; j < ROW_ENTRIES; j++) gx_point_add(C, &pts[j], &pts[j - 1], &B2);
    for (int j = 0; j < ROW_ENTRIES; j++) memcpy(z[j], pts[j].Z, sizeof z[j]);
    gx_batch_inv(&C->fp, zi, z, ROW_ENTRIES, 0);
    for (int j = 0; j < ROW_ENTRIES; j++) {
      uint64_t *e = tab + ((size_t)r * ROW_ENTRIES + (size_t)j) * 2 * (size_t)n;
      fe_mul(&C->fp, t, pts[j].X, zi[j]);
      memcpy(e, t, (size_t)n * 8);
      fe_mul(&C->fp, t, pts[j].Y, zi[j]);
      memcpy(e + n, t, (size_t)n * 8);
    }
    for (int s = 0; s < GX_W; s++) gx_point_add(C, &B, &B, &B);
  }
  return tab;
}

const uint64_t *gx_base_table(const gx_curve *C) {
  pthread_mutex_lock(&tables_lock);
  if (!tables[C->index]) tables[C->index] = build_table(C);
  const uint64_t *t = tables[C->index];
  pthread_mutex_unlock(&tables_lock);
  return t;
}

void gx_point_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  if (C->edwards) { /* a public property of the curve */
    gx_ed_mul_base(C, r, k);
    return;
  }
  const uint64_t *tab = gx_base_table(C);
  if (!tab) { /* no memory for the table: the variable-base ladder */
    gx_point G;
    gx_point_generator(C, &G);
    gx_point_mul(C, r, k, &G);
    return;
  }
  int n = C->n, nd = GX_DIGITS(n);
  size_t row = (size_t)ROW_ENTRIES * 2 * (size_t)n;
  int8_t dig[GX_DIGITS(GX_MAXN)];
  uint64_t sel[2 * GX_MAXN];
  gx_fe ko;
  gx_point acc;
  uint64_t flip = gx_make_odd(C, ko, k);
  gx_recode_odd(dig, ko, n);
  memset(&acc, 0, sizeof acc); /* infinity (0 : 1 : 0) */
  memcpy(acc.Y, C->fp.one, sizeof acc.Y);
  for (int i = 0; i < nd; i++) {
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410, (const uint8_t *)&dig[i], 1);
    gx_select(C, sel, tab + (size_t)i * row, 2 * n, n, dig[i]);
    gx_point_add_affine(C, &acc, &acc, sel, sel + n);
  }
  gx_point_neg_if(C, &acc, flip);
  *r = acc;
  memset(sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
  memset(&acc, 0, sizeof acc);
}

/* cnt <= 8 bits of k (n limbs) from bit pos; bits past the top read 0. */
static unsigned bits_at(const uint64_t *k, int n, int pos, int cnt) {
  int limb = pos / 64, off = pos % 64;
  if (limb >= n) return 0;
  uint64_t v = k[limb] >> off;
  if (off + cnt > 64 && limb + 1 < n) v |= k[limb + 1] << (64 - off);
  return (unsigned)v & ((1u << cnt) - 1);
}

/* Width-w NAF of a public scalar: digits odd in (-2^(w-1), 2^(w-1)) or 0,
 * nonzero ones at least w apart; returns the number of digits (at most 64
 * n + 1). Reads the scalar a window at a time with a carry instead of
 * subtracting each digit from a multi-limb copy (variable time: public). */
int gx_wnaf(int8_t *dig, const uint64_t *k, int n, int w) {
  int top = 64 * n, len = 0;
  unsigned carry = 0;
  memset(dig, 0, (size_t)top + 1);
  for (int bit = 0; bit <= top;) {
    if (bits_at(k, n, bit, 1) == carry) { /* k + carry 2^bit is even here */
      bit++;
      continue;
    }
    /* The window stops at digit 64 n: there it is below 2^(w - 1) (odd,
     * fewer than w bits), so it leaves no carry past the last digit. */
    int now = top + 1 - bit < w ? top + 1 - bit : w;
    int word = (int)(bits_at(k, n, bit, now) + carry); /* odd */
    carry = (unsigned)word >> (w - 1) & 1;
    word -= (int)(carry << w);
    dig[bit] = (int8_t)word;
    len = bit + 1;
    bit += now;
  }
  return len;
}

#define VAR_W 5

void gx_point_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P) {
  static const gx_fe zero = {0};
  int n = C->n;
  gx_point acc, odd[1 << (VAR_W - 2)], P2, A, tmp;
  int8_t dig[64 * GX_MAXN + 1];
  /* b P by wNAF: doublings from the top, an addition per nonzero digit. */
  odd[0] = *P;
  gx_point_add(C, &P2, P, P);
  for (int i = 1; i < (1 << (VAR_W - 2)); i++) gx_point_add(C, &odd[i], &odd[i - 1], &P2);
  memset(&acc, 0, sizeof acc);
  memcpy(acc.Y, C->fp.one, sizeof acc.Y);
  int pending = 0; /* doublings owed, done in one Jacobian run before an addition */
  for (int i = gx_wnaf(dig, b, n, VAR_W) - 1; i >= 0; i--) {
    pending++;
    if (!dig[i]) continue;
    gx_point_dbl_n(C, &acc, &acc, pending);
    pending = 0;
    if (dig[i] > 0) gx_point_add(C, &acc, &acc, &odd[dig[i] >> 1]);
    if (dig[i] < 0) {
      tmp = odd[(-dig[i]) >> 1];
      fe_sub(&C->fp, tmp.Y, zero, tmp.Y);
      gx_point_add(C, &acc, &acc, &tmp);
    }
  }
  if (pending) gx_point_dbl_n(C, &acc, &acc, pending);
  /* a G from the table with direct indexes (a is public). */
  const uint64_t *tab = gx_base_table(C);
  if (!tab) {
    gx_point G;
    gx_point_generator(C, &G);
    gx_point_mul_ref(C, &A, a, &G);
  } else {
    gx_fe ao, y;
    int8_t ad[GX_DIGITS(GX_MAXN)];
    uint64_t flip = gx_make_odd(C, ao, a);
    gx_recode_odd(ad, ao, n);
    memset(&A, 0, sizeof A);
    memcpy(A.Y, C->fp.one, sizeof A.Y);
    for (int i = 0; i < GX_DIGITS(n); i++) {
      int d = ad[i], idx = (d < 0 ? -d : d) >> 1;
      const uint64_t *e = tab + ((size_t)i * ROW_ENTRIES + (size_t)idx) * 2 * (size_t)n;
      memcpy(y, e + n, (size_t)n * 8);
      if (d < 0) fe_sub(&C->fp, y, zero, y);
      gx_point_add_affine(C, &A, &A, e, y);
    }
    gx_point_neg_if(C, &A, flip);
  }
  gx_point_add(C, r, &acc, &A);
}

/* Verification's last step without an inversion: whether the affine x of A
 * (not infinity) is r mod q, i.e. X = x Z for one of x = r, r + q, ... < p
 * (x taken into the internal coordinates). Public values: variable time. */
int gx_point_x_is(const gx_curve *C, const gx_point *A, const uint64_t *r) {
  int n = C->n;
  gx_fe x, t;
  if (gx_is_zero(A->Z, n)) return 0;
  memcpy(x, r, sizeof x);
  for (;;) {
    if (!gx_lt(x, C->fp.m, n)) return 0;
    gx_to_mont(&C->fp, t, x);
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
