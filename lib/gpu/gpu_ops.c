/* gostx CUDA backend: the one-shot calls (CTR, ECB, XTS, CNT on host or
 * device buffers): argument checks, the job, the pipeline; and the split
 * of one CTR job between the GPU and the CPU pool. */
#include <pthread.h>

#include "gpu_internal.h"

/* ---- argument checks and job setup ---- */
static int cipher_job(job *j, const gostx_cipher *c, int ctr, int decrypt, const uint8_t *iv,
                      size_t iv_len, size_t len) {
  memset(j, 0, sizeof *j);
  if (!c || (c->id != GOSTX_ALG_KUZNYECHIK && c->id != GOSTX_ALG_MAGMA)) {
    set_err("bad cipher handle");
    return GOSTX_EINVAL;
  }
  const size_t n = c->id == GOSTX_ALG_KUZNYECHIK ? 16 : 8;
  if (ctr) {
    if (!iv) { set_err("no IV"); return GOSTX_EINVAL; }
    if (iv_len != n / 2) { set_err("CTR IV must be n/2 = %zu bytes", n / 2); return GOSTX_ELEN; }
    memcpy(j->iv, iv, iv_len);
  } else if (len % n) {
    set_err("ECB length %zu is not a multiple of the block length %zu", len, n);
    return GOSTX_ELEN;
  }
  j->cipher_id = c->id;
  j->decrypt = decrypt;
  if (c->id == GOSTX_ALG_KUZNYECHIK) {
    j->kind = ctr ? JOB_KUZ_CTR : JOB_KUZ_ECB;
    gostx__gpu_kuz_params(&j->kp, &c->u.kuz);
  } else {
    j->kind = ctr ? JOB_MAGMA_CTR : JOB_MAGMA_ECB;
    gostx__gpu_magma_params(&j->mp, &c->u.magma);
  }
  return GOSTX_OK;
}

static int xts_job(job *j, const gostx_xts_key *x, uint64_t sector0, size_t sector_len,
                   int decrypt, size_t len) {
  memset(j, 0, sizeof *j);
  if (!x) { set_err("no XTS key"); return GOSTX_EINVAL; }
  if (sector_len == 0 || sector_len % 16 || sector_len / 16 > 0xffffffffu) {
    set_err("sector length %zu is not a positive multiple of 16", sector_len);
    return GOSTX_ELEN;
  }
  if (len % sector_len) {
    set_err("length %zu is not a multiple of the sector length %zu", len, sector_len);
    return GOSTX_ELEN;
  }
  j->kind = JOB_KUZ_XTS;
  j->decrypt = decrypt;
  j->sector0 = sector0;
  j->sector_len = sector_len;
  gostx__gpu_kuz_params(&j->kp, &x->data);
  gostx__gpu_kuz_params(&j->kp2, &x->tweak);
  return GOSTX_OK;
}

static int cnt_job(job *j, const gostx_gost89_key *k, const uint8_t iv[8]) {
  memset(j, 0, sizeof *j);
  if (!k || !iv || k->sbox_id >= GOSTX_SBOX_COUNT) { set_err("bad key or IV"); return GOSTX_EINVAL; }
  j->kind = JOB_CNT;
  gostx__gpu_magma_params(&j->mp, k);
  j->mp.le = 1;
  uint8_t s[8];
  gostx_gost89_encrypt_blocks(k, iv, 1, s); /* (N3, N4) = E_K(S) */
  j->n3 = gostx_load32_le(s);
  j->n4 = gostx_load32_le(s + 4);
  gostx_memzero(s, sizeof s);
  return GOSTX_OK;
}

/* ---- the calls: checks, the job, the run on host or device buffers ---- */

/* Runs the job when its setup (rc) accepted it; the job goes either way. */
static int finish(gostx_gpu *g, job *j, gpu_bufs b, size_t len, int rc) {
  if (!rc) rc = gostx__gpu_run(g, j, b, len);
  job_wipe(j);
  return rc;
}

static int cipher_call(gostx_gpu *g, const gostx_cipher *c, int ctr, int dec, const uint8_t *iv,
                       size_t iv_len, gpu_bufs b, size_t len) {
  if (!bufs_ok(g, b, len)) return GOSTX_EINVAL;
  job j;
  return finish(g, &j, b, len, cipher_job(&j, c, ctr, dec, iv, iv_len, len));
}

static int xts_call(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0, size_t sector_len,
                    int dec, gpu_bufs b, size_t len) {
  if (!bufs_ok(g, b, len)) return GOSTX_EINVAL;
  job j;
  return finish(g, &j, b, len, xts_job(&j, x, sector0, sector_len, dec, len));
}

static int cnt_call(gostx_gpu *g, const gostx_gost89_key *k, const uint8_t iv[8], gpu_bufs b,
                    size_t len) {
  if (!bufs_ok(g, b, len)) return GOSTX_EINVAL;
  job j;
  return finish(g, &j, b, len, cnt_job(&j, k, iv));
}

int gostx_gpu_ctr_crypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                        const uint8_t *in, size_t len, uint8_t *out) {
  return cipher_call(g, c, 1, 0, iv, iv_len, HOST_BUFS(in, out), len);
}

