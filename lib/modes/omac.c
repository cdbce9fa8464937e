/* MAC of GOST R 34.13-2015 section 5.6 (OMAC1 / CMAC) and OMAC-ACPKM-Master
 * of RFC 8645 section 6.3.6 (= R 1323565.1.017-2018).
 * The last block (full or not) is always held in ctx->buf until final,
 * because only then is it known to be the last one and which subkey it takes.
 * OMAC is a chain: one block per cipher call. */
#include "modes_internal.h"
#include "cipher_ops.h"

void gostx__omac_dbl(uint8_t *out, const uint8_t *in, size_t n) {
  const uint8_t rn = n == 16 ? 0x87 : 0x1b; /* R_128 = 0^120|10000111, R_64 = 0^59|11011 */
  uint8_t top = (uint8_t)(0u - (in[0] >> 7)); /* all ones when the top bit is set */
  for (size_t i = 0; i + 1 < n; i++) out[i] = (uint8_t)((in[i] << 1) | (in[i + 1] >> 7));
  out[n - 1] = (uint8_t)((in[n - 1] << 1) ^ (rn & top));
}

void gostx__omac_subkeys(const gostx_cipher *c, uint8_t *k1, uint8_t *k2) {
  const size_t n = c->block_len;
  uint8_t r[GOSTX_MAX_BLOCK_LEN] = {0}, t[GOSTX_MAX_BLOCK_LEN];
  gostx_cipher_encrypt_blocks(c, r, 1, r);
  gostx__omac_dbl(t, r, n);
  if (k1) memcpy(k1, t, n);
  if (k2) gostx__omac_dbl(k2, t, n);
  gostx_memzero(r, sizeof r);
  gostx_memzero(t, sizeof t);
}

int gostx_omac_init(gostx_omac_ctx *ctx, const gostx_cipher *c) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  ctx->finished = 1;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  ctx->c = *c;
  ctx->n = c->block_len;
  gostx__omac_subkeys(c, ctx->k1, NULL);
  ctx->finished = 0;
  return GOSTX_OK;
}

int gostx_omac_acpkm_init(gostx_omac_ctx *ctx, const gostx_cipher *c, size_t section_len,
                          size_t master_section_len) {
  if (!ctx) return GOSTX_EINVAL;
  memset(ctx, 0, sizeof *ctx);
  ctx->finished = 1;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  const size_t n = c->block_len;
  if (section_len == 0 || section_len % n || master_section_len == 0 || master_section_len % n)
    return GOSTX_EINVAL;
  uint8_t iv[GOSTX_MAX_BLOCK_LEN / 2];
  memset(iv, 0xff, sizeof iv); /* ACPKM-Master: IV = 1^{n/2} */
  int rc = gostx_mode_init(&ctx->km, c, GOSTX_MODE_CTR_ACPKM, 0, iv, n / 2, 0, GOSTX_PAD_NONE,
                           master_section_len);
  if (rc != GOSTX_OK) {
    gostx_memzero(ctx, sizeof *ctx);
    ctx->finished = 1;
    return rc;
  }
  ctx->c.id = c->id; /* the section key comes with the first block */
  ctx->c.block_len = n;
  ctx->n = n;
  ctx->section_len = section_len;
  ctx->acpkm = 1;
  ctx->finished = 0;
  return GOSTX_OK;
}

/* ACPKM: at the first block of a section, take K^i || K1^i from the key
 * material stream (the gamma over zeros is the material itself). */
static void acpkm_section_keys(gostx_omac_ctx *ctx) {
  if ((ctx->blocks * ctx->n) % ctx->section_len) return;
  uint8_t km[GOSTX_KEY_LEN + GOSTX_MAX_BLOCK_LEN] = {0};
  gostx__ctr_bytes(&ctx->km, km, km, GOSTX_KEY_LEN + ctx->n);
  gostx_cipher_init(&ctx->c, ctx->c.id, km);
  memcpy(ctx->k1, km + GOSTX_KEY_LEN, ctx->n);
  gostx_memzero(km, sizeof km);
}

static void absorb(gostx_omac_ctx *ctx, const uint8_t *blk) {
  if (ctx->acpkm) acpkm_section_keys(ctx);
  gostx_xor(ctx->state, ctx->state, blk, ctx->n);
  gostx_cipher_encrypt_blocks(&ctx->c, ctx->state, 1, ctx->state);
  ctx->blocks++;
}

