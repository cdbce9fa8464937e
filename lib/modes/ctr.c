/* CTR (GOST R 34.13-2015 section 5.2) and CTR-ACPKM (RFC 8645 section 6.2.2).
 * CTR_1 = IV || 0^{n/2}; gamma_i = MSB_s(E(CTR_i)); CTR_{i+1} = CTR_i + 1 mod
 * 2^n. Gamma blocks are made in batches: a run of counters is written out and
 * encrypted in one call. ctx->buf keeps the block of the open segment,
 * ctx->pos == s means none is open. For CTR-ACPKM (section_len != 0) a batch
 * never crosses a section, and the key steps to ACPKM(key) just before the
 * first block of the next section. */
#include "modes_internal.h"

/* Writes k successive counter blocks (the register, then +1, ...) to g and
 * leaves the register at the next one. The block sizes run on 64-bit words:
 * a memcpy of a variable n per block cost a third of Magma CTR's time once
 * the cipher was vectorised. */
/* A big-endian 64-bit store as one bswap + move: GCC -O3 vectorised the
 * byte-wise gostx_store64_be loop below into single-byte stores. */
static inline void put64_be(uint8_t *p, uint64_t v) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  v = __builtin_bswap64(v);
  memcpy(p, &v, 8);
#else
  gostx_store64_be(p, v);
#endif
}

static void ctr_fill(uint8_t *g, uint8_t *reg, size_t n, size_t k) {
  if (n == 8) {
    uint64_t c = gostx_load64_be(reg);
    for (size_t i = 0; i < k; i++) put64_be(g + 8 * i, c++);
    gostx_store64_be(reg, c);
  } else if (n == 16) {
    uint64_t hi = gostx_load64_be(reg), lo = gostx_load64_be(reg + 8);
    for (size_t i = 0; i < k; i++) {
      put64_be(g + 16 * i, hi);
      put64_be(g + 16 * i + 8, lo);
      lo++;
      hi += (lo == 0);
    }
    gostx_store64_be(reg, hi);
    gostx_store64_be(reg + 8, lo);
  } else {
    for (size_t i = 0; i < k; i++) {
      memcpy(g + i * n, reg, n);
      gostx__ctr_inc(reg, n);
    }
  }
}

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
    if (k > per) k = per;
    if (ctx->section_len) {
      const size_t sec = ctx->section_len / n;
      if (ctx->section_blocks == sec) {
        gostx__acpkm_rekey(&ctx->c);
        ctx->section_blocks = 0;
      }
      if (k > sec - ctx->section_blocks) k = sec - ctx->section_blocks;
      ctx->section_blocks += k;
    }
    ctr_fill(g, ctx->reg, n, k);
    gostx_cipher_encrypt_blocks(&ctx->c, g, g, k);
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

int gostx_ctr_crypt(const gostx_cipher *c, const uint8_t *iv, size_t iv_len, size_t s,
                    const uint8_t *in, uint8_t *out, size_t len) {
  if (s == 0) return GOSTX_EINVAL;
  return gostx__mode_oneshot(c, GOSTX_MODE_CTR, 0, iv, iv_len, s, 0, in, out, len);
}

int gostx_ctr_acpkm_crypt(const gostx_cipher *c, size_t section_len, const uint8_t *iv,
                          size_t iv_len, const uint8_t *in, uint8_t *out, size_t len) {
  if (section_len == 0) return GOSTX_EINVAL;
  return gostx__mode_oneshot(c, GOSTX_MODE_CTR_ACPKM, 0, iv, iv_len, 0, section_len, in, out,
                             len);
}
