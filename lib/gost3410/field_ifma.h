/* Four field elements at once, one per 64-bit lane of a ymm register, on
 * AVX-512 IFMA: for p = 2^256 - c or 2^512 - c (c < 2^14), an element is nl
 * = 5 or 10 limbs of 52 bits (VPMADD52LUQ/HUQ multiply the low 52 bits of
 * each lane and add the low or high 52 bits of the 104-bit product), limb j
 * of the four lanes in register j. Product inputs must have every limb
 * below 2^52 (IFMA reads only those bits): norm carries lane sums there. The
 * functions take nl and n (4 or 8 64-bit limbs) as constants: each is
 * inlined into a caller that fixes them, and the loops over limbs unroll
 * into straight code. Everything is lane arithmetic, permutes, multiplies
 * and masks: no branch and no memory index on the values. Included by the
 * IFMA point files (ec_edwards_ifma.c, ec_ifma.c) only; not installed. */
#ifndef GOSTX_GOST3410_FIELD_IFMA_H
#define GOSTX_GOST3410_FIELD_IFMA_H

#include "gost3410/field.h"
#include "internal.h"
#include "x86_avx512.h"

#ifdef GOSTX_HAVE_AVX512_CODE

#define IFMA GOSTX_TARGET_AVX512IFMA static inline __attribute__((always_inline))
#define UNROLL _Pragma("GCC unroll 20")
#define M52 (((uint64_t)1 << 52) - 1)
#define NLMAX 10

typedef struct {
  __m256i l[NLMAX]; /* limb j (bits 52 j ..) of the four lanes' elements */
} fe4;

IFMA __m256i bcast(uint64_t x) { return _mm256_set1_epi64x((long long)x); }

/* 2^(52 nl) mod p = 2^(52 nl - 64 n) c: where the product's high columns fold. */
IFMA uint64_t fold_k(int nl, int n, uint64_t c) { return c << (52 * nl - 64 * n); }

/* Limbs below 2^62 to limbs below 2^52 (the top one just over its share of
 * the 64 n bits), the value unchanged mod p: the bits from 2^(64 n) up come
 * back as t c, each limb's carry moves up once in parallel, then once more
 * in a ripple (after the first pass a limb may sit just over 2^52). */
IFMA void norm(__m256i *e, int nl, int n, uint64_t c) {
  const int top = 64 * n - 52 * (nl - 1); /* bits of the top limb below 2^(64 n) */
  const __m256i m = bcast(M52);
  __m256i cy[NLMAX];
  const __m256i t = _mm256_srli_epi64(e[nl - 1], top);
  UNROLL for (int j = 0; j < nl - 1; j++) cy[j] = _mm256_srli_epi64(e[j], 52);
  e[nl - 1] = _mm256_add_epi64(_mm256_and_si256(e[nl - 1], bcast(((uint64_t)1 << top) - 1)),
                               cy[nl - 2]);
  UNROLL for (int j = nl - 2; j > 0; j--) e[j] = _mm256_add_epi64(_mm256_and_si256(e[j], m), cy[j - 1]);
  e[0] = _mm256_add_epi64(_mm256_and_si256(e[0], m), _mm256_mul_epu32(t, bcast(c)));
  UNROLL for (int j = 1; j < nl; j++) {
    e[j] = _mm256_add_epi64(e[j], _mm256_srli_epi64(e[j - 1], 52));
    e[j - 1] = _mm256_and_si256(e[j - 1], m);
  }
}

/* r = a b mod p lane by lane (a, b: limbs below 2^52). The 2 nl columns of
 * the product (each below (2 nl - 1) 2^52 < 2^56.3) fold at 2^(52 nl) = k
 * mod p: the high nl, split at 52 bits, times k land on the low nl (and the
 * fold's own top, once more). With full, r's limbs are then carried below
 * 2^52 (a product input); without, they stay below 2^56.4, for lane sums
 * that norm follows. */
