/* The twisted Edwards sets' scalar multiplications, a part of
 * mul_template.h, on the row's field operations and scan.
 *
 * Scalar multiplication on the two twisted Edwards sets (256 paramSetA,
 * 512 paramSetC: e u^2 + v^2 = 1 + d u^2 v^2 with e = 1, R 50.1.114-2016),
 * which the rest of lib/gost3410 handles in their Weierstrass form. Points
 * enter and leave as the Weierstrass points of ec.h; inside they are
 * extended Edwards coordinates (X : Y : Z : T), u = X/Z, v = Y/Z, T = X Y/Z
 * (Hisil, Wong, Carter, Dawson 2008). d is not a square mod p and e = 1 is,
 * so the addition law is complete: one formula for every pair of points
 * (P + P, P + (-P), the neutral (0, 1)), nothing to branch on. Costs: an
 * addition 9M (8M with an affine second point; one less without T, when a
 * doubling follows), a doubling 3M + 4S (4M + 4S when T is wanted, i.e.
 * before an addition), against 12-13M for the
 * Weierstrass complete addition and 3M + 6S for a Jacobian doubling. */
typedef struct ed_point {
  gx_fe X, Y, Z, T;
} ed_point;

/* k P's window: 5 bits (16 entries, 52 digits for 256 bits) against the G
 * table's 6: the masked scan of a 6-bit table of cached points costs more
 * than the 9 additions it saves (VKO on 256 A: +8 % with 5 on the portable
 * scan, +3 % with the AVX2 one). */
#define ED_W GX_ED_W
#define VAR_ENTRIES (1 << (ED_W - 1))


static void ed_neutral(const gx_curve *C, ed_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->Y, C->fp.one, sizeof r->Y);
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

/* r = 2 p (r may be p); T3 only when asked (the next step is an addition). */
static void ed_dbl(const gx_curve *C, ed_point *r, const ed_point *p, int want_t) {
  const gx_mont *M = &C->fp;
  gx_fe A, B, Z2, E, F, G, H;
  fe_sqr(M, A, p->X);
  fe_sqr(M, B, p->Y);
  fe_sqr(M, Z2, p->Z);
  fe_add(M, Z2, Z2, Z2); /* 2 Z^2 */
  fe_add(M, E, p->X, p->Y);
  fe_sqr(M, E, E);
  fe_add(M, G, A, B); /* e A + B with e = 1 */
  fe_sub(M, E, E, G); /* (X + Y)^2 - X^2 - Y^2 = 2 X Y */
  fe_sub(M, F, G, Z2);
  fe_sub(M, H, A, B);
  fe_mul(M, r->X, E, F);
  fe_mul(M, r->Y, G, H);
  fe_mul(M, r->Z, F, G);
  if (want_t) fe_mul(M, r->T, E, H);
}

/* r = p + q for q in cached form (X2, Y2, Z2, d T2): 9M; with q affine
 * (Z2 = 1, qz NULL, q = (u, v, d u v)) 8M; T3 only when asked (another
 * addition follows: a doubling does not read T), one product less. r may
 * be p. */
static void ed_add(const gx_curve *C, ed_point *r, const ed_point *p, const uint64_t *qx,
                   const uint64_t *qy, const uint64_t *qz, const uint64_t *qdt, int want_t) {
  const gx_mont *M = &C->fp;
  gx_fe A, B, Cc, D, E, F, G, H;
  fe_mul(M, A, p->X, qx);
  fe_mul(M, B, p->Y, qy);
  fe_mul(M, Cc, p->T, qdt);
  if (qz)
    fe_mul(M, D, p->Z, qz);
  else
    memcpy(D, p->Z, sizeof D);
  fe_add(M, E, p->X, p->Y);
  fe_add(M, F, qx, qy);
  fe_mul(M, E, E, F);
  fe_sub(M, E, E, A);
  fe_sub(M, E, E, B); /* X1 Y2 + Y1 X2 */
  fe_sub(M, F, D, Cc);
  fe_add(M, G, D, Cc);
  fe_sub(M, H, B, A); /* B - e A */
  fe_mul(M, r->X, E, F);
  fe_mul(M, r->Y, G, H);
  if (want_t) fe_mul(M, r->T, E, H);
  fe_mul(M, r->Z, F, G);
}

