/* A stand-in for libcuda.so.1 that runs the gostx kernels on the host, so
 * that the CUDA backend's host side (lib/gpu/gpu_*.c: dlopen and symbol
 * lookup, module load of the embedded fatbin, buffers, chunking, the
 * multi-stream pipeline, kernel argument packing, XTS scratch, errors) is
 * tested end to end on machines without a GPU. Loaded by tests/test_gpu.c
 * through GOSTX_CUDA_DRIVER=<this library>.
 *
 * Faithful where it matters for catching host-side bugs:
 *   - the kernels are the list of lib/gpu/kernels.inc with the per-thread
 *     code of gpu_block.h, run for every thread of the launch grid, and
 *     their arguments are unpacked with the kernels' own signatures;
 *   - work on a stream is deferred: copies and launches are queued (kernel
 *     arguments captured at launch, as the driver does) and run only when
 *     the stream is synchronized, so a host that reads a staging buffer or
 *     reuses one before waiting sees stale data, as it would on a GPU;
 *   - a synchronous host-to-device copy lands only when the legacy stream
 *     is waited for, which a non-blocking stream's kernel does not do;
 *   - fresh device and pinned memory is filled with 0xa5;
 *   - the module image must start with the fatbin magic;
 *   - a launch with more threads per block than the kernel's
 *     __launch_bounds__ fails, as it does on a GPU;
 *   - a pointer argument that is not 4-byte aligned fails the stream with
 *     CUDA_ERROR_MISALIGNED_ADDRESS, as the kernels' 32-bit accesses would.
 * Environment: MOCKCUDA_DEVICES (default 1), MOCKCUDA_INIT_FAIL,
 * MOCKCUDA_LOAD_FAIL make the corresponding calls fail.
 * Not a model of GPU timing or concurrency. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_block.h"
#include "gpu_kparams.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

#define EXPORT __attribute__((visibility("default")))
#define ERR_INVALID_VALUE 1
#define ERR_OOM 2
#define ERR_NOT_INITIALIZED 3
#define ERR_NO_BINARY 209
#define ERR_NOT_FOUND 500
#define ERR_LAUNCH_RESOURCES 701

/* ---- kernels ---- */
#define GOSTX_KP_S3(T1, a1, T2, a2, T3, a3) sizeof(T1), sizeof(T2), sizeof(T3)
#define GOSTX_KP_S4(T1, a1, T2, a2, T3, a3, T4, a4) GOSTX_KP_S3(T1, a1, T2, a2, T3, a3), sizeof(T4)
#define GOSTX_KP_S5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) \
  GOSTX_KP_S4(T1, a1, T2, a2, T3, a3, T4, a4), sizeof(T5)
#define GOSTX_KP_S6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) \
  GOSTX_KP_S5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5), sizeof(T6)
#define GOSTX_KP_S7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) \
  GOSTX_KP_S6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6), sizeof(T7)
#define GOSTX_KP_S8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) \
  GOSTX_KP_S7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7), sizeof(T8)
#define GOSTX_KP_S9(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8, T9, a9) \
  GOSTX_KP_S8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8), sizeof(T9)

/* Alignment of the pointer arguments: the kernels read and write 32-bit
 * words through them, which faults on a GPU when misaligned (x86 would not
 * notice). _Generic picks out the pointer parameters. */
static int misaligned;
static void check_align(const void *arg, int is_ptr) {
  uintptr_t v;
  if (!is_ptr) return;
  memcpy(&v, arg, sizeof v);
  if (v & 3) misaligned = 1;
}
#define MOCK_ALIGN1(T, a) \
  check_align(&a, _Generic((a), const uint8_t *: 1, uint8_t *: 1, default: 0));
#define GOSTX_KP_A3(T1, a1, T2, a2, T3, a3) \
  MOCK_ALIGN1(T1, a1) MOCK_ALIGN1(T2, a2) MOCK_ALIGN1(T3, a3)
#define GOSTX_KP_A4(T1, a1, T2, a2, T3, a3, T4, a4) \
  GOSTX_KP_A3(T1, a1, T2, a2, T3, a3) MOCK_ALIGN1(T4, a4)
