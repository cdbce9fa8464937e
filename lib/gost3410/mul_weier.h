/* The Weierstrass curves' scalar multiplications, a part of
 * mul_template.h (the Edwards sets' are mul_edwards.h's; ec_front.c picks),
 * on the row's field operations (fe_mul, fe_sqr, fe_add, fe_sub) and scan
 * (GX_SCAN).
 *
 * Points of y^2 = x^3 + a x + b in projective coordinates with the complete
 * addition law of Renes, Costello and Batina (2016, algorithm 1, any a): one
 * formula for P + Q, P + P and sums with infinity, so scalar multiplication
 * has no exceptional cases to branch on. (The formula is complete on points
 * of odd order; the cofactor-4 curves only ever feed it points of the order-q
 * subgroup: G, or a peer key multiplied by the cofactor first.)
 *
 * k P by signed windows, the 4-bit reference the tests check it against,
 * multiples of the generator from a per-curve table, and the two-scalar
 * multiplication of verification by the complete formulas. The table has a row per signed GX_W-bit
 * digit of the scalar: row i holds (2j + 1) 2^(w i) G for j < 2^(w-1), in
 * affine form, so k G is one mixed addition per digit and no doubling
 * (GX_DIGITS(n) additions: 43 for 256 bits, 86 for 512, against 256 or 512
 * doublings). Built on the first use of a curve, under a lock.
 * (Verification's Jacobian form first: mul_jac.h.) */

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

/* Affine (x, y), normal form, into the internal projective form, and back
 * (all-ones returned for infinity): every operation's points in and out. */
static void point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y) {
  memset(r, 0, sizeof *r);
  gostx__fe_to_mont(&C->fp, r->X, x);
  gostx__fe_to_mont(&C->fp, r->Y, y);
  if (C->iso) { /* into the internal coordinates (curves.c) */
    fe_mul(&C->fp, r->X, r->X, C->u2);
    fe_mul(&C->fp, r->Y, r->Y, C->u3);
  }
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

static uint64_t point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P) {
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

static void point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q) {
  const gx_mont *M = &C->fp;
  gx_fe t0, t1, t2, t3, t4, t5, u;
#ifdef GX_LANE_POINT_ADD
  if (LANES_FIT(C) && C->a_small == -3) { /* the row's lane code (public: the curve's) */
    GX_LANE_POINT_ADD(C, r, P, Q);
    return;
  }
#endif
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
static void point_add_affine(const gx_curve *C, gx_point *r, const gx_point *P, const uint64_t *x,
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
static void jac_dbl(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z) {
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
static void point_dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count) {
  const gx_mont *M = &C->fp;
  gx_fe X, Y, Z, t0;
#ifdef GX_LANE_POINT_DBL_N
  if (LANES_FIT(C) && C->a_small == -3) { /* the row's lane code (public: the curve's) */
    GX_LANE_POINT_DBL_N(C, r, P, count);
    return;
  }
#endif
  /* projective -> Jacobian: (X Z, Y Z^2, Z) */
  fe_mul(M, X, P->X, P->Z);
  fe_sqr(M, t0, P->Z);
  fe_mul(M, Y, P->Y, t0);
  memcpy(Z, P->Z, sizeof Z);
  for (int i = 0; i < count; i++) jac_dbl(C, X, Y, Z);
  /* Jacobian -> projective: (X Z, Y, Z^3) */
  fe_mul(M, r->X, X, Z);
  fe_sqr(M, t0, Z);
  fe_mul(M, r->Z, t0, Z);
  memcpy(r->Y, Y, sizeof Y);
  gostx__fe_cmov(r->Y, M->one, gostx__fe_is_zero(r->Z, C->n), C->n);
}

static void point_neg_if(const gx_curve *C, gx_point *P, uint64_t mask) {
  static const gx_fe zero = {0};
  gx_fe ny;
  fe_sub(&C->fp, ny, zero, P->Y);
  gostx__fe_cmov(P->Y, ny, mask, C->n);
}



static void set_infinity(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->Y, C->fp.one, sizeof r->Y);
}

/* The reference (tests, curve self-test): fixed 4-bit windows from the top, 4 doublings and one addition of a table
 * entry per window. The entry is chosen by reading all 16 with masks, so
 * neither the branches nor the addresses depend on the scalar. */
static void mul_ref(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  gx_point tab[16], acc, sel;
  int n = C->n;
  set_infinity(C, &tab[0]);
  tab[1] = *P;
  for (int i = 2; i < 16; i++) point_add(C, &tab[i], &tab[i - 1], P);
  set_infinity(C, &acc);
  for (int w = 16 * n - 1; w >= 0; w--) {
    for (int d = 0; d < 4; d++) point_add(C, &acc, &acc, &acc);
    uint64_t nib = (k[w / 16] >> (4 * (w % 16))) & 15;
    memset(&sel, 0, sizeof sel);
    for (uint64_t i = 0; i < 16; i++) {
      uint64_t diff = i ^ nib;
      uint64_t mask = ((diff | (0 - diff)) >> 63) - 1; /* all-ones iff i == nib */
      const uint64_t *src = (const uint64_t *)&tab[i];
      uint64_t *dst = (uint64_t *)&sel;
      for (size_t j = 0; j < sizeof sel / 8; j++) dst[j] |= src[j] & mask;
    }
    point_add(C, &acc, &acc, &sel);
  }
  *r = acc;
  memset(tab, 0, sizeof tab);
  memset(&sel, 0, sizeof sel);
}

/* Signed odd windows of GX_W bits from the top: w doublings and one addition
 * of a table entry (P, 3P, ..., (2^w - 1) P, read whole with masks) per
 * window. k must be < q and P of order q (the odd-scalar trick negates). */
static void w_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  gx_point tab[1 << (GX_W - 1)], acc, P2, sel;
  gx_fe ko;
  int8_t dig[GX_DIGITS(GX_MAXN)];
  int n = C->n, nd = GX_DIGITS(n);
  uint64_t flip = gostx__sc_make_odd(C, ko, k);
  gostx__sc_recode_odd(dig, ko, n);
  tab[0] = *P;
  point_add(C, &P2, P, P);
  for (int i = 1; i < (1 << (GX_W - 1)); i++) point_add(C, &tab[i], &tab[i - 1], &P2);
  sc_select(C, (uint64_t *)&acc, (const uint64_t *)tab, 3 * GX_MAXN, GX_MAXN, dig[nd - 1]);
  for (int i = nd - 2; i >= 0; i--) {
    point_dbl_n(C, &acc, &acc, GX_W);
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_VKO, (const uint8_t *)&dig[i], 1);
    sc_select(C, (uint64_t *)&sel, (const uint64_t *)tab, 3 * GX_MAXN, GX_MAXN, dig[i]);
    point_add(C, &acc, &acc, &sel);
  }
  point_neg_if(C, &acc, flip);
  *r = acc;
  memset(tab, 0, sizeof tab);
  memset(&sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
}

