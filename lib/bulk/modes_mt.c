/* Parallel CTR, CTR-ACPKM, ECB and XTS (include/gostx/bulk.h).
 *
 * The input is cut on block boundaries into tasks; each task runs the
 * ordinary single-threaded core on its range, having first computed where the
 * range starts: CTR jumps the counter ahead by the range's first block
 * number, CTR-ACPKM takes the section key from a chain computed beforehand,
 * XTS takes the sector number. So every thread count gives the same bytes.
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

int gostx_ctr_crypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                       size_t iv_len, const uint8_t *in, uint8_t *out, size_t len) {
  const size_t s = c ? c->block_len : 0;
  if (!gostx__bulk_parallel(pool, len) || !gostx__modes_cipher_ok(c))
    return gostx_ctr_crypt(c, iv, iv_len, s ? s : 1, in, out, len);
  return gostx__ctr_crypt_mt_from(pool, c, iv, iv_len, 0, in, out, len);
}

/* ---- CTR-ACPKM ----
 * Section i (bytes [iN, (i+1)N)) is plain CTR under K^i starting at counter
 * CTR_1 + iN/n. The key chain K^0 = K, K^{i+1} = ACPKM(K^i) is sequential, so
 * it is computed one window of sections ahead: while the pool encrypts the
 * sections of window w with the keys in one buffer, task 0 of the same run
 * fills the other buffer with the keys of window w + 1. Tasks are whole
 * sections (several per task when sections are short) or parts of one
 * section (when sections are long). */

#define ACPKM_WINDOW_BYTES (4u << 20) /* data per window */
#define ACPKM_WINDOW_MAX 1024         /* section keys per window */

struct acpkm_job {
  const uint8_t *iv;
  const uint8_t *in;
  uint8_t *out;
  size_t len, section_len, total; /* total: sections in the message */
  size_t win;                     /* sections per window */
  size_t per_task;                /* short sections: sections per task */
  size_t parts, part_len;         /* long sections: tasks per section, bytes per part */
  /* The window being encrypted and the one whose keys are being made. */
  size_t first, nsections;
  const gostx_cipher *keys;       /* keys[k] = K^(first + k) */
  gostx_cipher *next_keys;        /* to fill with K^(first + win ...) */
  gostx_cipher *chain;            /* the next key of the chain not yet stored */
  int chain_task;                 /* 1 when task 0 makes the next window's keys */
};

/* keys[0..cnt) = the next cnt keys of the chain; *chain advances. */
static void acpkm_chain(gostx_cipher *chain, gostx_cipher *keys, size_t cnt) {
  uint8_t next[GOSTX_KEY_LEN];
  for (size_t k = 0; k < cnt; k++) {
    keys[k] = *chain;
    gostx_acpkm_next_key(chain, next);
    gostx_cipher_init(chain, chain->id, next); /* valid id: cannot fail */
  }
  gostx_memzero(next, sizeof next);
}

/* Bytes [off, off + l) of section sec (in the current window). */
static void acpkm_range(const struct acpkm_job *j, size_t k, size_t off, size_t l) {
  const size_t n = j->keys[0].block_len;
  gostx_mode_ctx ctx;
  if (gostx_mode_init(&ctx, &j->keys[k], GOSTX_MODE_CTR, 0, j->iv, n / 2, 0, GOSTX_PAD_NONE, 0) ==
      GOSTX_OK) {
    gostx__ctr_add(ctx.reg, n, GOSTX__CTR_FULL, off / n);
    gostx__ctr_bytes(&ctx, j->in + off, j->out + off, l);
  }
  gostx_memzero(&ctx, sizeof ctx);
}

static void acpkm_task(void *arg, size_t t) {
  const struct acpkm_job *j = arg;
  if (j->chain_task) {
    if (t == 0) {
      size_t nf = j->first + j->win, cnt = j->total - nf < j->win ? j->total - nf : j->win;
      acpkm_chain(j->chain, j->next_keys, cnt);
      return;
    }
    t--;
  }
  if (j->parts) {
    size_t k = t / j->parts, p = t % j->parts;
    size_t sec_off = (j->first + k) * j->section_len, off = sec_off + p * j->part_len;
    size_t sec_end = sec_off + j->section_len < j->len ? sec_off + j->section_len : j->len;
    if (off >= sec_end) return;
    acpkm_range(j, k, off, sec_end - off < j->part_len ? sec_end - off : j->part_len);
    return;
  }
  size_t a = t * j->per_task, b = a + j->per_task;
  if (b > j->nsections) b = j->nsections;
  for (size_t k = a; k < b; k++) {
    size_t off = (j->first + k) * j->section_len;
    acpkm_range(j, k, off, j->len - off < j->section_len ? j->len - off : j->section_len);
  }
}

