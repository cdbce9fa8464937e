/* gostx CUDA backend: the batch calls, many streams each with its own key
 * and IV: the keys' upload and wipe around the pipeline. */
#include "gpu_internal.h"

#define ROUND8(x) (((x) + 7) & ~(size_t)7)

/* Checks a batch's arguments and uploads its keys and IVs: afterwards the
 * job's kernels find everything on the device (a Kuznyechik key schedule
 * transposed per group of 32 streams, CNT's (N3, N4) per stream). kind:
 * JOB_KUZ_CTR_BATCH / JOB_MAGMA_CTR_BATCH (keys: gostx_cipher) or
 * JOB_CNT_BATCH (keys: gostx_gost89_key). *dev_used: bytes of device key
 * memory to wipe after the job. */
static int batch_setup(gostx_gpu *g, job *j, int cnt, const void *const *keys, size_t nkeys,
                       const uint8_t *ivs, size_t iv_len, size_t sector_len, size_t nsectors,
                       size_t *dev_used) {
  memset(j, 0, sizeof *j);
  *dev_used = 0;
  if (!keys || (nkeys != 1 && nkeys != nsectors) || (nsectors && !ivs)) {
    set_err("keys: 1 or one per stream; IVs: one per stream");
    return GOSTX_EINVAL;
  }
  for (size_t i = 0; i < nkeys; i++)
    if (!keys[i]) {
      set_err("key %zu is NULL", i);
      return GOSTX_EINVAL;
    }
  int kuz = 0;
  if (!cnt) {
    const gostx_alg id = ((const gostx_cipher *)keys[0])->id;
    for (size_t i = 0; i < nkeys; i++)
      if (((const gostx_cipher *)keys[i])->id != id ||
          (id != GOSTX_ALG_KUZNYECHIK && id != GOSTX_ALG_MAGMA)) {
        set_err("the keys of a batch must all be Kuznyechik or all Magma (key %zu)", i);
        return GOSTX_EINVAL;
      }
    kuz = id == GOSTX_ALG_KUZNYECHIK;
  }
  const size_t n = kuz ? 16 : 8, want_iv = cnt ? 8 : n / 2;
  if (iv_len != want_iv) {
    set_err("IV length %zu: this batch takes %zu-byte IVs", iv_len, want_iv);
    return GOSTX_ELEN;
  }
  if (sector_len == 0 || sector_len % n || (!kuz && sector_len / n > 0xffffffffu) ||
      (nsectors && sector_len > SIZE_MAX / nsectors)) {
    set_err("stream length %zu is not a positive multiple of the block length %zu", sector_len,
            n);
    return GOSTX_ELEN;
  }
  j->kind = kuz ? JOB_KUZ_CTR_BATCH : cnt ? JOB_CNT_BATCH : JOB_MAGMA_CTR_BATCH;
  j->sector_len = sector_len;
  j->one_key = nkeys == 1;
  if (nsectors == 0) return GOSTX_OK;

  /* host: per-stream round keys, then IVs; device: kernel key material,
   * round keys, IVs, (N3, N4). One key for all: Kuznyechik repeats it in
   * every lane of group 0 (the key words are per lane). */
  const size_t nk = kuz && j->one_key ? 32 : nkeys;
  const size_t per_key = kuz ? 160 : 32, raw = ROUND8(per_key * nk);
  const size_t kw = kuz ? GOSTX_GPU_KUZ_KW_BYTES * ((nk + 31) / 32) : 0;
  const size_t ivb = ROUND8(iv_len * nsectors), n34 = cnt ? 8 * nsectors : 0;
  const size_t host = raw + ivb, dev = kw + raw + ivb + n34;
  int rc = gostx__gpu_ensure_keys(g, host, dev);
  if (rc) return rc;
  gostx_gpu_magma_params mp0;
  for (size_t i = 0; i < nk; i++) {
    if (kuz) {
      gostx_gpu_kuz_params kp;
      gostx__gpu_kuz_params(&kp, &((const gostx_cipher *)keys[j->one_key ? 0 : i])->u.kuz);
      memcpy(g->hkeys + 160 * i, kp.ek, 160);
      gostx_memzero(&kp, sizeof kp);
    } else {
      gostx_gpu_magma_params mp;
      gostx__gpu_magma_params(&mp, cnt ? (const gostx_magma_key *)keys[i]
                                       : &((const gostx_cipher *)keys[i])->u.magma);
      if (i == 0) mp0 = mp;
      const int same = !memcmp(mp.sb, mp0.sb, sizeof mp.sb) && mp.le == mp0.le;
      memcpy(g->hkeys + 32 * i, mp.rk, 32);
      gostx_memzero(&mp, sizeof mp);
      if (!same) {
        gostx_memzero(g->hkeys, 32 * i);
        gostx_memzero(&mp0, sizeof mp0);
        set_err("the keys of a batch must use one S-box set (key %zu differs)", i);
        return GOSTX_EINVAL;
      }
    }
  }
  if (!kuz) {
    j->mp = mp0;
    gostx_memzero(j->mp.rk, sizeof j->mp.rk); /* each stream's are on the device */
    gostx_memzero(&mp0, sizeof mp0);
  }
  memcpy(g->hkeys + raw, ivs, iv_len * nsectors);
  const CUdeviceptr d_kw = g->dkeys, d_raw = d_kw + kw, d_iv = d_raw + raw, d_n34 = d_iv + ivb;
  CUstream st = g->st[0];
  *dev_used = dev;
  CK(drv.cuCtxSetCurrent(g->ctx));
  CK(drv.cuMemcpyHtoDAsync(d_raw, g->hkeys, host, st));
  if (kuz) {
    uint64_t nk64 = nk;
    CUdeviceptr a0 = d_raw, a1 = d_kw;
    void *a[] = {&a0, &a1, &nk64};
    if ((rc = gostx__gpu_launch(g->f_kuz_keys, 40 * ((nk + 31) / 32), 128, st, a))) return rc;
  }
  if (cnt) {
    uint64_t ns = nsectors;
    CUdeviceptr a0 = d_iv, a1 = d_n34, a3 = d_raw;
    int one = j->one_key;
    void *a[] = {&a0, &a1, &ns, &a3, &one, &j->mp};
    if ((rc = gostx__gpu_launch(g->f_cnt_setup, nsectors, 256, st, a))) return rc;
  }
  CUresult r = drv.cuStreamSynchronize(st); /* the other streams' kernels read it */
  gostx_memzero(g->hkeys, host);
  if (r) return cu_fail(r, "setting up the batch's keys");
  j->keys = kuz ? d_kw : d_raw;
  j->ivs = d_iv;
  j->n34 = d_n34;
  return GOSTX_OK;
}