/* Negate under a mask: -(u, v) = (-u, v), so X and T (or d T) change sign. */
static void neg_if(const gx_curve *C, uint64_t *x, uint64_t *t, uint64_t mask) {
  gx_fe nx;
  fe_sub(&C->fp, nx, gx_zero, x);
  gostx__fe_cmov(x, nx, mask, C->n);
  fe_sub(&C->fp, nx, gx_zero, t);
  gostx__fe_cmov(t, nx, mask, C->n);
}

/* The Weierstrass point (internal coordinates, ec.h) in extended Edwards
 * coordinates: with x, y the standard's, u = (x - t)/y, v = (x - t - s)/(x
 * - t + s). Written over Z as n1/d1, n2/d2: (n1 d2 : n2 d1 : d1 d2 : n1 n2).
 * Never y = 0 (the point of order 2: ed_in_subgroup_vartime refuses it
 * first, and the others see only points of order q); infinity gives Z = 0,
 * which the callers refuse before. */
static void ed_from_weier(const gx_curve *C, ed_point *r, const gx_point *P) {
  const gx_mont *M = &C->fp;
  gx_fe A, B, sz, n2, d2;
  if (C->iso) {
    fe_mul(M, A, P->X, C->u2i);
    fe_mul(M, B, P->Y, C->u3i);
  } else {
    memcpy(A, P->X, sizeof A);
    memcpy(B, P->Y, sizeof B);
  }
  fe_mul(M, sz, C->ed_t, P->Z);
  fe_sub(M, A, A, sz); /* (x - t) Z */
  fe_mul(M, sz, C->ed_s, P->Z);
  fe_sub(M, n2, A, sz);
  fe_add(M, d2, A, sz);
  fe_mul(M, r->X, A, d2);
  fe_mul(M, r->Y, n2, B);
  fe_mul(M, r->Z, B, d2);
  fe_mul(M, r->T, A, n2);
}

/* Back to the Weierstrass internal coordinates, projective: x = s (1 + v)
 * / (1 - v) + t, y = s (1 + v) / ((1 - v) u), over the common denominator
 * (Z - Y) X, with s and t already taken by u^2 and u^3 (curves.c). The
 * neutral (X = 0) gives Z = 0: infinity, put as (0 : 1 : 0). */
static void ed_to_weier(const gx_curve *C, gx_point *r, const ed_point *p) {
  const gx_mont *M = &C->fp;
  gx_fe wp, wm, t1, t2;
  fe_add(M, wp, p->Z, p->Y);
  fe_sub(M, wm, p->Z, p->Y);
  fe_mul(M, t1, C->ed_sx, wp);
  fe_mul(M, t2, C->ed_tx, wm);
  fe_add(M, t1, t1, t2);
  fe_mul(M, r->X, p->X, t1);
  fe_mul(M, t1, C->ed_sy, wp);
  fe_mul(M, r->Y, t1, p->Z);
  fe_mul(M, r->Z, wm, p->X);
  gostx__fe_cmov(r->Y, M->one, gostx__fe_is_zero(r->Z, C->n), C->n);
}

/* r = the entry at |d| / 2 of a table of `parts` field elements per entry
 * (3: a G-table row, ROW_ENTRIES affine entries; 4: k P's VAR_ENTRIES
 * cached points), every entry read under a mask (GX_SCAN); negated (first
 * and last part) when d < 0. */
static void ed_select(const gx_curve *C, uint64_t *r, const uint64_t *tab, int parts, int d) {
  uint64_t neg = 0 - ((uint64_t)(int64_t)d >> 63), ad = ((uint64_t)d ^ neg) - neg;
  GX_SCAN(r, tab, parts == 3 ? ROW_ENTRIES : VAR_ENTRIES, parts * C->n, ad >> 1);
  neg_if(C, r, r + (parts - 1) * C->n, neg);
}

