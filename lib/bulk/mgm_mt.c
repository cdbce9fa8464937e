/* Parallel MGM (include/gostx/bulk.h).
 *
 * MGM's tag is E(sum_i H_i (x) B_i) over B = A padded || C padded || lengths,
 * with H_i = E(Z_i), Z_i = Z_1 + (i-1) on the left half, and C_i = P_i xor
 * E(Y_i), Y_i = Y_1 + (i-1) on the right half. Both counters jump ahead by
 * simple additions, and the sum is linear, so the blocks of A and of the data
 * are cut into ranges: each task encrypts its range with Y jumped to the
 * range's first block and sums H_i (x) B_i with Z jumped to the range's first
 * position; the partial sums are XORed at the end (in any order: XOR is
 * commutative), the lengths block is added and E(sum) is the tag. Decryption
 * makes two parallel passes: the tag over the ciphertext first, then, only
 * when it matches, the keystream. The per-range work runs the single-threaded
 * core (gostx__mgm_blocks in lib/mgm/mgm.c). */
#include <stdlib.h>

#include "bulk_internal.h"
#include "mgm/mgm_internal.h"

enum { MGM_ENCRYPT, MGM_HASH_CT, MGM_DECRYPT_CT };

struct mgm_job {
  const gostx_cipher *c;
  size_t n;
  int pass;
  uint8_t y1[GOSTX_MAX_BLOCK_LEN], z1[GOSTX_MAX_BLOCK_LEN];
  const uint8_t *aad;
  size_t aad_len, a_blocks, aad_tasks, aad_chunk; /* aad_chunk, data_chunk: blocks per task */
  const uint8_t *in;
  uint8_t *out;
  size_t len, c_blocks, data_chunk;
  uint8_t *sums; /* one n-byte partial sum per task */
};

/* Counter jumps: the right half (Y) or the left half (Z) plus k, mod 2^(n/2). */
static void mgm_jump(uint8_t *dst, const uint8_t *src, size_t n, int right, uint64_t k) {
  memcpy(dst, src, n);
  gostx__ctr_add(dst, n, right ? GOSTX__CTR_RIGHT : GOSTX__CTR_LEFT, k);
}

static void mgm_task(void *arg, size_t t) {
  const struct mgm_job *j = arg;
  const size_t n = j->n;
  uint8_t y[GOSTX_MAX_BLOCK_LEN], z[GOSTX_MAX_BLOCK_LEN], blk[GOSTX_MAX_BLOCK_LEN];
  uint8_t *sum = j->sums + t * n;
  memset(sum, 0, n);
  if (t < j->aad_tasks) {
    /* A range of associated-data blocks: hash only. */
    size_t b0 = t * j->aad_chunk, b1 = b0 + j->aad_chunk, full = j->aad_len / n;
    if (b1 > j->a_blocks) b1 = j->a_blocks;
    mgm_jump(z, j->z1, n, 0, b0);
    memset(y, 0, n);
    size_t nf = (b1 < full ? b1 : full) - b0;
    gostx__mgm_blocks(j->c, 0, y, z, sum, j->aad + b0 * n, NULL, nf, 0, 1);
    if (b1 > full) { /* the zero-padded last block */
      size_t r = j->aad_len - full * n;
      memset(blk, 0, n);
      memcpy(blk, j->aad + full * n, r);
      gostx__mgm_blocks(j->c, 0, y, z, sum, blk, NULL, 1, 0, 1);
    }
  } else {
    t -= j->aad_tasks;
    size_t b0 = t * j->data_chunk, b1 = b0 + j->data_chunk, full = j->len / n;
    if (b1 > j->c_blocks) b1 = j->c_blocks;
    mgm_jump(y, j->y1, n, 1, b0);
    mgm_jump(z, j->z1, n, 0, j->a_blocks + b0);
    size_t nf = (b1 < full ? b1 : full) - b0;
    const uint8_t *in = j->in + b0 * n;
    uint8_t *out = j->out + b0 * n;
    switch (j->pass) {
      case MGM_ENCRYPT: gostx__mgm_blocks(j->c, 0, y, z, sum, in, out, nf, 1, 1); break;
      case MGM_HASH_CT: gostx__mgm_blocks(j->c, 1, y, z, sum, in, NULL, nf, 0, 1); break;
      default: gostx__mgm_blocks(j->c, 1, y, z, sum, in, out, nf, 1, 0); break;
    }
    if (b1 > full) { /* the partial last block */
      size_t r = j->len - full * n;
      const uint8_t *tin = j->in + full * n;
      uint8_t *tout = j->out + full * n;
      memset(blk, 0, n);
      memcpy(blk, tin, r);
      if (j->pass != MGM_HASH_CT) {
        /* blk = tail xor E(Y) (the bytes past r are gamma, dropped). */
        gostx__mgm_blocks(j->c, j->pass != MGM_ENCRYPT, y, z, sum, blk, blk, 1, 1, 0);
        memcpy(tout, blk, r);
        memset(blk + r, 0, n - r);
      }
      if (j->pass == MGM_ENCRYPT) gostx__mgm_blocks(j->c, 0, y, z, sum, blk, NULL, 1, 0, 1);
      if (j->pass == MGM_HASH_CT) gostx__mgm_blocks(j->c, 1, y, z, sum, blk, NULL, 1, 0, 1);
    }
  }
  gostx_memzero(y, sizeof y);
  gostx_memzero(z, sizeof z);
  gostx_memzero(blk, sizeof blk);
}

