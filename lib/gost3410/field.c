/* Montgomery arithmetic modulo a public odd modulus of n = 4 or 8 64-bit
 * limbs (CIOS). Constant time in the operands: carries and the final
 * subtraction are handled with masks, never with branches on values. */
#include "gost3410/field_body.h"


#include <string.h>

void gostx__fe_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, int n) {
  for (int i = 0; i < n; i++) r[i] ^= mask & (r[i] ^ a[i]);
}

uint64_t gostx__fe_is_zero(const uint64_t *a, int n) {
  uint64_t acc = 0;
  for (int i = 0; i < n; i++) acc |= a[i];
  /* (acc | -acc) has its top bit set iff acc != 0. */
  return ((acc | (0 - acc)) >> 63) - 1;
}

uint64_t gostx__fe_lt(const uint64_t *a, const uint64_t *b, int n) {
  uint64_t bw = 0;
  for (int i = 0; i < n; i++) (void)subb(a[i], b[i], &bw);
  return 0 - bw;
}

void gostx__fe_load_be(uint64_t *r, const uint8_t *in, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t v = 0;
    for (int j = 0; j < 8; j++) v = (v << 8) | in[(n - 1 - i) * 8 + j];
    r[i] = v;
  }
}

void gostx__fe_store_be(uint8_t *out, const uint64_t *a, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 8; j++) out[(n - 1 - i) * 8 + j] = (uint8_t)(a[i] >> (56 - 8 * j));
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

GX_BODY sqr_body(const gx_mont *M, uint64_t *r, const uint64_t *a, const int n) {
  uint64_t t[2 * GX_MAXN];
  sqr_wide(t, a, n);
  if (M->c)
    pm_reduce(M, r, t, n);
  else
    redc(M, r, t, n);
}

void gostx__fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  if (M->n == 4)
    sqr_body(M, r, a, 4);
  else
    sqr_body(M, r, a, 8);
}

void gostx__fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
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

void gostx__fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    add_body(M, r, a, b, 4);
  else
    add_body(M, r, a, b, 8);
}

void gostx__fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b) {
  if (M->n == 4)
    sub_body(M, r, a, b, 4);
  else
    sub_body(M, r, a, b, 8);
}

void gostx__fe_to_mont(const gx_mont *M, uint64_t *r, const uint64_t *a) { gostx__fe_mul(M, r, a, M->r2); }

void gostx__fe_from_mont(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  uint64_t one[GX_MAXN] = {1};
  gostx__fe_mul(M, r, a, one);
}

void gostx__fe_reduce_wide(const gx_mont *M, uint64_t *r, const uint64_t *lo, const uint64_t *hi) {
  /* lo R^2 / R + hi R^3 / R = (lo + hi R) R: the value in Montgomery form. */
  uint64_t a[GX_MAXN], b[GX_MAXN];
  gostx__fe_mul(M, a, lo, M->r2);
  gostx__fe_mul(M, b, hi, M->r3);
  gostx__fe_add(M, a, a, b);
  gostx__fe_from_mont(M, r, a);
}

void gostx__fe_pow(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *e) {
  int n = M->n;
  uint64_t acc[GX_MAXN], pw[16][GX_MAXN];
  /* Fixed 4-bit windows of the public exponent: 4 squarings and at most one
   * multiplication per window, where the bit-by-bit chain multiplies for
   * nearly every bit of p - 2 = 2^k - c. */
  memcpy(pw[0], M->one, sizeof pw[0]);
  memcpy(pw[1], a, (size_t)n * 8);
  for (int i = 2; i < 16; i++) gostx__fe_mul(M, pw[i], pw[i - 1], a);
  memcpy(acc, M->one, sizeof acc);
  for (int w = 16 * n - 1; w >= 0; w--) {
    for (int s = 0; s < 4; s++) gostx__fe_sqr(M, acc, acc);
    unsigned nib = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
    if (nib) gostx__fe_mul(M, acc, acc, pw[nib]); /* public exponent digit */
  }
  memcpy(r, acc, (size_t)n * 8);
  memset(pw, 0, sizeof pw);
}

