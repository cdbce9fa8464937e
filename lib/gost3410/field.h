/* GOST R 34.10-2012's field: Montgomery arithmetic modulo a public odd
 * modulus of 4 or 8 64-bit limbs (used for both p and q; for p = 2^(64 n) - c
 * a folding reduction with R = 1, the same calls). Knows no curve: the
 * curve code sits above it (ec.h). Not installed. */
#ifndef GOSTX_GOST3410_FIELD_H
#define GOSTX_GOST3410_FIELD_H

#include <stdint.h>

#define GX_MAXN 8 /* limbs of the largest (512-bit) modulus */

typedef uint64_t gx_fe[GX_MAXN]; /* little-endian limbs; only n are used */

typedef struct gx_mont {
  int n;          /* limbs: 4 or 8 */
  uint64_t m[GX_MAXN];
  uint64_t m0inv; /* -m^-1 mod 2^64 */
  uint64_t c;     /* nonzero when m = 2^(64 n) - c: then R = 1 (plain residues) */
  uint64_t one[GX_MAXN]; /* R mod m (1 in Montgomery form), R = 2^(64 n) */
  uint64_t r2[GX_MAXN];  /* R^2 mod m */
  uint64_t r3[GX_MAXN];  /* R^3 mod m */
} gx_mont;

/* gostx__fe_mul and gostx__fe_sqr through MULX/ADX (field_x86_64.c; x86-64
 * only): the MULX rows' (field_mulx.h), on CPUs with both. */
void gostx__fe_mul_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gostx__fe_sqr_mulx(const gx_mont *M, uint64_t *r, const uint64_t *a);

void gostx__fe_mont_init(gx_mont *M, const uint64_t *m, int n);
void gostx__fe_mul(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b); /* a b / R */
void gostx__fe_sqr(const gx_mont *M, uint64_t *r, const uint64_t *a); /* a a / R */
void gostx__fe_add(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gostx__fe_sub(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *b);
void gostx__fe_to_mont(const gx_mont *M, uint64_t *r, const uint64_t *a);   /* a < R */
void gostx__fe_from_mont(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = (a mod m) in normal form for a 2n-limb number (wide reduction). */
void gostx__fe_reduce_wide(const gx_mont *M, uint64_t *r, const uint64_t *lo, const uint64_t *hi);
/* r = a^-1 = a^(m - 2) for prime m (Montgomery form in and out), 0 for 0;
 * constant time in a: division steps (gostx__fe_inv_divsteps), or Fermat's power
 * where the build has no 128-bit product. */
void gostx__fe_inv(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = a^-1 mod m for 0 <= a < m (normal form in and out; 0 for 0) by
 * division steps, constant time (field_inv.c); -1 (nothing written) where
 * the build has no 128-bit product. */
int gostx__fe_inv_divsteps(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* The same for a public a, stopping as soon as the answer is known (about
 * two thirds of the fixed count): -1 without a 128-bit product. */
int gostx__fe_inv_divsteps_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a);
/* r = a^e for a public exponent e of n limbs (Montgomery form in and out). */
void gostx__fe_pow(const gx_mont *M, uint64_t *r, const uint64_t *a, const uint64_t *e);
/* All-ones when a (n limbs) is zero / a < m, else 0; no branches. */
uint64_t gostx__fe_is_zero(const uint64_t *a, int n);
uint64_t gostx__fe_lt(const uint64_t *a, const uint64_t *b, int n);
/* Big-endian bytes (8 n of them) <-> limbs. */
void gostx__fe_load_be(uint64_t *r, const uint8_t *in, int n);
void gostx__fe_store_be(uint8_t *out, const uint64_t *a, int n);
/* r = mask ? a : r, n limbs. */
void gostx__fe_cmov(uint64_t *r, const uint64_t *a, uint64_t mask, int n);

/* r = a^-1 mod M's modulus (normal form in and out) for a public a < m;
 * variable time. 0 for 0. gostx__fe_inv_vartime: the binary extended Euclid (the
 * tests' second opinion); gostx__fe_inv_public: the variable-time division steps,
 * ~4x faster, Euclid where the build has no 128-bit product. */
void gostx__fe_inv_vartime(const gx_mont *M, uint64_t *r, const uint64_t *a);
void gostx__fe_inv_public(const gx_mont *M, uint64_t *r, const uint64_t *a);

#endif
