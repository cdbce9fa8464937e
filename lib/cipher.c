/* The generic cipher handle: lets every GOST R 34.13 mode take Kuznyechik,
 * Magma or GOST 28147-89 without knowing which. The operations the modes need
 * beyond block calls (counter keystream, chains, XTS runs, re-keying) live
 * here too, so that the modes never reach the implementations' tables. */
#include "blockops/xts_walk.h"
#include "internal.h"
#include "dispatch.h"
#include "cipher_ops.h"
#include "kuznyechik/impl.h"
#include "magma/impl.h"

/* The handle's chain ops are Magma's kernel ops, one to one. */
_Static_assert((int)GOSTX__CHAIN_CBC == (int)GOSTX__MAGMA_CHAIN_CBC &&
                   (int)GOSTX__CHAIN_CFB == (int)GOSTX__MAGMA_CHAIN_CFB &&
                   (int)GOSTX__CHAIN_MAC == (int)GOSTX__MAGMA_CHAIN_MAC &&
                   (int)GOSTX__CHAIN_OFB == (int)GOSTX__MAGMA_CHAIN_OFB,
               "chain op numbers");

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

int gostx_cipher_init_gost89(gostx_cipher *c, const uint8_t key[GOSTX_KEY_LEN], gostx_sbox sbox) {
  if (!c || !key) return GOSTX_EINVAL;
  memset(c, 0, sizeof *c);
  /* The Magma core: the key carries the S-box set and the byte order. */
  c->id = GOSTX_ALG_MAGMA;
  c->block_len = GOSTX_MAGMA_BLOCK_LEN;
  int rc = gostx_gost89_set_key(&c->u.magma, key, sbox);
  if (rc != GOSTX_OK) gostx_cipher_clear(c);
  return rc;
}

int gostx__cipher_rekey(gostx_cipher *c, const uint8_t key[GOSTX_KEY_LEN]) {
  if (c->id == GOSTX_ALG_MAGMA && c->u.magma.le)
    return gostx_cipher_init_gost89(c, key, (gostx_sbox)c->u.magma.sbox_id);
  return gostx_cipher_init(c, (gostx_alg)c->id, key);
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

/* Counter blocks for c: the Magma table's vector fill for 8-byte blocks
 * where it has one (GOST 28147-89's counters fill the same way). */
static void ctr_fill(const gostx_cipher *c, uint8_t *dst, uint8_t *ctr, unsigned inc,
                     size_t count) {
  void (*fill8)(uint8_t *, uint8_t *, unsigned, size_t) = gostx__dispatch()->magma->ctr_fill;
  if (c->block_len == 8 && fill8) fill8(dst, ctr, inc, count);
  else gostx__ctr_fill(dst, ctr, c->block_len, inc, count);
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
    ctr_fill(c, out, ctr, inc, nblocks);
    gostx_cipher_encrypt_blocks(c, out, nblocks, out);
    return;
  }
  while (nblocks) {
    size_t k = nblocks < sizeof g / n ? nblocks : sizeof g / n;
    ctr_fill(c, g, ctr, inc, k);
    gostx_cipher_encrypt_blocks(c, g, k, g);
    gostx_xor(out, in, g, k * n);
    in += k * n;
    out += k * n;
    nblocks -= k;
    if (used < k * n) used = k * n;
  }
  gostx_memzero(g, used);
}

void gostx__cipher_ctr_runs(const gostx_cipher *c, const struct gostx__ctr_run *runs,
                            size_t nruns, uint8_t *out) {
  const size_t n = c->block_len;
  uint8_t ctr[GOSTX_MAX_BLOCK_LEN];
  uint8_t *p = out;
  if (c->id == GOSTX_ALG_KUZNYECHIK && gostx__dispatch()->kuz->ctr_runs) {
    gostx__dispatch()->kuz->ctr_runs(&c->u.kuz, runs, nruns, out);
    return;
  }
  const int kernel = c->id == GOSTX_ALG_KUZNYECHIK && gostx__dispatch()->kuz->ctr;
  for (size_t r = 0; r < nruns; r++) {
    memcpy(ctr, runs[r].ctr, n);
    if (kernel) gostx__cipher_ctr(c, ctr, runs[r].inc, NULL, p, runs[r].count);
    else ctr_fill(c, p, ctr, runs[r].inc, runs[r].count);
    p += runs[r].count * n;
  }
  gostx_memzero(ctr, sizeof ctr);
  if (!kernel) gostx_cipher_encrypt_blocks(c, out, (size_t)(p - out) / n, out);
}

