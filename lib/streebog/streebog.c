/* Streebog-256/512 (GOST R 34.11-2012, RFC 6986): the iteration around the
 * compression function g_N. Byte order: the message is hashed in the order
 * given; each 64-byte block is the little-endian 512-bit integer the standard
 * calls m, and the digest is h's little-endian bytes (the top 32 bytes for
 * Streebog-256). This is gost-engine's order; RFC 6986 prints all values
 * byte-reversed. The compression itself lives behind the dispatcher. */
#include "streebog/impl.h"
#include "dispatch.h"

/* dst += src (mod 2^512), both little-endian 64-byte strings. */
static void add512(uint8_t dst[64], const uint8_t src[64]) { gostx_add_le(dst, src, 8); }

/* N += bits (a small public count: the block length in bits). */
static void add512_small(uint8_t n[64], uint64_t bits) {
  uint8_t v[64] = {0};
  gostx_store64_le(v, bits);
  add512(n, v);
}

static void compress(uint8_t h[64], const uint8_t n[64], const uint8_t m[64]) {
  gostx__dispatch()->streebog->compress(h, n, m);
}

int gostx_streebog_init(gostx_streebog_ctx *ctx, size_t digest_len) {
  if (!ctx) return GOSTX_EINVAL;
  if (digest_len != GOSTX_STREEBOG256_LEN && digest_len != GOSTX_STREEBOG512_LEN) {
    gostx_memzero(ctx, sizeof *ctx);
    return GOSTX_EINVAL;
  }
  memset(ctx, 0, sizeof *ctx);
  /* IV: 0^512 for Streebog-512, (00000001)^64 for Streebog-256. */
  if (digest_len == GOSTX_STREEBOG256_LEN) memset(ctx->h, 0x01, sizeof ctx->h);
  ctx->digest_len = digest_len;
  return GOSTX_OK;
}

/* One full block of the message: stage 2 of the standard. */
static void process_block(gostx_streebog_ctx *ctx, const uint8_t m[64]) {
  compress(ctx->h, ctx->n, m);
  add512_small(ctx->n, 512);
  add512(ctx->sigma, m);
}

int gostx_streebog_update(gostx_streebog_ctx *ctx, const void *data, size_t len) {
  if (!ctx || (!data && len)) return GOSTX_EINVAL;
  if (ctx->digest_len != GOSTX_STREEBOG256_LEN && ctx->digest_len != GOSTX_STREEBOG512_LEN)
    return GOSTX_ESTATE; /* not initialised, or already finalised */
  if (len == 0) return GOSTX_OK; /* data may be NULL: never pass it to memcpy */
  const uint8_t *p = data;
  if (ctx->buf_len) {
    if (!gostx_buffer_fill(ctx->buf, &ctx->buf_len, 64, &p, &len)) return GOSTX_OK;
    process_block(ctx, ctx->buf);
    ctx->buf_len = 0;
  }
  /* A full block may be compressed at once even if it ends the message: the
   * standard then pads an empty final block (stage 3 with |M| = 0). */
  for (; len >= 64; p += 64, len -= 64) process_block(ctx, p);
  if (len) {
    memcpy(ctx->buf, p, len);
    ctx->buf_len = len;
  }
  return GOSTX_OK;
}

int gostx_streebog_final(gostx_streebog_ctx *ctx, uint8_t *digest) {
  if (!ctx || !digest) return GOSTX_EINVAL;
  if (ctx->digest_len != GOSTX_STREEBOG256_LEN && ctx->digest_len != GOSTX_STREEBOG512_LEN)
    return GOSTX_ESTATE;
  static const uint8_t zero[64];
  /* Stage 3: m = 0...0 || 1 || M in the standard's notation, i.e. the tail
   * bytes, then 0x01, then zeros. */
  size_t r = ctx->buf_len;
  memset(ctx->buf + r, 0, 64 - r);
  ctx->buf[r] = 0x01;
  compress(ctx->h, ctx->n, ctx->buf);
  add512_small(ctx->n, 8 * (uint64_t)r);
  add512(ctx->sigma, ctx->buf);
  compress(ctx->h, zero, ctx->n);
  compress(ctx->h, zero, ctx->sigma);
  /* MSB_256(h) of the little-endian integer is the upper 32 bytes. */
  memcpy(digest, ctx->h + (64 - ctx->digest_len), ctx->digest_len);
  gostx_streebog_clear(ctx);
  return GOSTX_OK;
}

int gostx_streebog(size_t digest_len, const void *data, size_t len, uint8_t *digest) {
  if (!digest || (!data && len)) return GOSTX_EINVAL;
  gostx_streebog_ctx ctx;
  int rc = gostx_streebog_init(&ctx, digest_len);
  if (rc == GOSTX_OK) rc = gostx_streebog_update(&ctx, data, len);
  if (rc == GOSTX_OK) rc = gostx_streebog_final(&ctx, digest);
  gostx_streebog_clear(&ctx);
  return rc;
}

void gostx_streebog_clear(gostx_streebog_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}

