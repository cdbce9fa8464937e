/* gostx CUDA backend: the handle's memory (pinned staging, registered host
 * ranges, device scratch and key room), the staging copies, the device
 * buffer calls and the copy bandwidth measurement. */
#include <time.h>

#include "gpu_internal.h"

#define COPY_PIECE ((size_t)256 << 10) /* a staging copy task */

void gostx__gpu_free_staging(gostx_gpu *g) {
  for (int s = 0; s < NSTREAMS; s++) {
    if (g->hin[s]) drv.cuMemFreeHost(g->hin[s]);
    if (g->hout[s]) drv.cuMemFreeHost(g->hout[s]);
    if (g->hsec[s]) drv.cuMemFreeHost(g->hsec[s]);
    if (g->din[s]) drv.cuMemFree(g->din[s]);
    if (g->dout[s]) drv.cuMemFree(g->dout[s]);
    if (g->dtw[s]) drv.cuMemFree(g->dtw[s]);
    if (g->dt0[s]) drv.cuMemFree(g->dt0[s]);
    g->hin[s] = g->hout[s] = g->hsec[s] = NULL;
    g->din[s] = g->dout[s] = g->dtw[s] = g->dt0[s] = 0;
  }
  g->chunk = 0;
}

int gostx__gpu_alloc_staging(gostx_gpu *g, size_t chunk) {
  for (int s = 0; s < NSTREAMS; s++) {
    if (drv.cuMemAllocHost((void **)&g->hin[s], chunk) ||
        drv.cuMemAllocHost((void **)&g->hout[s], chunk) ||
        drv.cuMemAllocHost((void **)&g->hsec[s], chunk) ||
        drv.cuMemAlloc(&g->din[s], chunk) || drv.cuMemAlloc(&g->dout[s], chunk) ||
        drv.cuMemAlloc(&g->dtw[s], chunk) || drv.cuMemAlloc(&g->dt0[s], chunk)) {
      gostx__gpu_free_staging(g);
      set_err("cannot allocate %zu bytes of pinned host and device staging", 10 * chunk);
      return GOSTX_ENOMEM;
    }
  }
  g->chunk = chunk;
  return GOSTX_OK;
}

void gostx__gpu_free_memory(gostx_gpu *g) {
  gostx__gpu_free_staging(g);
  if (g->scratch) drv.cuMemFree(g->scratch);
  if (g->hkeys) drv.cuMemFreeHost(g->hkeys);
  if (g->dkeys) drv.cuMemFree(g->dkeys);
  for (unsigned i = 0; i < g->nreg; i++) drv.cuMemHostUnregister((void *)g->reg[i].p);
}

/* ---- registered host memory ---- */
int gostx__gpu_registered(const gostx_gpu *g, const void *p, size_t len) {
  const uintptr_t a = (uintptr_t)p;
  for (unsigned i = 0; i < g->nreg; i++)
    if (a >= g->reg[i].p && len <= g->reg[i].len && a - g->reg[i].p <= g->reg[i].len - len)
      return 1;
  return 0;
}

int gostx_gpu_host_register(gostx_gpu *g, void *p, size_t len) {
  if (!g || !p || !len) {
    set_err("NULL or empty range");
    return GOSTX_EINVAL;
  }
  if (g->nreg == MAX_REGISTERED) {
    set_err("%d ranges are registered already", MAX_REGISTERED);
    return GOSTX_ENOMEM;
  }
  CK(drv.cuCtxSetCurrent(g->ctx));
  CUresult r = drv.cuMemHostRegister(p, len, 0);
  if (r) {
    cu_fail(r, "cuMemHostRegister");
    return GOSTX_ENOMEM;
  }
  g->reg[g->nreg].p = (uintptr_t)p;
  g->reg[g->nreg].len = len;
  g->nreg++;
  return GOSTX_OK;
}