#define GOSTX_KP_A5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) \
  GOSTX_KP_A4(T1, a1, T2, a2, T3, a3, T4, a4) MOCK_ALIGN1(T5, a5)
#define GOSTX_KP_A6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) \
  GOSTX_KP_A5(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5) MOCK_ALIGN1(T6, a6)
#define GOSTX_KP_A7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) \
  GOSTX_KP_A6(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6) MOCK_ALIGN1(T7, a7)
#define GOSTX_KP_A8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) \
  GOSTX_KP_A7(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7) MOCK_ALIGN1(T8, a8)
#define GOSTX_KP_A9(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8, T9, a9) \
  GOSTX_KP_A8(T1, a1, T2, a2, T3, a3, T4, a4, T5, a5, T6, a6, T7, a7, T8, a8) MOCK_ALIGN1(T9, a9)

#define GOSTX_KERNEL(name, bound, n, params, body)                                   \
  static void name##_run(void **args, uint64_t TID) { GOSTX_KP_UNPACK(n, params) body } \
  static void name##_check(void **args) {                                            \
    GOSTX_KP_UNPACK(n, params)                                                       \
    GOSTX_KP_APPLY(GOSTX_KP_CAT(GOSTX_KP_A, n), params)                              \
  }                                                                                  \
  static const size_t name##_sizes[] = {GOSTX_KP_APPLY(GOSTX_KP_CAT(GOSTX_KP_S, n), params)};
#include "kernels.inc"
#undef GOSTX_KERNEL

typedef struct kfn {
  const char *name;
  unsigned bound; /* __launch_bounds__: most threads per block */
  int nargs;
  const size_t *sizes;
  void (*run)(void **, uint64_t);
  void (*check)(void **);
} kfn;

#define GOSTX_KERNEL(name, bound, n, params, body) \
  {#name, bound, n, name##_sizes, name##_run, name##_check},
static const kfn KFNS[] = {
#include "kernels.inc"
};
#undef GOSTX_KERNEL

/* ---- deferred stream work ---- */
typedef struct op {
  struct op *next;
  int kind; /* 0 copy, 1 launch */
  void *dst;
  const void *src;
  size_t len;
  const kfn *f;
  uint64_t threads;
  unsigned char *blob; /* captured arguments, each at a 16-byte aligned offset */
} op;

typedef struct stream {
  op *head, *tail;
  unsigned flags; /* CU_STREAM_NON_BLOCKING (1): no implicit order with the legacy stream */
} stream;

static stream default_stream;

#define ERR_MISALIGNED 716 /* CUDA_ERROR_MISALIGNED_ADDRESS */

/* Runs one queued operation; a launch with a misaligned pointer argument
 * does nothing and fails the stream, as the fault would on a GPU. */
static int run_op(op *o) {
  int err = 0;
  if (o->kind == 0) {
    memcpy(o->dst, o->src, o->len);
  } else {
    void *args[16];
    size_t off = 0;
    for (int i = 0; i < o->f->nargs; i++) {
      args[i] = o->blob + off;
      off += (o->f->sizes[i] + 15) / 16 * 16;
    }
    misaligned = 0;
    o->f->check(args);
    if (misaligned) err = ERR_MISALIGNED;
    else
      for (uint64_t t = 0; t < o->threads; t++) o->f->run(args, t);
  }
  free(o->blob);
  free(o);
  return err;
}

static CUresult drain(stream *s) {
  CUresult err = 0;
  if (!s) s = &default_stream;
  while (s->head) {
    op *o = s->head;
    s->head = o->next;
    int e = run_op(o);
    if (e && !err) err = e;
  }
  s->tail = NULL;
  return err;
}

static CUresult enqueue(stream *s, op *o) {
  if (!s) s = &default_stream;
  /* a blocking stream's work waits for the legacy stream's; a
   * non-blocking one's does not (a copy staged there can still be late) */
  if (s != &default_stream && !(s->flags & 1)) drain(&default_stream);
  o->next = NULL;
  if (s->tail) s->tail->next = o;
  else s->head = o;
  s->tail = o;
  return 0;
}

/* ---- the API ---- */
static int initialized;

EXPORT CUresult cuInit(unsigned flags) {
  (void)flags;
  if (getenv("MOCKCUDA_INIT_FAIL")) return ERR_NOT_INITIALIZED;
  initialized = 1;
  return 0;
}
EXPORT CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
EXPORT CUresult cuDeviceGetCount(int *n) {
  const char *e = getenv("MOCKCUDA_DEVICES");
  *n = e ? atoi(e) : 1;
  return initialized ? 0 : ERR_NOT_INITIALIZED;
}
EXPORT CUresult cuDeviceGet(CUdevice *d, int i) { *d = i; return 0; }
EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  snprintf(name, (size_t)len, "gostx mock CUDA device (host emulation)");
  return 0;
}
EXPORT CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
  (void)d;
  *v = attr == 75 ? 9 : 0;
  return 0;
}
static int ctx_token;
EXPORT CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) { (void)d; *ctx = &ctx_token; return 0; }
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  (void)d;
  return drain(&default_stream);
}
EXPORT CUresult cuCtxSetCurrent(void *ctx) { return ctx == &ctx_token ? 0 : ERR_INVALID_VALUE; }

