/* MGM's field multiply-accumulate, portable C (the reference for the fast
 * paths in mgm_clmul.c and mgm_vpclmul.c):
 *
 *   acc ^= sum_i H_i (x) X_i   in GF(2^128) mod x^128 + x^7 + x^2 + x + 1
 *                              or GF(2^64)  mod x^64 + x^4 + x^3 + x + 1,
 *
 * every value a big-endian block (byte 0 holds the top coefficients). The
 * products are summed unreduced and reduced once per call: reduction is
 * linear, so this equals reducing each product.
 *
 * The carry-less multiply uses integer multiplies on masked operands (or a
 * bit-serial loop with masks without 128-bit integers): no branch and no
 * memory index depends on secret data. */
#include "mgm/impl.h"

/* GOSTX_NO_INT128 forces the fallback below (scripts/check_pedantic.sh builds
 * and tests it); __extension__ keeps -std=c11 -pedantic builds clean. */
#if defined(__SIZEOF_INT128__) && defined(__GNUC__) && !defined(GOSTX_NO_INT128)
/* Carry-less 64x64 -> 128-bit product from ordinary integer multiplies.
 * Each operand is split into five interleaved bit classes (every fifth bit).
 * In one partial product x_i * y_j at most 13 bit pairs meet at any result
 * position, so the integer sum there stays below 32 and its carries never
 * reach the next position of the same class (5 bits up): the bit at each
 * position of class (i + j) mod 5 is the exact carry-less parity. XOR the
 * partial products of each class, keep that class's positions, done.
 * Constant time wherever the integer multiply is (all 64-bit x86 and ARM). */
__extension__ typedef unsigned __int128 gf_u128;

static gf_u128 clmul64(uint64_t x, uint64_t y) {
  static const uint64_t m[5] = {0x1084210842108421u, 0x2108421084210842u, 0x4210842108421084u,
                                0x8421084210842108u, 0x0842108421084210u};
  uint64_t xs[5], ys[5];
  gf_u128 z = 0;
  for (int i = 0; i < 5; i++) {
    xs[i] = x & m[i];
    ys[i] = y & m[i];
  }
  for (int k = 0; k < 5; k++) {
    gf_u128 acc = 0;
    for (int i = 0; i < 5; i++) acc ^= (gf_u128)xs[i] * ys[(k - i + 5) % 5];
    /* Result positions of class k: low word as m[k]; the high word starts
     * at bit 64, which is class 4, so it takes m[(k + 1) % 5]. */
    z |= acc & (((gf_u128)m[(k + 1) % 5] << 64) | m[k]);
  }
  return z;
}

/* p[0..3] ^= (ah, al) * (bh, bl), the unreduced 256-bit product (Karatsuba). */
static void gf128_mul_acc_words(uint64_t p[4], uint64_t ah, uint64_t al, uint64_t bh,
                                uint64_t bl) {
  gf_u128 lo = clmul64(al, bl), hi = clmul64(ah, bh);
  gf_u128 mid = clmul64(ah ^ al, bh ^ bl) ^ lo ^ hi;
  p[0] ^= (uint64_t)lo;
  p[1] ^= (uint64_t)(lo >> 64) ^ (uint64_t)mid;
  p[2] ^= (uint64_t)hi ^ (uint64_t)(mid >> 64);
  p[3] ^= (uint64_t)(hi >> 64);
}

/* p[0..1] ^= a * b, the unreduced 127-bit product. */
static void gf64_mul_acc_words(uint64_t p[2], uint64_t a, uint64_t b) {
  gf_u128 z = clmul64(a, b);
  p[0] ^= (uint64_t)z;
  p[1] ^= (uint64_t)(z >> 64);
}

#else
/* No 128-bit integers: bit-serial with masks. The 64x64 product is built
 * unreduced, walking b from x^0 up and shifting a 128-bit copy of a. */
static void clmul64_words(uint64_t *zh, uint64_t *zl, uint64_t a, uint64_t b) {
  uint64_t ah = 0, al = a, h = 0, l = 0;
  for (int i = 0; i < 64; i++) {
    uint64_t take = 0 - ((b >> i) & 1);
    h ^= ah & take;
    l ^= al & take;
    ah = (ah << 1) | (al >> 63);
    al <<= 1;
  }
  *zh = h;
  *zl = l;
}