int gostx_gpu_host_unregister(gostx_gpu *g, void *p) {
  if (!g) return GOSTX_EINVAL;
  for (unsigned i = 0; i < g->nreg; i++)
    if (g->reg[i].p == (uintptr_t)p) {
      CK(drv.cuCtxSetCurrent(g->ctx));
      CUresult r = drv.cuMemHostUnregister(p);
      g->reg[i] = g->reg[--g->nreg];
      return r ? cu_fail(r, "cuMemHostUnregister") : GOSTX_OK;
    }
  set_err("%p was not registered with this handle", p);
  return GOSTX_EINVAL;
}

/* ---- staging copies, spread over the copy threads ---- */
struct stage_copy_job {
  uint8_t *dst;
  const uint8_t *src;
  size_t len;
};

static void stage_copy_task(void *arg, size_t i) {
  const struct stage_copy_job *j = arg;
  const size_t off = i * COPY_PIECE, n = j->len - off < COPY_PIECE ? j->len - off : COPY_PIECE;
  memcpy(j->dst + off, j->src + off, n);
}

void gostx__gpu_stage_copy(gostx_gpu *g, void *dst, const void *src, size_t len) {
  if (!g->copiers || len < 2 * COPY_PIECE) {
    memcpy(dst, src, len);
    return;
  }
  struct stage_copy_job j = {dst, src, len};
  gostx_pool_run(g->copiers, (len + COPY_PIECE - 1) / COPY_PIECE, stage_copy_task, &j);
}

static void stage_wipe_task(void *arg, size_t i) {
  const struct stage_copy_job *j = arg;
  const size_t off = i * COPY_PIECE, n = j->len - off < COPY_PIECE ? j->len - off : COPY_PIECE;
  gostx_memzero(j->dst + off, n);
}

void gostx__gpu_stage_wipe(gostx_gpu *g, void *p, size_t len) {
  struct stage_copy_job j = {p, NULL, len};
  gostx_pool_run(g->copiers, (len + COPY_PIECE - 1) / COPY_PIECE, stage_wipe_task, &j);
}

/* ---- device memory the calls grow ---- */
int gostx__gpu_ensure_scratch(gostx_gpu *g, size_t need) {
  if (g->scratch_len >= need) return GOSTX_OK;
  if (g->scratch) drv.cuMemFree(g->scratch);
  g->scratch = 0;
  g->scratch_len = 0;
  CUresult r = drv.cuMemAlloc(&g->scratch, need);
  if (r) {
    g->scratch = 0;
    set_err("cannot allocate %zu bytes of device scratch", need);
    return GOSTX_ENOMEM;
  }
  g->scratch_len = need;
  return GOSTX_OK;
}

int gostx__gpu_ensure_keys(gostx_gpu *g, size_t host_need, size_t dev_need) {
  if (g->hkeys_len < host_need) {
    if (g->hkeys) drv.cuMemFreeHost(g->hkeys);
    g->hkeys = NULL;
    g->hkeys_len = 0;
    if (drv.cuMemAllocHost((void **)&g->hkeys, host_need)) {
      g->hkeys = NULL;
      set_err("cannot allocate %zu bytes of pinned memory for the keys", host_need);
      return GOSTX_ENOMEM;
    }
    g->hkeys_len = host_need;
  }
  if (g->dkeys_len < dev_need) {
    if (g->dkeys) drv.cuMemFree(g->dkeys);
    g->dkeys = 0;
    g->dkeys_len = 0;
    if (drv.cuMemAlloc(&g->dkeys, dev_need)) {
      g->dkeys = 0;
      set_err("cannot allocate %zu bytes of device memory for the keys", dev_need);
      return GOSTX_ENOMEM;
    }
    g->dkeys_len = dev_need;
  }
  return GOSTX_OK;
}

