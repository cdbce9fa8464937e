/* CBC (GOST R 34.13-2015 section 5.4) with an m-byte register, m = z*n:
 * C_i = E(P_i xor MSB_n(R)), R = LSB_{m-n}(R) || C_i. The register is kept
 * as z blocks used round-robin: ctx->slot is the oldest block (MSB_n(R)),
 * and replacing it by C_i is the shift. */
#include "modes_internal.h"
#include "cipher_ops.h"

void gostx__cbc_blocks(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t nblocks) {
  const size_t n = ctx->n, z = ctx->m / n;
  size_t slot = ctx->slot;
  if (!ctx->decrypt && z == 1) {
    /* One register block: the cipher's chain (Magma's keeps it in registers). */
    gostx__cipher_chain(&ctx->c, GOSTX__CHAIN_CBC, ctx->reg, in, out, nblocks);
  } else if (!ctx->decrypt) {
    /* Each block needs the previous result: one block per cipher call, the
     * register's z blocks round-robin. */
    uint8_t x[GOSTX_MAX_BLOCK_LEN];
    for (size_t i = 0; i < nblocks; i++) {
      uint8_t *r = ctx->reg + slot * n;
      gostx_xor(x, in + i * n, r, n);
      gostx_cipher_encrypt_blocks(&ctx->c, x, 1, r);
      memcpy(out + i * n, r, n);
      slot = slot + 1 == z ? 0 : slot + 1;
    }
    gostx_memzero(x, sizeof x);
  } else {
    /* Decryption needs only ciphertext: decrypt a whole batch in one call.
     * The batch's ciphertext is copied first, so in == out works. */
    uint8_t ct[GOSTX__MODES_BATCH];
    const size_t per = sizeof ct / n;
    while (nblocks) {
      size_t k = nblocks < per ? nblocks : per;
      memcpy(ct, in, k * n);
      gostx_cipher_decrypt_blocks(&ctx->c, ct, k, out);
      if (z == 1) {
        /* m = n (one register block): P_i = D(C_i) xor C_{i-1}, in two XOR
         * passes over the batch instead of a per-block loop. */
        gostx_xor(out, out, ctx->reg, n);
        gostx_xor(out + n, out + n, ct, (k - 1) * n);
        memcpy(ctx->reg, ct + (k - 1) * n, n);
        in += k * n;
        out += k * n;
        nblocks -= k;
        continue;
      }
      for (size_t i = 0; i < k; i++) {
        uint8_t *r = ctx->reg + slot * n;
        gostx_xor(out + i * n, out + i * n, r, n);
        memcpy(r, ct + i * n, n);
        slot = slot + 1 == z ? 0 : slot + 1;
      }
      in += k * n;
      out += k * n;
      nblocks -= k;
    }
  }
  ctx->slot = slot;
}
