/* Streebog's compression g_N: every implementation this machine runs
 * against the portable one (random, all-zero and all-ones h/N/m, misaligned
 * buffers, chained calls), the streebog.json examples and messages of many
 * lengths hashed through each implementation with a small driver written
 * here from the standard's stages, itself checked against the library's
 * gostx_streebog. An implementation the CPU cannot run (the AVX-512 row on
 * older CPUs) is skipped, by the dispatcher's own test. */
#include <stdlib.h>

#include "streebog/impl.h"
#include "rows.h"
#include "testutil.h"
#include "dispatch.h"

typedef void (*compress_fn)(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]);

/* a += b mod 2^512, little-endian, bytewise (independent of streebog.c). */
static void add512(uint8_t a[64], const uint8_t b[64]) {
  unsigned carry = 0;
  for (int i = 0; i < 64; i++) {
    carry += (unsigned)a[i] + b[i];
    a[i] = (uint8_t)carry;
    carry >>= 8;
  }
}

/* GOST R 34.11-2012 stages 1-3 around f, digest in gost-engine's byte order. */
static void drive(compress_fn f, size_t dlen, const uint8_t *msg, size_t len, uint8_t *digest) {
  uint8_t h[64], n[64] = {0}, sigma[64] = {0}, blk[64], bits[64] = {0}, zero[64] = {0};
  memset(h, dlen == 32 ? 0x01 : 0x00, 64);
  for (; len >= 64; msg += 64, len -= 64) {
    f(h, n, msg);
    memset(bits, 0, 64);
    bits[1] = 0x02; /* 512 */
    add512(n, bits);
    add512(sigma, msg);
  }
  memset(blk, 0, 64);
  memcpy(blk, msg, len);
  blk[len] = 0x01;
  f(h, n, blk);
  memset(bits, 0, 64);
  bits[0] = (uint8_t)(8 * len);
  bits[1] = (uint8_t)((8 * len) >> 8);
  add512(n, bits);
  add512(sigma, blk);
  f(h, zero, n);
  f(h, zero, sigma);
  memcpy(digest, h + 64 - dlen, dlen);
}

static void test_vectors(const struct gostx_streebog_impl *impl) {
  tv_iter it = tv_open("streebog.json");
  for (json *tc; (tc = tv_next(&it)) != NULL;) {
    size_t mlen, dlen;
    uint8_t *msg = tv_hex(tc, "message_bytes", &mlen), *want = tv_hex(tc, "digest_bytes", &dlen);
    uint8_t got[64];
    CHECK(dlen == 32 || dlen == 64, "digest length");
    drive(impl->compress, dlen, msg, mlen, got);
    CHECK_BYTES(got, want, dlen, impl->name);
    free(msg);
    free(want);
  }
  tv_close(&it);
}

static void fill(uint8_t *p, int pattern) {
  if (pattern == 0) memset(p, 0, 64);
  else if (pattern == 1) memset(p, 0xff, 64);
  else t_rand_bytes(p, 64);
}

static void test_vs_portable(const struct gostx_streebog_impl *impl) {
  static uint8_t buf[3][64 + 8];
  int bad = 0;
  for (int t = 0; t < 600; t++) {
    /* The first 27 rounds walk every mix of zero / ones / random inputs. */
    int ph = t < 27 ? t % 3 : 2, pn = t < 27 ? (t / 3) % 3 : 2, pm = t < 27 ? t / 9 : 2;
    uint8_t *h = buf[0] + t % 8, *n = buf[1] + (t / 8) % 8, *m = buf[2] + (t / 64) % 8;
    uint8_t want[64];
    fill(h, ph);
    fill(n, pn);
    fill(m, pm);
    memcpy(want, h, 64);
    gostx_streebog_portable.compress(want, n, m);
    impl->compress(h, n, m);
    if (memcmp(h, want, 64) && bad++ < 3) CHECK_BYTES(h, want, 64, impl->name);
  }
  CHECK(bad == 0, "%s compress vs portable: %d mismatches", impl->name, bad);
  /* A long chain: any difference would persist and grow. */
  uint8_t ha[64] = {0}, hb[64] = {0}, n[64] = {0}, m[64];
  for (int i = 0; i < 2000; i++) {
    t_rand_bytes(m, 64);
    n[i % 64] ^= (uint8_t)i;
    gostx_streebog_portable.compress(ha, n, m);
    impl->compress(hb, n, m);
  }
  CHECK_BYTES(hb, ha, 64, "chained compressions");
}

