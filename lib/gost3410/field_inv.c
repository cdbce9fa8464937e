/* Constant-time modular inversion by division steps (Bernstein and Yang,
 * "Fast constant-time gcd computation and modular inversion", 2019): for an
 * odd modulus m and 0 <= x < m, the divstep map
 *   (delta, f, g) -> (1 - delta, g, (g - f)/2)   if delta > 0 and g is odd,
 *                    (1 + delta, f, (g + f)/2)   if g is odd,
 *                    (1 + delta, f, g/2)         otherwise,
 * from (1, m, x) reaches g = 0, f = +-gcd = +-1, within the paper's bound of
 * floor((49 d + 57)/17) steps for d-bit inputs (d >= 46). The steps run in
 * batches of 62 on the low 64 bits of f and g, which decide them, giving a
 * 2x2 matrix of integers (|entries| <= 2^62) that then updates the full f, g
 * and the coefficients d, e (d x = f, e x = g mod m), dividing by 2^62 mod m
 * on the way. Numbers are signed, in limbs of 62 bits (the top one signed),
 * so a division by 2^62 drops a limb. Masks only: the same instructions and
 * addresses for every x. Needs a 128-bit product (no GOSTX_NO_INT128). */
#include "gost3410/field_body.h"

#include <string.h>

#include "gostx/common.h" /* gostx_memzero */

#ifdef GX_HAVE_U128

__extension__ typedef __int128 gx_s128;

#define M62 ((uint64_t)0x3fffffffffffffff)
#define S62_LIMBS (GX_MAXN * 64 / 62 + 1) /* 9: 558 bits for 512-bit values and their signs */

typedef struct {
  int64_t u, v, q, r; /* [f'; g'] 2^62 = [u v; q r] [f; g] */
} trans;

static void to_s62(int64_t *out, const uint64_t *a, int n, int L) {
  for (int i = 0; i < L; i++) {
    int bit = 62 * i, w = bit / 64, sh = bit % 64;
    uint64_t v = w < n ? a[w] >> sh : 0;
    if (sh > 2 && w + 1 < n) v |= a[w + 1] << (64 - sh);
    out[i] = (int64_t)(v & M62);
  }
}

/* a nonnegative value below 2^(64 n) back to 64-bit limbs */
static void from_s62(uint64_t *out, const int64_t *in, int n, int L) {
  for (int w = 0; w < n; w++) {
    int bit = 64 * w, i = bit / 62, sh = bit % 62;
    uint64_t v = (uint64_t)in[i] >> sh;
    if (i + 1 < L) v |= (uint64_t)in[i + 1] << (62 - sh);
    if (sh > 60 && i + 2 < L) v |= (uint64_t)in[i + 2] << (124 - sh);
    out[w] = v;
  }
}

/* 62 division steps on the low bits of f and g; returns the new delta.
 * Written for a short dependency chain through g, the loop's critical
 * path: with c1 = [delta > 0] and c2 = [g odd] as masks and s = c1 & c2
 * (the swap), the new g before halving is g + (c1 ? -f : f) & c2, which is
 * g - f under the swap, g + f for g odd otherwise, g for g even; the
 * (c1 ? -f : f) term needs only f and delta, so g waits on its own parity
 * (and, negate), one AND, one add and the shift: five operations a step
 * (the swap-then-add form took eight). The new f is g_old under the swap,
 * that is f + (new g & s). The f row (u, v) and g row (q, r) of the matrix
 * follow the same two lines; the f row is doubled where g is halved.
 * delta is kept times unit (1, or 2 for the half-delta variant below), so
 * each step adds unit to it. */
static int64_t divsteps62(int64_t delta, uint64_t f, uint64_t g, trans *t, uint64_t unit) {
  uint64_t u = 1, v = 0, q = 0, r = 1, d = (uint64_t)delta;
  for (int i = 0; i < 62; i++) {
    uint64_t c1 = 0 - ((0 - d) >> 63); /* delta > 0 */
    uint64_t c2 = 0 - (g & 1);          /* g odd */
    uint64_t s = c1 & c2;               /* the swap */
    uint64_t fx = (f ^ c1) - c1, ux = (u ^ c1) - c1, vx = (v ^ c1) - c1;
    g += fx & c2, q += ux & c2, r += vx & c2;
    f += g & s, u += q & s, v += r & s;
    d = ((d ^ s) - s) + unit;
    g >>= 1, u <<= 1, v <<= 1;
  }
  t->u = (int64_t)u, t->v = (int64_t)v, t->q = (int64_t)q, t->r = (int64_t)r;
  return (int64_t)d;
}

