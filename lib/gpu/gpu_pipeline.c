/* gostx CUDA backend: the pipeline. A job's kernels queued on a stream, and
 * the chunked run that overlaps copy-in, kernel and copy-out on several
 * streams (host buffers) or runs at once (device buffers). */
#include "gpu_internal.h"

static unsigned grid_for(uint64_t threads, unsigned block) {
  return (unsigned)((threads + block - 1) / block);
}

int gostx__gpu_launch(CUfunction f, uint64_t threads, unsigned block, CUstream st,
                      void **args) {
  if (threads == 0) return GOSTX_OK;
  CK(drv.cuLaunchKernel(f, grid_for(threads, block), 1, 1, block, 1, 1, 0, st, args, NULL));
  return GOSTX_OK;
}

/* Queues the kernels for len bytes at byte offset off of the job, from device
 * buffer in to out, on stream st. XTS uses tw (len bytes) and t0 (16 bytes
 * per sector) on the device and hsec (the same, pinned host) as scratch. */
static int queue_job(gostx_gpu *g, const job *j, CUstream st, CUdeviceptr in, CUdeviceptr out,
                     size_t len, uint64_t off, CUdeviceptr tw, CUdeviceptr t0, uint8_t *hsec) {
  const unsigned KB = 128, MB = 256;
  uint64_t nb, u64len = len;
  switch (j->kind) {
    case JOB_KUZ_ECB: {
      nb = len / 16;
      CUdeviceptr none = 0;
      int dec = j->decrypt;
      void *a[] = {&in, &out, &nb, &none, (void *)&j->kp, &dec};
      return gostx__gpu_launch(g->f_kuz_ecb, gostx__gpu_kuz_threads(nb), KB, st, a);
    }
    case JOB_KUZ_CTR: {
      gostx_gpu_u128 c;
      gostx__gpu_ctr_at(GOSTX_ALG_KUZNYECHIK, j->iv, off / 16, &c);
      nb = (len + 15) / 16;
      void *a[] = {&in, &out, &u64len, &c.hi, &c.lo, (void *)&j->kp};
      return gostx__gpu_launch(g->f_kuz_ctr, gostx__gpu_kuz_threads(nb), KB, st, a);
    }
    case JOB_KUZ_XTS: {
      uint64_t nsec = len / j->sector_len, s0 = j->sector0 + off / j->sector_len;
      uint32_t bps = (uint32_t)(j->sector_len / 16);
      memset(hsec, 0, 16 * nsec);
      for (uint64_t s = 0; s < nsec; s++) gostx_store64_le(hsec + 16 * s, s0 + s);
      CK(drv.cuMemcpyHtoDAsync(t0, hsec, 16 * nsec, st));
      CUdeviceptr none = 0;
      int enc = 0, dec = j->decrypt;
      void *a1[] = {&t0, &t0, &nsec, &none, (void *)&j->kp2, &enc};
      int rc = gostx__gpu_launch(g->f_kuz_ecb, gostx__gpu_kuz_threads(nsec), KB, st, a1);
      if (rc) return rc;
      void *a2[] = {&t0, &tw, &nsec, &bps};
      rc = gostx__gpu_launch(g->f_xts_tw, nsec * ((bps + 15) / 16), MB, st, a2);
      if (rc) return rc;
      nb = len / 16;
      void *a3[] = {&in, &out, &nb, &tw, (void *)&j->kp, &dec};
      return gostx__gpu_launch(g->f_kuz_ecb, gostx__gpu_kuz_threads(nb), KB, st, a3);
    }
    case JOB_MAGMA_ECB: { /* bitsliced: 32 blocks a thread, as Kuznyechik */
      nb = len / 8;
      int dec = j->decrypt;
      void *a[] = {&in, &out, &nb, (void *)&j->mp, &dec};
      return gostx__gpu_launch(g->f_magma_ecb, gostx__gpu_kuz_threads(nb), KB, st, a);
    }
    case JOB_MAGMA_CTR: {
      gostx_gpu_u128 c;
      gostx__gpu_ctr_at(GOSTX_ALG_MAGMA, j->iv, off / 8, &c);
      void *a[] = {&in, &out, &u64len, &c.lo, (void *)&j->mp};
      return gostx__gpu_launch(g->f_magma_ctr, gostx__gpu_kuz_threads((len + 7) / 8), KB, st, a);
    }
    case JOB_CNT: {
      uint64_t first = 1 + off / 8;
      uint32_t n3 = j->n3, n4 = j->n4;
      void *a[] = {&in, &out, &u64len, &first, &n3, &n4, (void *)&j->mp};
      return gostx__gpu_launch(g->f_cnt, gostx__gpu_kuz_threads((len + 7) / 8), KB, st, a);
    }
    case JOB_KUZ_CTR_BATCH: {
      uint64_t s_lo = off / j->sector_len, s_hi = s_lo + len / j->sector_len;
      uint64_t bps = j->sector_len / 16, groups = (s_hi + 31) / 32 - s_lo / 32;
      CUdeviceptr ivs = j->ivs, kw = j->keys;
      int one = j->one_key;
      void *a[] = {&in, &out, &s_lo, &s_hi, &bps, &ivs, &kw, &one};
      return gostx__gpu_launch(g->f_kuz_ctr_batch, groups * bps, KB, st, a);
    }
    case JOB_MAGMA_CTR_BATCH:
    case JOB_CNT_BATCH: {
      uint64_t s_lo = off / j->sector_len, bps = j->sector_len / 8;
      nb = len / 8;
      CUdeviceptr ivs = j->kind == JOB_CNT_BATCH ? j->n34 : j->ivs, rks = j->keys;
      int one = j->one_key;
      void *a[] = {&in, &out, &nb, &bps, &s_lo, &ivs, &rks, &one, (void *)&j->mp};
      return gostx__gpu_launch(j->kind == JOB_CNT_BATCH ? g->f_cnt_batch : g->f_magma_ctr_batch,
                               nb, MB, st, a);
    }
  }
  return GOSTX_EINVAL;
}