/* The driver agrees with the library (so it can judge the implementations). */
static void test_driver(void) {
  uint8_t msg[300], a[64], b[64];
  for (size_t len = 0; len <= sizeof msg; len += 1 + len / 3) {
    t_rand_bytes(msg, len);
    for (size_t dlen = 32; dlen <= 64; dlen += 32) {
      drive(gostx_streebog_portable.compress, dlen, msg, len, a);
      CHECK_RC(gostx_streebog(dlen, msg, len, b), 0, "gostx_streebog");
      CHECK_BYTES(a, b, dlen, "driver vs library");
    }
  }
}

/* Whole hashes of every length 0..MAXLEN (and a few long ones) through
 * impl's compress, against the portable one: every padding position and
 * the N / Sigma carries of multi-block messages. */
#define MAXLEN 300
static void test_lengths(const struct gostx_streebog_impl *impl) {
  static uint8_t msg[4096];
  uint8_t a[64], b[64];
  t_rand_bytes(msg, sizeof msg);
  for (size_t len = 0; len <= sizeof msg; len += len < MAXLEN ? 1 : 1 + len / 2) {
    for (size_t dlen = 32; dlen <= 64; dlen += 32) {
      drive(gostx_streebog_portable.compress, dlen, msg, len, a);
      drive(impl->compress, dlen, msg, len, b);
      if (memcmp(a, b, dlen)) {
        CHECK_BYTES(b, a, dlen, impl->name);
        printf("  (length %zu, digest %zu)\n", len, dlen);
        return;
      }
    }
  }
}

/* Whole hashes through the library at every message alignment against the
 * portable driver: the dispatched compression reads the message in place
 * for full blocks, so its unaligned loads are exercised here. */
static void test_alignments(void) {
  static uint8_t buf[1024 + 64];
  uint8_t a[64], b[64];
  t_rand_bytes(buf, sizeof buf);
  for (size_t off = 0; off < 64; off++)
    for (size_t len = off % 7; len <= 1024; len += 61 + off) {
      drive(gostx_streebog_portable.compress, 64, buf + off, len, a);
      CHECK_RC(gostx_streebog(64, buf + off, len, b), 0, "gostx_streebog");
      if (memcmp(a, b, 64)) {
        CHECK_BYTES(b, a, 64, "library at an unaligned message");
        printf("  (offset %zu, length %zu)\n", off, len);
        return;
      }
    }
}

/* The table method (its lookups are indexed by the hash state, a cache-timing
 * leak for HMAC, the KDFs and PBKDF2) is portable's and the opt-in sbtable's:
 * every row above the portable level is table-free, so wherever such a row
 * runs, the default must be one of them. */
static void test_constant_time_default(const struct gostx_streebog_impl *d) {
  struct gostx__row_info info;
  const void *impl;
  int simd_here = 0, d_simd = 0;
  for (size_t i = 0; (impl = gostx__impl_row_info(GOSTX_ALG_STREEBOG, i, &info)) != NULL; i++) {
    if (!strcmp(info.name, "sbtable")) CHECK(info.opt_in, "sbtable is opt-in");
    const int simd = !info.opt_in && strcmp(info.level, "portable") != 0;
    simd_here |= simd && info.usable;
    if (impl == d) d_simd = simd;
  }
  const char *lvl = getenv("GOSTX_IMPL");
  if (lvl && *lvl && (!strcmp(lvl, "portable") || !gostx__level_supported(lvl))) return; /* or a name */
  if (!simd_here) return; /* portable is all there is */
  CHECK(d_simd, "GOSTX_IMPL=%s runs a table-free Streebog, not %s", lvl ? lvl : "(unset)", d->name);
}

int main(void) {
  struct t_row impls[T_MAX_ROWS];
  t_rand_init();
  const size_t count = t_rows(GOSTX_ALG_STREEBOG, NULL, impls);
  test_driver();
  test_alignments();
  for (size_t i = 0; i < count; i++) {
    const struct gostx_streebog_impl *im = impls[i].impl;
    test_vectors(im);
    test_vs_portable(im);
    test_lengths(im);
    t_row_checked(GOSTX_ALG_STREEBOG, im);
  }
  t_rows_all_checked(GOSTX_ALG_STREEBOG, NULL);
  const struct gostx_streebog_impl *d = gostx__dispatch()->streebog;
  int listed = 0;
  for (size_t i = 0; i < count; i++) listed |= impls[i].impl == d;
  CHECK(listed, "the dispatched implementation (%s) is one checked here", d->name);
  test_constant_time_default(d);
  /* Which row the dispatcher must choose at each level: test_dispatch. */
  return t_done();
}
