/* SHA-256 (FIPS 180-4 section 6.2) and HMAC-SHA256 (RFC 2104), written for
 * PBKDF2-HMAC-SHA256 alone (kdf/sha256.h says why). Every step is adds,
 * rotations and bitwise operations on the words, with no table indexed by
 * data and no branch on it: the password goes through here. */
#include "kdf/sha256.h"

#include "internal.h"

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t block[GOSTX__SHA256_BLOCK]) {
  uint32_t w[64], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int t = 0; t < 16; t++) w[t] = gostx_load32_be(block + 4 * t);
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  for (int t = 0; t < 64; t++) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
  gostx_memzero(w, sizeof w);
}

void gostx__sha256_init(gostx__sha256_ctx *ctx) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memset(ctx, 0, sizeof *ctx);
  memcpy(ctx->h, iv, sizeof iv);
}

void gostx__sha256_update(gostx__sha256_ctx *ctx, const void *data, size_t len) {
  gostx_md32_update(ctx->h, &ctx->m, compress, data, len);
}

void gostx__sha256_final(gostx__sha256_ctx *ctx, uint8_t out[GOSTX__SHA256_LEN]) {
  gostx_md32_final(ctx->h, &ctx->m, compress, 8, out);
  gostx_memzero(ctx, sizeof *ctx);
}

void gostx__sha256(const void *data, size_t len, uint8_t out[GOSTX__SHA256_LEN]) {
  gostx__sha256_ctx ctx;
  gostx__sha256_init(&ctx);
  gostx__sha256_update(&ctx, data, len);
  gostx__sha256_final(&ctx, out);
}

void gostx__hmac_sha256_init(gostx__hmac_sha256_ctx *ctx, const uint8_t *key, size_t key_len) {
  uint8_t k0[GOSTX__SHA256_BLOCK] = {0}, pad[GOSTX__SHA256_BLOCK];
  if (key_len > GOSTX__SHA256_BLOCK) gostx__sha256(key, key_len, k0);
  else if (key_len) memcpy(k0, key, key_len);
  gostx__sha256_init(&ctx->inner);
  gostx__sha256_init(&ctx->outer);
  for (size_t i = 0; i < GOSTX__SHA256_BLOCK; i++) pad[i] = (uint8_t)(k0[i] ^ 0x36);
  gostx__sha256_update(&ctx->inner, pad, sizeof pad);
  for (size_t i = 0; i < GOSTX__SHA256_BLOCK; i++) pad[i] = (uint8_t)(k0[i] ^ 0x5c);
  gostx__sha256_update(&ctx->outer, pad, sizeof pad);
  gostx_memzero(k0, sizeof k0);
  gostx_memzero(pad, sizeof pad);
}

void gostx__hmac_sha256_update(gostx__hmac_sha256_ctx *ctx, const void *data, size_t len) {
  gostx__sha256_update(&ctx->inner, data, len);
}

void gostx__hmac_sha256_final(gostx__hmac_sha256_ctx *ctx, uint8_t out[GOSTX__SHA256_LEN]) {
  uint8_t t[GOSTX__SHA256_LEN];
  gostx__sha256_final(&ctx->inner, t);
  gostx__sha256_update(&ctx->outer, t, sizeof t);
  gostx__sha256_final(&ctx->outer, out);
  gostx_memzero(t, sizeof t);
}
