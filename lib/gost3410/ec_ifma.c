/* The Weierstrass steps on AVX-512 IFMA: the complete addition below, and
 * runs of Jacobian doublings (dbl_n, jac_dbl_n, further down).
 *
 * The complete projective addition of mul_weier.h (point_add: Renes, Costello,
 * Batina 2016, algorithm 4, a = -3) on AVX-512 IFMA, for p = 2^256 - c or
 * 2^512 - c (c < 2^14): 256 paramSetB and 512 paramSetA, and the Edwards
 * sets' Weierstrass steps. Its twelve products and the two by 3 b come in
 * three rounds of independent ones, each round one, two or three
 * lane-parallel products (field_ifma.h: four field elements per ymm lane
 * set):
 *
 *   round 1   t0 = X1 X2, t1 = Y1 Y2, t2 = Z1 Z2, and the six cross
 *             products of t3 = X1 Y2 + Y1 X2, t4 = X1 Z2 + Z1 X2,
 *             t5 = Y1 Z2 + Z1 Y2
 *   round 2   3b t2, 3b t4
 *   round 3   the six products of X3, Y3 and Z3
 *
 * with the same sums between them as ec.c's add_finish. The MULX field is
 * bound by its carries on Intel cores (ec_edwards_ifma.c); here an addition
 * is three product latencies instead of fourteen products in a row.
 * lib/dispatch.c's "avx512ifma" row (mul_avx512ifma.c) decides whether
 * this runs, called by its point_add; add_finish stays the
 * reference. */
#include "gost3410/ec.h"
#include "gost3410/field_ifma.h"

#ifdef GOSTX_HAVE_AVX512_CODE

/* r = lane `lane` of a in every lane (imm: 0x00, 0x55, 0xAA, 0xFF). */
#define BCAST_LANE(r, a, imm, nl) \
  UNROLL for (int j_ = 0; j_ < (nl); j_++) (r).l[j_] = _mm256_permute4x64_epi64((a).l[j_], (imm))

/* r = x + y + z lane by lane, limbs below 2^62 in, no carry: a caller's
 * sum of small multiples, then norm. */
IFMA __m256i add3(__m256i x, __m256i y, __m256i z) { return _mm256_add_epi64(_mm256_add_epi64(x, y), z); }