/* The device copies of the keys go when the job is done. */
static int batch_finish(gostx_gpu *g, job *j, size_t dev_used, int rc) {
  if (dev_used && g->dkeys) {
    CUresult r = drv.cuMemsetD8Async(g->dkeys, 0, dev_used, g->st[0]);
    if (!r) r = drv.cuStreamSynchronize(g->st[0]);
    if (r && !rc) rc = cu_fail(r, "wiping the batch's keys on the device");
  }
  job_wipe(j);
  return rc;
}

/* A batch on host or device buffers. */
static int batch_call(gostx_gpu *g, int cnt, const void *const *keys, size_t nkeys,
                      const uint8_t *ivs, size_t iv_len, gpu_bufs b, size_t sector_len,
                      size_t nsectors) {
  if (!bufs_ok(g, b, nsectors)) return GOSTX_EINVAL;
  job j;
  size_t used;
  int rc = batch_setup(g, &j, cnt, keys, nkeys, ivs, iv_len, sector_len, nsectors, &used);
  if (!rc) rc = gostx__gpu_run(g, &j, b, sector_len * nsectors);
  return batch_finish(g, &j, used, rc);
}

int gostx_gpu_batch_ctr_crypt(gostx_gpu *g, const gostx_cipher *const *keys, size_t nkeys,
                              const uint8_t *ivs, size_t iv_len, const uint8_t *in,
                              size_t sector_len, size_t nsectors, uint8_t *out) {
  return batch_call(g, 0, (const void *const *)keys, nkeys, ivs, iv_len, HOST_BUFS(in, out),
                    sector_len, nsectors);
}

int gostx_gpu_batch_ctr_crypt_dev(gostx_gpu *g, const gostx_cipher *const *keys, size_t nkeys,
                                  const uint8_t *ivs, size_t iv_len, gostx_gpu_ptr in,
                                  size_t sector_len, size_t nsectors, gostx_gpu_ptr out) {
  return batch_call(g, 0, (const void *const *)keys, nkeys, ivs, iv_len, DEV_BUFS(in, out),
                    sector_len, nsectors);
}

int gostx_gpu_batch_gost89_cnt(gostx_gpu *g, const gostx_gost89_key *const *keys, size_t nkeys,
                               const uint8_t *ivs, const uint8_t *in, size_t sector_len,
                               size_t nsectors, uint8_t *out) {
  return batch_call(g, 1, (const void *const *)keys, nkeys, ivs, 8, HOST_BUFS(in, out),
                    sector_len, nsectors);
}

int gostx_gpu_batch_gost89_cnt_dev(gostx_gpu *g, const gostx_gost89_key *const *keys,
                                   size_t nkeys, const uint8_t *ivs, gostx_gpu_ptr in,
                                   size_t sector_len, size_t nsectors, gostx_gpu_ptr out) {
  return batch_call(g, 1, (const void *const *)keys, nkeys, ivs, 8, DEV_BUFS(in, out),
                    sector_len, nsectors);
}
