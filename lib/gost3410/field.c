/* Montgomery arithmetic modulo a public odd modulus of n = 4 or 8 64-bit
 * limbs (CIOS). Constant time in the operands: carries and the final
 * subtraction are handled with masks, never with branches on values. */
#include "gost3410/ec.h"

#include <string.h>

/* Vectorised masking (16-byte loads of limbs just stored one by one) stalls
 * on store forwarding: these bodies are short carry chains, kept scalar. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize")
#endif

/* GOSTX_NO_INT128 forces the portable 64 x 64 -> 128 product below
 * (scripts/check_pedantic.sh builds with it). */
#if defined(__SIZEOF_INT128__) && defined(__GNUC__) && !defined(GOSTX_NO_INT128)
__extension__ typedef unsigned __int128 gx_u128;
#define GX_HAVE_U128 1
/* hi:lo = a + b c + d (cannot overflow 128 bits). */
static inline uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi) {
  gx_u128 t = (gx_u128)b * c + a + d;
  *hi = (uint64_t)(t >> 64);
  return (uint64_t)t;
}
#else
static inline uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi) {
  uint64_t bl = (uint32_t)b, bh = b >> 32, cl = (uint32_t)c, ch = c >> 32;
  uint64_t ll = bl * cl, lh = bl * ch, hl = bh * cl, hh = bh * ch;
  uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
  uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
  uint64_t h = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  lo += a;
  h += lo < a;
  lo += d;
  h += lo < d;
  *hi = h;
  return lo;
}
#endif

#ifdef GX_HAVE_U128
/* Through the 128-bit type the compiler emits add-with-carry chains. */
static inline uint64_t addc(uint64_t a, uint64_t b, uint64_t *carry) {
  gx_u128 t = (gx_u128)a + b + *carry;
  *carry = (uint64_t)(t >> 64);
  return (uint64_t)t;
}
static inline uint64_t subb(uint64_t a, uint64_t b, uint64_t *borrow) {
  gx_u128 t = (gx_u128)a - b - *borrow;
  *borrow = (uint64_t)(t >> 64) & 1;
  return (uint64_t)t;
}
#else
static inline uint64_t addc(uint64_t a, uint64_t b, uint64_t *carry) {
  uint64_t s = a + *carry;
  uint64_t c = s < a;
  s += b;
  c |= s < b;
  *carry = c;
  return s;
}
static inline uint64_t subb(uint64_t a, uint64_t b, uint64_t *borrow) {
  uint64_t d = a - b;
  uint64_t bw = a < b;
  uint64_t d2 = d - *borrow;
  bw |= d < *borrow;
  *borrow = bw;
  return d2;
}
#endif

void gx_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, int n) {
  for (int i = 0; i < n; i++) r[i] ^= mask & (r[i] ^ a[i]);
}

uint64_t gx_is_zero(const uint64_t *a, int n) {
  uint64_t acc = 0;
  for (int i = 0; i < n; i++) acc |= a[i];
  /* (acc | -acc) has its top bit set iff acc != 0. */
  return ((acc | (0 - acc)) >> 63) - 1;
}

uint64_t gx_lt(const uint64_t *a, const uint64_t *b, int n) {
  uint64_t bw = 0;
  for (int i = 0; i < n; i++) (void)subb(a[i], b[i], &bw);
  return 0 - bw;
}

void gx_load_be(uint64_t *r, const uint8_t *in, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t v = 0;
    for (int j = 0; j < 8; j++) v = (v << 8) | in[(n - 1 - i) * 8 + j];
    r[i] = v;
  }
}

void gx_store_be(uint8_t *out, const uint64_t *a, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 8; j++) out[(n - 1 - i) * 8 + j] = (uint8_t)(a[i] >> (56 - 8 * j));
}

/* The limb count is a compile-time constant inside each body below (GX_BODY
 * is forced inline and called with 4 or 8), so the compiler unrolls the
 * loops; the entry points pick the body by the modulus's public size. */
#if defined(__GNUC__)
#define GX_BODY static inline __attribute__((always_inline)) void
#else
#define GX_BODY static inline void
#endif

/* r = t - m if the (n+1)-limb t >= m, else t. */
GX_BODY final_sub(const uint64_t *m, uint64_t *r, const uint64_t *t, uint64_t top, const int n) {
  uint64_t u[GX_MAXN], bw = 0;
  for (int i = 0; i < n; i++) u[i] = subb(t[i], m[i], &bw);
  (void)subb(top, 0, &bw);
  /* bw = 1 when t < m: keep t. */
  uint64_t keep = 0 - bw;
  for (int i = 0; i < n; i++) r[i] = (t[i] & keep) | (u[i] & ~keep);
}