IFMA void point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q, int nl,
                    int n) {
  const uint64_t c = C->fp.c;
  uint64_t dummy[8];
  fe4 p, q, a, b, u1, u2, u3, t, w, b3, v, l1, r1, l2, r2;
  fe4 t0, t1, t2, t3, t4, t5, bt2, bt4;
  load4(&p, P->X, P->Y, P->Z, P->X, nl, n); /* [X1, Y1, Z1, X1] */
  load4(&q, Q->X, Q->Y, Q->Z, Q->Y, nl, n); /* [X2, Y2, Z2, Y2] */
  load4(&b3, C->b3, C->b3, C->b3, C->b3, nl, n);
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_permute4x64_epi64(p.l[j], 0xA1); /* [Y1, X1, Z1, Z1]: lanes 1, 0, 2, 2 */
    b.l[j] = _mm256_permute4x64_epi64(q.l[j], 0x18); /* [X2, Z2, Y2, X2]: lanes 0, 2, 1, 0 */
  }
  mul(&u1, &p, &q, nl, n, c, 0); /* [t0, t1, t2, X1 Y2] */
  mul(&u2, &a, &b, nl, n, c, 0); /* [Y1 X2, X1 Z2, Z1 Y2, Z1 X2] */
  BCAST_LANE(a, p, 0x55, nl); /* Y1 */
  BCAST_LANE(b, q, 0xAA, nl); /* Z2 */
  mul(&u3, &a, &b, nl, n, c, 0); /* Y1 Z2 in every lane */
  /* t = [t0, t1, t2, t3], w = [., t4, t5, .] (lanes 0 and 3 of w unused) */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i y1x2 = _mm256_permute4x64_epi64(u2.l[j], 0x00);
    t.l[j] = _mm256_add_epi64(u1.l[j], _mm256_blend_epi32(_mm256_setzero_si256(), y1x2, 0xC0));
    const __m256i z1x2 = _mm256_permute4x64_epi64(u2.l[j], 0xFF);   /* lane 1: + Z1 X2 */
    w.l[j] = _mm256_add_epi64(u2.l[j], _mm256_blend_epi32(z1x2, u3.l[j], 0x30)); /* lane 2: + Y1 Z2 */
  }
  norm(t.l, nl, n, c);
  norm(w.l, nl, n, c);
  BCAST_LANE(t0, t, 0x00, nl);
  BCAST_LANE(t1, t, 0x55, nl);
  BCAST_LANE(t2, t, 0xAA, nl);
  BCAST_LANE(t3, t, 0xFF, nl);
  BCAST_LANE(t4, w, 0x55, nl);
  BCAST_LANE(t5, w, 0xAA, nl);
  /* round 2: [3b t2, 3b t4, ., .] */
  UNROLL for (int j = 0; j < nl; j++) a.l[j] = _mm256_blend_epi32(t2.l[j], t4.l[j], 0x0C);
  mul(&v, &a, &b3, nl, n, c, 0);
  BCAST_LANE(bt2, v, 0x00, nl);
  BCAST_LANE(bt4, v, 0x55, nl);
  /* With Z = 3b t2 - 3 t4: X' = t1 - Z, Z' = t1 + Z, T1 = 3 t0 - 3 t2,
   * T4 = 3b t4 - 3 t0 - 9 t2 (add_finish's, a = -3); round 3:
   * [X', T1, t5, X'] * [Z', T4, T4, t3] = [Y3a, Y3b, X3b, X3a] and
   * [t3, t5, ., .] * [T1, Z', ., .] = [Z3b, Z3a]. */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i k = p32(j, nl, n, c);
    const __m256i t4x3 = add3(t4.l[j], t4.l[j], t4.l[j]), t2x3 = add3(t2.l[j], t2.l[j], t2.l[j]);
    const __m256i t0x3 = add3(t0.l[j], t0.l[j], t0.l[j]);
    const __m256i xp = _mm256_sub_epi64(add3(t1.l[j], t4x3, k), bt2.l[j]);
    const __m256i zp = _mm256_sub_epi64(add3(t1.l[j], bt2.l[j], k), t4x3);
    const __m256i tt1 = _mm256_sub_epi64(_mm256_add_epi64(t0x3, k), t2x3);
    const __m256i tt4 = _mm256_sub_epi64(
        _mm256_sub_epi64(add3(bt4.l[j], k, k), t0x3), add3(t2x3, t2x3, t2x3));
    /* l1 = [X', T1, t5, X'], r1 = [Z', T4, T4, t3], l2 = [t3, t5, ., .], r2 = [T1, Z', ., .] */
    l1.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(xp, tt1, 0x0C), t5.l[j], 0x30);
    r1.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(zp, tt4, 0x3C), t3.l[j], 0xC0);
    l2.l[j] = _mm256_blend_epi32(t3.l[j], t5.l[j], 0x0C);
    r2.l[j] = _mm256_blend_epi32(tt1, zp, 0x0C);
  }
  norm(l1.l, nl, n, c);
  norm(r1.l, nl, n, c);
  norm(l2.l, nl, n, c);
  norm(r2.l, nl, n, c);
  mul(&u1, &l1, &r1, nl, n, c, 0); /* [X' Z', T1 T4, t5 T4, X' t3] */
  mul(&u2, &l2, &r2, nl, n, c, 0); /* [t3 T1, t5 Z', ., .] */
  /* [X3, Y3, Z3, .] = [X' t3 - t5 T4, X' Z' + T1 T4, t5 Z' + t3 T1, .] */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i x = _mm256_sub_epi64(
        _mm256_add_epi64(_mm256_permute4x64_epi64(u1.l[j], 0x03), p32(j, nl, n, c)),
        _mm256_permute4x64_epi64(u1.l[j], 0x02)); /* lane 0 */
    const __m256i y = _mm256_add_epi64(u1.l[j], _mm256_permute4x64_epi64(u1.l[j], 0x00)); /* lane 1 */
    const __m256i z = _mm256_add_epi64(_mm256_permute4x64_epi64(u2.l[j], 0x10),
                                       _mm256_permute4x64_epi64(u2.l[j], 0x00)); /* lane 2 */
    t.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(x, y, 0x0C), z, 0x30);
  }
  norm(t.l, nl, n, c);
  store4(&t, r->X, r->Y, r->Z, dummy, nl, n, c);
  gostx_memzero(dummy, sizeof dummy);
}