/* ---- k G: a table per curve, a row per digit, (u, v, d u v) affine ---- */


/* Row i: (2j + 1) 2^(GX_W i) G for j < ROW_ENTRIES, as (u, v, d u v). */
static uint64_t *ed_build_table(const gx_curve *C) {
  const gx_mont *M = &C->fp;
  int n = C->n, rows = GX_DIGITS(n);
  size_t entry = 3 * (size_t)n;
  uint64_t *tab = malloc((size_t)rows * ROW_ENTRIES * entry * 8);
  if (!tab) return NULL;
  gx_point G;
  ed_point B, B2, pts[ROW_ENTRIES];
  gx_fe z[ROW_ENTRIES], zi[ROW_ENTRIES], u, v;
  gostx__ec_point_generator(C, &G);
  ed_from_weier(C, &B, &G);
  for (int r = 0; r < rows; r++) {
    gx_fe b2dt;
    pts[0] = B;
    ed_dbl(C, &B2, &B, 1);
    fe_mul(M, b2dt, B2.T, C->ed_d);
    for (int j = 1; j < ROW_ENTRIES; j++) ed_add(C, &pts[j], &pts[j - 1], B2.X, B2.Y, B2.Z, b2dt, 1);
    for (int j = 0; j < ROW_ENTRIES; j++) memcpy(z[j], pts[j].Z, sizeof z[j]);
    batch_inv(M, zi, z, ROW_ENTRIES, 0);
    for (int j = 0; j < ROW_ENTRIES; j++) {
      uint64_t *e = tab + ((size_t)r * ROW_ENTRIES + (size_t)j) * entry;
      fe_mul(M, u, pts[j].X, zi[j]);
      fe_mul(M, v, pts[j].Y, zi[j]);
      memcpy(e, u, (size_t)n * 8);
      memcpy(e + n, v, (size_t)n * 8);
      fe_mul(M, u, u, v);
      fe_mul(M, u, u, C->ed_d);
      memcpy(e + 2 * n, u, (size_t)n * 8);
    }
    for (int s = 0; s < GX_W; s++) ed_dbl(C, &B, &B, s == GX_W - 1);
  }
  return tab;
}

static int ed_mul_base(const gx_curve *C, gx_point *r, const uint64_t *k) {
  const uint64_t *tab = gostx__sc_table(C, GX_TABLE_EDWARDS, ed_build_table);
  if (!tab) return -1; /* no memory for the table */
  int n = C->n, nd = GX_DIGITS(n);
  size_t row = (size_t)ROW_ENTRIES * 3 * (size_t)n;
  int8_t dig[GX_DIGITS(GX_MAXN)];
  uint64_t sel[3 * GX_MAXN];
  gx_fe ko;
  ed_point acc;
  uint64_t flip = gostx__sc_make_odd(C, ko, k);
  gostx__sc_recode_odd(dig, ko, n);
#ifdef GX_LANE_ED_MUL_BASE
  if (LANES_FIT(C)) { /* the row's lane code, as ed_mul's */
    GX_LANE_ED_MUL_BASE(C->fp.c, n, acc.X, acc.Y, acc.Z, acc.T, tab, dig, nd);
  } else
#endif
  {
    ed_neutral(C, &acc);
    for (int i = 0; i < nd; i++) {
      GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_ED, (const uint8_t *)&dig[i], 1);
      ed_select(C, sel, tab + (size_t)i * row, 3, dig[i]);
      ed_add(C, &acc, &acc, sel, sel + n, NULL, sel + 2 * n, 1);
    }
  }
  neg_if(C, acc.X, acc.T, flip);
  ed_to_weier(C, r, &acc);
  memset(sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
  memset(&acc, 0, sizeof acc);
  return 0;
}

/* ---- k P: signed odd windows over a table of P, 3P, ..., 31P ---- */


