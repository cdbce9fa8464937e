/* Constant-time Streebog compression on 256-bit vectors, for x86 SIMD
 * levels without AVX-512 VBMI/GFNI. Included by streebog_avx2.c (one ymm per
 * vector) and streebog_ssse3.c (two xmm per vector), which define SB_ATTR,
 * the type V and the v_* operations below, all lane-local per 128-bit half
 * except v_lolo, v_hihi and v_swap (free for a pair of xmm). No load address
 * and no branch depends on the data: pi and L are vpshufb lookups in 16-byte
 * tables held in registers, indexed by nibbles (docs/STREEBOG.md,
 * "Constant-time SSSE3 / AVX2 compression").
 *
 * The two LPS of a round (data: A = K ^ state, key: B = K ^ C) share every
 * instruction. Word layout: vector X_k (k = 0..3) holds the 64-bit words
 * [A_k, B_k | A_k+4, B_k+4]. Read bytewise, X_k is then also the byte-sliced
 * form of P(x): its low half is byte k of the 16 words of P(A), P(B) and its
 * high half byte k + 4, so S is applied in place and P costs nothing. L
 * works on that sliced form (the same 16-entry tables for every word in a
 * half) and its result is transposed back to the word layout, where the
 * round key and constant are XORed in. Every value is kept alpha-mapped
 * (the linear first step of pi's decomposition, streebog_ct_tables.c),
 * which the XORs commute with: mapped on the way in, back on the way out. */

/* SB_OPAQUE(t) (from the ISA file, or nothing) hides the table pointer from
 * the optimizer in each round: with it GCC stops hoisting every table load
 * out of the round loop into a stack copy of the tables. */
#ifndef SB_OPAQUE
#define SB_OPAQUE(p) ((void)0)
#endif

/* Word-layout vectors of a round's output: A and B words 0, 1, 4, 5 (a01,
 * b01) and 2, 3, 6, 7 (a23, b23). */
struct sb_out {
  V a01, a23, b01, b23;
};

/* A bytewise linear map given by its nibble tables m (both halves). */
static inline SB_ATTR V sb_bytemap(const uint8_t m[2][32], V x) {
  const V m0f = v_set1(0x0f);
  return v_xor(v_shuf(v_load(m[0]), v_and(x, m0f)), v_shuf(v_load(m[1]), v_and(v_srl4(x), m0f)));
}

/* pi on every byte of alpha^-1(a), through its decomposition
 * (streebog_ct_tables.c): the nibbles l' ^ nu1(0) into *left and
 * r' ^ sigma(0) into *right, which L's tables take as they are. 19
 * operations, 7 of them vpshufb. */
static inline SB_ATTR void sb_s(const struct gostx__sb_ct_tables *t, V a, V *left, V *right) {
  const V m0f = v_set1(0x0f), m15 = v_set1(15);
  const V r = v_and(a, m0f), l = v_and(v_srl4(a), m0f);
  /* l * r^-1: exp(log l - log r), the sum reduced mod 15 by a minimum */
  V e = v_add(v_shuf(v_load(t->log), l), v_shuf(v_load(t->nlog), r));
  e = v_min(e, v_sub(e, m15));
  /* nu1 of it (0 where r = 0: log 0 is past bit 7), or nu0(l) where r = 0 */
  const V l2 = v_or(v_shuf(v_load(t->nu1exp), e), v_and(v_cmpeq(r, v_set1(0)), v_shuf(v_load(t->nu0), l)));
  V f = v_add(v_shuf(v_load(t->logphi), l2), v_shuf(v_load(t->log), r));
  f = v_min(f, v_sub(f, m15));
  *left = l2;
  *right = v_shuf(v_load(t->sigmaexp), f);
}