/* _mm256_permute4x64_epi64's selector: lane k of the result is lane ik. */
#define LANES(i0, i1, i2, i3) ((i0) | (i1) << 2 | (i2) << 4 | (i3) << 6)
/* _mm256_blend_epi32's selectors of single 64-bit lanes */
#define L0 0x03
#define L1 0x0C
#define L2 0x30
#define L3 0xC0

/* Jacobian doublings (mul_weier.h's jac_dbl, a = -3: x = X/Z^2, y = Y/Z^3) in
 * lanes. The state is st = [X, Y, Z, Z^2] and mv = m = 3 (X - Z^2)(X + Z^2)
 * in every lane; a doubling is three rounds of products, the next
 * doubling's Z^2 and m among them:
 *
 *   round 1   [Y Y, Y Z, m m]          t1 = Y^2, Z3 = 2 Y Z, m^2
 *   round 2   [X t1, t1 t1, Z3 Z3]     s = 4 X t1, u = t1^2, Z3^2;
 *                                      X3 = m^2 - 2 s
 *   round 3   [m (s - X3), (X3 - Z3^2)(X3 + Z3^2)]
 *                                      Y3 = m (s - X3) - 8 u, the next m
 *
 * against eight products in a row for jac_dbl. Infinity (Z = 0) stays
 * Z = 0. */
IFMA void jac_run(fe4 *st, fe4 *mv, int count, int nl, int n, uint64_t c) {
  fe4 a, b, u, v, w, y, q;
  for (int i = 0; i < count; i++) {
    UNROLL for (int j = 0; j < nl; j++) {
      a.l[j] = _mm256_blend_epi32(_mm256_permute4x64_epi64(st->l[j], LANES(1, 1, 1, 1)), mv->l[j], L2);
      b.l[j] = _mm256_blend_epi32(_mm256_permute4x64_epi64(st->l[j], LANES(1, 2, 1, 1)), mv->l[j], L2);
    }
    mul(&u, &a, &b, nl, n, c, 0); /* [t1, Y Z, m^2, .] */
    UNROLL for (int j = 0; j < nl; j++)
      v.l[j] = _mm256_add_epi64(u.l[j], _mm256_blend_epi32(_mm256_setzero_si256(), u.l[j], L1));
    norm(v.l, nl, n, c); /* [t1, Z3, m^2, .] */
    UNROLL for (int j = 0; j < nl; j++) {
      b.l[j] = _mm256_permute4x64_epi64(v.l[j], LANES(0, 0, 1, 1));
      a.l[j] = _mm256_blend_epi32(b.l[j], st->l[j], L0);
    }
    mul(&w, &a, &b, nl, n, c, 1); /* [X t1, u, Z3^2, .] */
    /* [s - X3, X3 - Z3^2, X3 + Z3^2, X3] with s = 4 X t1, X3 = m^2 - 8 X t1 */
    UNROLL for (int j = 0; j < nl; j++) {
      const __m256i k = p32(j, nl, n, c);
      const __m256i x1 = _mm256_permute4x64_epi64(w.l[j], LANES(0, 0, 0, 0));
      const __m256i z2 = _mm256_permute4x64_epi64(w.l[j], LANES(2, 2, 2, 2));
      const __m256i mm = _mm256_permute4x64_epi64(v.l[j], LANES(2, 2, 2, 2));
      const __m256i x8 = _mm256_slli_epi64(x1, 3), x3 = _mm256_sub_epi64(_mm256_add_epi64(mm, k), x8);
      const __m256i e0 = _mm256_sub_epi64(add3(x8, _mm256_slli_epi64(x1, 2), k), mm);
      const __m256i e1 = _mm256_sub_epi64(x3, z2), e2 = _mm256_add_epi64(x3, z2);
      y.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(e0, e1, L1), _mm256_blend_epi32(e2, x3, L3),
                                  L2 | L3);
    }
    norm(y.l, nl, n, c);
    UNROLL for (int j = 0; j < nl; j++) {
      a.l[j] = _mm256_blend_epi32(mv->l[j], y.l[j], L1);                /* [m, X3 - Z3^2] */
      b.l[j] = _mm256_permute4x64_epi64(y.l[j], LANES(0, 2, 0, 0)); /* [s - X3, X3 + Z3^2] */
    }
    mul(&u, &a, &b, nl, n, c, 0); /* [m (s - X3), t3, ., .] */
    UNROLL for (int j = 0; j < nl; j++) {
      const __m256i u8 = _mm256_slli_epi64(_mm256_permute4x64_epi64(w.l[j], LANES(1, 1, 1, 1)), 3);
      q.l[j] = _mm256_blend_epi32(_mm256_sub_epi64(_mm256_add_epi64(u.l[j], p32(j, nl, n, c)), u8),
                                  add3(u.l[j], u.l[j], u.l[j]), L1);
    }
    norm(q.l, nl, n, c); /* [Y3, the next m, ., .] */
    UNROLL for (int j = 0; j < nl; j++) { /* [X3, Y3, Z3, Z3^2] */
      const __m256i xy = _mm256_blend_epi32(_mm256_permute4x64_epi64(y.l[j], LANES(3, 3, 3, 3)),
                                            _mm256_permute4x64_epi64(q.l[j], LANES(0, 0, 0, 0)), L1);
      const __m256i zz = _mm256_blend_epi32(_mm256_permute4x64_epi64(v.l[j], LANES(1, 1, 1, 1)),
                                            _mm256_permute4x64_epi64(w.l[j], LANES(2, 2, 2, 2)), L3);
      st->l[j] = _mm256_blend_epi32(xy, zz, L2 | L3);
      mv->l[j] = _mm256_permute4x64_epi64(q.l[j], LANES(1, 1, 1, 1));
    }
  }
}

