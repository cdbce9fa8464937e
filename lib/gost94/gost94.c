/* GOST R 34.11-94 (RFC 5831): the step function and the iteration around it.
 * Byte order: every 256-bit value is a little-endian byte string (byte 0 is
 * the least significant), the convention of gost-engine's md_gost94; RFC
 * 5831 prints values byte-reversed.
 *
 * Constant time: the step function encrypts the four 64-bit words of H
 * under keys made from H and the message block with the library's GOST
 * 28147-89 block encryption, whose every implementation is table-free (the
 * S-box rows are packed words read by shifts, lib/magma/impl.h); the key
 * transforms A and P and the shuffle psi move bytes and words at fixed
 * positions, and the checksum adds without branches. Nothing branches on
 * or indexes by message or state bytes. */
#include "internal.h"

/* C_3 of the key generation (C_2 = C_4 = 0), little-endian. */
static const uint8_t c3[32] = {
    0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00, 0xff, 0x00,
    0x00, 0xff, 0xff, 0x00, 0xff, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0xff, 0xff, 0x00, 0xff};

/* A(y4 || y3 || y2 || y1) = (y1 ^ y2) || y4 || y3 || y2, the y_i 64-bit
 * words, y1 the lowest. in != out. */
static void transform_a(uint8_t out[32], const uint8_t in[32]) {
  memcpy(out, in + 8, 24);
  gostx_xor(out + 24, in, in + 8, 8);
}

/* P: byte i + 4k of the result is byte 8i + k of the input (i = 0..3,
 * k = 0..7): the standard's phi(i + 1 + 4(k - 1)) = 8i + k, 0-based. */
static void transform_p(uint8_t out[32], const uint8_t in[32]) {
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 8; k++) out[i + 4 * k] = in[8 * i + k];
}

/* psi^n of y, the 16-bit words w_1..w_16 (w_1 the lowest): psi shifts the
 * words down by one and puts w_1 ^ w_2 ^ w_3 ^ w_4 ^ w_13 ^ w_16 on top, so
 * psi^n(y) is the 16 words from position n of the sequence that extends y
 * by that recurrence. */
static void psi_n(uint8_t y[32], int n) {
  uint16_t w[16 + 61];
  for (int i = 0; i < 16; i++) w[i] = (uint16_t)(y[2 * i] | y[2 * i + 1] << 8);
  for (int i = 0; i < n; i++)
    w[16 + i] = w[i] ^ w[i + 1] ^ w[i + 2] ^ w[i + 3] ^ w[i + 12] ^ w[i + 15];
  for (int i = 0; i < 16; i++) {
    y[2 * i] = (uint8_t)w[n + i];
    y[2 * i + 1] = (uint8_t)(w[n + i] >> 8);
  }
  gostx_memzero(w, sizeof w);
}

/* H = chi(M, H): key generation, encryption of H's words, mixing. */
static void step(uint8_t h[32], const uint8_t m[32], int sbox) {
  struct { /* the temporaries, wiped in one go */
    uint8_t u[32], v[32], w[32], t[32], key[32], s[32];
    gostx_gost89_key k;
  } x;
  uint8_t *u = x.u, *v = x.v, *w = x.w, *t = x.t, *key = x.key, *s = x.s;
  memcpy(u, h, 32);
  memcpy(v, m, 32);
  for (int j = 0; j < 4; j++) {
    if (j > 0) {
      transform_a(t, u);
      if (j == 2) gostx_xor(u, t, c3, 32); /* public loop index */
      else memcpy(u, t, 32);
      transform_a(t, v);
      transform_a(v, t);
    }
    gostx_xor(w, u, v, 32);
    transform_p(key, w);
    gostx_gost89_set_key(&x.k, key, (gostx_sbox)sbox);
    gostx_gost89_encrypt_blocks(&x.k, h + 8 * j, 1, s + 8 * j);
  }
  /* H = psi^61(H ^ psi(M ^ psi^12(S))) */
  psi_n(s, 12);
  gostx_xor(s, s, m, 32);
  psi_n(s, 1);
  gostx_xor(h, h, s, 32);
  psi_n(h, 61);
  gostx_memzero(&x, sizeof x);
}