IFMA void mul_body(fe4 *r, const fe4 *a, const fe4 *b, int nl, int n, uint64_t c, int full) {
  __m256i lo[2 * NLMAX], hi[2 * NLMAX], mk[NLMAX], sk[NLMAX];
  const __m256i m = bcast(M52), k = bcast(fold_k(nl, n, c));
  UNROLL for (int i = 0; i < 2 * nl; i++) lo[i] = hi[i] = _mm256_setzero_si256();
  UNROLL for (int i = 0; i < nl; i++) UNROLL for (int j = 0; j < nl; j++) {
    lo[i + j] = _mm256_madd52lo_epu64(lo[i + j], a->l[i], b->l[j]);
    hi[i + j + 1] = _mm256_madd52hi_epu64(hi[i + j + 1], a->l[i], b->l[j]);
  }
  UNROLL for (int i = 0; i < 2 * nl; i++) lo[i] = _mm256_add_epi64(lo[i], hi[i]);
  UNROLL for (int i = 0; i < nl; i++) {
    mk[i] = _mm256_and_si256(lo[i + nl], m);
    sk[i] = _mm256_srli_epi64(lo[i + nl], 52);
  }
  /* the fold's part at 2^(52 nl) (from the top column), below 2^24: times k again */
  const __m256i top = _mm256_madd52hi_epu64(_mm256_mul_epu32(sk[nl - 1], k), mk[nl - 1], k);
  UNROLL for (int j = 0; j < nl; j++) {
    r->l[j] = _mm256_madd52lo_epu64(lo[j], mk[j], k);
    if (j)
      r->l[j] = _mm256_add_epi64(_mm256_madd52hi_epu64(r->l[j], mk[j - 1], k),
                                 _mm256_mul_epu32(sk[j - 1], k));
  }
  r->l[0] = _mm256_madd52lo_epu64(r->l[0], top, k);
  if (full) norm(r->l, nl, n, c);
}

/* The 10-limb product (200 IFMA) out of line, the 5-limb one inline: with
 * both inlined into every formula the IFMA files took ~15 s each to
 * compile, ten times over in CI's builds. Under AddressSanitizer (CI's ASan
 * and fuzz builds) the 5-limb one is called too: inlined, its straight-line
 * code took the instrumenting compilers a minute or more per file, and
 * speed does not matter there. */
#if defined(__SANITIZE_ADDRESS__)
#define GX_IFMA_MUL5_CALLED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GX_IFMA_MUL5_CALLED 1
#endif
#endif
#ifndef GX_IFMA_MUL5_CALLED
#define GX_IFMA_MUL5_CALLED 0
#endif

GOSTX_TARGET_AVX512IFMA static __attribute__((noinline, unused)) void mul10(fe4 *r, const fe4 *a,
                                                                          const fe4 *b, uint64_t c,
                                                                          int full) {
  mul_body(r, a, b, 10, 8, c, full);
}

GOSTX_TARGET_AVX512IFMA static __attribute__((noinline, unused)) void mul5(fe4 *r, const fe4 *a,
                                                                         const fe4 *b, uint64_t c,
                                                                         int full) {
  mul_body(r, a, b, 5, 4, c, full);
}

IFMA void mul(fe4 *r, const fe4 *a, const fe4 *b, int nl, int n, uint64_t c, int full) {
  if (nl == 10)
    mul10(r, a, b, c, full);
  else if (GX_IFMA_MUL5_CALLED)
    mul5(r, a, b, c, full);
  else
    mul_body(r, a, b, nl, n, c, full);
}

/* Limb j of 32 (2^(52 nl) - k), a multiple of p: limbs 2^57 - 32, the
 * lowest 2^57 - 32 k, above any limb it is added before a subtraction, so
 * lane differences stay positive. */
IFMA __m256i p32(int j, int nl, int n, uint64_t c) {
  return bcast(j ? ((uint64_t)1 << 57) - 32 : ((uint64_t)1 << 57) - 32 * fold_k(nl, n, c));
}

/* r = a mod p for a = w + top 2^(64 n) (w: n limbs, top < 2^14), constant
 * time: top c folds in (a carry out of 2^(64 n) folds once more, onto a low
 * limb then below 2^28), then p comes off when w + c carries out. */
IFMA void canon(uint64_t *r, const uint64_t *w, uint64_t top, int n, uint64_t c) {
  uint64_t t[8], u[8], k = top * c, carry = 0;
  for (int pass = 0; pass < 2; pass++) {
    carry = k;
    for (int i = 0; i < n; i++) {
      const uint64_t x = (pass ? t[i] : w[i]) + carry;
      carry = x < carry;
      t[i] = x;
    }
    k = carry * c;
  }
  carry = c;
  for (int i = 0; i < n; i++) {
    u[i] = t[i] + carry;
    carry = u[i] < carry;
  }
  const uint64_t keep_u = 0 - carry; /* t >= p */
  for (int i = 0; i < n; i++) r[i] = (u[i] & keep_u) | (t[i] & ~keep_u);
}

/* Words 4 q .. 4 q + 3 of the four coordinates (a register each),
 * transposed: w[i] = word 4 q + i of [x, y, t, z]. */
