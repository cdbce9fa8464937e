/* What the CUDA backend's host files (lib/gpu/gpu_*.c) share: the driver
 * API as gpu_driver.c loads it, the error message, the handle and the job.
 * Not installed. */
#ifndef GOSTX_GPU_INTERNAL_H
#define GOSTX_GPU_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "bulk/bulk_internal.h"
#include "gpu_plan.h"
#include "gostx/bulk.h"
#include "gostx/gpu.h"

/* ---- the driver API ----
 * Only the few driver entry points below are used; their prototypes are
 * declared here from the CUDA driver API's documented C signatures (stable
 * ABI, versioned names such as cuMemAlloc_v2), so no CUDA header is needed. */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;
typedef unsigned long long CUdeviceptr;

#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_STREAM_NON_BLOCKING 1
#define CU_EVENT_DEFAULT 0

#define DRV_FUNCS(X)                                                                      \
  X(cuInit, "cuInit", (unsigned))                                                         \
  X(cuDriverGetVersion, "cuDriverGetVersion", (int *))                                    \
  X(cuDeviceGetCount, "cuDeviceGetCount", (int *))                                        \
  X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                                        \
  X(cuDeviceGetName, "cuDeviceGetName", (char *, int, CUdevice))                          \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *, int, CUdevice))                 \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))        \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))                \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                      \
  X(cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))                     \
  X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                         \
  X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))  \
  X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                 \
  X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                             \
  X(cuMemAllocHost, "cuMemAllocHost_v2", (void **, size_t))                               \
  X(cuMemFreeHost, "cuMemFreeHost", (void *))                                             \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void *, size_t))                 \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *, CUdeviceptr, size_t))                       \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr, const void *, size_t, CUstream)) \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void *, CUdeviceptr, size_t, CUstream))   \
  X(cuMemHostRegister, "cuMemHostRegister_v2", (void *, size_t, unsigned))                \
  X(cuMemHostUnregister, "cuMemHostUnregister", (void *))                                 \
  X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream))   \
  X(cuStreamCreate, "cuStreamCreate", (CUstream *, unsigned))                             \
  X(cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                                    \
  X(cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                               \
  X(cuEventCreate, "cuEventCreate", (CUevent *, unsigned))                                \
  X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                       \
  X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                  \
  X(cuEventElapsedTime, "cuEventElapsedTime", (float *, CUevent, CUevent))                \
  X(cuGetErrorString, "cuGetErrorString", (CUresult, const char **))                      \
  X(cuLaunchKernel, "cuLaunchKernel",                                                     \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
     CUstream, void **, void **))

/* Filled by gostx__gpu_driver_load (gpu_driver.c). */
struct gostx__gpu_driver {
  void *lib;
  int ok;
  char why[200];
#define DECL(field, sym, args) CUresult (*field) args;
  DRV_FUNCS(DECL)
#undef DECL
};
extern struct gostx__gpu_driver gostx__gpu_drv;
#define drv gostx__gpu_drv

/* The calling thread's last error (gostx_gpu_error). */
extern _Thread_local char gostx__gpu_err[320];
#define gpu_err gostx__gpu_err

/* Loads the driver once per process; GOSTX_EUNSUP with the reason set when
 * there is none. */
int gostx__gpu_driver_load(void);

static inline void set_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(gpu_err, sizeof gpu_err, fmt, ap);
  va_end(ap);
}

