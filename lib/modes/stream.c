/* The gostx_mode_* streaming context for ECB, CBC, CFB, OFB, CTR and
 * CTR-ACPKM, and the one-shot calls of those modes (ECB's own is in ecb.c):
 * the cores (ecb.c, cbc.c, cfb.c, ofb.c, ctr.c) never call back here. Block modes
 * (ECB/CBC) buffer a partial block and pad in final; the stream-like modes
 * pass everything straight to their cores (cfb.c, ofb.c, ctr.c). */
#include "modes_internal.h"

static int is_stream_mode(int mode) {
  return mode == GOSTX_MODE_CFB || mode == GOSTX_MODE_OFB || mode == GOSTX_MODE_CTR ||
         mode == GOSTX_MODE_CTR_ACPKM;
}

int gostx_mode_init(gostx_mode_ctx *ctx, const gostx_cipher *c, gostx_mode mode, int decrypt,
                    const uint8_t *iv, size_t iv_len, size_t s, gostx_padding padding,
                    size_t section_len) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  ctx->finished = 1; /* until init succeeds, updates are refused */
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  const size_t n = c->block_len;
  if (padding < GOSTX_PAD_NONE || padding > GOSTX_PAD_3) return GOSTX_EINVAL;
  if (padding != GOSTX_PAD_NONE && mode != GOSTX_MODE_ECB && mode != GOSTX_MODE_CBC)
    return GOSTX_EINVAL;
  if (section_len && mode != GOSTX_MODE_CTR_ACPKM) return GOSTX_EINVAL;
  if (s == 0) s = n;
  if (s > n) return GOSTX_EINVAL;
  if (iv_len && !iv) return GOSTX_EINVAL;
  switch (mode) {
    case GOSTX_MODE_ECB:
      if (iv_len || s != n) return GOSTX_EINVAL;
      break;
    case GOSTX_MODE_CBC:
    case GOSTX_MODE_OFB:
      if (iv_len == 0 || iv_len % n || iv_len > GOSTX_MAX_IV_LEN) return GOSTX_EINVAL;
      if (mode == GOSTX_MODE_CBC && s != n) return GOSTX_EINVAL;
      break;
    case GOSTX_MODE_CFB:
      if (iv_len < n || iv_len > GOSTX_MAX_IV_LEN) return GOSTX_EINVAL;
      break;
    case GOSTX_MODE_CTR:
      if (iv_len != n / 2) return GOSTX_EINVAL;
      break;
    case GOSTX_MODE_CTR_ACPKM:
      if (iv_len != n / 2 || s != n || section_len == 0 || section_len % n) return GOSTX_EINVAL;
      break;
    default:
      return GOSTX_EINVAL;
  }
  ctx->c = *c;
  ctx->mode = mode;
  ctx->decrypt = decrypt ? 1 : 0;
  if (mode == GOSTX_MODE_OFB || mode == GOSTX_MODE_CTR || mode == GOSTX_MODE_CTR_ACPKM)
    ctx->decrypt = 0; /* the same operation both ways */
  ctx->padding = padding;
  ctx->n = n;
  ctx->m = iv_len;
  ctx->s = s;
  ctx->section_len = section_len;
  if (iv_len) memcpy(ctx->reg, iv, iv_len); /* CTR: IV || 0^{n/2}, the rest is zero already */
  ctx->pos = s;                             /* no segment open */
  if (mode == GOSTX_MODE_OFB) ctx->slot = iv_len / n - 1; /* round used up: encrypt R first */
  ctx->finished = 0;
  return GOSTX_OK;
}

static void block_core(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks) {
  if (ctx->mode == GOSTX_MODE_ECB) gostx__ecb_blocks(ctx, in, out, nblocks);
  else gostx__cbc_blocks(ctx, in, out, nblocks);
}

/* ECB/CBC update. Pending bytes in ctx->buf logically precede in. When they
 * are completed into blocks, the output runs ahead of the input by buf_len
 * bytes; so the batch is assembled in tmp, and the input bytes the write would
 * cover are moved into buf before the write. That keeps in == out safe. */
