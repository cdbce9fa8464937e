/* The generic cipher handle: lets every GOST R 34.13 mode take Kuznyechik or
 * Magma without knowing which. */
#include "internal.h"
#include "kuznyechik/impl.h"

int gostx_cipher_init(gostx_cipher *c, gostx_alg id, const uint8_t key[GOSTX_KEY_LEN]) {
  if (!c || !key) return GOSTX_EINVAL;
  memset(c, 0, sizeof *c);
  switch (id) {
    case GOSTX_ALG_KUZNYECHIK:
      c->id = id;
      c->block_len = GOSTX_KUZ_BLOCK_LEN;
      return gostx_kuz_set_key(&c->u.kuz, key);
    case GOSTX_ALG_MAGMA:
      c->id = id;
      c->block_len = GOSTX_MAGMA_BLOCK_LEN;
      return gostx_magma_set_key(&c->u.magma, key);
    default:
      return GOSTX_EINVAL;
  }
}

size_t gostx_cipher_block_len(const gostx_cipher *c) { return c ? c->block_len : 0; }

void gostx_cipher_encrypt_blocks(const gostx_cipher *c, const uint8_t *in, size_t nblocks,
                                 uint8_t *out) {
  if (c->id == GOSTX_ALG_KUZNYECHIK) gostx_kuz_encrypt_blocks(&c->u.kuz, in, nblocks, out);
  else gostx_magma_encrypt_blocks(&c->u.magma, in, nblocks, out);
}

void gostx_cipher_decrypt_blocks(const gostx_cipher *c, const uint8_t *in, size_t nblocks,
                                 uint8_t *out) {
  if (c->id == GOSTX_ALG_KUZNYECHIK) gostx_kuz_decrypt_blocks(&c->u.kuz, in, nblocks, out);
  else gostx_magma_decrypt_blocks(&c->u.magma, in, nblocks, out);
}

void gostx_cipher_clear(gostx_cipher *c) {
  if (c) gostx_memzero(c, sizeof *c);
}


/* ---- counter-mode keystream (internal.h) ---- */

/* Loops on whole words per block: a memcpy of a variable n per block cost a
 * third of Magma CTR's time once the cipher was vectorised. */
void gostx__ctr_fill(uint8_t *dst, uint8_t *ctr, size_t n, unsigned inc, size_t count) {
  if (n == 16) {
    uint64_t hi = gostx_load64_be(ctr), lo = gostx_load64_be(ctr + 8);
    for (size_t i = 0; i < count; i++, dst += 16) {
      gostx_store64_be(dst, hi);
      gostx_store64_be(dst + 8, lo);
      if (inc == GOSTX__CTR_LEFT) {
        hi++;
      } else {
        lo++;
        if (inc == GOSTX__CTR_FULL) hi += (uint64_t)(lo == 0);
      }
      /* MGM's counters are secret: without these GCC runs the loop on the
       * counter itself (exit when hi == hi0 + count: a compare of a secret). */
      GOSTX_VALUE_BARRIER(hi);
      GOSTX_VALUE_BARRIER(lo);
    }
    gostx_store64_be(ctr, hi);
    gostx_store64_be(ctr + 8, lo);
  } else {
    if (inc == GOSTX__CTR_FULL) {
      uint64_t v = gostx_load64_be(ctr);
      for (size_t i = 0; i < count; i++, dst += 8, v++) gostx_store64_be(dst, v);
      gostx_store64_be(ctr, v);
      return;
    }
    /* one 32-bit half moves, the other is copied from a local (the word
     * forms with masks measured 8 % slower in Magma-MGM) */
    const size_t var = inc == GOSTX__CTR_RIGHT ? 4 : 0, fix = 4 - var;
    uint8_t fixed[4];
    uint32_t w = gostx_load32_be(ctr + var);
    memcpy(fixed, ctr + fix, 4);
    for (size_t i = 0; i < count; i++, dst += 8, w++) {
      memcpy(dst + fix, fixed, 4);
      gostx_store32_be(dst + var, w);
      GOSTX_VALUE_BARRIER(w);
    }
    gostx_store32_be(ctr + var, w);
  }
}

void gostx__cipher_ctr(const gostx_cipher *c, uint8_t *ctr, unsigned inc, const uint8_t *in,
                       uint8_t *out, size_t nblocks) {
  const size_t n = c->block_len;
  uint8_t g[4096];
  size_t used = 0;
  if (c->id == GOSTX_ALG_KUZNYECHIK) {
    const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
    if (im->ctr) {
      if (nblocks) im->ctr(&c->u.kuz, ctr, inc, in, out, nblocks);
      return;
    }
  }
  if (!in) { /* the keystream itself: counters straight into out */
    gostx__ctr_fill(out, ctr, n, inc, nblocks);
    gostx_cipher_encrypt_blocks(c, out, nblocks, out);
    return;
  }
  while (nblocks) {
    size_t k = nblocks < sizeof g / n ? nblocks : sizeof g / n;
    gostx__ctr_fill(g, ctr, n, inc, k);
    gostx_cipher_encrypt_blocks(c, g, k, g);
    gostx_xor(out, in, g, k * n);
    in += k * n;
    out += k * n;
    nblocks -= k;
    if (used < k * n) used = k * n;
  }
  gostx_memzero(g, used);
}