static int ctx_ok(const gostx_gost94_ctx *ctx) {
  return ctx->started == 1 && ctx->sbox >= 0 && ctx->sbox < GOSTX_SBOX_COUNT &&
         ctx->buf_len < 32;
}

int gostx_gost94_init(gostx_gost94_ctx *ctx, gostx_sbox set) {
  const int sbox = (int)set;
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  if (sbox < 0 || sbox >= GOSTX_SBOX_COUNT) return GOSTX_EINVAL;
  ctx->sbox = sbox;
  ctx->started = 1;
  return GOSTX_OK;
}

/* One full block: stage 2 of the standard. */
static void process_block(gostx_gost94_ctx *ctx, const uint8_t m[32]) {
  step(ctx->h, m, ctx->sbox);
  gostx_add_le(ctx->sigma, m, 4);
}

int gostx_gost94_update(gostx_gost94_ctx *ctx, const void *data, size_t len) {
  if (!ctx || (!data && len)) return GOSTX_EINVAL;
  if (!ctx_ok(ctx)) return GOSTX_ESTATE;
  if (len == 0) return GOSTX_OK;
  const uint8_t *p = data;
  ctx->total += len;
  if (ctx->buf_len) {
    if (!gostx_buffer_fill(ctx->buf, &ctx->buf_len, 32, &p, &len)) return GOSTX_OK;
    process_block(ctx, ctx->buf);
    ctx->buf_len = 0;
  }
  /* A full block is processed at once even if it ends the message: stage 3
   * then has a non-empty message only when the length is not a multiple of
   * 32, or is 0 (below). */
  for (; len >= 32; p += 32, len -= 32) process_block(ctx, p);
  if (len) {
    memcpy(ctx->buf, p, len);
    ctx->buf_len = len;
  }
  return GOSTX_OK;
}

int gostx_gost94_final(gostx_gost94_ctx *ctx, uint8_t digest[GOSTX_GOST94_LEN]) {
  if (!ctx || !digest) return GOSTX_EINVAL;
  if (!ctx_ok(ctx)) return GOSTX_ESTATE;
  /* Stage 3: the rest zero-padded at the top, then the length L in bits and
   * the checksum. The empty message, too, hashes one zero block, as the
   * standard's stage 3 reads (|M| = 0) and gost-engine does. */
  if (ctx->buf_len || ctx->total == 0) {
    memset(ctx->buf + ctx->buf_len, 0, 32 - ctx->buf_len);
    process_block(ctx, ctx->buf);
  }
  uint8_t len_bits[32] = {0};
  gostx_store64_le(len_bits, ctx->total << 3);
  gostx_store64_le(len_bits + 8, ctx->total >> 61);
  step(ctx->h, len_bits, ctx->sbox);
  step(ctx->h, ctx->sigma, ctx->sbox);
  memcpy(digest, ctx->h, 32);
  gostx_gost94_clear(ctx);
  return GOSTX_OK;
}

int gostx_gost94(gostx_sbox sbox, const void *data, size_t len, uint8_t digest[GOSTX_GOST94_LEN]) {
  if (!digest || (!data && len)) return GOSTX_EINVAL;
  gostx_gost94_ctx ctx;
  int rc = gostx_gost94_init(&ctx, sbox);
  if (rc == GOSTX_OK) rc = gostx_gost94_update(&ctx, data, len);
  if (rc == GOSTX_OK) rc = gostx_gost94_final(&ctx, digest);
  gostx_gost94_clear(&ctx);
  return rc;
}

void gostx_gost94_clear(gostx_gost94_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}
