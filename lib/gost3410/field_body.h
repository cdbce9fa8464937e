/* The field's shared pieces (field.c, field_x86_64.c): limb arithmetic and
 * the two reductions of a 2n-limb product, as forced-inline bodies. Constant
 * time: carries and the final subtraction by masks. Not installed. */
#ifndef GOSTX_GOST3410_FIELD_BODY_H
#define GOSTX_GOST3410_FIELD_BODY_H

#include "gost3410/field.h"

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

#endif