/* tab[j] = (2j + 1) P in cached form (X, Y, Z, d T), 4 n limbs each. */
static void odd_multiples(const gx_curve *C, uint64_t *tab, const ed_point *P, int count) {
  const gx_mont *M = &C->fp;
  int n = C->n;
  size_t nb = (size_t)n * 8;
  ed_point acc = *P, P2;
  gx_fe p2dt;
  ed_dbl(C, &P2, P, 1);
  fe_mul(M, p2dt, P2.T, C->ed_d);
  for (int j = 0; j < count; j++) {
    uint64_t *e = tab + (size_t)j * 4 * (size_t)n;
    if (j) ed_add(C, &acc, &acc, P2.X, P2.Y, P2.Z, p2dt, 1);
    memcpy(e, acc.X, nb);
    memcpy(e + n, acc.Y, nb);
    memcpy(e + 2 * n, acc.Z, nb);
    fe_mul(M, e + 3 * n, acc.T, C->ed_d);
  }
  memset(&acc, 0, sizeof acc);
}

static void ed_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  uint64_t tab[VAR_ENTRIES * 4 * GX_MAXN], sel[4 * GX_MAXN];
  ed_point E, acc;
  gx_fe ko;
  int8_t dig[GX_DIGITS_W(GX_MAXN, ED_W)];
  int n = C->n, nd = GX_DIGITS_W(n, ED_W);
  uint64_t flip = gostx__sc_make_odd(C, ko, k);
  gostx__sc_recode_odd_w(dig, ko, n, ED_W);
  ed_from_weier(C, &E, P);
  odd_multiples(C, tab, &E, VAR_ENTRIES);
#ifdef GX_LANE_ED_MUL
  if (LANES_FIT(C)) { /* the row's lane code (p = 2^(64 n) - c, c < 2^14) */
    GX_LANE_ED_MUL(C->fp.c, n, acc.X, acc.Y, acc.Z, acc.T, tab, VAR_ENTRIES, dig, nd);
  } else
#endif
  {
    ed_neutral(C, &acc);
    for (int i = nd - 1; i >= 0; i--) {
      if (i < nd - 1)
        for (int s = 0; s < ED_W; s++) ed_dbl(C, &acc, &acc, s == ED_W - 1);
      GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_ED_VKO, (const uint8_t *)&dig[i], 1);
      ed_select(C, sel, tab, 4, dig[i]);
      ed_add(C, &acc, &acc, sel, sel + n, sel + 2 * n, sel + 3 * n, 0); /* doublings next */
    }
  }
  neg_if(C, acc.X, acc.T, flip);
  ed_to_weier(C, r, &acc);
  memset(tab, 0, sizeof tab);
  memset(sel, 0, sizeof sel);
  memset(dig, 0, sizeof dig);
  memset(ko, 0, sizeof ko);
  memset(&acc, 0, sizeof acc);
  memset(&E, 0, sizeof E);
}

/* ---- a G + b P for public a, b (verification): variable time ---- */

/* b P by a width-5 NAF over P, 3P, ..., 15P (cached form); a G by a width-7
 * NAF over the G table's first row (G, 3G, ..., 63G, affine), interleaved
 * so that both share one run of doublings (Straus): about 256/8 additions
 * of G against the 43 of one per row, no doublings of its own. */
#define G_W 7 /* the row's 32 entries are the odd multiples a width-7 NAF needs */
_Static_assert(1 << (G_W - 2) <= ROW_ENTRIES, "G_W needs more of the row than it has");
_Static_assert(1 << (VAR_W - 2) == GX_ED_IFMA_ODD && 1 << (G_W - 2) == GX_ED_IFMA_G &&
                   VAR_ENTRIES == GX_ED_IFMA_ENTRIES && ROW_ENTRIES == GX_ED_IFMA_G,
               "ec_edwards_ifma.c's tables are the sizes this file hands it");

/* acc = a G + b E, b's digits over E's odd multiples; a G only when tab (the
 * G table) is there and a is not NULL. */