GX_BODY mul_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b, const int n) {
  uint64_t t[GX_MAXN + 2];
  for (int j = 0; j < n + 2; j++) t[j] = 0;
  for (int i = 0; i < n; i++) {
    uint64_t c = 0, hi;
    for (int j = 0; j < n; j++) {
      t[j] = mac(t[j], a[j], b[i], c, &hi);
      c = hi;
    }
    uint64_t cc = 0;
    t[n] = addc(t[n], c, &cc);
    t[n + 1] = cc;
    uint64_t mq = t[0] * M->m0inv;
    (void)mac(t[0], mq, M->m[0], 0, &hi);
    c = hi;
    for (int j = 1; j < n; j++) {
      t[j - 1] = mac(t[j], mq, M->m[j], c, &hi);
      c = hi;
    }
    cc = 0;
    t[n - 1] = addc(t[n], c, &cc);
    t[n] = t[n + 1] + cc;
  }
  final_sub(M->m, r, t, t[n], n);
}

GX_BODY add_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b, const int n) {
  uint64_t t[GX_MAXN], c = 0;
  for (int i = 0; i < n; i++) t[i] = addc(a[i], b[i], &c);
  final_sub(M->m, r, t, c, n);
}

GX_BODY sub_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b, const int n) {
  uint64_t t[GX_MAXN], bw = 0, c = 0;
  for (int i = 0; i < n; i++) t[i] = subb(a[i], b[i], &bw);
  uint64_t mask = 0 - bw; /* add m back when it went negative */
  for (int i = 0; i < n; i++) r[i] = addc(t[i], M->m[i] & mask, &c);
}

/* m = 2^(64 n) - c, c < 2^16: the product's high half times c folds onto
 * the low half (2^(64 n) = c mod m), twice, then one conditional
 * subtraction; about half the products of the Montgomery body. Numbers stay
 * plain residues (R = 1). */
GX_BODY pm_reduce(const gx_mont *M, uint64_t *r, uint64_t *t, const int n) {
  uint64_t hi, c = 0, cc = M->c, k, u[GX_MAXN];
  for (int j = 0; j < n; j++) {
    t[j] = mac(t[j], t[n + j], cc, c, &hi);
    c = hi;
  }
  /* c <= cc + 1: c 2^(64 n) = c cc, then a carry out of that is one more cc
   * (which cannot carry again: the sum is then below 2^64 + cc cc). */
  k = 0;
  t[0] = addc(t[0], c * cc, &k);
  for (int j = 1; j < n; j++) t[j] = addc(t[j], 0, &k);
  c = k;
  k = 0;
  t[0] = addc(t[0], c * cc, &k);
  for (int j = 1; j < n; j++) t[j] = addc(t[j], 0, &k);
  /* t >= m iff t + cc carries out. */
  k = 0;
  u[0] = addc(t[0], cc, &k);
  for (int j = 1; j < n; j++) u[j] = addc(t[j], 0, &k);
  uint64_t take = 0 - k;
  for (int j = 0; j < n; j++) r[j] = (u[j] & take) | (t[j] & ~take);
}

GX_BODY mul_pm_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b,
                    const int n) {
  uint64_t t[2 * GX_MAXN], hi, c;
  for (int j = 0; j < n; j++) t[j] = 0;
  for (int i = 0; i < n; i++) {
    c = 0;
    for (int j = 0; j < n; j++) {
      t[i + j] = mac(t[i + j], a[j], b[i], c, &hi);
      c = hi;
    }
    t[i + n] = c;
  }
  pm_reduce(M, r, t, n);
}

/* t (2n limbs) = a^2: each cross product once, doubled, then the squares
 * of the limbs: n (n - 1) / 2 + n products instead of n^2. */
GX_BODY sqr_wide(uint64_t *t, const uint64_t *a, const int n) {
  uint64_t c, hi, k;
  for (int j = 0; j < 2 * n; j++) t[j] = 0;
  for (int i = 0; i < n - 1; i++) {
    c = 0;
    for (int j = i + 1; j < n; j++) {
      t[i + j] = mac(t[i + j], a[i], a[j], c, &hi);
      c = hi;
    }
    t[i + n] = c;
  }
  for (int j = 2 * n - 1; j > 0; j--) t[j] = (t[j] << 1) | (t[j - 1] >> 63);
  t[0] <<= 1;
  k = 0;
  for (int i = 0; i < n; i++) {
    uint64_t lo = mac(0, a[i], a[i], 0, &hi);
    t[2 * i] = addc(t[2 * i], lo, &k);
    t[2 * i + 1] = addc(t[2 * i + 1], hi, &k);
  }
}

