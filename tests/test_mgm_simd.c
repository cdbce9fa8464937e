/* MGM's multiply-accumulate: every implementation this CPU can run (the
 * dispatcher's rows, tests/support/rows.h) against
 * the portable one (random, dense and sparse operands, every count 0..100:
 * all counts around the 4-, 8- and 16-block steps of the vector loops,
 * misaligned buffers, a running accumulator), the portable one's aggregated
 * reduction against single products, and the RFC 9058 examples computed
 * through each implementation's mul_acc. */
#include <stdlib.h>

#include "mgm/impl.h"
#include "mgm/mgm_internal.h"
#include "rows.h"
#include "testutil.h"
#include "dispatch.h"

#define MAXN 100 /* blocks per call: covers every count around the unroll widths */

/* Operand patterns: 0 random, 1 all ones (the largest product, the most
 * reduction), 2 one random bit per block, 3 top bits only (x^127 / x^63,
 * everything spills into the reduction), 4 random with whole zero blocks. */
static void fill(uint8_t *p, size_t nblocks, size_t n, int pattern) {
  t_rand_bytes(p, nblocks * n);
  for (size_t i = 0; i < nblocks; i++) {
    uint8_t *b = p + i * n;
    switch (pattern) {
      case 1: memset(b, 0xff, n); break;
      case 2: memset(b, 0, n); b[t_rand_below(n)] = (uint8_t)(1u << t_rand_below(8)); break;
      case 3: memset(b, 0, n); b[0] = (uint8_t)(0x80 | t_rand()); break;
      case 4: if (t_rand_below(3) == 0) memset(b, 0, n); break;
      default: break;
    }
  }
}

/* Each implementation vs portable, both field sizes, all counts and
 * patterns, at offsets 0..3 from an aligned buffer. */
static void test_vs_portable(const struct gostx_mgm_impl *impl) {
  static uint8_t hbuf[MAXN * 16 + 64], xbuf[MAXN * 16 + 64];
  for (size_t n = 8; n <= 16; n += 8) {
    int bad = 0;
    for (size_t count = 0; count <= MAXN; count++) {
      for (int pattern = 0; pattern < 5; pattern++) {
        size_t ho = t_rand_below(4), xo = t_rand_below(4);
        uint8_t *h = hbuf + ho, *x = xbuf + xo;
        uint8_t acc0[16], want[16], got[16];
        fill(h, count, n, pattern);
        fill(x, count, n, pattern == 3 ? 3 : (pattern + count) % 5);
        t_rand_bytes(acc0, n);
        if (pattern == 1) memset(acc0, 0xff, n);
        memcpy(want, acc0, n);
        memcpy(got, acc0, n);
        if (n == 16) {
          gostx_mgm_portable.mul_acc128(want, h, x, count);
          impl->mul_acc128(got, h, x, count);
        } else {
          gostx_mgm_portable.mul_acc64(want, h, x, count);
          impl->mul_acc64(got, h, x, count);
        }
        if (memcmp(got, want, n)) {
          if (bad++ < 3) {
            CHECK_BYTES(got, want, n, impl->name);
            fprintf(stderr, "  n=%zu count=%zu pattern=%d\n", n, count, pattern);
          }
        }
      }
    }
    CHECK(bad == 0, "%s mul_acc%zu vs portable: %d mismatches", impl->name, 8 * n, bad);
  }
  /* Splitting a run anywhere gives the same sum (the accumulator carries). */
  for (size_t n = 8; n <= 16; n += 8) {
    uint8_t one[16], split[16];
    fill(hbuf, MAXN, n, 0);
    fill(xbuf, MAXN, n, 0);
    memset(one, 0, sizeof one);
    if (n == 16) impl->mul_acc128(one, hbuf, xbuf, MAXN);
    else impl->mul_acc64(one, hbuf, xbuf, MAXN);
    for (size_t cut = 0; cut <= MAXN; cut += 7) {
      memset(split, 0, sizeof split);
      if (n == 16) {
        impl->mul_acc128(split, hbuf, xbuf, cut);
        impl->mul_acc128(split, hbuf + 16 * cut, xbuf + 16 * cut, MAXN - cut);
      } else {
        impl->mul_acc64(split, hbuf, xbuf, cut);
        impl->mul_acc64(split, hbuf + 8 * cut, xbuf + 8 * cut, MAXN - cut);
      }
      CHECK_BYTES(split, one, n, "split run");
    }
  }
}

/* The portable sum with one reduction equals the sum of single products
 * (each checked against a textbook multiply in test_mgm.c). */