static void ed_mul2_core(const gx_curve *C, ed_point *acc, const uint64_t *a, const uint64_t *b,
                         const ed_point *E, const uint64_t *tab) {
  int n = C->n;
  uint64_t odd[(1 << (VAR_W - 2)) * 4 * GX_MAXN], e[4 * GX_MAXN];
  int8_t db[64 * GX_MAXN + 1], da[64 * GX_MAXN + 1];
  if (!a) tab = NULL;
  odd_multiples(C, odd, E, 1 << (VAR_W - 2));
  ed_neutral(C, acc);
  int nb = gostx__sc_wnaf(db, b, n, VAR_W), na = tab ? gostx__sc_wnaf(da, a, n, G_W) : 0;
  int pending = 0; /* doublings owed: T only before an addition */
#ifdef GX_LANE_ED_MUL2
  if (LANES_FIT(C)) {
    GX_LANE_ED_MUL2(C->fp.c, n, acc->X, acc->Y, acc->Z, acc->T, odd, 1 << (VAR_W - 2),
                              db, nb, tab, tab ? 1 << (G_W - 2) : 0, da, na);
    na = nb = 0; /* nothing left for the loop below */
  }
#endif
  for (int i = (na > nb ? na : nb) - 1; i >= 0; i--) {
    int d = i < nb ? db[i] : 0, g = i < na ? da[i] : 0;
    pending++;
    if (!d && !g) continue;
    while (pending--) ed_dbl(C, acc, acc, pending == 0);
    pending = 0;
    if (d) {
      memcpy(e, odd + (size_t)((d < 0 ? -d : d) >> 1) * 4 * (size_t)n, (size_t)n * 32);
      if (d < 0) neg_if(C, e, e + 3 * n, ~(uint64_t)0);
      ed_add(C, acc, acc, e, e + n, e + 2 * n, e + 3 * n, g != 0); /* T for a G's add */
    }
    if (g) {
      memcpy(e, tab + (size_t)((g < 0 ? -g : g) >> 1) * 3 * (size_t)n, (size_t)n * 24);
      if (g < 0) neg_if(C, e, e + 2 * n, ~(uint64_t)0);
      ed_add(C, acc, acc, e, e + n, NULL, e + 2 * n, 0);
    }
  }
  while (pending-- > 0) ed_dbl(C, acc, acc, 0);
}

static void ed_mul2_vartime(const gx_curve *C, gx_point *r, const uint64_t *a, const uint64_t *b,
                        const gx_point *P) {
  ed_point E, acc;
  const uint64_t *tab = gostx__sc_table(C, GX_TABLE_EDWARDS, ed_build_table); /* NULL: no memory; a G apart below */
  ed_from_weier(C, &E, P);
  ed_mul2_core(C, &acc, a, b, &E, tab);
  if (!tab) {
    gx_point A, G, B;
    gostx__ec_point_generator(C, &G);
    ed_mul(C, &A, a, &G);
    ed_to_weier(C, &B, &acc);
    point_add(C, r, &A, &B);
    return;
  }
  ed_to_weier(C, r, &acc);
}

/* q P = O, decided in Edwards coordinates, where the addition law is
 * complete for every point (small orders included). The one rational point
 * with no image there is (t, 0) of order 2 (y = 0), refused first; x = t - s
 * would be an Edwards point at infinity, which d not being a square rules
 * out (refused all the same should the map give Z = 0). The neutral is
 * (0 : Z : Z); (0 : -Z : Z) is the point of order 2, so both X and Y are
 * compared (ed_to_weier would take either for infinity). */
static int ed_in_subgroup_vartime(const gx_curve *C, const gx_point *P) {
  const gx_mont *M = &C->fp;
  ed_point E, acc;
  if (gostx__fe_is_zero(P->Y, C->n) || gostx__fe_is_zero(P->Z, C->n)) return 0;
  ed_from_weier(C, &E, P);
  if (gostx__fe_is_zero(E.Z, C->n)) return 0;
  ed_mul2_core(C, &acc, NULL, C->q, &E, NULL);
  gx_fe d;
  fe_sub(M, d, acc.Y, acc.Z);
  return gostx__fe_is_zero(acc.X, C->n) && gostx__fe_is_zero(d, C->n) && !gostx__fe_is_zero(acc.Z, C->n);
}
