/* k P on the twisted Edwards sets (mul_edwards.h's ed_mul: the same
 * signed 5-bit windows, the same 3M + 4S doubling and 9M addition; also
 * ed_mul_base's k G and ed_mul2_vartime's a G + b P loops) with
 * AVX-512 IFMA, for p = 2^256 - c or 2^512 - c (c < 2^14: 256 paramSetA,
 * 512 paramSetC). On Intel cores the MULX field is bound by its carries:
 * ADC, ADCX, ADOX and CMOV issue on two ports, and a 256-bit doubling's 4
 * squarings, 3 products and 6 additions are ~340 of them (docs/GOST3410.md). Here a formula's independent products run
 * side by side instead, one field element per 64-bit lane of a ymm register:
 *
 *   point          lanes [X, Y, T, Z], limb j of each in register j
 *   doubling       [X, Y, Z, X] * [X, Y, Z, Y] = [X^2, Y^2, Z^2, X Y], then
 *                  [G, H, E, F] = [X^2 + Y^2, X^2 - Y^2, 2 X Y, G - 2 Z^2]
 *   addition       [X, Y, T, Z] * [X2, Y2, d T2, Z2] = [A, B, C, D] and
 *                  [X, Y, ., .] * [Y2, X2, ., .]: [G, H, E, F] = [D + C,
 *                  B - A, X Y2 + Y X2, D - C]
 *   both then      [E, G, E, F] * [F, H, H, G] = [X3, Y3, T3, Z3]
 *
 * The lane arithmetic (52-bit limbs, the products, the carries, the
 * conversions) is field_ifma.h's.
 * Everything is lane arithmetic, permutes, multiplies and masks: no branch
 * and no memory index on the scalar or the point. lib/dispatch.c's
 * "avx512ifma" row (mul_avx512ifma.c) decides whether this
 * runs; mul_edwards.h's scalar loops stay the reference. */
#include "gost3410/ec.h"
#include "gost3410/field_ifma.h"

#ifdef GOSTX_HAVE_AVX512_CODE
/* [G, H, E, F] (limbs below 2^62) to p = [E F, G H, E H, F G]. */
IFMA void finish(fe4 *p, fe4 *v, int nl, int n, uint64_t c) {
  fe4 a, b;
  norm(v->l, nl, n, c);
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_permute4x64_epi64(v->l[j], 0xE2); /* [E, G, E, F]: lanes 2, 0, 2, 3 */
    b.l[j] = _mm256_permute4x64_epi64(v->l[j], 0x17); /* [F, H, H, G]: lanes 3, 1, 1, 0 */
  }
  mul(p, &a, &b, nl, n, c, 1);
}

/* p = 2 p, lanes [X, Y, T, Z] in and out (limbs below 2^52). */
IFMA void dbl(fe4 *p, int nl, int n, uint64_t c) {
  fe4 a, b, s, v;
  UNROLL for (int j = 0; j < nl; j++) {
    a.l[j] = _mm256_permute4x64_epi64(p->l[j], 0x34); /* lanes 0, 1, 3, 0 */
    b.l[j] = _mm256_permute4x64_epi64(p->l[j], 0x74); /* lanes 0, 1, 3, 1 */
  }
  mul(&s, &a, &b, nl, n, c, 0); /* [A, B, Z2, XY] = [X^2, Y^2, Z^2, X Y] */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i m32 = p32(j, nl, n, c), m64 = _mm256_add_epi64(m32, m32);
    const __m256i sw = _mm256_shuffle_epi32(s.l[j], 0x4E);                  /* [B, A, XY, Z2] */
    const __m256i g = _mm256_add_epi64(s.l[j], sw);                        /* lane 0: A + B */
    const __m256i h = _mm256_sub_epi64(_mm256_add_epi64(sw, m32), s.l[j]); /* lane 1: A - B */
    const __m256i e = _mm256_add_epi64(sw, sw); /* lane 2: 2 XY; lane 3: 2 Z2 */
    const __m256i f = _mm256_sub_epi64(_mm256_add_epi64(_mm256_permute4x64_epi64(g, 0), m64), e);
    v.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(g, h, 0x0C), _mm256_blend_epi32(e, f, 0xC0),
                                0xF0); /* [G, H, E, F] */
  }
  finish(p, &v, nl, n, c);
}