/* Runs one pass over AAD (when hash) and data; XORs the partial sums into sum. */
static int mgm_pass(gostx_pool *pool, struct mgm_job *j, int pass, int with_aad, uint8_t *sum) {
  j->pass = pass;
  j->aad_tasks = with_aad ? (j->a_blocks + j->aad_chunk - 1) / j->aad_chunk : 0;
  size_t ntasks = j->aad_tasks + (j->c_blocks + j->data_chunk - 1) / j->data_chunk;
  if (!ntasks) return GOSTX_OK;
  j->sums = calloc(ntasks, j->n);
  if (!j->sums) return GOSTX_ENOMEM;
  int rc = gostx_pool_run(pool, ntasks, mgm_task, j);
  for (size_t t = 0; t < ntasks; t++) gostx_xor(sum, sum, j->sums + t * j->n, j->n);
  gostx_memzero(j->sums, ntasks * j->n);
  free(j->sums);
  j->sums = NULL;
  return rc;
}

/* Sets up the job; returns the argument checks' code (as the one-shot calls). */
static int mgm_setup(gostx_pool *pool, struct mgm_job *j, const gostx_cipher *c,
                     const uint8_t *nonce, const uint8_t *aad, size_t aad_len,
                     const uint8_t *in, size_t len, uint8_t *out) {
  memset(j, 0, sizeof *j);
  int rc = gostx__mgm_y1z1(c, nonce, c->block_len, j->y1, j->z1);
  if (rc) return rc;
  const size_t n = c->block_len;
  const uint64_t limit = (uint64_t)1 << (n * 4 - 3); /* 2^(n/2) bits, in bytes */
  if ((uint64_t)aad_len >= limit || (uint64_t)len >= limit - aad_len) return GOSTX_ELEN;
  const unsigned nth = gostx_pool_size(pool);
  j->c = c;
  j->n = n;
  j->aad = aad;
  j->aad_len = aad_len;
  j->a_blocks = (aad_len + n - 1) / n;
  j->aad_chunk = gostx__bulk_chunk(aad_len, nth, n) / n;
  j->in = in;
  j->out = out;
  j->len = len;
  j->c_blocks = (len + n - 1) / n;
  j->data_chunk = gostx__bulk_chunk(len, nth, n) / n;
  return GOSTX_OK;
}