/* The same 62 steps for public inputs: a run of z steps with g even is
 * one shift (g / 2^z, the f row times 2^z, delta + z), found by counting
 * trailing zeros; the steps with g odd as above. The matrix and delta come
 * out as divsteps62's. Variable time. */
static int64_t divsteps62_var(int64_t delta, uint64_t f, uint64_t g, trans *t) {
  uint64_t u = 1, v = 0, q = 0, r = 1, d = (uint64_t)delta;
  int left = 62;
  for (;;) {
    int z = __builtin_ctzll(g | (uint64_t)1 << left); /* at most left */
    g >>= z, u <<= z, v <<= z, d += (uint64_t)z, left -= z;
    if (!left) break;
    uint64_t swap = 0 - ((0 - d) >> 63), x; /* g is odd: swap iff delta > 0 */
    x = (f ^ g) & swap, f ^= x, g ^= x, g = (g ^ swap) - swap;
    x = (u ^ q) & swap, u ^= x, q ^= x, q = (q ^ swap) - swap;
    x = (v ^ r) & swap, v ^= x, r ^= x, r = (r ^ swap) - swap;
    d = (d ^ swap) - swap;
    g += f, q += u, r += v;
    g >>= 1, u <<= 1, v <<= 1, d += 1;
    if (!--left) break;
  }
  t->u = (int64_t)u, t->v = (int64_t)v, t->q = (int64_t)q, t->r = (int64_t)r;
  return (int64_t)d;
}

/* (f, g) = [u v; q r] (f, g) / 2^62, exactly. */
static void update_fg(int64_t *f, int64_t *g, const trans *t, int L) {
  gx_s128 cf = (gx_s128)t->u * f[0] + (gx_s128)t->v * g[0];
  gx_s128 cg = (gx_s128)t->q * f[0] + (gx_s128)t->r * g[0];
  cf >>= 62, cg >>= 62; /* the low 62 bits are zero */
  for (int i = 1; i < L; i++) {
    cf += (gx_s128)t->u * f[i] + (gx_s128)t->v * g[i];
    cg += (gx_s128)t->q * f[i] + (gx_s128)t->r * g[i];
    f[i - 1] = (int64_t)((uint64_t)cf & M62), g[i - 1] = (int64_t)((uint64_t)cg & M62);
    cf >>= 62, cg >>= 62;
  }
  f[L - 1] = (int64_t)cf, g[L - 1] = (int64_t)cg;
}

/* x = x - m when x >= m (a mask from the sign of the difference). */
static void sub_if_ge(int64_t *x, const int64_t *m, int L) {
  int64_t t[S62_LIMBS];
  gx_s128 c = 0;
  for (int i = 0; i < L; i++) {
    c += (gx_s128)x[i] - m[i];
    t[i] = i + 1 < L ? (int64_t)((uint64_t)c & M62) : (int64_t)c;
    c >>= 62;
  }
  uint64_t keep = (uint64_t)(t[L - 1] >> 63); /* all-ones when x - m < 0 */
  for (int i = 0; i < L; i++) x[i] = (int64_t)(((uint64_t)x[i] & keep) | ((uint64_t)t[i] & ~keep));
}

/* (d, e) = [u v; q r] (d, e) / 2^62 mod m, in (-m, m) again: a multiple of m
 * (k < 2^62, from m^-1 mod 2^62) clears the low 62 bits first. */
static void update_de(int64_t *d, int64_t *e, const trans *t, const int64_t *m, uint64_t minv,
                      int L) {
  gx_s128 cd = (gx_s128)t->u * d[0] + (gx_s128)t->v * e[0];
  gx_s128 ce = (gx_s128)t->q * d[0] + (gx_s128)t->r * e[0];
  uint64_t kd = ((0 - (uint64_t)cd) * minv) & M62, ke = ((0 - (uint64_t)ce) * minv) & M62;
  cd += (gx_s128)kd * m[0], ce += (gx_s128)ke * m[0];
  cd >>= 62, ce >>= 62;
  for (int i = 1; i < L; i++) {
    cd += (gx_s128)t->u * d[i] + (gx_s128)t->v * e[i] + (gx_s128)kd * m[i];
    ce += (gx_s128)t->q * d[i] + (gx_s128)t->r * e[i] + (gx_s128)ke * m[i];
    d[i - 1] = (int64_t)((uint64_t)cd & M62), e[i - 1] = (int64_t)((uint64_t)ce & M62);
    cd >>= 62, ce >>= 62;
  }
  d[L - 1] = (int64_t)cd, e[L - 1] = (int64_t)ce;
  /* |u d + v e| < 2^62 m and k m < 2^62 m: the quotient is in (-m, 2m) */
  sub_if_ge(d, m, L);
  sub_if_ge(e, m, L);
}