/* p = p + q, q cached as lanes [X2, Y2, d T2, Z2] (limbs below 2^52). */
IFMA void add(fe4 *p, const fe4 *q, int nl, int n, uint64_t c) {
  fe4 qs, s1, s2, v;
  UNROLL for (int j = 0; j < nl; j++) qs.l[j] = _mm256_shuffle_epi32(q->l[j], 0x4E); /* [Y2, X2, Z2, dT2] */
  mul(&s1, p, q, nl, n, c, 0);   /* [A, B, C, D] = [X X2, Y Y2, T d T2, Z Z2] */
  mul(&s2, p, &qs, nl, n, c, 0); /* [X Y2, Y X2, ., .] */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i sw1 = _mm256_shuffle_epi32(s1.l[j], 0x4E); /* [B, A, D, C] */
    const __m256i e = _mm256_add_epi64(s2.l[j], _mm256_shuffle_epi32(s2.l[j], 0x4E)); /* lane 0: E */
    const __m256i g = _mm256_add_epi64(s1.l[j], sw1);                                /* lane 2: C + D */
    const __m256i hf = _mm256_sub_epi64(_mm256_add_epi64(s1.l[j], p32(j, nl, n, c)), sw1); /* lanes 1, 3: B - A, D - C */
    const __m256i eg = _mm256_permute4x64_epi64(_mm256_blend_epi32(e, g, 0xF0), 0x02); /* [G, ., E, .] */
    v.l[j] = _mm256_blend_epi32(eg, hf, 0xCC); /* [G, H, E, F] */
  }
  finish(p, &v, nl, n, c);
}

/* r = q negated where negm (lanes 0 and 2, or none) is set: -(X2, Y2, d T2,
 * Z2) = (-X2, Y2, -d T2, Z2), those lanes taken from p32 - q; carried below
 * 2^52 either way. */
IFMA void neg_lanes(fe4 *r, const fe4 *q, __m256i negm, int nl, int n, uint64_t c) {
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i v = _mm256_sub_epi64(p32(j, nl, n, c), q->l[j]);
    r->l[j] = _mm256_or_si256(_mm256_and_si256(negm, v), _mm256_andnot_si256(negm, q->l[j]));
  }
  norm(r->l, nl, n, c);
}

/* r = the table's entry |d| / 2 (every entry read, kept under a mask),
 * negated when d < 0. */
IFMA void select_entry(fe4 *r, const fe4 *tab, int entries, int d, int nl, int n, uint64_t c) {
  const uint64_t neg = 0 - ((uint64_t)(int64_t)d >> 63), ad = ((uint64_t)d ^ neg) - neg;
  const __m256i want = bcast(ad >> 1), lanes02 = _mm256_set_epi64x(0, -1, 0, -1);
  const __m256i negm = _mm256_and_si256(bcast(neg), lanes02);
  fe4 s;
  UNROLL for (int j = 0; j < nl; j++) s.l[j] = _mm256_setzero_si256();
  for (int e = 0; e < entries; e++) {
    const __m256i hit = _mm256_cmpeq_epi64(bcast((uint64_t)e), want);
    UNROLL for (int j = 0; j < nl; j++) s.l[j] = _mm256_or_si256(s.l[j], _mm256_and_si256(tab[e].l[j], hit));
  }
  neg_lanes(r, &s, negm, nl, n, c);
}

/* The whole k P for one size (gostx__ec_ed_mul_ifma's two instances). */
IFMA void mul_windows(uint64_t c, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                      const uint64_t *tab, int entries, const int8_t *dig, int nd, int nl, int n) {
  fe4 vt[GX_ED_IFMA_ENTRIES], acc, sel;
  for (int e = 0; e < entries; e++) { /* (X2, Y2, Z2, d T2), n limbs each */
    const uint64_t *q = tab + 4 * n * e;
    load4(&vt[e], q, q + n, q + 3 * n, q + 2 * n, nl, n);
  }
  UNROLL for (int j = 0; j < nl; j++) acc.l[j] = _mm256_setzero_si256();
  acc.l[0] = _mm256_set_epi64x(1, 0, 1, 0); /* the neutral (0 : 1 : 0 : 1) */
  for (int i = nd - 1; i >= 0; i--) {
    if (i < nd - 1)
      for (int s = 0; s < GX_ED_W; s++) dbl(&acc, nl, n, c);
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_ED_IFMA, (const uint8_t *)&dig[i], 1);
    select_entry(&sel, vt, entries, dig[i], nl, n, c);
    add(&acc, &sel, nl, n, c);
  }
  store4(&acc, x, y, t, z, nl, n, c);
  gostx_memzero(vt, sizeof vt);
  gostx_memzero(&acc, sizeof acc);
  gostx_memzero(&sel, sizeof sel);
}

/* r = entry |d| / 2 of a G-table row (GX_ED_IFMA_G affine entries (u, v,
 * d u v), 3 n words each, as every row keeps them): every entry read as
 * words under a mask, the one kept then cut into lanes, negated when d <
 * 0 (lanes 0 and 2), as [u, v, d u v, u + v] for add_affine. Cutting one
 * entry per digit costs less than scanning a table kept in lanes (nl
 * registers an entry against 3 n / 4: 5 against 3, 10 against 6). */