static size_t block_update(gostx_mode_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out) {
  const size_t n = ctx->n;
  /* Decryption that strips procedure 2 must keep the last block for final. */
  const int hold = ctx->decrypt && ctx->padding == GOSTX_PAD_2;
  size_t written = 0;
  for (;;) {
    size_t avail = ctx->buf_len + len;
    size_t nb = hold ? (avail ? (avail - 1) / n : 0) : avail / n;
    if (nb == 0) break;
    if (ctx->buf_len == 0) {
      block_core(ctx, in, out, nb);
      in += nb * n;
      out += nb * n;
      len -= nb * n;
      written += nb * n;
      break;
    }
    uint8_t tmp[GOSTX__MODES_BATCH];
    size_t k = nb < sizeof tmp / n ? nb : sizeof tmp / n;
    size_t take = k * n - ctx->buf_len;
    memcpy(tmp, ctx->buf, ctx->buf_len);
    memcpy(tmp + ctx->buf_len, in, take);
    in += take;
    len -= take;
    size_t carry = ctx->buf_len < len ? ctx->buf_len : len;
    memcpy(ctx->buf, in, carry);
    in += carry;
    len -= carry;
    ctx->buf_len = carry;
    block_core(ctx, tmp, out, k);
    gostx_memzero(tmp, k * n);
    out += k * n;
    written += k * n;
  }
  memcpy(ctx->buf + ctx->buf_len, in, len);
  ctx->buf_len += len;
  return written;
}