int gostx_gpu_ecb_encrypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *in, size_t len,
                          uint8_t *out) {
  return cipher_call(g, c, 0, 0, NULL, 0, HOST_BUFS(in, out), len);
}

int gostx_gpu_ecb_decrypt(gostx_gpu *g, const gostx_cipher *c, const uint8_t *in, size_t len,
                          uint8_t *out) {
  return cipher_call(g, c, 0, 1, NULL, 0, HOST_BUFS(in, out), len);
}

int gostx_gpu_xts_encrypt(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                          size_t sector_len, const uint8_t *in, size_t len, uint8_t *out) {
  return xts_call(g, x, sector0, sector_len, 0, HOST_BUFS(in, out), len);
}

int gostx_gpu_xts_decrypt(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                          size_t sector_len, const uint8_t *in, size_t len, uint8_t *out) {
  return xts_call(g, x, sector0, sector_len, 1, HOST_BUFS(in, out), len);
}

int gostx_gpu_gost89_cnt(gostx_gpu *g, const gostx_gost89_key *k, const uint8_t iv[8],
                         const uint8_t *in, size_t len, uint8_t *out) {
  return cnt_call(g, k, iv, HOST_BUFS(in, out), len);
}

int gostx_gpu_ctr_crypt_dev(gostx_gpu *g, const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                            gostx_gpu_ptr in, size_t len, gostx_gpu_ptr out) {
  return cipher_call(g, c, 1, 0, iv, iv_len, DEV_BUFS(in, out), len);
}

int gostx_gpu_ecb_encrypt_dev(gostx_gpu *g, const gostx_cipher *c, gostx_gpu_ptr in, size_t len,
                              gostx_gpu_ptr out) {
  return cipher_call(g, c, 0, 0, NULL, 0, DEV_BUFS(in, out), len);
}

int gostx_gpu_ecb_decrypt_dev(gostx_gpu *g, const gostx_cipher *c, gostx_gpu_ptr in, size_t len,
                              gostx_gpu_ptr out) {
  return cipher_call(g, c, 0, 1, NULL, 0, DEV_BUFS(in, out), len);
}

int gostx_gpu_xts_encrypt_dev(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                              size_t sector_len, gostx_gpu_ptr in, size_t len, gostx_gpu_ptr out) {
  return xts_call(g, x, sector0, sector_len, 0, DEV_BUFS(in, out), len);
}

int gostx_gpu_xts_decrypt_dev(gostx_gpu *g, const gostx_xts_key *x, uint64_t sector0,
                              size_t sector_len, gostx_gpu_ptr in, size_t len, gostx_gpu_ptr out) {
  return xts_call(g, x, sector0, sector_len, 1, DEV_BUFS(in, out), len);
}

int gostx_gpu_gost89_cnt_dev(gostx_gpu *g, const gostx_gost89_key *k, const uint8_t iv[8],
                             gostx_gpu_ptr in, size_t len, gostx_gpu_ptr out) {
  return cnt_call(g, k, iv, DEV_BUFS(in, out), len);
}

/* ---- one job on the GPU and the CPU pool at once ---- */
struct split_gpu {
  gostx_gpu *g;
  const gostx_cipher *c;
  const uint8_t *iv, *in;
  uint8_t *out;
  size_t iv_len, len;
  int rc;
  char err[sizeof gpu_err];
};

static void *split_gpu_thread(void *arg) {
  struct split_gpu *a = arg;
  a->rc = gostx_gpu_ctr_crypt(a->g, a->c, a->iv, a->iv_len, a->in, a->len, a->out);
  if (a->rc) memcpy(a->err, gpu_err, sizeof a->err);
  return NULL;
}

int gostx_gpu_ctr_crypt_split(gostx_gpu *g, gostx_pool *pool, double gpu_share,
                              const gostx_cipher *c, const uint8_t *iv, size_t iv_len,
                              const uint8_t *in, size_t len, uint8_t *out) {
  job chk;
  int rc = cipher_job(&chk, c, 1, 0, iv, iv_len, len); /* the GPU's checks, up front */
  job_wipe(&chk);
  if (rc) return rc;
  if (!bufs_ok(g, HOST_BUFS(in, out), len)) return GOSTX_EINVAL;
  if (!(gpu_share >= 0 && gpu_share <= 1)) {
    set_err("GPU share %g is not in [0, 1]", gpu_share);
    return GOSTX_EINVAL;
  }
  const size_t n = c->block_len;
  size_t gl = (size_t)((double)(len / n) * gpu_share) * n;
  if (gpu_share == 1) gl = len;
  struct split_gpu a = {g, c, iv, in, out, iv_len, gl, GOSTX_OK, ""};
  pthread_t t;
  int threaded = gl && gl < len && pthread_create(&t, NULL, split_gpu_thread, &a) == 0;
  if (gl && !threaded) split_gpu_thread(&a); /* all on the GPU, or no thread to be had */
  rc = gostx__ctr_crypt_mt_from(pool, c, iv, iv_len, gl / n, in + gl, out + gl, len - gl);
  if (threaded) pthread_join(t, NULL);
  if (a.rc) {
    memcpy(gpu_err, a.err, sizeof gpu_err);
    return a.rc;
  }
  return rc;
}