/* x = -x when mask is all-ones, then + m when negative: into [0, m). */
static void normalize(int64_t *x, const int64_t *m, uint64_t neg, int L) {
  gx_s128 c = 0;
  for (int i = 0; i < L; i++) { /* (x ^ neg) - neg, limb by limb with the carries */
    c += (gx_s128)(int64_t)(((uint64_t)x[i] ^ neg) & (i + 1 < L ? M62 : ~(uint64_t)0));
    if (i == 0) c += (gx_s128)(neg & 1);
    x[i] = i + 1 < L ? (int64_t)((uint64_t)c & M62) : (int64_t)c;
    c >>= 62;
  }
  uint64_t add = (uint64_t)(x[L - 1] >> 63);
  c = 0;
  for (int i = 0; i < L; i++) {
    c += (gx_s128)x[i] + (gx_s128)(int64_t)((uint64_t)m[i] & add);
    x[i] = i + 1 < L ? (int64_t)((uint64_t)c & M62) : (int64_t)c;
    c >>= 62;
  }
}

/* vartime (public a only): stop once g = 0. From there every step only
 * halves g and e and moves delta: f and d, the answer, no longer change.
 * Constant time on 256-bit moduli: delta starts at 1/2 (kept doubled: 1,
 * each step adding 2), the variant for which 590 steps reach g = 0 for
 * every f, g below 2^256 (Wuille's convex-hull bound, safegcd-bounds, used
 * by libsecp256k1), 10 batches against the 12 of the paper's 741; 512-bit
 * moduli keep delta = 1 and the paper's 1479 (no bound is at hand for the
 * variant there). */
static void inv_divsteps(const gx_mont *M, uint64_t *r, const uint64_t *a, int vartime) {
  const int n = M->n, L = 64 * n / 62 + 1, half = !vartime && n == 4;
  const int batches = half ? (590 + 61) / 62 : ((49 * 64 * n + 57) / 17 + 61) / 62;
  int64_t f[S62_LIMBS] = {0}, g[S62_LIMBS] = {0}, d[S62_LIMBS] = {0}, e[S62_LIMBS] = {0},
          m[S62_LIMBS] = {0};
  uint64_t minv = (0 - M->m0inv) & M62; /* m^-1 mod 2^62 (m0inv = -m^-1 mod 2^64) */
  int64_t delta = 1;
  trans t;
  to_s62(m, M->m, n, L);
  memcpy(f, m, sizeof f);
  to_s62(g, a, n, L);
  e[0] = 1;
  for (int b = 0; b < batches; b++) {
    uint64_t flo = (uint64_t)f[0] | (uint64_t)f[1] << 62, glo = (uint64_t)g[0] | (uint64_t)g[1] << 62;
    delta = vartime ? divsteps62_var(delta, flo, glo, &t)
                    : divsteps62(delta, flo, glo, &t, half ? 2 : 1);
    update_fg(f, g, &t, L);
    update_de(d, e, &t, m, minv, L);
    if (vartime) {
      int64_t any = 0;
      for (int i = 0; i < L; i++) any |= g[i];
      if (!any) break;
    }
  }
  /* f = +-1 (or m when a = 0, with d = 0); d a = f: the inverse is +-d */
  normalize(d, m, (uint64_t)(f[L - 1] >> 63), L);
  from_s62(r, d, n, L);
  gostx_memzero(f, sizeof f);
  gostx_memzero(g, sizeof g);
  gostx_memzero(d, sizeof d);
  gostx_memzero(e, sizeof e);
}

int gostx__fe_inv_divsteps(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  inv_divsteps(M, r, a, 0);
  return 0;
}

int gostx__fe_inv_divsteps_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  inv_divsteps(M, r, a, 1);
  return 0;
}

#else
int gostx__fe_inv_divsteps(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  (void)M, (void)r, (void)a;
  return -1; /* no 128-bit product: the caller takes Fermat's route */
}
int gostx__fe_inv_divsteps_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a) {
  (void)M, (void)r, (void)a;
  return -1; /* no 128-bit product: the caller takes the binary Euclid */
}
#endif