/* sum += H (x) lengths block; full = E(sum). */
static void mgm_final(struct mgm_job *j, uint8_t *sum, uint8_t *full) {
  const size_t n = j->n;
  uint8_t lens[GOSTX_MAX_BLOCK_LEN], y[GOSTX_MAX_BLOCK_LEN], z[GOSTX_MAX_BLOCK_LEN];
  if (n == 16) {
    gostx_store64_be(lens, (uint64_t)j->aad_len * 8);
    gostx_store64_be(lens + 8, (uint64_t)j->len * 8);
  } else {
    gostx_store32_be(lens, (uint32_t)((uint64_t)j->aad_len * 8));
    gostx_store32_be(lens + 4, (uint32_t)((uint64_t)j->len * 8));
  }
  memset(y, 0, n);
  mgm_jump(z, j->z1, n, 0, j->a_blocks + j->c_blocks);
  gostx__mgm_blocks(j->c, 0, y, z, sum, lens, NULL, 1, 0, 1);
  gostx_cipher_encrypt_blocks(j->c, sum, 1, full);
  gostx_memzero(z, sizeof z);
}

/* Both directions on the pool, once the call is for it: encrypt (check NULL)
 * writes the ciphertext and hashes it, the tag into tag_out; decrypt hashes
 * the ciphertext first and decrypts only when the tag check matches. */
static int mgm_mt(gostx_pool *pool, const gostx_cipher *c, const gostx_mgm_params *p,
                  const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag_out,
                  const uint8_t *check) {
  const size_t tag_len = p->tag_len;
  if (!c || !(check ? check : tag_out) || (!p->aad && p->aad_len) || ((!in || !out) && len))
    return GOSTX_EINVAL;
  if (tag_len < 4 || tag_len > c->block_len) return GOSTX_ELEN;
  struct mgm_job j;
  uint8_t sum[GOSTX_MAX_BLOCK_LEN] = {0}, full[GOSTX_MAX_BLOCK_LEN];
  int rc = mgm_setup(pool, &j, c, p->nonce, p->aad, p->aad_len, in, len, out);
  if (!rc) rc = mgm_pass(pool, &j, check ? MGM_HASH_CT : MGM_ENCRYPT, 1, sum);
  if (!rc) {
    mgm_final(&j, sum, full);
    if (!check) memcpy(tag_out, full, tag_len);
    else if (gostx_memeq_ct(full, check, tag_len) != 0) rc = GOSTX_EAUTH;
  }
  if (!rc && check) rc = mgm_pass(pool, &j, MGM_DECRYPT_CT, 0, sum);
  gostx_memzero(sum, sizeof sum);
  gostx_memzero(full, sizeof full);
  gostx_memzero(&j, sizeof j);
  return rc;
}

/* Short calls (or a length sum that wraps) go to the one-thread calls. */
static int serial(gostx_pool *pool, const gostx_mgm_params *p, size_t len) {
  return !gostx__bulk_parallel(pool, p->aad_len + len) || p->aad_len + len < p->aad_len;
}

int gostx_mgm_encrypt_mt(gostx_pool *pool, const gostx_cipher *c, const gostx_mgm_params *p,
                         const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag) {
  if (!p) return GOSTX_EINVAL;
  if (serial(pool, p, len))
    return gostx_mgm_encrypt(c, p->nonce, p->aad, p->aad_len, in, len, out, tag, p->tag_len);
  return mgm_mt(pool, c, p, in, len, out, tag, NULL);
}

int gostx_mgm_decrypt_mt(gostx_pool *pool, const gostx_cipher *c, const gostx_mgm_params *p,
                         const uint8_t *in, size_t len, const uint8_t *tag, uint8_t *out) {
  if (!p) return GOSTX_EINVAL;
  if (serial(pool, p, len))
    return gostx_mgm_decrypt(c, p->nonce, p->aad, p->aad_len, in, len, tag, p->tag_len, out);
  return mgm_mt(pool, c, p, in, len, out, NULL, tag);
}