IFMA void select_affine(fe4 *r, const uint64_t *row, int d, int nl, int n, uint64_t c) {
  const uint64_t neg = 0 - ((uint64_t)(int64_t)d >> 63), ad = ((uint64_t)d ^ neg) - neg;
  const __m256i want = bcast(ad >> 1), lanes02 = _mm256_set_epi64x(0, -1, 0, -1);
  const __m256i negm = _mm256_and_si256(bcast(neg), lanes02), zero = _mm256_setzero_si256();
  const int q4 = n / 4; /* registers per coordinate */
  __m256i s[6], w[8];
  fe4 sel;
  UNROLL for (int j = 0; j < 3 * q4; j++) s[j] = zero;
  for (int e = 0; e < GX_ED_IFMA_G; e++) {
    const __m256i hit = _mm256_cmpeq_epi64(bcast((uint64_t)e), want);
    const uint64_t *src = row + (size_t)(3 * n * e);
    UNROLL for (int j = 0; j < 3 * q4; j++)
      s[j] = _mm256_or_si256(s[j], _mm256_and_si256(hit, _mm256_loadu_si256((const __m256i *)(const void *)(src + 4 * j))));
  }
  UNROLL for (int q = 0; q < q4; q++) transpose_regs(w + 4 * q, s[q], s[q4 + q], s[2 * q4 + q], zero);
  cut52(&sel, w, nl, n);
  UNROLL for (int j = 0; j < nl; j++) { /* neg_lanes' sign, and lane 3 = lane 0 + v */
    const __m256i q = sel.l[j], v = _mm256_sub_epi64(p32(j, nl, n, c), q);
    const __m256i x = _mm256_or_si256(_mm256_and_si256(negm, v), _mm256_andnot_si256(negm, q));
    const __m256i uv = _mm256_add_epi64(_mm256_permute4x64_epi64(x, 0x00), _mm256_permute4x64_epi64(q, 0x55));
    r->l[j] = _mm256_blend_epi32(x, uv, 0xC0);
  }
  norm(r->l, nl, n, c);
}

/* p = p + q for q affine as lanes [u, v, d u v, u + v] (limbs below 2^52):
 * one product [X, Y, T, X + Y] * q = [A, B, C, S] where add's first is [A,
 * B, C, Z] (Z2 = 1) and its second [X v, Y u]: then [G, H, E, F] = [Z + C,
 * B - A, S - A - B, Z - C], and the same closing product. 2 products a
 * digit against add's 3. */
IFMA void add_affine(fe4 *p, const fe4 *q, int nl, int n, uint64_t c) {
  fe4 pa, s, v;
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i xy = _mm256_add_epi64(_mm256_permute4x64_epi64(p->l[j], 0x00),
                                        _mm256_permute4x64_epi64(p->l[j], 0x55));
    pa.l[j] = _mm256_blend_epi32(p->l[j], xy, 0xC0); /* [X, Y, T, X + Y] */
  }
  norm(pa.l, nl, n, c);
  mul(&s, &pa, q, nl, n, c, 0); /* [A, B, C, S], limbs below 2^56.4 */
  UNROLL for (int j = 0; j < nl; j++) {
    const __m256i m32 = p32(j, nl, n, c), m64 = _mm256_add_epi64(m32, m32);
    const __m256i z = _mm256_permute4x64_epi64(p->l[j], 0xFF);
    const __m256i a = _mm256_permute4x64_epi64(s.l[j], 0x00), b = _mm256_permute4x64_epi64(s.l[j], 0x55);
    const __m256i cc = _mm256_permute4x64_epi64(s.l[j], 0xAA), sum = _mm256_permute4x64_epi64(s.l[j], 0xFF);
    const __m256i g = _mm256_add_epi64(z, cc);                                       /* lane 0 */
    const __m256i h = _mm256_sub_epi64(_mm256_add_epi64(b, m32), a);                 /* lane 1 */
    const __m256i e = _mm256_sub_epi64(_mm256_add_epi64(sum, m64), _mm256_add_epi64(a, b)); /* lane 2 */
    const __m256i f = _mm256_sub_epi64(_mm256_add_epi64(z, m32), cc);                /* lane 3 */
    v.l[j] = _mm256_blend_epi32(_mm256_blend_epi32(g, h, 0x0C), _mm256_blend_epi32(e, f, 0xC0), 0xF0);
  }
  finish(p, &v, nl, n, c);
}

/* The whole k G for one size (gostx__ec_ed_mul_base_ifma's two instances):
 * row i's entry for digit i added, no doublings. */
