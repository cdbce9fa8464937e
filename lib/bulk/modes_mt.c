/* Parallel CTR, ECB and XTS (include/gostx/bulk.h; CTR-ACPKM: acpkm_mt.c).
 *
 * The input is cut on block boundaries into tasks; each task runs the
 * ordinary single-threaded core on its range, having first computed where the
 * range starts: CTR jumps the counter ahead by the range's first block
 * number, XTS takes the sector number. So every thread count gives the same bytes.
 * Each task keeps its key copy and counters on its own stack and wipes them. */
#include <stdlib.h>

#include "bulk_internal.h"
#include "modes/modes_internal.h"

/* ---- CTR ---- */

struct ctr_job {
  const gostx_cipher *c;
  const uint8_t *iv;
  const uint8_t *in;
  uint8_t *out;
  size_t len, chunk; /* chunk: bytes per task, a multiple of n */
  uint64_t first;    /* block number of in[0] within the message */
};

static void ctr_task(void *arg, size_t t) {
  const struct ctr_job *j = arg;
  const size_t n = j->c->block_len, off = t * j->chunk;
  size_t l = j->len - off < j->chunk ? j->len - off : j->chunk;
  gostx_mode_ctx ctx;
  if (gostx_mode_init(&ctx, j->c, GOSTX_MODE_CTR, 0, j->iv, n / 2, 0, GOSTX_PAD_NONE, 0) ==
      GOSTX_OK) {
    /* CTR_1 + (first block of the range) */
    gostx__ctr_add(ctx.reg, n, GOSTX__CTR_FULL, j->first + off / n);
    gostx__ctr_bytes(&ctx, j->in + off, j->out + off, l);
  }
  gostx_memzero(&ctx, sizeof ctx);
}

int gostx__ctr_crypt_mt_from(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                             size_t iv_len, uint64_t first_block, const uint8_t *in,
                             uint8_t *out, size_t len) {
  if (!gostx__modes_cipher_ok(c)) return GOSTX_EINVAL;
  const size_t s = c->block_len;
  gostx_mode_ctx chk;
  int rc = gostx_mode_init(&chk, c, GOSTX_MODE_CTR, 0, iv, iv_len, 0, GOSTX_PAD_NONE, 0);
  gostx_memzero(&chk, sizeof chk);
  if (rc) return rc;
  if (len && (!in || !out)) return GOSTX_EINVAL;
  if (!len) return GOSTX_OK;
  struct ctr_job j = {c,   iv, in, out, len, gostx__bulk_chunk(len, gostx_pool_size(pool), s),
                      first_block};
  return gostx_pool_run(pool, (len + j.chunk - 1) / j.chunk, ctr_task, &j);
}

int gostx_ctr_crypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                       const uint8_t *in, size_t len, uint8_t *out) {
  const size_t s = c ? c->block_len : 0;
  if (!gostx__bulk_parallel(pool, len) || !gostx__modes_cipher_ok(c))
    return gostx_ctr_crypt(c, iv, iv_len, s ? s : 1, in, len, out);
  return gostx__ctr_crypt_mt_from(pool, c, iv, iv_len, 0, in, out, len);
}

int gostx_ctr_crypt_mt_at(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                          size_t iv_len, uint64_t first_block, const uint8_t *in, size_t len,
                          uint8_t *out) {
  /* short pieces run inline: the pool's hand-off costs more than it gains */
  return gostx__ctr_crypt_mt_from(gostx__bulk_parallel(pool, len) ? pool : NULL, c, iv, iv_len,
                                  first_block, in, out, len);
}

/* ---- ECB ---- */

struct ecb_job {
  const gostx_cipher *c;
  int decrypt;
  const uint8_t *in;
  uint8_t *out;
  size_t len, chunk;
};

static void ecb_task(void *arg, size_t t) {
  const struct ecb_job *j = arg;
  const size_t off = t * j->chunk;
  size_t l = j->len - off < j->chunk ? j->len - off : j->chunk;
  if (j->decrypt) gostx_cipher_decrypt_blocks(j->c, j->in + off, l / j->c->block_len, j->out + off);
  else gostx_cipher_encrypt_blocks(j->c, j->in + off, l / j->c->block_len, j->out + off);
}

static int ecb_mt(gostx_pool *pool, const gostx_cipher *c, int decrypt, const uint8_t *in,
                  uint8_t *out, size_t len) {
  if (!gostx__bulk_parallel(pool, len) || !gostx__modes_cipher_ok(c) || !in || !out ||
      len % c->block_len)
    return decrypt ? gostx_ecb_decrypt(c, in, len, out) : gostx_ecb_encrypt(c, in, len, out);
  struct ecb_job j = {c, decrypt, in, out, len,
                      gostx__bulk_chunk(len, gostx_pool_size(pool), c->block_len)};
  return gostx_pool_run(pool, (len + j.chunk - 1) / j.chunk, ecb_task, &j);
}

int gostx_ecb_encrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in, size_t len,
                         uint8_t *out) {
  return ecb_mt(pool, c, 0, in, out, len);
}

int gostx_ecb_decrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in, size_t len,
                         uint8_t *out) {
  return ecb_mt(pool, c, 1, in, out, len);
}

/* ---- XTS over consecutive sectors ---- */

struct xts_job {
  const gostx_xts_key *x;
  int decrypt;
  uint64_t first;
  size_t sector_size, nsectors, per_task;
  const uint8_t *in;
  uint8_t *out;
};

static void xts_task(void *arg, size_t t) {
  const struct xts_job *j = arg;
  size_t a = t * j->per_task, cnt = j->nsectors - a < j->per_task ? j->nsectors - a : j->per_task;
  size_t off = a * j->sector_size;
  gostx__xts_units(j->x, j->decrypt, NULL, j->first + a, 1, NULL, j->in + off, j->out + off,
                   j->sector_size, cnt);
}

static int xts_mt(gostx_pool *pool, const gostx_xts_key *x, int decrypt, uint64_t first,
                  size_t sector_size, const uint8_t *in, uint8_t *out, size_t len) {
  if (!x || (len && (!in || !out))) return GOSTX_EINVAL;
  if (sector_size < 16) return GOSTX_ELEN;
  const size_t nfull = len / sector_size, last = len % sector_size;
  if (last && last < 16) return GOSTX_ELEN;
  if (nfull) {
    size_t per = gostx__bulk_chunk(len, gostx_pool_size(pool), sector_size) / sector_size;
    struct xts_job j = {x, decrypt, first, sector_size, nfull, per, in, out};
    if (gostx__bulk_parallel(pool, len))
      gostx_pool_run(pool, (nfull + per - 1) / per, xts_task, &j);
    else
      gostx__xts_units(x, decrypt, NULL, first, 1, NULL, in, out, sector_size, nfull);
  }
  if (last) {
    size_t off = nfull * sector_size;
    uint64_t num = first + nfull;
    return decrypt ? gostx_xts_decrypt_sector(x, num, in + off, last, out + off)
                   : gostx_xts_encrypt_sector(x, num, in + off, last, out + off);
  }
  return GOSTX_OK;
}

int gostx_xts_encrypt_mt(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                         size_t sector_size, const uint8_t *in, size_t len, uint8_t *out) {
  return xts_mt(pool, key, 0, first_sector, sector_size, in, out, len);
}

int gostx_xts_decrypt_mt(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                         size_t sector_size, const uint8_t *in, size_t len, uint8_t *out) {
  return xts_mt(pool, key, 1, first_sector, sector_size, in, out, len);
}