IFMA void transpose_regs(__m256i w[4], __m256i vx, __m256i vy, __m256i vt, __m256i vz) {
  const __m256i a = _mm256_unpacklo_epi64(vx, vy), b = _mm256_unpackhi_epi64(vx, vy);
  const __m256i e = _mm256_unpacklo_epi64(vt, vz), f = _mm256_unpackhi_epi64(vt, vz);
  w[0] = _mm256_permute2x128_si256(a, e, 0x20);
  w[1] = _mm256_permute2x128_si256(b, f, 0x20);
  w[2] = _mm256_permute2x128_si256(a, e, 0x31);
  w[3] = _mm256_permute2x128_si256(b, f, 0x31);
}

/* The same from memory. */
IFMA void transpose_in(__m256i w[4], const uint64_t *x, const uint64_t *y, const uint64_t *t,
                       const uint64_t *z) {
  transpose_regs(w, _mm256_loadu_si256((const __m256i *)(const void *)x),
                 _mm256_loadu_si256((const __m256i *)(const void *)y),
                 _mm256_loadu_si256((const __m256i *)(const void *)t),
                 _mm256_loadu_si256((const __m256i *)(const void *)z));
}

/* Transposed words (w[i]: word i of [x, y, t, z], each below p) to the
 * 52-bit limbs of lanes [X, Y, T, Z]. */
IFMA void cut52(fe4 *r, const __m256i *w, int nl, int n) {
  UNROLL for (int j = 0; j < nl; j++) {
    const int bit = 52 * j, i = bit / 64, sh = bit % 64;
    __m256i v = _mm256_srli_epi64(w[i], sh);
    if (sh > 12 && i + 1 < n) v = _mm256_or_si256(v, _mm256_slli_epi64(w[i + 1], 64 - sh));
    r->l[j] = _mm256_and_si256(v, bcast(M52));
  }
}

/* The four coordinates (n limbs each, below p) into lanes [X, Y, T, Z]. */
IFMA void load4(fe4 *r, const uint64_t *x, const uint64_t *y, const uint64_t *t,
                const uint64_t *z, int nl, int n) {
  __m256i w[8];
  UNROLL for (int q = 0; q < n / 4; q++) transpose_in(w + 4 * q, x + 4 * q, y + 4 * q, t + 4 * q, z + 4 * q);
  cut52(r, w, nl, n);
}

/* Back: the n 64-bit words and the bits over 2^(64 n) per lane, transposed
 * to one coordinate per row, each then reduced below p by canon. */
IFMA void store4(const fe4 *p, uint64_t *x, uint64_t *y, uint64_t *t, uint64_t *z, int nl, int n,
                 uint64_t c) {
  uint64_t w[4][8], top[4];
  __m256i v[8];
  UNROLL for (int i = 0; i < n; i++) {
    v[i] = _mm256_setzero_si256();
    UNROLL for (int j = 0; j < nl; j++) { /* limb j covers bits 52 j .. 52 j + 51 */
      const int lo = 52 * j - 64 * i;
      if (lo >= 64 || lo + 52 <= 0) continue;
      v[i] = _mm256_or_si256(v[i], lo >= 0 ? _mm256_slli_epi64(p->l[j], lo)
                                           : _mm256_srli_epi64(p->l[j], -lo));
    }
  }
  UNROLL for (int q = 0; q < n / 4; q++) {
    const __m256i a = _mm256_unpacklo_epi64(v[4 * q], v[4 * q + 1]);
    const __m256i b = _mm256_unpackhi_epi64(v[4 * q], v[4 * q + 1]);
    const __m256i e = _mm256_unpacklo_epi64(v[4 * q + 2], v[4 * q + 3]);
    const __m256i f = _mm256_unpackhi_epi64(v[4 * q + 2], v[4 * q + 3]);
    _mm256_storeu_si256((__m256i *)(void *)(w[0] + 4 * q), _mm256_permute2x128_si256(a, e, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(w[1] + 4 * q), _mm256_permute2x128_si256(b, f, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(w[2] + 4 * q), _mm256_permute2x128_si256(a, e, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(w[3] + 4 * q), _mm256_permute2x128_si256(b, f, 0x31));
  }
  _mm256_storeu_si256((__m256i *)(void *)top, _mm256_srli_epi64(p->l[nl - 1], 64 * n - 52 * (nl - 1)));
  canon(x, w[0], top[0], n, c);
  canon(y, w[1], top[1], n, c);
  canon(t, w[2], top[2], n, c);
  canon(z, w[3], top[3], n, c);
  gostx_memzero(w, sizeof w);
}

#endif
#endif