int gostx_ctr_acpkm_crypt_mt(gostx_pool *pool, const gostx_cipher *c, size_t section_len,
                             const uint8_t *iv, size_t iv_len, const uint8_t *in, uint8_t *out,
                             size_t len) {
  if (!gostx__bulk_parallel(pool, len) || section_len == 0)
    return gostx_ctr_acpkm_crypt(c, section_len, iv, iv_len, in, out, len);
  gostx_mode_ctx chk;
  int rc = gostx_mode_init(&chk, c, GOSTX_MODE_CTR_ACPKM, 0, iv, iv_len, 0, GOSTX_PAD_NONE,
                           section_len);
  gostx_memzero(&chk, sizeof chk);
  if (rc) return rc;
  if (!in || !out) return GOSTX_EINVAL;

  const size_t n = c->block_len, total = (len + section_len - 1) / section_len;
  size_t win = ACPKM_WINDOW_BYTES / section_len;
  if (win < 1) win = 1;
  if (win > ACPKM_WINDOW_MAX) win = ACPKM_WINDOW_MAX;
  if (win > total) win = total;
  /* gostx_cipher holds 64-byte-aligned keys; its size is a multiple of 64. */
  gostx_cipher *buf = aligned_alloc(_Alignof(gostx_cipher), 2 * win * sizeof *buf);
  if (!buf) return gostx_ctr_acpkm_crypt(c, section_len, iv, iv_len, in, out, len);

  const size_t chunk = gostx__bulk_chunk(len, gostx_pool_size(pool), n);
  struct acpkm_job j;
  memset(&j, 0, sizeof j);
  j.iv = iv;
  j.in = in;
  j.out = out;
  j.len = len;
  j.section_len = section_len;
  j.total = total;
  j.win = win;
  if (section_len > chunk) {
    j.part_len = chunk;
    j.parts = (section_len + chunk - 1) / chunk;
  } else {
    j.per_task = chunk / section_len;
  }
  gostx_cipher chain = *c;
  j.chain = &chain;
  acpkm_chain(&chain, buf, win); /* window 0 */
  for (size_t first = 0, w = 0; first < total; first += win, w ^= 1) {
    size_t cnt = total - first < win ? total - first : win;
    j.first = first;
    j.nsections = cnt;
    j.keys = buf + w * win;
    j.next_keys = buf + (w ^ 1) * win;
    j.chain_task = first + win < total;
    size_t ntasks = j.parts ? cnt * j.parts : (cnt + j.per_task - 1) / j.per_task;
    rc = gostx_pool_run(pool, ntasks + (size_t)j.chain_task, acpkm_task, &j);
    if (rc) break;
  }
  gostx_memzero(&chain, sizeof chain);
  gostx_memzero(buf, 2 * win * sizeof *buf);
  free(buf);
  return rc;
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
  if (j->decrypt) gostx_cipher_decrypt_blocks(j->c, j->in + off, j->out + off, l / j->c->block_len);
  else gostx_cipher_encrypt_blocks(j->c, j->in + off, j->out + off, l / j->c->block_len);
}

static int ecb_mt(gostx_pool *pool, const gostx_cipher *c, int decrypt, const uint8_t *in,
                  uint8_t *out, size_t len) {
  if (!gostx__bulk_parallel(pool, len) || !gostx__modes_cipher_ok(c) || !in || !out ||
      len % c->block_len)
    return decrypt ? gostx_ecb_decrypt(c, in, out, len) : gostx_ecb_encrypt(c, in, out, len);
  struct ecb_job j = {c, decrypt, in, out, len,
                      gostx__bulk_chunk(len, gostx_pool_size(pool), c->block_len)};
  return gostx_pool_run(pool, (len + j.chunk - 1) / j.chunk, ecb_task, &j);
}

int gostx_ecb_encrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in,
                         uint8_t *out, size_t len) {
  return ecb_mt(pool, c, 0, in, out, len);
}

int gostx_ecb_decrypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *in,
                         uint8_t *out, size_t len) {
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
    return decrypt ? gostx_xts_decrypt_sector(x, num, in + off, out + off, last)
                   : gostx_xts_encrypt_sector(x, num, in + off, out + off, last);
  }
  return GOSTX_OK;
}

int gostx_xts_encrypt_mt(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                         size_t sector_size, const uint8_t *in, uint8_t *out, size_t len) {
  return xts_mt(pool, key, 0, first_sector, sector_size, in, out, len);
}

int gostx_xts_decrypt_mt(gostx_pool *pool, const gostx_xts_key *key, uint64_t first_sector,
                         size_t sector_size, const uint8_t *in, uint8_t *out, size_t len) {
  return xts_mt(pool, key, 1, first_sector, sector_size, in, out, len);
}
