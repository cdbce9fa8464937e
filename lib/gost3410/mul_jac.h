/* Verification's a G + b P on the Weierstrass curves, a part of
 * mul_template.h after mul_weier.h: every step in Jacobian coordinates
 * (x = X/Z^2, y = Y/Z^3) with affine tables: P's odd multiples P .. 15P made
 * affine with one (variable-time) inversion, so each addition is a mixed
 * Jacobian-affine one (7M + 4S) and the doublings need no conversion. The
 * inputs are public, so the exceptional cases of these incomplete formulas
 * (equal points, opposite points, infinity) are found by branching. */
#define NODD (1 << (VAR_W - 2))

typedef struct {
  gx_fe X, Y, Z;
  int inf;
} jac;

/* A += (x2, y2), y2 negated when neg. */
static void jac_madd(const gx_curve *C, jac *A, const uint64_t *x2, const uint64_t *y2, int neg) {
  static const gx_fe zero = {0};
  const gx_mont *M = &C->fp;
  int n = C->n;
  gx_fe y, z1z1, u2, s2, h, hh, i4, j, r, v, x3;
  memcpy(y, y2, sizeof y);
  if (neg) fe_sub(M, y, zero, y);
  if (A->inf) {
    memcpy(A->X, x2, sizeof A->X);
    memcpy(A->Y, y, sizeof A->Y);
    memcpy(A->Z, M->one, sizeof A->Z);
    A->inf = 0;
    return;
  }
  fe_sqr(M, z1z1, A->Z);
  fe_mul(M, u2, x2, z1z1);
  fe_mul(M, s2, y, A->Z);
  fe_mul(M, s2, s2, z1z1);
  fe_sub(M, h, u2, A->X);
  fe_sub(M, r, s2, A->Y);
  if (gostx__fe_is_zero(h, n)) {
    if (gostx__fe_is_zero(r, n))
      jac_dbl(C, A->X, A->Y, A->Z); /* A was (x2, y) */
    else
      A->inf = 1; /* A was -(x2, y) */
    return;
  }
  fe_add(M, r, r, r);
  fe_sqr(M, hh, h);
  fe_add(M, i4, hh, hh);
  fe_add(M, i4, i4, i4);
  fe_mul(M, j, h, i4);
  fe_mul(M, v, A->X, i4);
  fe_sqr(M, x3, r);
  fe_sub(M, x3, x3, j);
  fe_sub(M, x3, x3, v);
  fe_sub(M, x3, x3, v); /* X3 = r^2 - J - 2 V */
  fe_sub(M, v, v, x3);
  fe_mul(M, v, r, v);
  fe_mul(M, j, A->Y, j);
  fe_add(M, j, j, j);
  fe_sub(M, A->Y, v, j); /* Y3 = r (V - X3) - 2 Y1 J */
  fe_add(M, A->Z, A->Z, h);
  fe_sqr(M, A->Z, A->Z);
  fe_sub(M, A->Z, A->Z, z1z1);
  fe_sub(M, A->Z, A->Z, hh); /* Z3 = (Z1 + H)^2 - Z1^2 - H^2 = 2 Z1 H */
  memcpy(A->X, x3, sizeof x3);
}

/* count doublings of the Jacobian (X : Y : Z) in place: one lane run where
 * the row has lane code, jac_dbl count times otherwise. */
static void jac_dbl_n(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count) {
#ifdef GX_LANE_JAC_DBL_N
  if (LANES_FIT(C) && C->a_small == -3) { /* the curve's form: public */
    if (count) GX_LANE_JAC_DBL_N(C, X, Y, Z, count);
    return;
  }
#endif
  for (int i = 0; i < count; i++) jac_dbl(C, X, Y, Z);
}

static int mul2_jac(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                      const gx_point *P) {
  const gx_mont *M = &C->fp;
  const uint64_t *tab = w_base_table(C);
  int n = C->n;
  if (!tab) return -1;
  /* P, 3P, ..., 15P, affine */
  gx_point odd[NODD], P2;
  gx_fe z[NODD], zi[NODD], ox[NODD], oy[NODD];
  odd[0] = *P;
  point_add(C, &P2, P, P);
  for (int i = 1; i < NODD; i++) point_add(C, &odd[i], &odd[i - 1], &P2);
  for (int i = 0; i < NODD; i++) {
    if (gostx__fe_is_zero(odd[i].Z, n)) return -1; /* P of small order */
    memcpy(z[i], odd[i].Z, sizeof z[i]);
  }
  batch_inv(M, zi, z, NODD, 1);
  for (int i = 0; i < NODD; i++) {
    fe_mul(M, ox[i], odd[i].X, zi[i]);
    fe_mul(M, oy[i], odd[i].Y, zi[i]);
  }
  /* b P by its NAF */
  jac A;
  memset(&A, 0, sizeof A);
  A.inf = 1;
  int8_t dig[64 * GX_MAXN + 1];
  int pending = 0; /* doublings owed, run together before the next addition */
  for (int i = gostx__sc_wnaf(dig, b, n, VAR_W) - 1; i >= 0; i--) {
    if (!A.inf) pending++;
    int d = dig[i];
    if (!d) continue;
    jac_dbl_n(C, A.X, A.Y, A.Z, pending);
    pending = 0;
    jac_madd(C, &A, ox[(d < 0 ? -d : d) >> 1], oy[(d < 0 ? -d : d) >> 1], d < 0);
  }
  jac_dbl_n(C, A.X, A.Y, A.Z, pending);
  /* + a G from the table, one row per odd digit (of a or q - a: then every
   * digit's sign flips) */
  gx_fe ao;
  int8_t ad[GX_DIGITS(GX_MAXN)];
  int flip = gostx__sc_make_odd(C, ao, a) != 0;
  gostx__sc_recode_odd(ad, ao, n);
  for (int i = 0; i < GX_DIGITS(n); i++) {
    int d = ad[i], idx = (d < 0 ? -d : d) >> 1;
    const uint64_t *e = tab + ((size_t)i * (1 << (GX_W - 1)) + (size_t)idx) * 2 * (size_t)n;
    jac_madd(C, &A, e, e + n, (d < 0) != flip);
  }
  /* Jacobian -> projective: (X Z, Y, Z^3) */
  memset(r, 0, sizeof *r);
  if (A.inf) {
    memcpy(r->Y, M->one, sizeof r->Y);
    return 0;
  }
  gx_fe t;
  fe_mul(M, r->X, A.X, A.Z);
  fe_sqr(M, t, A.Z);
  fe_mul(M, r->Z, t, A.Z);
  memcpy(r->Y, A.Y, sizeof r->Y);
  return 0;
}