static int module_token;
EXPORT CUresult cuModuleLoadData(void **mod, const void *image) {
  const unsigned char *p = image;
  if (getenv("MOCKCUDA_LOAD_FAIL")) return ERR_NO_BINARY;
  /* fatbin header magic 0xba55ed50, little-endian */
  if (!(p[0] == 0x50 && p[1] == 0xed && p[2] == 0x55 && p[3] == 0xba)) return ERR_NO_BINARY;
  *mod = &module_token;
  return 0;
}
EXPORT CUresult cuModuleUnload(void *mod) { return mod == &module_token ? 0 : ERR_INVALID_VALUE; }
EXPORT CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
  if (mod != &module_token) return ERR_INVALID_VALUE;
  for (size_t i = 0; i < sizeof KFNS / sizeof *KFNS; i++)
    if (!strcmp(KFNS[i].name, name)) {
      *f = (void *)&KFNS[i];
      return 0;
    }
  return ERR_NOT_FOUND;
}

static long live_allocs;
static void *mock_alloc(size_t len) {
  size_t n = (len + 255) / 256 * 256;
  void *p = aligned_alloc(256, n ? n : 256);
  if (p) {
    memset(p, 0xa5, n ? n : 256);
    live_allocs++;
  }
  return p;
}
static void mock_free(void *p) {
  if (p) {
    live_allocs--;
    free(p);
  }
}
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t len) {
  void *p = mock_alloc(len);
  if (!p) return ERR_OOM;
  *d = (CUdeviceptr)(uintptr_t)p;
  return 0;
}
EXPORT CUresult cuMemFree_v2(CUdeviceptr d) {
  drain(&default_stream);
  mock_free((void *)(uintptr_t)d);
  return 0;
}
EXPORT CUresult cuMemAllocHost_v2(void **p, size_t len) {
  *p = mock_alloc(len);
  return *p ? 0 : ERR_OOM;
}
EXPORT CUresult cuMemFreeHost(void *p) { mock_free(p); return 0; }
/* The synchronous copies are legacy-stream work. From pageable memory
 * cuMemcpyHtoD returns once the bytes are staged, before they reach the
 * device: the mock stages them and lands them when the legacy stream is
 * next waited for (a copy back, a blocking stream's work, a free), never
 * for a non-blocking stream's kernel. */
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t len) {
  unsigned char *staged = malloc(len ? len : 1);
  op *o = calloc(1, sizeof *o);
  if (!staged || !o) {
    free(staged);
    free(o);
    return ERR_OOM;
  }
  memcpy(staged, s, len);
  o->dst = (void *)(uintptr_t)d;
  o->src = staged;
  o->len = len;
  o->blob = staged; /* run_op frees it */
  return enqueue(&default_stream, o);
}
EXPORT CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t len) {
  CUresult r = drain(&default_stream);
  memcpy(d, (const void *)(uintptr_t)s, len);
  return r;
}
static CUresult copy_async(void *dst, const void *src, size_t len, void *st) {
  op *o = calloc(1, sizeof *o);
  if (!o) return ERR_OOM;
  o->dst = dst;
  o->src = src;
  o->len = len;
  return enqueue(st, o);
}
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t len, void *st) {
  return copy_async((void *)(uintptr_t)d, s, len, st);
}
EXPORT CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t len, void *st) {
  return copy_async(d, (const void *)(uintptr_t)s, len, st);
}
/* Registered ranges: overlapping registrations fail, as in the driver. */
static struct { const char *p; size_t len; } regs[64];
static int nregs;
EXPORT CUresult cuMemHostRegister_v2(void *p, size_t len, unsigned flags) {
  (void)flags;
  if (!p || !len || nregs == 64) return ERR_INVALID_VALUE;
  for (int i = 0; i < nregs; i++)
    if ((const char *)p < regs[i].p + regs[i].len && regs[i].p < (const char *)p + len)
      return 712; /* CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED */
  regs[nregs].p = p;
  regs[nregs].len = len;
  nregs++;
  live_allocs++;
  return 0;
}
EXPORT CUresult cuMemHostUnregister(void *p) {
  for (int i = 0; i < nregs; i++)
    if (regs[i].p == p) {
      regs[i] = regs[--nregs];
      live_allocs--;
      return 0;
    }
  return 713; /* CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED */
}
EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t len, void *st) {
  /* a deferred copy from a buffer of v (freed with the op) */
  unsigned char *src = malloc(len ? len : 1);
  if (!src) return ERR_OOM;
  memset(src, v, len);
  op *o = calloc(1, sizeof *o);
  if (!o) { free(src); return ERR_OOM; }
  o->dst = (void *)(uintptr_t)d;
  o->src = src;
  o->len = len;
  o->blob = src; /* run_op frees it */
  return enqueue(st, o);
}
EXPORT CUresult cuStreamCreate(void **st, unsigned flags) {
  stream *s = calloc(1, sizeof(stream));
  if (s) s->flags = flags;
  *st = s;
  return s ? 0 : ERR_OOM;
}
EXPORT CUresult cuStreamDestroy_v2(void *st) {
  drain(st);
  free(st);
  return 0;
}
EXPORT CUresult cuStreamSynchronize(void *st) { return drain(st); }
static int event_token;
EXPORT CUresult cuEventCreate(void **ev, unsigned flags) { (void)flags; *ev = &event_token; return 0; }
EXPORT CUresult cuEventDestroy_v2(void *ev) { return ev == &event_token ? 0 : ERR_INVALID_VALUE; }
EXPORT CUresult cuEventRecord(void *ev, void *st) { (void)ev; (void)st; return 0; }
EXPORT CUresult cuEventElapsedTime(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 0.001f; return 0; }
EXPORT CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == ERR_NO_BINARY ? "mock: no kernel image for this device"
      : r == ERR_MISALIGNED ? "mock: misaligned address"
                            : "mock CUDA error";
  return 0;
}
EXPORT CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shmem, void *st, void **args,
                               void **extra) {
  const kfn *k = f;
  if (!k || gy != 1 || gz != 1 || by != 1 || bz != 1 || shmem || extra || !args || !gx || !bx)
    return ERR_INVALID_VALUE;
  if (bx > k->bound) return ERR_LAUNCH_RESOURCES; /* more threads than __launch_bounds__ */
  op *o = calloc(1, sizeof *o);
  size_t total = 0;
  for (int i = 0; i < k->nargs; i++) total += (k->sizes[i] + 15) / 16 * 16;
  if (!o || !(o->blob = malloc(total))) { free(o); return ERR_OOM; }
  size_t off = 0;
  for (int i = 0; i < k->nargs; i++) {
    memcpy(o->blob + off, args[i], k->sizes[i]);
    off += (k->sizes[i] + 15) / 16 * 16;
  }
  o->kind = 1;
  o->f = k;
  o->threads = (uint64_t)gx * bx;
  return enqueue(st, o);
}

/* For the tests: device and pinned allocations still alive. */
EXPORT long mockcuda_live_allocations(void) { return live_allocs; }