void gostx__fe_inv(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  /* Division steps (field_inv.c); Fermat's power with 4-bit windows only
   * in builds without a 128-bit product (make pedantic's). */
  if (gostx__fe_inv_divsteps(M, r, a) == 0) {
    if (!M->c) gostx__fe_mul(M, r, r, M->r3); /* (x R)^-1 R^3 / R = x^-1 R */
    return;
  }
  uint64_t e[GX_MAXN], bw = 0;
  /* e = m - 2 (m is odd and > 2). */
  for (int i = 0; i < M->n; i++) e[i] = subb(M->m[i], i == 0 ? 2 : 0, &bw);
  gostx__fe_pow(M, r, a, e);
}

void gostx__fe_mont_init(gx_mont *M, const uint64_t *m, int n) {
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
  for (int i = 0; i < 64 * n; i++) gostx__fe_add(M, t, t, t);
  memcpy(M->one, t, sizeof t);
  for (int i = 0; i < 64 * n; i++) gostx__fe_add(M, t, t, t);
  memcpy(M->r2, t, sizeof t);
  gostx__fe_mul(M, M->r3, M->r2, M->r2);
}

/* ---- the variable-time inverse (public values only) ---- */

/* r = a / 2 mod m for odd m, a < m (n limbs): (a + m) / 2 when a is odd. */
static void half_mod(const uint64_t *m, uint64_t *a, int n) {
  uint64_t c = 0;
  if (a[0] & 1)
    for (int i = 0; i < n; i++) {
      uint64_t s = a[i] + c;
      c = s < c;
      a[i] = s + m[i];
      c += a[i] < s;
    }
  for (int i = 0; i < n; i++) a[i] = (a[i] >> 1) | (i + 1 < n ? a[i + 1] << 63 : c << 63);
}

/* a -= b (no borrow out: a >= b), or mod m when asked. */
static void sub_n(const uint64_t *m, uint64_t *a, const uint64_t *b, int n) {
  uint64_t bw = 0;
  for (int i = 0; i < n; i++) {
    uint64_t d = a[i] - b[i], b2 = a[i] < b[i];
    b2 |= d < bw;
    a[i] = d - bw;
    bw = b2;
  }
  if (bw && m) { /* went negative: add m back */
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
      uint64_t s = a[i] + c;
      c = s < c;
      a[i] = s + m[i];
      c += a[i] < s;
    }
  }
}

static int is_one(const uint64_t *a, int n) {
  uint64_t acc = a[0] ^ 1;
  for (int i = 1; i < n; i++) acc |= a[i];
  return acc == 0;
}

/* r = a^-1 mod m (normal form) for a public 0 < a < m, m odd: the binary
 * extended Euclid, variable time, several times faster than Fermat. */
void gostx__fe_inv_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  int n = M->n;
  gx_fe u, v, x1 = {1}, x2 = {0};
  if (gostx__fe_is_zero(a, n)) { /* no inverse; and the loop below needs a != 0 */
    memset(r, 0, (size_t)n * 8);
    return;
  }
  memcpy(u, a, sizeof u);
  memcpy(v, M->m, sizeof v);
  while (!is_one(u, n) && !is_one(v, n)) {
    while (!(u[0] & 1)) {
      half_mod(M->m, u, n); /* u even: a plain shift */
      half_mod(M->m, x1, n);
    }
    while (!(v[0] & 1)) {
      half_mod(M->m, v, n);
      half_mod(M->m, x2, n);
    }
    if (!gostx__fe_lt(u, v, n)) {
      sub_n(NULL, u, v, n);
      sub_n(M->m, x1, x2, n);
    } else {
      sub_n(NULL, v, u, n);
      sub_n(M->m, x2, x1, n);
    }
  }
  memcpy(r, is_one(u, n) ? x1 : x2, (size_t)n * 8);
}

void gostx__fe_inv_public(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  if (gostx__fe_inv_divsteps_vartime(M, r, a)) gostx__fe_inv_vartime(M, r, a);
}