static size_t job_unit(const job *j) {
  switch (j->kind) {
    case JOB_KUZ_XTS: case JOB_KUZ_CTR_BATCH: case JOB_MAGMA_CTR_BATCH: case JOB_CNT_BATCH:
      return j->sector_len;
    case JOB_KUZ_ECB: case JOB_KUZ_CTR: return 16;
    default: return 8;
  }
}

/* Waits for the chunk on stream s and, when it went through staging
 * (dst != NULL), copies its n bytes to dst. */
static int finish_chunk(gostx_gpu *g, int s, uint8_t *dst, size_t n) {
  CUresult r = drv.cuStreamSynchronize(g->st[s]);
  if (r) return cu_fail(r, "cuStreamSynchronize");
  float ms = 0;
  if (!drv.cuEventElapsedTime(&ms, g->ev0[s], g->ev1[s])) g->kernel_s += ms / 1e3;
  if (dst) gostx__gpu_stage_copy(g, dst, g->hout[s], n);
  return GOSTX_OK;
}

/* Host buffers: chunk k goes to stream k % NSTREAMS. Before a stream takes
 * a new chunk, its previous chunk is waited for and copied out; meanwhile
 * the other streams' copies and kernels run. Output is written only for
 * chunks before the one being read, so in == out is safe. A side (in or
 * out) inside a registered range is transferred directly, without staging. */
