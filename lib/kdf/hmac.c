/* HMAC_GOSTR3411_2012_256/512 (RFC 7836 section 4.1 = RFC 2104 with
 * Streebog, block size 64 bytes). Keys longer than a block are first hashed
 * with the same Streebog variant; shorter ones are padded with zeros. */
#include "internal.h"

#define HMAC_BLOCK GOSTX_STREEBOG_BLOCK_LEN

int gostx_hmac_init(gostx_hmac_ctx *ctx, size_t digest_len, const uint8_t *key, size_t key_len) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  if (digest_len != GOSTX_STREEBOG256_LEN && digest_len != GOSTX_STREEBOG512_LEN)
    return GOSTX_EINVAL;
  if (!key && key_len) return GOSTX_EINVAL;

  uint8_t k0[HMAC_BLOCK] = {0}, pad[HMAC_BLOCK];
  int rc = GOSTX_OK;
  if (key_len > HMAC_BLOCK)
    rc = gostx_streebog(digest_len, key, key_len, k0);
  else if (key_len)
    memcpy(k0, key, key_len);

  if (rc == GOSTX_OK) rc = gostx_streebog_init(&ctx->inner, digest_len);
  if (rc == GOSTX_OK) {
    for (size_t i = 0; i < HMAC_BLOCK; i++) pad[i] = (uint8_t)(k0[i] ^ 0x36);
    rc = gostx_streebog_update(&ctx->inner, pad, HMAC_BLOCK);
  }
  if (rc == GOSTX_OK) rc = gostx_streebog_init(&ctx->outer, digest_len);
  if (rc == GOSTX_OK) {
    for (size_t i = 0; i < HMAC_BLOCK; i++) pad[i] = (uint8_t)(k0[i] ^ 0x5c);
    rc = gostx_streebog_update(&ctx->outer, pad, HMAC_BLOCK);
  }
  gostx_memzero(k0, sizeof k0);
  gostx_memzero(pad, sizeof pad);
  if (rc != GOSTX_OK) gostx_hmac_clear(ctx);
  return rc;
}

int gostx_hmac_update(gostx_hmac_ctx *ctx, const void *data, size_t len) {
  if (!ctx) return GOSTX_EINVAL;
  return gostx_streebog_update(&ctx->inner, data, len);
}

int gostx_hmac_final(gostx_hmac_ctx *ctx, uint8_t *mac) {
  if (!ctx || !mac) return GOSTX_EINVAL;
  size_t dlen = ctx->inner.digest_len;
  if ((dlen != GOSTX_STREEBOG256_LEN && dlen != GOSTX_STREEBOG512_LEN) ||
      ctx->outer.digest_len != dlen)
    return GOSTX_ESTATE;
  uint8_t t[GOSTX_STREEBOG512_LEN];
  int rc = gostx_streebog_final(&ctx->inner, t);
  if (rc == GOSTX_OK) rc = gostx_streebog_update(&ctx->outer, t, dlen);
  if (rc == GOSTX_OK) rc = gostx_streebog_final(&ctx->outer, mac);
  gostx_memzero(t, sizeof t);
  gostx_hmac_clear(ctx);
  return rc;
}

void gostx_hmac_clear(gostx_hmac_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}

int gostx_hmac(size_t digest_len, const uint8_t *key, size_t key_len, const void *data,
               size_t len, uint8_t *mac) {
  if (!mac || (!data && len)) return GOSTX_EINVAL;
  gostx_hmac_ctx ctx;
  int rc = gostx_hmac_init(&ctx, digest_len, key, key_len);
  if (rc == GOSTX_OK) rc = gostx_hmac_update(&ctx, data, len);
  if (rc == GOSTX_OK) rc = gostx_hmac_final(&ctx, mac);
  gostx_hmac_clear(&ctx);
  return rc;
}