/* Checks a driver call; on failure records the message and returns EIO. */
static inline int cu_fail(CUresult r, const char *what) {
  const char *s = NULL;
  if (drv.cuGetErrorString) drv.cuGetErrorString(r, &s);
  set_err("%s failed: %s (%d)", what, s ? s : "unknown CUDA error", r);
  return GOSTX_EIO;
}
#define CK(call)                                      \
  do {                                                \
    CUresult r_ = (call);                             \
    if (r_) return cu_fail(r_, #call);                \
  } while (0)

/* ---- the handle ---- */
#define NSTREAMS 3
#define MAX_REGISTERED 16

struct gostx_gpu {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  char name[256];
  CUfunction f_kuz_ecb, f_kuz_ctr, f_xts_tw, f_magma_ecb, f_magma_ctr, f_cnt;
  CUfunction f_kuz_keys, f_kuz_ctr_batch, f_magma_ctr_batch, f_cnt_setup, f_cnt_batch;
  CUstream st[NSTREAMS];
  CUevent ev0[NSTREAMS], ev1[NSTREAMS];
  size_t chunk;
  uint8_t *hin[NSTREAMS], *hout[NSTREAMS], *hsec[NSTREAMS];
  CUdeviceptr din[NSTREAMS], dout[NSTREAMS], dtw[NSTREAMS], dt0[NSTREAMS];
  CUdeviceptr scratch;
  size_t scratch_len;
  double kernel_s;
  /* host ranges pinned by gostx_gpu_host_register: transfers go straight
   * from and to them, without the staging copies */
  struct { uintptr_t p; size_t len; } reg[MAX_REGISTERED];
  unsigned nreg;
  /* threads for the staging copies of unregistered buffers (NULL: the
   * calling thread alone) */
  gostx_pool *copiers;
  /* batch calls: the streams' keys and IVs, pinned on the host and on the
   * device (device layout: the kernels' key material, then IVs, then CNT's
   * (N3, N4)); wiped after each call */
  uint8_t *hkeys;
  size_t hkeys_len;
  CUdeviceptr dkeys;
  size_t dkeys_len;
};

/* ---- jobs ---- */
enum { JOB_KUZ_ECB, JOB_KUZ_CTR, JOB_KUZ_XTS, JOB_MAGMA_ECB, JOB_MAGMA_CTR, JOB_CNT,
       JOB_KUZ_CTR_BATCH, JOB_MAGMA_CTR_BATCH, JOB_CNT_BATCH };

typedef struct job {
  int kind, decrypt;
  gostx_gpu_kuz_params kp, kp2; /* kp2: the XTS tweak key */
  gostx_gpu_magma_params mp;
  uint8_t iv[8];                /* CTR */
  int cipher_id;
  uint64_t sector0;             /* XTS */
  size_t sector_len;
  uint32_t n3, n4;              /* CNT */
  /* batch: device addresses of the key material (kw: Kuznyechik key words
   * per group of 32 streams, rks: Magma round keys per stream), IVs, CNT's
   * (N3, N4) per stream; one_key: entry 0 serves every stream */
  CUdeviceptr keys, ivs, n34;
  int one_key;
} job;

static inline void job_wipe(job *j) { gostx_memzero(j, sizeof *j); }

/* A call's buffers: host (in, out) or, with dev, device (din, dout). */
typedef struct {
  int dev;
  const uint8_t *in;
  uint8_t *out;
  CUdeviceptr din, dout;
} gpu_bufs;
#define HOST_BUFS(in, out) ((gpu_bufs){0, (in), (out), 0, 0})
#define DEV_BUFS(din, dout) ((gpu_bufs){1, NULL, NULL, (din), (dout)})

/* The NULL checks of a call (len 0: the buffers may be NULL). */
static inline int bufs_ok(const gostx_gpu *g, gpu_bufs b, size_t len) {
  if (!g || (len && (b.dev ? !b.din || !b.dout : !b.in || !b.out))) {
    set_err("NULL argument");
    return 0;
  }
  return 1;
}

/* ---- memory (gpu_memory.c) ---- */
/* Staging: per stream, pinned in/out, device in/out, XTS tweaks (one per
 * block) and sector blocks (one per sector: up to chunk bytes for 16-byte
 * sectors). */
int gostx__gpu_alloc_staging(gostx_gpu *g, size_t chunk);
void gostx__gpu_free_staging(gostx_gpu *g);
/* All the handle's memory and host registrations, for gostx_gpu_close. */
void gostx__gpu_free_memory(gostx_gpu *g);
/* Whether [p, p + len) lies in one registered range. */
int gostx__gpu_registered(const gostx_gpu *g, const void *p, size_t len);
/* memcpy and wipe of staging buffers, on the copy threads. */
void gostx__gpu_stage_copy(gostx_gpu *g, void *dst, const void *src, size_t len);
void gostx__gpu_stage_wipe(gostx_gpu *g, void *p, size_t len);
/* Device scratch for XTS on device buffers, grown as needed. */
int gostx__gpu_ensure_scratch(gostx_gpu *g, size_t need);
/* Pinned host and device room for a batch's key material, grown as needed. */
int gostx__gpu_ensure_keys(gostx_gpu *g, size_t host_need, size_t dev_need);

/* ---- the pipeline (gpu_pipeline.c) ---- */
/* Launches f over `threads` threads in blocks of `block` on stream st. */
int gostx__gpu_launch(CUfunction f, uint64_t threads, unsigned block, CUstream st, void **args);
/* A job over host buffers, chunked over the streams, or over device
 * buffers, at once on stream 0. */
int gostx__gpu_run(gostx_gpu *g, const job *j, gpu_bufs b, size_t len);

#endif
