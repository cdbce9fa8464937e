/* Points of y^2 = x^3 + a x + b in projective coordinates with the complete
 * addition law of Renes, Costello and Batina (2016, algorithm 1, any a): one
 * formula for P + Q, P + P and sums with infinity, so scalar multiplication
 * has no exceptional cases to branch on. (The formula is complete on points
 * of odd order; the cofactor-4 curves only ever feed it points of the order-q
 * subgroup: G, or a peer key multiplied by the cofactor first.) */
#include "gost3410/ec.h"

#include "internal.h"

#include <string.h>

void gx_point_add(const gx_curve *C, gx_point *r, const gx_point *P, const gx_point *Q) {
  const gx_mont *M = &C->fp;
  gx_fe t0, t1, t2, t3, t4, t5, X3, Y3, Z3;
  gx_mul(M, t0, P->X, Q->X);
  gx_mul(M, t1, P->Y, Q->Y);
  gx_mul(M, t2, P->Z, Q->Z);
  gx_add(M, t3, P->X, P->Y);
  gx_add(M, t4, Q->X, Q->Y);
  gx_mul(M, t3, t3, t4);
  gx_add(M, t4, t0, t1);
  gx_sub(M, t3, t3, t4);
  gx_add(M, t4, P->X, P->Z);
  gx_add(M, t5, Q->X, Q->Z);
  gx_mul(M, t4, t4, t5);
  gx_add(M, t5, t0, t2);
  gx_sub(M, t4, t4, t5);
  gx_add(M, t5, P->Y, P->Z);
  gx_add(M, X3, Q->Y, Q->Z);
  gx_mul(M, t5, t5, X3);
  gx_add(M, X3, t1, t2);
  gx_sub(M, t5, t5, X3);
  gx_mul(M, Z3, C->a, t4);
  gx_mul(M, X3, C->b3, t2);
  gx_add(M, Z3, X3, Z3);
  gx_sub(M, X3, t1, Z3);
  gx_add(M, Z3, t1, Z3);
  gx_mul(M, Y3, X3, Z3);
  gx_add(M, t1, t0, t0);
  gx_add(M, t1, t1, t0);
  gx_mul(M, t2, C->a, t2);
  gx_mul(M, t4, C->b3, t4);
  gx_add(M, t1, t1, t2);
  gx_sub(M, t2, t0, t2);
  gx_mul(M, t2, C->a, t2);
  gx_add(M, t4, t4, t2);
  gx_mul(M, t0, t1, t4);
  gx_add(M, Y3, Y3, t0);
  gx_mul(M, t0, t5, t4);
  gx_mul(M, X3, X3, t3);
  gx_sub(M, X3, X3, t0);
  gx_mul(M, t0, t3, t1);
  gx_mul(M, Z3, t5, Z3);
  gx_add(M, Z3, Z3, t0);
  memcpy(r->X, X3, sizeof X3);
  memcpy(r->Y, Y3, sizeof Y3);
  memcpy(r->Z, Z3, sizeof Z3);
}

static void set_infinity(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->Y, C->fp.one, sizeof r->Y);
}

void gx_point_from_affine(const gx_curve *C, gx_point *r, const uint64_t *x, const uint64_t *y) {
  memset(r, 0, sizeof *r);
  gx_to_mont(&C->fp, r->X, x);
  gx_to_mont(&C->fp, r->Y, y);
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

void gx_point_generator(const gx_curve *C, gx_point *r) {
  memset(r, 0, sizeof *r);
  memcpy(r->X, C->gx, sizeof r->X);
  memcpy(r->Y, C->gy, sizeof r->Y);
  memcpy(r->Z, C->fp.one, sizeof r->Z);
}

/* Fixed 4-bit windows from the top: 4 doublings and one addition of a table
 * entry per window. The entry is chosen by reading all 16 with masks, so
 * neither the branches nor the addresses depend on the scalar. */
void gx_point_mul(const gx_curve *C, gx_point *r, const uint64_t *k, const gx_point *P) {
  gx_point tab[16], acc, sel;
  int n = C->n;
  set_infinity(C, &tab[0]);
  tab[1] = *P;
  for (int i = 2; i < 16; i++) gx_point_add(C, &tab[i], &tab[i - 1], P);
  set_infinity(C, &acc);
  for (int w = 16 * n - 1; w >= 0; w--) {
    for (int d = 0; d < 4; d++) gx_point_add(C, &acc, &acc, &acc);
    uint64_t nib = (k[w / 16] >> (4 * (w % 16))) & 15;
    GOSTX_CT_PLANT(GOSTX_PLANT_GOST3410, &nib, 1); /* little-endian: the low byte */
    memset(&sel, 0, sizeof sel);
    for (uint64_t i = 0; i < 16; i++) {
      uint64_t diff = i ^ nib;
      uint64_t mask = ((diff | (0 - diff)) >> 63) - 1; /* all-ones iff i == nib */
      const uint64_t *src = (const uint64_t *)&tab[i];
      uint64_t *dst = (uint64_t *)&sel;
      for (size_t j = 0; j < sizeof sel / 8; j++) dst[j] |= src[j] & mask;
    }
    gx_point_add(C, &acc, &acc, &sel);
  }
  *r = acc;
  memset(tab, 0, sizeof tab);
  memset(&sel, 0, sizeof sel);
}

uint64_t gx_point_to_affine(const gx_curve *C, uint64_t *x, uint64_t *y, const gx_point *P) {
  gx_fe zi, t;
  uint64_t inf = gx_is_zero(P->Z, C->n);
  gx_inv(&C->fp, zi, P->Z);
  gx_mul(&C->fp, t, P->X, zi);
  gx_from_mont(&C->fp, x, t);
  gx_mul(&C->fp, t, P->Y, zi);
  gx_from_mont(&C->fp, y, t);
  return inf;
}

int gx_on_curve(const gx_curve *C, const uint64_t *x, const uint64_t *y) {
  const gx_mont *M = &C->fp;
  int n = C->n;
  if (!gx_lt(x, M->m, n) || !gx_lt(y, M->m, n)) return 0;
  gx_fe X, Y, l, r;
  gx_to_mont(M, X, x);
  gx_to_mont(M, Y, y);
  gx_mul(M, l, Y, Y);
  gx_mul(M, r, X, X);
  gx_add(M, r, r, C->a);
  gx_mul(M, r, r, X);
  gx_add(M, r, r, C->b);
  gx_sub(M, l, l, r);
  return gx_is_zero(l, n) != 0;
}