static void test_portable_aggregation(void) {
  uint8_t h[40 * 16], x[40 * 16];
  for (size_t n = 8; n <= 16; n += 8) {
    for (size_t count = 0; count <= 40; count++) {
      uint8_t want[16] = {0}, got[16] = {0}, prod[16];
      fill(h, count, n, (int)(count % 5));
      fill(x, count, n, (int)((count / 5) % 5));
      for (size_t i = 0; i < count; i++) {
        if (n == 16) gostx__mgm_gf128_mul(prod, h + 16 * i, x + 16 * i);
        else gostx__mgm_gf64_mul(prod, h + 8 * i, x + 8 * i);
        for (size_t j = 0; j < n; j++) want[j] ^= prod[j];
      }
      if (n == 16) gostx_mgm_portable.mul_acc128(got, h, x, count);
      else gostx_mgm_portable.mul_acc64(got, h, x, count);
      CHECK_BYTES(got, want, n, "portable aggregated sum");
    }
  }
}

/* RFC 9058 examples with the tag computed here, block by block from the
 * cipher, and the sum by impl's mul_acc over the whole padded string
 * A || C || len(A) || len(C) in one call. */
static void test_vectors(const struct gostx_mgm_impl *impl) {
  json *file = tv_load("mgm.json");
  json *cases = tv_cases(file);
  for (size_t k = 0; k < json_len(cases); k++) {
    json *tc = json_at(cases, k);
    size_t klen, nlen, alen, plen, clen, tlen;
    uint8_t *key = tv_hex(tc, "key", &klen), *nonce = tv_hex(tc, "nonce", &nlen);
    uint8_t *aad = tv_hex(tc, "associated_data", &alen), *pt = tv_hex(tc, "plaintext", &plen);
    uint8_t *ct = tv_hex(tc, "ciphertext", &clen), *tag = tv_hex(tc, "tag", &tlen);
    gostx_cipher c;
    CHECK_RC(gostx_cipher_init(&c, gostx_alg_by_name(tv_str(tc, "cipher")), key), 0, "init");
    const size_t n = c.block_len, h2 = n / 2;
    size_t ab = (alen + n - 1) / n, cb = (clen + n - 1) / n, total = ab + cb + 1;
    uint8_t *blocks = calloc(total, n), *hs = malloc(total * n);
    uint8_t y1[16], z[16], sum[16] = {0}, got[16];
    memcpy(blocks, aad, alen);
    memcpy(blocks + ab * n, ct, clen);
    for (size_t i = 0; i < h2; i++) { /* lengths in bits, big-endian halves */
      blocks[(total - 1) * n + h2 - 1 - i] = (uint8_t)(((uint64_t)alen * 8) >> (8 * i));
      blocks[total * n - 1 - i] = (uint8_t)(((uint64_t)clen * 8) >> (8 * i));
    }
    CHECK_RC(gostx__mgm_y1z1(&c, nonce, nlen, y1, z), 0, "y1z1");
    for (size_t i = 0; i < total; i++) { /* H_i = E(Z_i), Z counts in its left half */
      gostx_cipher_encrypt_blocks(&c, z, 1, hs + i * n);
      for (size_t j = h2; j-- > 0;)
        if (++z[j]) break;
    }
    if (n == 16) impl->mul_acc128(sum, hs, blocks, total);
    else impl->mul_acc64(sum, hs, blocks, total);
    gostx_cipher_encrypt_blocks(&c, sum, 1, got);
    CHECK(tlen == n, "tag length");
    CHECK_BYTES(got, tag, n, impl->name);
    gostx_cipher_clear(&c);
    free(blocks); free(hs);
    free(key); free(nonce); free(aad); free(pt); free(ct); free(tag);
  }
  json_free(file);
}

int main(void) {
  struct t_row rows[T_MAX_ROWS];
  t_rand_init();
  const size_t count = t_rows(GOSTX_ALG_MGM, NULL, rows);
  const struct gostx_mgm_impl *d = gostx__dispatch()->mgm;
  CHECK(d && d->mul_acc128 && d->mul_acc64, "dispatch has an MGM implementation");
  CHECK(d && !strcmp(gostx_impl(GOSTX_ALG_MGM), d->name), "gostx_impl names the running table");
  test_portable_aggregation();
  for (size_t i = 0; i < count; i++) {
    const struct gostx_mgm_impl *impl = rows[i].impl;
    test_vectors(impl);
    test_vs_portable(impl);
    t_row_checked(GOSTX_ALG_MGM, impl);
  }
  /* Which row the dispatcher must choose at each level: test_dispatch. */
  t_rows_all_checked(GOSTX_ALG_MGM, NULL);
  return t_done();
}