IFMA void mul_rows(uint64_t c, uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t,
                   const uint64_t *tab, const int8_t *dig, int nd, int nl, int n) {
  fe4 acc, sel;
  UNROLL for (int j = 0; j < nl; j++) acc.l[j] = _mm256_setzero_si256();
  acc.l[0] = _mm256_set_epi64x(1, 0, 1, 0); /* the neutral (0 : 1 : 0 : 1) */
  for (int i = 0; i < nd; i++) {
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410_ED_IFMA_BASE, (const uint8_t *)&dig[i], 1);
    select_affine(&sel, tab + (size_t)i * GX_ED_IFMA_G * 3 * (size_t)n, dig[i], nl, n, c);
    add_affine(&acc, &sel, nl, n, c);
  }
  store4(&acc, x, y, t, z, nl, n, c);
  gostx_memzero(&acc, sizeof acc);
  gostx_memzero(&sel, sizeof sel);
}

/* a G + b P for public a, b (gostx__ec_ed_mul2_ifma_vartime's two instances):
 * mul_edwards.h's ed_mul2_vartime interleaved NAFs, whose digits may be branched on
 * and used as indexes. */
IFMA void mul2_naf(uint64_t *x, uint64_t *y, uint64_t *z, uint64_t *t, const uint64_t *odd,
                   int nodd, const int8_t *db, int nb, const uint64_t *gtab, int ng,
                   const int8_t *da, int na, int nl, int n, uint64_t c) {
  fe4 vp[GX_ED_IFMA_ODD], vg[GX_ED_IFMA_G], acc, e;
  uint64_t one[8] = {1};
  const __m256i negm = _mm256_set_epi64x(0, -1, 0, -1);
  for (int i = 0; i < nodd; i++) { /* (X, Y, Z, d T) */
    const uint64_t *q = odd + 4 * n * i;
    load4(&vp[i], q, q + n, q + 3 * n, q + 2 * n, nl, n);
  }
  for (int i = 0; i < ng; i++) { /* affine (u, v, d u v): Z = 1 */
    const uint64_t *q = gtab + 3 * n * i;
    load4(&vg[i], q, q + n, q + 2 * n, one, nl, n);
  }
  UNROLL for (int j = 0; j < nl; j++) acc.l[j] = _mm256_setzero_si256();
  acc.l[0] = _mm256_set_epi64x(1, 0, 1, 0);
  int pending = 0;
  for (int i = (na > nb ? na : nb) - 1; i >= 0; i--) {
    const int d = i < nb ? db[i] : 0, g = i < na ? da[i] : 0;
    pending++;
    if (!d && !g) continue;
    while (pending--) dbl(&acc, nl, n, c);
    pending = 0;
    if (d) {
      neg_lanes(&e, &vp[(d < 0 ? -d : d) >> 1], d < 0 ? negm : _mm256_setzero_si256(), nl, n, c);
      add(&acc, &e, nl, n, c);
    }
    if (g) {
      neg_lanes(&e, &vg[(g < 0 ? -g : g) >> 1], g < 0 ? negm : _mm256_setzero_si256(), nl, n, c);
      add(&acc, &e, nl, n, c);
    }
  }
  while (pending-- > 0) dbl(&acc, nl, n, c);
  store4(&acc, x, y, t, z, nl, n, c);
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_ed_mul2_ifma_vartime(uint64_t c, int n, uint64_t *x, uint64_t *y,
                                                     uint64_t *z, uint64_t *t, const uint64_t *odd,
                                                     int nodd, const int8_t *db, int nb,
                                                     const uint64_t *gtab, int ng,
                                                     const int8_t *da, int na) {
  if (n == 4)
    mul2_naf(x, y, z, t, odd, nodd, db, nb, gtab, ng, da, na, 5, 4, c);
  else
    mul2_naf(x, y, z, t, odd, nodd, db, nb, gtab, ng, da, na, 10, 8, c);
  _mm256_zeroupper(); /* as below */
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_ed_mul_base_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y,
                                                 uint64_t *z, uint64_t *t, const uint64_t *tab,
                                                 const int8_t *dig, int nd) {
  if (n == 4)
    mul_rows(c, x, y, z, t, tab, dig, nd, 5, 4);
  else
    mul_rows(c, x, y, z, t, tab, dig, nd, 10, 8);
  _mm256_zeroupper(); /* as below */
}

GOSTX_TARGET_AVX512IFMA void gostx__ec_ed_mul_ifma(uint64_t c, int n, uint64_t *x, uint64_t *y,
                                            uint64_t *z, uint64_t *t, const uint64_t *tab,
                                            int entries, const int8_t *dig, int nd) {
  if (n == 4)
    mul_windows(c, x, y, z, t, tab, entries, dig, nd, 5, 4);
  else
    mul_windows(c, x, y, z, t, tab, entries, dig, nd, 10, 8);
  /* GCC emits no VZEROUPPER on the way out of this function, and with the
   * upper halves left dirty every SSE instruction of the caller is slowed. */
  _mm256_zeroupper();
}
#endif