static void gf128_mul_acc_words(uint64_t p[4], uint64_t ah, uint64_t al, uint64_t bh,
                                uint64_t bl) {
  uint64_t h, l;
  clmul64_words(&h, &l, al, bl);
  p[0] ^= l; p[1] ^= h;
  clmul64_words(&h, &l, ah, bh);
  p[2] ^= l; p[3] ^= h;
  clmul64_words(&h, &l, ah, bl);
  p[1] ^= l; p[2] ^= h;
  clmul64_words(&h, &l, al, bh);
  p[1] ^= l; p[2] ^= h;
}

static void gf64_mul_acc_words(uint64_t p[2], uint64_t a, uint64_t b) {
  uint64_t h, l;
  clmul64_words(&h, &l, a, b);
  p[0] ^= l;
  p[1] ^= h;
}
#endif

/* (p3, p2, p1, p0) mod x^128 + x^7 + x^2 + x + 1 into (*rh, *rl): x^128 =
 * x^7 + x^2 + x + 1, so fold p3 into p2:p1, then p2 into p1:p0. */
static void gf128_reduce(uint64_t *rh, uint64_t *rl, const uint64_t p[4]) {
  uint64_t p0 = p[0], p1 = p[1], p2 = p[2], p3 = p[3];
  p2 ^= (p3 >> 63) ^ (p3 >> 62) ^ (p3 >> 57);
  p1 ^= p3 ^ (p3 << 1) ^ (p3 << 2) ^ (p3 << 7);
  p1 ^= (p2 >> 63) ^ (p2 >> 62) ^ (p2 >> 57);
  p0 ^= p2 ^ (p2 << 1) ^ (p2 << 2) ^ (p2 << 7);
  *rh = p1;
  *rl = p0;
}

/* (hi, lo) mod x^64 + x^4 + x^3 + x + 1: fold hi (its top spills 4 bits),
 * then the spill. */
static uint64_t gf64_reduce(uint64_t hi, uint64_t lo) {
  uint64_t spill = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);
  lo ^= hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
  lo ^= spill ^ (spill << 1) ^ (spill << 3) ^ (spill << 4);
  return lo;
}

static void mul_acc128(uint8_t acc[16], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  uint64_t p[4] = {gostx_load64_be(acc + 8), gostx_load64_be(acc), 0, 0};
  uint64_t rh, rl;
  for (size_t i = 0; i < nblocks; i++, h += 16, x += 16)
    gf128_mul_acc_words(p, gostx_load64_be(h), gostx_load64_be(h + 8), gostx_load64_be(x),
                        gostx_load64_be(x + 8));
  gf128_reduce(&rh, &rl, p);
  gostx_store64_be(acc, rh);
  gostx_store64_be(acc + 8, rl);
}

static void mul_acc64(uint8_t acc[8], const uint8_t *h, const uint8_t *x, size_t nblocks) {
  uint64_t p[2] = {gostx_load64_be(acc), 0};
  for (size_t i = 0; i < nblocks; i++, h += 8, x += 8)
    gf64_mul_acc_words(p, gostx_load64_be(h), gostx_load64_be(x));
  gostx_store64_be(acc, gf64_reduce(p[1], p[0]));
}

const struct gostx_mgm_impl gostx_mgm_portable = {"portable", mul_acc128, mul_acc64};

/* Single products for tests, through the same code. */
void gostx__mgm_gf128_mul(uint8_t r[16], const uint8_t a[16], const uint8_t b[16]) {
  uint8_t acc[16] = {0};
  mul_acc128(acc, a, b, 1);
  memcpy(r, acc, 16);
}

void gostx__mgm_gf64_mul(uint8_t r[8], const uint8_t a[8], const uint8_t b[8]) {
  uint8_t acc[8] = {0};
  mul_acc64(acc, a, b, 1);
  memcpy(r, acc, 8);
}