static uint64_t *w_build_table(const gx_curve *C) {
  int n = C->n, rows = GX_DIGITS(n);
  uint64_t *tab = malloc((size_t)rows * ROW_ENTRIES * 2 * (size_t)n * 8);
  if (!tab) return NULL;
  gx_point B, B2, pts[ROW_ENTRIES];
  gx_fe z[ROW_ENTRIES], zi[ROW_ENTRIES], t;
  gostx__ec_point_generator(C, &B);
  for (int r = 0; r < rows; r++) {
    pts[0] = B;
    point_add(C, &B2, &B, &B);
    for (int j = 1; j < ROW_ENTRIES; j++) point_add(C, &pts[j], &pts[j - 1], &B2);
    for (int j = 0; j < ROW_ENTRIES; j++) memcpy(z[j], pts[j].Z, sizeof z[j]);
    batch_inv(&C->fp, zi, z, ROW_ENTRIES, 0);
    for (int j = 0; j < ROW_ENTRIES; j++) {
      uint64_t *e = tab + ((size_t)r * ROW_ENTRIES + (size_t)j) * 2 * (size_t)n;
      fe_mul(&C->fp, t, pts[j].X, zi[j]);
      memcpy(e, t, (size_t)n * 8);
      fe_mul(&C->fp, t, pts[j].Y, zi[j]);
      memcpy(e + n, t, (size_t)n * 8);
    }
    for (int s = 0; s < GX_W; s++) point_add(C, &B, &B, &B);
  }
  return tab;
}

static const uint64_t *w_base_table(const gx_curve *C) {
  return gostx__sc_table(C, GX_TABLE_WEIER, w_build_table);
}

static int w_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  const uint64_t *tab = w_base_table(C);
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
    sc_select(C, sel, tab + (size_t)i * row, 2 * n, n, dig[i]);
    point_add_affine(C, &acc, &acc, sel, sel + n);
  }
  point_neg_if(C, &acc, flip);
  *r = acc;
  memset(sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
  memset(&acc, 0, sizeof acc);
  return 0;
}


static void mul2_complete(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                           const gx_point *P) {
  static const gx_fe zero = {0};
  int n = C->n;
  gx_point acc, odd[1 << (VAR_W - 2)], P2, A, tmp;
  int8_t dig[64 * GX_MAXN + 1];
  /* b P by wNAF: doublings from the top, an addition per nonzero digit. */
  odd[0] = *P;
  point_add(C, &P2, P, P);
  for (int i = 1; i < (1 << (VAR_W - 2)); i++) point_add(C, &odd[i], &odd[i - 1], &P2);
  memset(&acc, 0, sizeof acc);
  memcpy(acc.Y, C->fp.one, sizeof acc.Y);
  int pending = 0; /* doublings owed, done in one Jacobian run before an addition */
  for (int i = gostx__sc_wnaf(dig, b, n, VAR_W) - 1; i >= 0; i--) {
    pending++;
    if (!dig[i]) continue;
    point_dbl_n(C, &acc, &acc, pending);
    pending = 0;
    if (dig[i] > 0) point_add(C, &acc, &acc, &odd[dig[i] >> 1]);
    if (dig[i] < 0) {
      tmp = odd[(-dig[i]) >> 1];
      fe_sub(&C->fp, tmp.Y, zero, tmp.Y);
      point_add(C, &acc, &acc, &tmp);
    }
  }
  if (pending) point_dbl_n(C, &acc, &acc, pending);
  /* a G from the table with direct indexes (a is public). */
  const uint64_t *tab = w_base_table(C);
  if (!tab) {
    gx_point G;
    gostx__ec_point_generator(C, &G);
    mul_ref(C, &A, a, &G);
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
      point_add_affine(C, &A, &A, e, y);
    }
    point_neg_if(C, &A, flip);
  }
  point_add(C, r, &acc, &A);
}