size_t gostx__cipher_ctr_acpkm(gostx_cipher *c, uint8_t *ctr, size_t sec_blocks, const uint8_t *in,
                               uint8_t *out, size_t nsec) {
  if (c->id != GOSTX_ALG_KUZNYECHIK || !in) return 0;
  const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
  return im->ctr_acpkm ? im->ctr_acpkm(&c->u.kuz, ctr, sec_blocks, in, out, nsec) : 0;
}

/* ---- chains (internal.h) ---- */

void gostx__magma_key_chain(const gostx_magma_key *k, int op, uint8_t s[8], const uint8_t *in,
                            uint8_t *out, size_t n) {
  if (n) gostx__dispatch()->magma->chain(k, op, s, in, out, n);
}

void gostx__cipher_chain(const gostx_cipher *c, int op, uint8_t *s, const uint8_t *in,
                         uint8_t *out, size_t nblocks) {
  if (c->id == GOSTX_ALG_MAGMA) {
    gostx__magma_key_chain(&c->u.magma, op, s, in, out, nblocks);
    return;
  }
  const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
  if (im->chain) {
    if (nblocks) im->chain(&c->u.kuz, op, s, in, out, nblocks);
    return;
  }
  /* No chain kernel: one block call per block, as the ops define. */
  const size_t n = c->block_len;
  uint8_t p[GOSTX_MAX_BLOCK_LEN];
  for (size_t i = 0; i < nblocks; i++) {
    memcpy(p, in + n * i, n); /* in may equal out */
    if (op == GOSTX__CHAIN_CBC || op == GOSTX__CHAIN_MAC) gostx_xor(s, s, p, n);
    gostx_cipher_encrypt_blocks(c, s, 1, s);
    if (op == GOSTX__CHAIN_CFB) gostx_xor(s, s, p, n);
    if (op == GOSTX__CHAIN_OFB) gostx_xor(out + n * i, s, p, n);
    else if (op != GOSTX__CHAIN_MAC) memcpy(out + n * i, s, n);
  }
  gostx_memzero(p, sizeof p);
}

void gostx__gost89_imit16(const gostx_gost89_key *k, uint8_t s[8]) {
  uint32_t a1, a0;
  gostx__magma_load(k, s, &a1, &a0);
  gostx__dispatch()->magma->imit16_words(k, &a1, &a0);
  gostx__magma_store(k, s, a1, a0);
}

/* ---- XTS full blocks (internal.h) ---- */

#define XTS_RUN 256 /* blocks per generic cipher call: the widest bitsliced batch */
/* The generic loop: the contract of gostx_kuz_impl.xts on top of the
 * implementation's block calls. */
static void xts_generic(const struct gostx_kuz_impl *im, const gostx_kuz_key *const *keys,
                        size_t nkeys, uint8_t *t, const size_t *idx, const uint8_t *in,
                        uint8_t *out, size_t stride, size_t nb, size_t count, int decrypt) {
  uint8_t tw[XTS_RUN * 16];
  struct gostx__xts_walk w;
  const gostx_kuz_key *k;
  size_t m, off, used = 0;
  const gostx_kuz_blocks_fn f = decrypt ? im->decrypt_blocks : im->encrypt_blocks;
  gostx__xts_walk_init(&w, keys, nkeys, t, idx, stride, nb, count);
  while ((m = gostx__xts_walk_next(&w, tw, XTS_RUN, &off, &k)) != 0) {
    if (used < 16 * m) used = 16 * m;
    gostx_xor(out + off, in + off, tw, 16 * m);
    f(k, out + off, out + off, m);
    gostx_xor(out + off, out + off, tw, 16 * m);
  }
  gostx_memzero(tw, used); /* only what held tweaks */
  gostx_memzero(&w, sizeof w);
}

void gostx__xts_full(const gostx_kuz_key *const *keys, size_t nkeys, int decrypt, uint8_t *t,
                     const size_t *idx, const uint8_t *in, uint8_t *out, size_t stride, size_t nb,
                     size_t count) {
  const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
  if (!nb || !count) return;
  if (im->xts) im->xts(keys, nkeys, t, idx, in, out, stride, nb, count, decrypt);
  else xts_generic(im, keys, nkeys, t, idx, in, out, stride, nb, count, decrypt);
}

size_t gostx__xts_unit(void) {
  const struct gostx_kuz_impl *im = gostx__dispatch()->kuz;
  return im->xts ? im->xts_unit : 0;
}

size_t gostx__cipher_mgm_solo_min(const gostx_cipher *c) {
  return c->id == GOSTX_ALG_MAGMA ? gostx__dispatch()->magma->mgm_solo_min
                                  : gostx__dispatch()->kuz->mgm_solo_min;
}