int gostx_omac_update(gostx_omac_ctx *ctx, const uint8_t *in, size_t len) {
  if (!ctx) return GOSTX_EINVAL;
  if (ctx->finished) return GOSTX_ESTATE;
  if (len && !in) return GOSTX_EINVAL;
  const size_t n = ctx->n;
  if (!len) return GOSTX_OK;
  /* Top up the held block; absorb it only once more input shows it is not the last. */
  if (ctx->buf_len < n) {
    size_t take = n - ctx->buf_len;
    if (take > len) take = len;
    memcpy(ctx->buf + ctx->buf_len, in, take);
    ctx->buf_len += take;
    in += take;
    len -= take;
  }
  if (!len) return GOSTX_OK;
  absorb(ctx, ctx->buf);
  if (!ctx->acpkm && len > n) {
    /* All but the last block in one chain (Magma keeps the state in
     * registers). */
    const size_t nb = (len - 1) / n;
    gostx__cipher_chain(&ctx->c, GOSTX__CHAIN_MAC, ctx->state, in, NULL, nb);
    ctx->blocks += nb;
    in += nb * n;
    len -= nb * n;
  }
  while (len > n) {
    absorb(ctx, in);
    in += n;
    len -= n;
  }
  memcpy(ctx->buf, in, len);
  ctx->buf_len = len;
  return GOSTX_OK;
}

int gostx_omac_final(gostx_omac_ctx *ctx, uint8_t *mac, size_t mac_len) {
  if (!ctx) return GOSTX_EINVAL;
  if (ctx->finished) return GOSTX_ESTATE;
  const size_t n = ctx->n;
  if (!mac || mac_len == 0 || mac_len > n) return GOSTX_ELEN;
  uint8_t k[GOSTX_MAX_BLOCK_LEN];
  if (ctx->acpkm) acpkm_section_keys(ctx); /* the last block may open a section */
  if (ctx->buf_len == n) {
    memcpy(k, ctx->k1, n);
  } else {
    /* Procedure 2 padding and K2 = dbl(K1). */
    ctx->buf[ctx->buf_len] = 0x80;
    memset(ctx->buf + ctx->buf_len + 1, 0, n - ctx->buf_len - 1);
    gostx__omac_dbl(k, ctx->k1, n);
  }
  gostx_xor(ctx->state, ctx->state, ctx->buf, n);
  gostx_xor(ctx->state, ctx->state, k, n);
  gostx_cipher_encrypt_blocks(&ctx->c, ctx->state, 1, ctx->state);
  memcpy(mac, ctx->state, mac_len);
  gostx_memzero(k, sizeof k);
  gostx_memzero(ctx, sizeof *ctx);
  ctx->finished = 1;
  return GOSTX_OK;
}

void gostx_omac_clear(gostx_omac_ctx *ctx) {
  if (ctx) gostx_memzero(ctx, sizeof *ctx);
}

int gostx_omac(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *mac,
               size_t mac_len) {
  if (len && !in) return GOSTX_EINVAL;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  if (!mac || mac_len == 0 || mac_len > c->block_len) return GOSTX_ELEN;
  gostx_omac_ctx ctx;
  int rc = gostx_omac_init(&ctx, c);
  if (rc == GOSTX_OK) rc = gostx_omac_update(&ctx, in, len);
  if (rc == GOSTX_OK) rc = gostx_omac_final(&ctx, mac, mac_len);
  gostx_omac_clear(&ctx);
  return rc;
}

int gostx_omac_acpkm(const gostx_cipher *c, size_t section_len, size_t master_section_len,
                     const uint8_t *in, size_t len, uint8_t *mac, size_t mac_len) {
  if (len && !in) return GOSTX_EINVAL;
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  if (!mac || mac_len == 0 || mac_len > c->block_len) return GOSTX_ELEN;
  gostx_omac_ctx ctx;
  int rc = gostx_omac_acpkm_init(&ctx, c, section_len, master_section_len);
  if (rc == GOSTX_OK) rc = gostx_omac_update(&ctx, in, len);
  if (rc == GOSTX_OK) rc = gostx_omac_final(&ctx, mac, mac_len);
  gostx_omac_clear(&ctx);
  return rc;
}
