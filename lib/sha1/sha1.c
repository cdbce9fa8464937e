/* SHA-1 (FIPS 180-4 section 6.1), legacy (sha1/sha1.h says for what).
 * Adds, rotations and bitwise operations only: no table indexed by data,
 * no branch on it (a password goes through the HMAC). */
#include "sha1/sha1.h"

#include <string.h>

#include "internal.h"

static uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* f_t and K_t of FIPS 180-4 4.1.1 and 4.2.1, by the round's quarter. */
static uint32_t round_f(int t, uint32_t b, uint32_t c, uint32_t d, uint32_t *k) {
  if (t < 20) return *k = 0x5a827999, (b & c) | (~b & d);
  if (t < 40) return *k = 0x6ed9eba1, b ^ c ^ d;
  if (t < 60) return *k = 0x8f1bbcdc, (b & c) | (b & d) | (c & d);
  return *k = 0xca62c1d6, b ^ c ^ d;
}

static void compress(uint32_t h[5], const uint8_t block[GOSTX__SHA1_BLOCK]) {
  uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], k;
  for (int t = 0; t < 16; t++) w[t] = gostx_load32_be(block + 4 * t);
  for (int t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  for (int t = 0; t < 80; t++) {
    uint32_t tmp = rotl(a, 5) + round_f(t, b, c, d, &k) + e + k + w[t];
    e = d, d = c, c = rotl(b, 30), b = a, a = tmp;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
  gostx_memzero(w, sizeof w);
}

void gostx__sha1_init(gostx__sha1_ctx *ctx) {
  static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  memset(ctx, 0, sizeof *ctx);
  memcpy(ctx->h, iv, sizeof iv);
}

void gostx__sha1_update(gostx__sha1_ctx *ctx, const void *data, size_t len) {
  gostx_md32_update(ctx->h, &ctx->m, compress, data, len);
}

void gostx__sha1_final(gostx__sha1_ctx *ctx, uint8_t out[GOSTX__SHA1_LEN]) {
  gostx_md32_final(ctx->h, &ctx->m, compress, 5, out);
  gostx_memzero(ctx, sizeof *ctx);
}

void gostx__sha1(const void *data, size_t len, uint8_t out[GOSTX__SHA1_LEN]) {
  gostx__sha1_ctx ctx;
  gostx__sha1_init(&ctx);
  gostx__sha1_update(&ctx, data, len);
  gostx__sha1_final(&ctx, out);
}

void gostx__hmac_sha1(const uint8_t *key, size_t key_len, const void *data, size_t len,
                      uint8_t out[GOSTX__SHA1_LEN]) {
  uint8_t k0[GOSTX__SHA1_BLOCK] = {0}, ipad[GOSTX__SHA1_BLOCK], opad[GOSTX__SHA1_BLOCK];
  uint8_t inner[GOSTX__SHA1_LEN];
  gostx__sha1_ctx ctx;
  if (key_len > GOSTX__SHA1_BLOCK) gostx__sha1(key, key_len, k0);
  else if (key_len) memcpy(k0, key, key_len);
  for (size_t i = 0; i < GOSTX__SHA1_BLOCK; i++)
    ipad[i] = (uint8_t)(k0[i] ^ 0x36), opad[i] = (uint8_t)(k0[i] ^ 0x5c);
  gostx__sha1_init(&ctx);
  gostx__sha1_update(&ctx, ipad, sizeof ipad);
  gostx__sha1_update(&ctx, data, len);
  gostx__sha1_final(&ctx, inner);
  gostx__sha1_init(&ctx);
  gostx__sha1_update(&ctx, opad, sizeof opad);
  gostx__sha1_update(&ctx, inner, sizeof inner);
  gostx__sha1_final(&ctx, out);
  gostx_memzero(k0, sizeof k0), gostx_memzero(ipad, sizeof ipad), gostx_memzero(opad, sizeof opad);
  gostx_memzero(inner, sizeof inner);
}