/* Montgomery reduction of a 2n-limb t < m R: t / R mod m. */
GX_BODY redc(const gx_mont *M, uint64_t *r, uint64_t *t, const int n) {
  uint64_t hi, c, k, top = 0;
  for (int i = 0; i < n; i++) {
    uint64_t mq = t[i] * M->m0inv;
    c = 0;
    for (int j = 0; j < n; j++) {
      t[i + j] = mac(t[i + j], mq, M->m[j], c, &hi);
      c = hi;
    }
    /* add c at limb i + n, the carry running to the top */
    k = 0;
    t[i + n] = addc(t[i + n], c, &k);
    for (int j = i + n + 1; j < 2 * n; j++) t[j] = addc(t[j], 0, &k);
    top += k;
  }
  final_sub(M->m, r, t + n, top, n);
}

GX_BODY sqr_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const int n) {
  uint64_t t[2 * GX_MAXN];
  sqr_wide(t, a, n);
  if (M->c)
    pm_reduce(M, r, t, n);
  else
    redc(M, r, t, n);
}

void gx_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  if (M->n == 4)
    sqr_body(M, r, a, 4);
  else
    sqr_body(M, r, a, 8);
}

void gx_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->c) { /* the modulus's form: public */
    if (M->n == 4)
      mul_pm_body(M, r, a, b, 4);
    else
      mul_pm_body(M, r, a, b, 8);
  } else if (M->n == 4) {
    mul_body(M, r, a, b, 4);
  } else {
    mul_body(M, r, a, b, 8);
  }
}

void gx_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    add_body(M, r, a, b, 4);
  else
    add_body(M, r, a, b, 8);
}

void gx_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    sub_body(M, r, a, b, 4);
  else
    sub_body(M, r, a, b, 8);
}

void gx_to_mont(const gx_mont *M, uint64_t *r, const uint64_t *a) { gx_mul(M, r, a, M->r2); }

void gx_from_mont(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t one[GX_MAXN] = {1};
  gx_mul(M, r, a, one);
}

void gx_reduce_wide(const gx_mont *M, uint64_t *r, const uint64_t *lo, const uint64_t *hi) {
  /* lo R^2 / R + hi R^3 / R = (lo + hi R) R: the value in Montgomery form. */
  uint64_t a[GX_MAXN], b[GX_MAXN];
  gx_mul(M, a, lo, M->r2);
  gx_mul(M, b, hi, M->r3);
  gx_add(M, a, a, b);
  gx_from_mont(M, r, a);
}

void gx_pow(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *e) {
  int n = M->n;
  uint64_t acc[GX_MAXN], pw[16][GX_MAXN];
  /* Fixed 4-bit windows of the public exponent: 4 squarings and at most one
   * multiplication per window, where the bit-by-bit chain multiplies for
   * nearly every bit of p - 2 = 2^k - c. */
  memcpy(pw[0], M->one, sizeof pw[0]);
  memcpy(pw[1], a, (size_t)n * 8);
  for (int i = 2; i < 16; i++) gx_mul(M, pw[i], pw[i - 1], a);
  memcpy(acc, M->one, sizeof acc);
  for (int w = 16 * n - 1; w >= 0; w--) {
    for (int s = 0; s < 4; s++) gx_sqr(M, acc, acc);
    unsigned nib = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
    if (nib) gx_mul(M, acc, acc, pw[nib]); /* public exponent digit */
  }
  memcpy(r, acc, (size_t)n * 8);
  memset(pw, 0, sizeof pw);
}

void gx_inv(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t e[GX_MAXN], bw = 0;
  /* e = m - 2 (m is odd and > 2). */
  for (int i = 0; i < M->n; i++) e[i] = subb(M->m[i], i == 0 ? 2 : 0, &bw);
  gx_pow(M, r, a, e);
}

void gx_mont_init(gx_mont *M, const uint64_t *m, int n) {
  memset(M, 0, sizeof *M);
  M->n = n;
  memcpy(M->m, m, (size_t)n * 8);
  /* Newton's iteration for m0^-1 mod 2^64: each step doubles the good bits. */
  uint64_t x = m[0];
  for (int i = 0; i < 5; i++) x *= 2 - m[0] * x;
  M->m0inv = 0 - x;
  /* m = 2^(64 n) - c with a small c: plain residues, R = 1. */
  uint64_t top = ~(uint64_t)0;
  for (int i = 1; i < n; i++) top &= m[i];
  if (top == ~(uint64_t)0 && m[0] >= ~(uint64_t)0 - 0xffff) {
    M->c = 0 - m[0];
    M->one[0] = M->r2[0] = 1;
    M->r3[0] = M->c; /* 2^(64 n) mod m */
    return;
  }
  /* R mod m and R^2 mod m by doubling 1 (public modulus: speed is no concern). */
  uint64_t t[GX_MAXN] = {1};
  for (int i = 0; i < 64 * n; i++) gx_add(M, t, t, t);
  memcpy(M->one, t, sizeof t);
  for (int i = 0; i < 64 * n; i++) gx_add(M, t, t, t);
  memcpy(M->r2, t, sizeof t);
  gx_mul(M, M->r3, M->r2, M->r2);
}
