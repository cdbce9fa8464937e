/* ECB (GOST R 34.13-2015 section 5.1): every block on its own, handed to the
 * block cipher in one call. */
#include "modes_internal.h"

void gostx__ecb_blocks(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks) {
  if (ctx->decrypt) gostx_cipher_decrypt_blocks(&ctx->c, in, nblocks, out);
  else gostx_cipher_encrypt_blocks(&ctx->c, in, nblocks, out);
}

static int ecb(const gostx_cipher *c, int decrypt, const uint8_t *in, uint8_t *out, size_t len) {
  if (!gostx__modes_cipher_ok(c) || (len && (!in || !out))) return GOSTX_EINVAL;
  if (len % c->block_len) return GOSTX_ELEN;
  if (!len) return GOSTX_OK;
  /* No state: call the cipher directly on the caller's key, all blocks at once. */
  if (decrypt) gostx_cipher_decrypt_blocks(c, in, len / c->block_len, out);
  else gostx_cipher_encrypt_blocks(c, in, len / c->block_len, out);
  return GOSTX_OK;
}

int gostx_ecb_encrypt(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *out) {
  return ecb(c, 0, in, out, len);
}

int gostx_ecb_decrypt(const gostx_cipher *c, const uint8_t *in, size_t len, uint8_t *out) {
  return ecb(c, 1, in, out, len);
}