static int run_host(gostx_gpu *g, const job *j, const uint8_t *in, uint8_t *out, size_t len) {
  size_t off[NSTREAMS] = {0}, n[NSTREAMS] = {0}, used_in[NSTREAMS] = {0},
         used_out[NSTREAMS] = {0};
  int busy[NSTREAMS] = {0}, rc = GOSTX_OK;
  size_t done = 0, unit = job_unit(j);
  g->kernel_s = 0;
  if (len == 0) return GOSTX_OK;
  if (g->chunk == 0) {
    set_err("no staging buffers (an earlier gostx_gpu_set_chunk failed)");
    return GOSTX_ENOMEM;
  }
  if (unit > g->chunk) {
    set_err("data unit of %zu bytes exceeds the chunk size %zu", unit, g->chunk);
    return GOSTX_EINVAL;
  }
  const int in_direct = gostx__gpu_registered(g, in, len),
            out_direct = gostx__gpu_registered(g, out, len);
  CK(drv.cuCtxSetCurrent(g->ctx));
  unsigned k = 0;
  for (; done < len; k++) {
    const int s = k % NSTREAMS;
    if (busy[s]) {
      if ((rc = finish_chunk(g, s, out_direct ? NULL : out + off[s], n[s]))) break;
      busy[s] = 0;
    }
    const size_t c = gostx__gpu_next_chunk(len, done, g->chunk, unit);
    const uint8_t *src = in + done;
    if (!in_direct) {
      gostx__gpu_stage_copy(g, g->hin[s], in + done, c);
      if (c > used_in[s]) used_in[s] = c;
      src = g->hin[s];
    }
    uint8_t *dst = out + done;
    if (!out_direct) {
      if (c > used_out[s]) used_out[s] = c;
      dst = g->hout[s];
    }
    CUresult r;
    if ((r = drv.cuMemcpyHtoDAsync(g->din[s], src, c, g->st[s])) ||
        (r = drv.cuEventRecord(g->ev0[s], g->st[s]))) {
      rc = cu_fail(r, "queueing a copy");
      break;
    }
    if ((rc = queue_job(g, j, g->st[s], g->din[s], g->dout[s], c, done, g->dtw[s], g->dt0[s],
                        g->hsec[s])))
      break;
    if ((r = drv.cuEventRecord(g->ev1[s], g->st[s])) ||
        (r = drv.cuMemcpyDtoHAsync(dst, g->dout[s], c, g->st[s]))) {
      rc = cu_fail(r, "queueing a copy");
      break;
    }
    off[s] = done;
    n[s] = c;
    busy[s] = 1;
    done += c;
  }
  /* drain in chunk order */
  for (unsigned i = 0; i < NSTREAMS && !rc; i++) {
    const int s = (k + i) % NSTREAMS;
    if (busy[s]) rc = finish_chunk(g, s, out_direct ? NULL : out + off[s], n[s]);
  }
  if (rc) /* leave no work in flight that reads the caller's buffers */
    for (int s = 0; s < NSTREAMS; s++) drv.cuStreamSynchronize(g->st[s]);
  /* the staging copies of the data (plaintext one way or the other) */
  for (int s = 0; s < NSTREAMS; s++) {
    gostx__gpu_stage_wipe(g, g->hin[s], used_in[s]);
    gostx__gpu_stage_wipe(g, g->hout[s], used_out[s]);
  }
  return rc;
}

/* Device buffers: the whole job at once on stream 0. */
static int run_dev(gostx_gpu *g, const job *j, CUdeviceptr in, CUdeviceptr out, size_t len) {
  g->kernel_s = 0;
  if (len == 0) return GOSTX_OK;
  if ((in | out) & 3) {
    set_err("device buffers must be 4-byte aligned");
    return GOSTX_EINVAL;
  }
  CK(drv.cuCtxSetCurrent(g->ctx));
  CUdeviceptr tw = 0, t0 = 0;
  uint8_t *hsec = NULL;
  int rc;
  if (j->kind == JOB_KUZ_XTS) {
    size_t nsec = len / j->sector_len;
    if ((rc = gostx__gpu_ensure_scratch(g, len + 16 * nsec))) return rc;
    tw = g->scratch;
    t0 = g->scratch + len;
    if (drv.cuMemAllocHost((void **)&hsec, 16 * nsec)) {
      set_err("cannot allocate %zu bytes of pinned memory", 16 * nsec);
      return GOSTX_ENOMEM;
    }
  }
  CK(drv.cuEventRecord(g->ev0[0], g->st[0]));
  rc = queue_job(g, j, g->st[0], in, out, len, 0, tw, t0, hsec);
  CUresult r = drv.cuEventRecord(g->ev1[0], g->st[0]);
  CUresult r2 = drv.cuStreamSynchronize(g->st[0]);
  if (hsec) drv.cuMemFreeHost(hsec);
  if (rc) return rc;
  if (r) return cu_fail(r, "cuEventRecord");
  if (r2) return cu_fail(r2, "cuStreamSynchronize");
  float ms = 0;
  if (!drv.cuEventElapsedTime(&ms, g->ev0[0], g->ev1[0])) g->kernel_s = ms / 1e3;
  return GOSTX_OK;
}

int gostx__gpu_run(gostx_gpu *g, const job *j, gpu_bufs b, size_t len) {
  return b.dev ? run_dev(g, j, b.din, b.dout, len) : run_host(g, j, b.in, b.out, len);
}
