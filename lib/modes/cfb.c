/* CFB (GOST R 34.13-2015 section 5.5), m >= n, segment s <= n:
 * gamma = MSB_s(E(MSB_n(R))), C_i = P_i xor gamma, R = LSB_{m-s}(R) || C_i.
 * At the start of a segment the gamma is computed and R is shifted at once;
 * the segment's ciphertext bytes then land in R's last s bytes as they come.
 * ctx->pos == s means no segment is open (R is the whole register). */
#include "modes_internal.h"
#include "cipher_ops.h"

/* Decryption with s = n and m = z*n can batch: the cipher inputs are the
 * register blocks followed by the ciphertext itself. Whole blocks only, at a
 * segment boundary. */
static size_t cfb_decrypt_batch(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out,
                                size_t nblocks) {
  const size_t n = ctx->n, m = ctx->m;
  uint8_t x[GOSTX__MODES_BATCH], next[GOSTX_MAX_IV_LEN];
  const size_t per = sizeof x / n;
  size_t done = 0, used = 0;
  while (nblocks) {
    size_t k = nblocks < per ? nblocks : per, bytes = k * n;
    /* x = first k blocks of R || C; the next R = the m bytes after them. */
    if (bytes <= m) {
      memcpy(x, ctx->reg, bytes);
      memcpy(next, ctx->reg + bytes, m - bytes);
      memcpy(next + m - bytes, in, bytes);
    } else {
      memcpy(x, ctx->reg, m);
      memcpy(x + m, in, bytes - m);
      memcpy(next, in + bytes - m, m);
    }
    gostx_cipher_encrypt_blocks(&ctx->c, x, k, x);
    gostx_xor(out, in, x, bytes);
    if (used < bytes) used = bytes;
    memcpy(ctx->reg, next, m);
    in += bytes;
    out += bytes;
    nblocks -= k;
    done += bytes;
  }
  gostx_memzero(x, used);
  gostx_memzero(next, sizeof next);
  return done;
}

void gostx__cfb_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len) {
  const size_t n = ctx->n, m = ctx->m, s = ctx->s;
  if (ctx->decrypt && s == n && m % n == 0 && ctx->pos == s && len >= n) {
    size_t done = cfb_decrypt_batch(ctx, in, out, len / n);
    in += done;
    out += done;
    len -= done;
  }
  if (!ctx->decrypt && s == n && m == n && ctx->pos == s && len >= n) {
    /* Encryption with a one-block register: whole blocks in one chain (in
     * registers for Magma); R ends as the last ciphertext block, no
     * segment open. */
    const size_t nb = len / n;
    gostx__cipher_chain(&ctx->c, GOSTX__CHAIN_CFB, ctx->reg, in, out, nb);
    in += nb * n;
    out += nb * n;
    len -= nb * n;
  }
  while (len) {
    if (ctx->pos == s) {
      gostx_cipher_encrypt_blocks(&ctx->c, ctx->reg, 1, ctx->buf);
      memmove(ctx->reg, ctx->reg + s, m - s);
      ctx->pos = 0;
    }
    size_t take = s - ctx->pos;
    if (take > len) take = len;
    uint8_t *fb = ctx->reg + m - s + ctx->pos;
    const uint8_t *g = ctx->buf + ctx->pos;
    for (size_t i = 0; i < take; i++) {
      uint8_t x = in[i], y = (uint8_t)(x ^ g[i]);
      fb[i] = ctx->decrypt ? x : y; /* the feedback is always the ciphertext */
      out[i] = y;
    }
    ctx->pos += take;
    in += take;
    out += take;
    len -= take;
  }
}
