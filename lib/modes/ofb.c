/* OFB (GOST R 34.13-2015 section 5.3), m = z*n: Y_i = E(MSB_n(R)),
 * R = LSB_{m-n}(R) || Y_i, gamma = MSB_s(Y_i). After z steps R holds exactly
 * E of the previous R block by block, so the register is encrypted z blocks
 * per call and segment j of a round is MSB_s of block j (ctx->slot). */
#include "modes_internal.h"
#include "cipher_ops.h"

void gostx__ofb_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len) {
  const size_t n = ctx->n, z = ctx->m / n, s = ctx->s;
  if (z == 1 && s == n && ctx->pos == s && len >= n) {
    /* A one-block register: whole blocks in one chain (Magma keeps the
     * register in CPU registers); after it, no segment is open. */
    const size_t nb = len / n;
    gostx__cipher_chain(&ctx->c, GOSTX__CHAIN_OFB, ctx->reg, in, out, nb);
    ctx->slot = 0;
    in += nb * n;
    out += nb * n;
    len -= nb * n;
  }
  while (len) {
    if (ctx->pos == s) {
      if (++ctx->slot >= z) {
        gostx_cipher_encrypt_blocks(&ctx->c, ctx->reg, z, ctx->reg);
        ctx->slot = 0;
      }
      ctx->pos = 0;
    }
    if (s == n && ctx->pos == 0 && ctx->slot == 0 && len >= ctx->m) {
      /* A whole round of full-block segments: one xor over R. */
      gostx_xor(out, in, ctx->reg, ctx->m);
      ctx->slot = z - 1;
      ctx->pos = s;
      in += ctx->m;
      out += ctx->m;
      len -= ctx->m;
      continue;
    }
    size_t take = s - ctx->pos;
    if (take > len) take = len;
    gostx_xor(out, in, ctx->reg + ctx->slot * n + ctx->pos, take);
    ctx->pos += take;
    in += take;
    out += take;
    len -= take;
  }
}