/* One copy of the run per size, shared by both callers (their loops run
 * for counts of doublings: a call costs nothing there, and two inlined
 * copies doubled the file's compile time). */
GOSTX_TARGET_AVX512IFMA static __attribute__((noinline)) void jac_run5(fe4 *st, fe4 *mv, int count,
                                                                     uint64_t c) {
  jac_run(st, mv, count, 5, 4, c);
}

GOSTX_TARGET_AVX512IFMA static __attribute__((noinline)) void jac_run10(fe4 *st, fe4 *mv, int count,
                                                                      uint64_t c) {
  jac_run(st, mv, count, 10, 8, c);
}

/* st = [X, Y, Z, Z^2] and mv = m from p = [X, Y, Z, .] and zz = Z^2 in
 * every lane (limbs below 2^52): [X - zz, X + zz] carried, then one round
 * [(X - zz)(X + zz), Y zz], whose second lane is Y when y_times_zz (a
 * projective Y becomes Jacobian: Y Z^2). */
IFMA void jac_prep(fe4 *st, fe4 *mv, const fe4 *p, const fe4 *zz, int y_times_zz, int nl, int n,
                   uint64_t c) {
  fe4 a, b, v, w;
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i x = _mm256_permute4x64_epi64(p->l[j], LANES(0, 0, 0, 0));
    v.l[j] = _mm256_blend_epi32(_mm256_sub_epi64(_mm256_add_epi64(x, p32(j, nl, n, c)), zz->l[j]),
                                _mm256_add_epi64(x, zz->l[j]), L1); /* [X - zz, X + zz, ., .] */
  }
  norm(v.l, nl, n, c);
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_blend_epi32(v.l[j], p->l[j], L1);                                   /* [X - zz, Y] */
    b.l[j] = _mm256_blend_epi32(_mm256_permute4x64_epi64(v.l[j], LANES(1, 1, 1, 1)), zz->l[j], L1); /* [X + zz, zz] */
  }
  mul(&w, &a, &b, nl, n, c, 0);
  UNROLL for (int j = 0; j < nl; j++) w.l[j] = _mm256_blend_epi32(add3(w.l[j], w.l[j], w.l[j]), w.l[j], L1);
  norm(w.l, nl, n, c); /* [m, Y zz, ., .] */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i y = y_times_zz ? w.l[j] : p->l[j];
    st->l[j] = _mm256_blend_epi32(_mm256_blend_epi32(p->l[j], y, L1), zz->l[j], L3);
    mv->l[j] = _mm256_permute4x64_epi64(w.l[j], LANES(0, 0, 0, 0));
  }
}

/* count doublings of the Jacobian (X, Y, Z) in place: [Z Z], the
 * preparation, the run. */
