/* The scalar helpers both curve models share (mul_weier.h, mul_edwards.h):
 * the signed odd-digit recoding and the width-w NAF of a scalar, the
 * portable masked scan of a table, odd scalars (k or q - k), and the
 * per-curve G tables' cache. No curve formula and no point type of a model
 * here, and no field operation of a row (Montgomery's batch inversion and
 * the select-and-negate are mul_template.h's, on the row's field). */
#include "gost3410/ec.h"

#include <pthread.h>
#include <string.h>


/* k as odd signed digits: k = sum d_i 2^(w i), each d_i odd in
 * [-(2^w - 1), 2^w - 1], for an odd k < 2^(64 n); GX_DIGITS_W(n, w) of
 * them. Every digit is nonzero, so each window adds a real point and no
 * window is skipped. Masks and shifts only: constant time in k. */
void gostx__sc_recode_odd_w(int8_t *dig, const uint64_t *k, int n, int w) {
  /* With t_0 = k, d_i = (t_i mod 2^(w+1)) - 2^w and t_(i+1) = (t_i - d_i)
   * / 2^w = 2 floor(t_i / 2^(w+1)) + 1, t_i is (k >> w i) | 1 for every i:
   * each digit is w + 1 bits of k read at a public position, bit 0 set. */
  int nd = GX_DIGITS_W(n, w);
  for (int i = 0; i < nd; i++) {
    int pos = w * i, limb = pos / 64, off = pos % 64; /* public */
    uint64_t v = k[limb] >> off;
    if (off + w + 1 > 64 && limb + 1 < n) v |= k[limb + 1] << (64 - off);
    v |= 1;
    /* the last digit is all that is left of k (a few bits: odd, positive) */
    dig[i] = (int8_t)(i < nd - 1 ? (int64_t)(v & ((2u << w) - 1)) - (1 << w) : (int64_t)v);
  }
}

void gostx__sc_recode_odd(int8_t *dig, const uint64_t *k, int n) { gostx__sc_recode_odd_w(dig, k, n, GX_W); }

/* The portable scan: a local accumulator (the compiler keeps it in vector
 * registers where it can), the size a run-time value: instantiating it per
 * constant size unrolled blocks past what valgrind's arm64 code generator
 * can spill (the CT gate's aarch64 run aborted in VEX). */
void gostx__sc_scan_portable(uint64_t *r, const uint64_t *tab, int entries, int limbs, uint64_t idx) {
  uint64_t acc[4 * GX_MAXN];
  for (int j = 0; j < limbs; j++) acc[j] = 0;
  for (uint64_t i = 0; i < (uint64_t)entries; i++) {
    uint64_t diff = i ^ idx;
    uint64_t mask = ((diff | (0 - diff)) >> 63) - 1; /* all-ones iff i == idx */
    const uint64_t *src = tab + i * (uint64_t)limbs;
    for (int j = 0; j < limbs; j++) acc[j] |= src[j] & mask;
  }
  memcpy(r, acc, (size_t)limbs * 8);
}



/* k or q - k, whichever is odd (q is odd); the mask says which (all-ones
 * when q - k was taken, so the result must be negated). */
uint64_t gostx__sc_make_odd(const gx_curve *C, uint64_t *r, const uint64_t *k) {
  uint64_t nk[GX_MAXN], bw = 0;
  int n = C->n;
  for (int i = 0; i < n; i++) {
    uint64_t d = C->q[i] - k[i], b2 = C->q[i] < k[i];
    uint64_t d2 = d - bw;
    b2 |= d < bw;
    bw = b2;
    nk[i] = d2;
  }
  uint64_t even = (k[0] & 1) - 1;
  memcpy(r, k, (size_t)n * 8);
  gostx__fe_cmov(r, nk, even, n);
  memset(nk, 0, sizeof nk);
  return even;
}

/* cnt <= 8 bits of k (n limbs) from bit pos; bits past the top read 0. */
static unsigned bits_at(const uint64_t *k, int n, int pos, int cnt) {
  int limb = pos / 64, off = pos % 64;
  if (limb >= n) return 0;
  uint64_t v = k[limb] >> off;
  if (off + cnt > 64 && limb + 1 < n) v |= k[limb + 1] << (64 - off);
  return (unsigned)v & ((1u << cnt) - 1);
}

/* Width-w NAF of a public scalar: digits odd in (-2^(w-1), 2^(w-1)) or 0,
 * nonzero ones at least w apart; returns the number of digits (at most 64
 * n + 1). Reads the scalar a window at a time with a carry instead of
 * subtracting each digit from a multi-limb copy (variable time: public). */
int gostx__sc_wnaf(int8_t *dig, const uint64_t *k, int n, int w) {
  int top = 64 * n, len = 0;
  unsigned carry = 0;
  memset(dig, 0, (size_t)top + 1);
  for (int bit = 0; bit <= top;) {
    if (bits_at(k, n, bit, 1) == carry) { /* k + carry 2^bit is even here */
      bit++;
      continue;
    }
    /* The window stops at digit 64 n: there it is below 2^(w - 1) (odd,
     * fewer than w bits), so it leaves no carry past the last digit. */
    int now = top + 1 - bit < w ? top + 1 - bit : w;
    int word = (int)(bits_at(k, n, bit, now) + carry); /* odd */
    carry = (unsigned)word >> (w - 1) & 1;
    word -= (int)(carry << w);
    dig[bit] = (int8_t)word;
    len = bit + 1;
    bit += now;
  }
  return len;
}


/* The per-curve G tables of both models, each built on the curve's first
 * use, under a lock. */
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *tables[GX_TABLE_KINDS][GX_NCURVES];

const uint64_t *gostx__sc_table(const gx_curve *C, int kind,
                                uint64_t *(*build)(const gx_curve *C)) {
  pthread_mutex_lock(&tables_lock);
  if (!tables[kind][C->index]) tables[kind][C->index] = build(C);
  const uint64_t *t = tables[kind][C->index];
  pthread_mutex_unlock(&tables_lock);
  return t;
}
