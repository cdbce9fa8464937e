/* gostx CUDA backend: the driver API opened with dlopen (no CUDA library at
 * link or load time) and the per-thread error message. */
#define _GNU_SOURCE /* secure_getenv */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "gpu_internal.h"

struct gostx__gpu_driver gostx__gpu_drv;
_Thread_local char gostx__gpu_err[320] = "no error";
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

const char *gostx_gpu_error(void) { return gpu_err; }

static void drv_load(void) {
  /* tests: the mock driver, or a missing one; ignored in set-uid programs */
  const char *name = secure_getenv("GOSTX_CUDA_DRIVER");
  if (!name) name = "libcuda.so.1";
  drv.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!drv.lib) {
    const char *e = dlerror();
    snprintf(drv.why, sizeof drv.why, "no CUDA driver: %s", e ? e : name);
    return;
  }
#define LOAD(field, sym, args)                                                   \
  *(void **)&drv.field = dlsym(drv.lib, sym);                                    \
  if (!drv.field) {                                                              \
    snprintf(drv.why, sizeof drv.why, "CUDA driver %s lacks %s", name, sym);     \
    return;                                                                      \
  }
  DRV_FUNCS(LOAD)
#undef LOAD
  CUresult r = drv.cuInit(0);
  if (r) {
    const char *s = NULL;
    drv.cuGetErrorString(r, &s);
    snprintf(drv.why, sizeof drv.why, "CUDA driver present but cuInit failed: %s (%d)",
             s ? s : "?", r);
    return;
  }
  drv.ok = 1;
}

int gostx__gpu_driver_load(void) {
  pthread_once(&drv_once, drv_load);
  if (!drv.ok) {
    set_err("%s", drv.why);
    return GOSTX_EUNSUP;
  }
  return GOSTX_OK;
}