IFMA void jac_dbl_n(const gx_curve *C, uint64_t *X, uint64_t *Y, uint64_t *Z, int count, int nl,
                    int n) {
  const uint64_t c = C->fp.c;
  uint64_t dummy[8];
  fe4 p, u, st, mv;
  load4(&p, X, Y, Z, Z, nl, n); /* [X, Y, Z, Z] */
  mul(&u, &p, &p, nl, n, c, 1);
  UNROLL for (int j = 0; j < nl; j++) u.l[j] = _mm256_permute4x64_epi64(u.l[j], LANES(2, 2, 2, 2));
  jac_prep(&st, &mv, &p, &u, 0, nl, n, c);
  if (nl == 5)
    jac_run5(&st, &mv, count, c);
  else
    jac_run10(&st, &mv, count, c);
  store4(&st, X, Y, Z, dummy, nl, n, c);
  gostx_memzero(dummy, sizeof dummy);
}

/* count doublings of the projective P: to Jacobian (X Z, Y Z^2, Z) by
 * [X Z, Z Z] and the preparation, the run, back to (X Z, Y, Z^3) by
 * [X Z, Z^2 Z]. */
IFMA void dbl_n(const gx_curve *C, gx_point *r, const gx_point *P, int count, int nl, int n) {
  const uint64_t c = C->fp.c;
  uint64_t dummy[8];
  fe4 p, a, b, u, zz, st, mv;
  load4(&p, P->X, P->Y, P->Z, P->Z, nl, n); /* [X, Y, Z, Z] */
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_permute4x64_epi64(p.l[j], LANES(0, 2, 2, 2)); /* [X, Z] */
    b.l[j] = _mm256_permute4x64_epi64(p.l[j], LANES(2, 2, 2, 2)); /* [Z, Z] */
  }
  mul(&u, &a, &b, nl, n, c, 1); /* [Xj, Z^2, ., .] */
  UNROLL for (int j = 0; j < nl; j++) {
    zz.l[j] = _mm256_permute4x64_epi64(u.l[j], LANES(1, 1, 1, 1));
    p.l[j] = _mm256_blend_epi32(u.l[j], p.l[j], L1 | L2); /* [Xj, Y, Z, .] */
  }
  jac_prep(&st, &mv, &p, &zz, 1, nl, n, c);
  if (nl == 5)
    jac_run5(&st, &mv, count, c);
  else
    jac_run10(&st, &mv, count, c);
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_permute4x64_epi64(st.l[j], LANES(0, 3, 0, 0)); /* [X, Z^2] */
    b.l[j] = _mm256_permute4x64_epi64(st.l[j], LANES(2, 2, 2, 2)); /* [Z, Z] */
  }
  mul(&u, &a, &b, nl, n, c, 1);
  UNROLL for (int j = 0; j < nl; j++) /* [X Z, Y, Z^3, .] */
    p.l[j] = _mm256_blend_epi32(_mm256_permute4x64_epi64(u.l[j], LANES(0, 0, 1, 1)), st.l[j], L1);
  store4(&p, r->X, r->Y, r->Z, dummy, nl, n, c);
  gostx_memzero(dummy, sizeof dummy);
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_point_dbl_n_ifma(const gx_curve *C, gx_point *r, const gx_point *P,
                                                 int count) {
  if (C->n == 4)
    dbl_n(C, r, P, count, 5, 4);
  else
    dbl_n(C, r, P, count, 10, 8);
  _mm256_zeroupper(); /* as in gostx__ec_point_add_ifma */
  gostx__fe_cmov(r->Y, C->fp.one, gostx__fe_is_zero(r->Z, C->n), C->n); /* infinity: (0 : 1 : 0) */
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_jac_dbl_n_ifma(const gx_curve *C, uint64_t *X, uint64_t *Y,
                                               uint64_t *Z, int count) {
  if (C->n == 4)
    jac_dbl_n(C, X, Y, Z, count, 5, 4);
  else
    jac_dbl_n(C, X, Y, Z, count, 10, 8);
  _mm256_zeroupper();
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_point_add_ifma(const gx_curve *C, gx_point *r, const gx_point *P,
                                               const gx_point *Q) {
  if (C->n == 4)
    point_add(C, r, P, Q, 5, 4);
  else
    point_add(C, r, P, Q, 10, 8);
  _mm256_zeroupper(); /* GCC leaves the upper halves dirty (ec_edwards_ifma.c) */
}
#endif