/* ---- device buffers ---- */
int gostx_gpu_alloc(gostx_gpu *g, gostx_gpu_ptr *p, size_t len) {
  if (!g || !p) return GOSTX_EINVAL;
  *p = 0;
  CK(drv.cuCtxSetCurrent(g->ctx));
  CUdeviceptr d = 0;
  CUresult r = drv.cuMemAlloc(&d, len ? len : 1);
  if (r) {
    cu_fail(r, "cuMemAlloc");
    return GOSTX_ENOMEM;
  }
  *p = d;
  return GOSTX_OK;
}

void gostx_gpu_free(gostx_gpu *g, gostx_gpu_ptr p) {
  if (!g || !p) return;
  drv.cuCtxSetCurrent(g->ctx);
  drv.cuMemFree(p);
}

int gostx_gpu_upload(gostx_gpu *g, gostx_gpu_ptr dst, const void *src, size_t len) {
  if (!g || (len && (!dst || !src))) return GOSTX_EINVAL;
  if (!len) return GOSTX_OK;
  CK(drv.cuCtxSetCurrent(g->ctx));
  /* On stream 0, synchronized: cuMemcpyHtoD from pageable memory returns
   * once the bytes are staged, before they reach the device, and the
   * kernels' streams (non-blocking) do not wait for the legacy stream it
   * runs on, so the next call's kernels could read the old bytes. */
  CK(drv.cuMemcpyHtoDAsync(dst, src, len, g->st[0]));
  CK(drv.cuStreamSynchronize(g->st[0]));
  return GOSTX_OK;
}

int gostx_gpu_download(gostx_gpu *g, void *dst, gostx_gpu_ptr src, size_t len) {
  if (!g || (len && (!dst || !src))) return GOSTX_EINVAL;
  if (!len) return GOSTX_OK;
  CK(drv.cuCtxSetCurrent(g->ctx));
  CK(drv.cuMemcpyDtoH(dst, src, len));
  return GOSTX_OK;
}

/* ---- copy bandwidth ---- */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int gostx_gpu_copy_bench(gostx_gpu *g, size_t len, double *h2d_s, double *d2h_s,
                         double *both_s) {
  if (!g || !len || !h2d_s || !d2h_s || !both_s) return GOSTX_EINVAL;
  CK(drv.cuCtxSetCurrent(g->ctx));
  void *h1 = NULL, *h2 = NULL;
  CUdeviceptr d1 = 0, d2 = 0;
  int rc = GOSTX_OK;
  if (drv.cuMemAllocHost(&h1, len) || drv.cuMemAllocHost(&h2, len) || drv.cuMemAlloc(&d1, len) ||
      drv.cuMemAlloc(&d2, len)) {
    set_err("cannot allocate 2 x %zu bytes pinned and on the device", len);
    rc = GOSTX_ENOMEM;
    goto out;
  }
  memset(h1, 1, len);
  memset(h2, 2, len);
  CUstream a = g->st[0], b = g->st[1];
  /* one warm-up round, then the timed ones */
  for (int pass = 0; pass < 2 && !rc; pass++) {
    double t0 = now_s();
    if (drv.cuMemcpyHtoDAsync(d1, h1, len, a) || drv.cuStreamSynchronize(a)) rc = GOSTX_EIO;
    double t1 = now_s();
    if (drv.cuMemcpyDtoHAsync(h2, d2, len, b) || drv.cuStreamSynchronize(b)) rc = GOSTX_EIO;
    double t2 = now_s();
    if (drv.cuMemcpyHtoDAsync(d1, h1, len, a) || drv.cuMemcpyDtoHAsync(h2, d2, len, b) ||
        drv.cuStreamSynchronize(a) || drv.cuStreamSynchronize(b))
      rc = GOSTX_EIO;
    double t3 = now_s();
    *h2d_s = t1 - t0;
    *d2h_s = t2 - t1;
    *both_s = t3 - t2;
  }
  if (rc) set_err("a timed copy failed");
out:
  if (h1) drv.cuMemFreeHost(h1);
  if (h2) drv.cuMemFreeHost(h2);
  if (d1) drv.cuMemFree(d1);
  if (d2) drv.cuMemFree(d2);
  return rc;
}