int gostx_mode_update(gostx_mode_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out,
                      size_t *out_len) {
  if (!ctx || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  if (ctx->finished) return GOSTX_ESTATE;
  if (len && (!in || !out)) return GOSTX_EINVAL;
  if (!len) return GOSTX_OK;
  switch (ctx->mode) {
    case GOSTX_MODE_ECB:
    case GOSTX_MODE_CBC: *out_len = block_update(ctx, in, len, out); return GOSTX_OK;
    case GOSTX_MODE_CFB: gostx__cfb_bytes(ctx, in, out, len); break;
    case GOSTX_MODE_OFB: gostx__ofb_bytes(ctx, in, out, len); break;
    default: gostx__ctr_bytes(ctx, in, out, len); break;
  }
  *out_len = len;
  return GOSTX_OK;
}

static int block_final(gostx_mode_ctx *ctx, uint8_t *out, size_t *out_len) {
  const size_t n = ctx->n;
  uint8_t blk[2 * GOSTX_MAX_BLOCK_LEN];
  size_t blen = 0;
  int rc = GOSTX_OK;
  if (!ctx->decrypt) {
    if (ctx->padding == GOSTX_PAD_NONE) {
      if (ctx->buf_len) rc = GOSTX_ELEN;
    } else {
      rc = gostx_pad(ctx->padding, n, ctx->buf, ctx->buf_len, blk, &blen);
      if (rc == GOSTX_OK && blen) block_core(ctx, blk, out, blen / n);
    }
  } else if (ctx->padding != GOSTX_PAD_2) {
    if (ctx->buf_len) rc = GOSTX_ELEN; /* procedures 1/3 stay in the output */
  } else if (ctx->buf_len != n) {
    rc = GOSTX_ELEN; /* procedure 2 always leaves at least one whole block */
  } else {
    size_t msg = 0;
    block_core(ctx, ctx->buf, blk, 1);
    rc = gostx_unpad2(n, blk, n, &msg);
    if (rc == GOSTX_OK) {
      memcpy(out, blk, msg);
      blen = msg;
    }
  }
  gostx_memzero(blk, sizeof blk);
  *out_len = rc == GOSTX_OK ? blen : 0;
  return rc;
}

int gostx_mode_final(gostx_mode_ctx *ctx, uint8_t *out, size_t *out_len) {
  if (!ctx || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  if (ctx->finished) return GOSTX_ESTATE;
  int rc = GOSTX_OK;
  if (!is_stream_mode(ctx->mode)) {
    if (!out) return GOSTX_EINVAL;
    rc = block_final(ctx, out, out_len);
  }
  int mode = ctx->mode;
  gostx_memzero(ctx, sizeof *ctx);
  ctx->mode = mode;
  ctx->finished = 1;
  return rc;
}

void gostx_mode_clear(gostx_mode_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}

/* Init a context for mode, run the core over len bytes, wipe; every
 * argument is checked first. */
static int mode_oneshot(const gostx_cipher *c, int mode, int decrypt, const uint8_t *iv,
                        size_t iv_len, size_t s, size_t section_len, const uint8_t *in,
                        uint8_t *out, size_t len) {
  if (len && (!in || !out)) return GOSTX_EINVAL;
  gostx_mode_ctx ctx;
  int rc = gostx_mode_init(&ctx, c, mode, decrypt, iv, iv_len, s, GOSTX_PAD_NONE, section_len);
  if (rc == GOSTX_OK && (mode == GOSTX_MODE_ECB || mode == GOSTX_MODE_CBC) && len % ctx.n)
    rc = GOSTX_ELEN;
  if (rc == GOSTX_OK && len) {
    switch (mode) {
      case GOSTX_MODE_ECB: gostx__ecb_blocks(&ctx, in, out, len / ctx.n); break;
      case GOSTX_MODE_CBC: gostx__cbc_blocks(&ctx, in, out, len / ctx.n); break;
      case GOSTX_MODE_CFB: gostx__cfb_bytes(&ctx, in, out, len); break;
      case GOSTX_MODE_OFB: gostx__ofb_bytes(&ctx, in, out, len); break;
      default: gostx__ctr_bytes(&ctx, in, out, len); break;
    }
  }
  gostx_memzero(&ctx, sizeof ctx);
  return rc;
}

/* ---- the one-shot calls (include/gostx/modes.h): here, beside the
 * context they set up, so that the cores never call back into this file ---- */

/* The segment modes: s = 0 is refused here (the context reads it as n). */
static int segment_oneshot(const gostx_cipher *c, int mode, int decrypt, const uint8_t *iv,
                           size_t iv_len, size_t s, const uint8_t *in, size_t len, uint8_t *out) {
  if (s == 0) return GOSTX_EINVAL;
  return mode_oneshot(c, mode, decrypt, iv, iv_len, s, 0, in, out, len);
}

int gostx_cbc_encrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, const uint8_t *in,
                      size_t len, uint8_t *out) {
  return mode_oneshot(c, GOSTX_MODE_CBC, 0, iv, iv_len, 0, 0, in, out, len);
}

int gostx_cbc_decrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, const uint8_t *in,
                      size_t len, uint8_t *out) {
  return mode_oneshot(c, GOSTX_MODE_CBC, 1, iv, iv_len, 0, 0, in, out, len);
}

int gostx_cfb_encrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                      const uint8_t *in, size_t len, uint8_t *out) {
  return segment_oneshot(c, GOSTX_MODE_CFB, 0, iv, iv_len, s, in, len, out);
}

int gostx_cfb_decrypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                      const uint8_t *in, size_t len, uint8_t *out) {
  return segment_oneshot(c, GOSTX_MODE_CFB, 1, iv, iv_len, s, in, len, out);
}

int gostx_ofb_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                    const uint8_t *in, size_t len, uint8_t *out) {
  return segment_oneshot(c, GOSTX_MODE_OFB, 0, iv, iv_len, s, in, len, out);
}

int gostx_ctr_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                    const uint8_t *in, size_t len, uint8_t *out) {
  return segment_oneshot(c, GOSTX_MODE_CTR, 0, iv, iv_len, s, in, len, out);
}

int gostx_ctr_acpkm_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                          size_t section_len, const uint8_t *in, size_t len, uint8_t *out) {
  if (section_len == 0) return GOSTX_EINVAL;
  return mode_oneshot(c, GOSTX_MODE_CTR_ACPKM, 0, iv, iv_len, 0, section_len, in, out, len);
}