/* LPS of A and B, x in word layout, result in o, all alpha-mapped. */
static inline SB_ATTR void sb_lps2(const struct gostx__sb_ct_tables *t, V x[4], struct sb_out *o) {
  V l[4], lf[4], rt[4];
  for (int k = 0; k < 4; k++) sb_s(t, x[k], &lf[k], &rt[k]);
  /* l[b] = bytes b | b + 4 of the 16 output words, sliced. */
  for (int k = 0; k < 4; k++) {
    const V lo = rt[k], hi = lf[k];
    const V los = v_swap(lo), his = v_swap(hi);
    for (int b = 0; b < 4; b++) {
      const V p = v_xor(v_xor(v_shuf(v_load(t->l[k][b][0]), lo), v_shuf(v_load(t->l[k][b][1]), hi)),
                        v_xor(v_shuf(v_load(t->l[k][b][2]), los), v_shuf(v_load(t->l[k][b][3]), his)));
      l[b] = k ? v_xor(l[b], p) : p;
    }
  }
  /* Back to words. Byte j of l[b]'s low half is byte b of A's word j (B's
   * word j - 8 from j = 8), its high half byte b + 4. */
  const V a01 = v_unpacklo8(l[0], l[1]), b01 = v_unpackhi8(l[0], l[1]);
  const V a23 = v_unpacklo8(l[2], l[3]), b23 = v_unpackhi8(l[2], l[3]);
  /* 4-byte groups: bytes 0-3 | 4-7 of words 0-3 (lo) and 4-7 (hi) */
  const V alo = v_unpacklo16(a01, a23), ahi = v_unpackhi16(a01, a23);
  const V blo = v_unpacklo16(b01, b23), bhi = v_unpackhi16(b01, b23);
  const V al = v_lolo(alo, ahi), ah = v_hihi(alo, ahi);
  const V bl = v_lolo(blo, bhi), bh = v_hihi(blo, bhi);
  o->a01 = v_unpacklo32(al, ah);
  o->a23 = v_unpackhi32(al, ah);
  o->b01 = v_unpacklo32(bl, bh);
  o->b23 = v_unpackhi32(bl, bh);
}

/* [A_k, B_k | A_k+4, B_k+4] from the output layout. */
static inline SB_ATTR void sb_words(V x[4], const struct sb_out *o) {
  x[0] = v_unpacklo64(o->a01, o->b01);
  x[1] = v_unpackhi64(o->a01, o->b01);
  x[2] = v_unpacklo64(o->a23, o->b23);
  x[3] = v_unpackhi64(o->a23, o->b23);
}

/* h = E(LPS(h ^ N), m) ^ h ^ m, E computed on alpha-mapped values. */
static inline SB_ATTR void sb_compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  const struct gostx__sb_ct_tables *t = gostx__sb_ct_tables();
  struct sb_out o;
  V x[4];
  /* K_1 = LPS(h ^ N), computed in both halves. */
  const V hn01 = sb_bytemap(t->alpha, v_xor(v_load2(h, h + 32), v_load2(n, n + 32)));
  const V hn23 = sb_bytemap(t->alpha, v_xor(v_load2(h + 16, h + 48), v_load2(n + 16, n + 48)));
  o.a01 = o.b01 = hn01;
  o.a23 = o.b23 = hn23;
  sb_words(x, &o);
  sb_lps2(t, x, &o);
  /* state_0 = m: A = K_1 ^ m */
  o.a01 = v_xor(o.b01, sb_bytemap(t->alpha, v_load2(m, m + 32)));
  o.a23 = v_xor(o.b23, sb_bytemap(t->alpha, v_load2(m + 16, m + 48)));
  for (int r = 0; r < 12; r++) {
    SB_OPAQUE(t);
    o.b01 = v_xor(o.b01, v_load(t->c[r][0])); /* B = K ^ C */
    o.b23 = v_xor(o.b23, v_load(t->c[r][1]));
    sb_words(x, &o);
    sb_lps2(t, x, &o);
    o.a01 = v_xor(o.a01, o.b01); /* A = K ^ state; after round 12, E(K, m) */
    o.a23 = v_xor(o.a23, o.b23);
    if (r == 5) GOSTX_CT_PLANT(GOSTX_PLANT_STREEBOG, &o.a01, sizeof o.a01);
  }
  const V r01 = v_xor(sb_bytemap(t->alphainv, o.a01), v_xor(v_load2(h, h + 32), v_load2(m, m + 32)));
  const V r23 = v_xor(sb_bytemap(t->alphainv, o.a23), v_xor(v_load2(h + 16, h + 48), v_load2(m + 16, m + 48)));
  v_store2(h, h + 32, r01);
  v_store2(h + 16, h + 48, r23);
}
