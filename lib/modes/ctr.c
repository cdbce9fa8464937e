/* CTR (GOST R 34.13-2015 section 5.2) and CTR-ACPKM (RFC 8645 section 6.2.2).
 * CTR_1 = IV || 0^{n/2}; gamma_i = MSB_s(E(CTR_i)); CTR_{i+1} = CTR_i + 1 mod
 * 2^n. Gamma blocks are made in batches: a run of counters is written out and
 * encrypted in one call. ctx->buf keeps the block of the open segment,
 * ctx->pos == s means none is open. For CTR-ACPKM (section_len != 0) a batch
 * never crosses a section, and the key steps to ACPKM(key) just before the
 * first block of the next section. */
#include "modes_internal.h"
#include "cipher_ops.h"

void gostx__ctr_bytes(gostx_mode_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len) {
  const size_t n = ctx->n, s = ctx->s;
  uint8_t g[GOSTX__MODES_BATCH];
  const size_t per = sizeof g / n;
  size_t used = 0; /* bytes of g to wipe */
  /* Finish the open segment first. */
  if (ctx->pos < s && len) {
    size_t take = s - ctx->pos;
    if (take > len) take = len;
    gostx_xor(out, in, ctx->buf + ctx->pos, take);
    ctx->pos += take;
    in += take;
    out += take;
    len -= take;
  }
  while (len) {
    size_t k = len / s + (len % s != 0); /* segments still needed */
    /* Whole blocks go straight through the cipher's counter kernel, XOR included. */
    const int whole = s == n && len >= n;
    if (whole) k = len / n;
    else if (k > per) k = per;
    if (ctx->section_len) {
      const size_t sec = ctx->section_len / n;
      if (ctx->section_blocks == sec) {
        gostx__acpkm_rekey(&ctx->c);
        ctx->section_blocks = 0;
      }
      /* Whole sections from a section's start: the cipher's section kernel,
       * where it has one, makes the keys between them itself. */
      if (whole && ctx->section_blocks == 0 && in && len >= ctx->section_len) {
        size_t done = gostx__cipher_ctr_acpkm(&ctx->c, ctx->reg, sec, in, out, len / ctx->section_len);
        if (done) {
          in += done * ctx->section_len;
          out += done * ctx->section_len;
          len -= done * ctx->section_len;
          ctx->section_blocks = sec;
          continue;
        }
      }
      if (k > sec - ctx->section_blocks) k = sec - ctx->section_blocks;
      ctx->section_blocks += k;
    }
    if (whole) {
      gostx__cipher_ctr(&ctx->c, ctx->reg, GOSTX__CTR_FULL, in, out, k);
      in += k * n;
      out += k * n;
      len -= k * n;
      continue;
    }
    gostx__ctr_fill(g, ctx->reg, n, GOSTX__CTR_FULL, k);
    gostx_cipher_encrypt_blocks(&ctx->c, g, k, g);
    if (used < k * n) used = k * n;
    size_t take = s;
    if (s == n) {
      /* Segments are whole blocks: the gamma is contiguous. */
      size_t bytes = k * n < len ? k * n : len;
      gostx_xor(out, in, g, bytes);
      in += bytes;
      out += bytes;
      len -= bytes;
      take = bytes - (k - 1) * n;
    } else {
      for (size_t i = 0; i < k; i++) {
        take = s < len ? s : len;
        gostx_xor(out, in, g + i * n, take);
        in += take;
        out += take;
        len -= take;
      }
    }
    if (take < s) {
      /* Input ended inside the last segment: keep its block for the next call. */
      memcpy(ctx->buf, g + (k - 1) * n, n);
      ctx->pos = take;
    }
  }
  gostx_memzero(g, used);
}
