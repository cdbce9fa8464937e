/* Error strings, version, and the two memory helpers every module uses. */
#include "internal.h"

const char *gostx_strerror(int err) {
  switch (err) {
    case GOSTX_OK: return "success";
    case GOSTX_EINVAL: return "invalid argument";
    case GOSTX_ELEN: return "invalid length";
    case GOSTX_EAUTH: return "authentication failed";
    case GOSTX_ENOMEM: return "out of memory";
    case GOSTX_ESTATE: return "call out of order";
    case GOSTX_EPAD: return "bad padding";
    case GOSTX_EUNSUP: return "not supported";
    case GOSTX_EIO: return "input/output error";
    case GOSTX_EFORMAT: return "malformed input";
    default: return "unknown error";
  }
}

const char *gostx_version(void) { return GOSTX_VERSION_STRING; }

static const char *const alg_names[GOSTX_ALG_END] = {
    [GOSTX_ALG_KUZNYECHIK] = "kuznyechik",
    [GOSTX_ALG_MAGMA] = "magma",
    [GOSTX_ALG_STREEBOG] = "streebog",
    [GOSTX_ALG_MGM] = "mgm",
    [GOSTX_ALG_GOST3410] = "gost3410",
};

const char *gostx_alg_name(gostx_alg alg) {
  return (int)alg > 0 && alg < GOSTX_ALG_END ? alg_names[alg] : NULL;
}

int gostx_alg_by_name(const char *name) {
  if (!name) return -1;
  if (!strcmp(name, "grasshopper")) return GOSTX_ALG_KUZNYECHIK; /* gost-engine's name */
  for (int a = 1; a < GOSTX_ALG_END; a++)
    if (!strcmp(name, alg_names[a])) return a;
  return -1;
}

/* A volatile function pointer keeps the compiler from dropping the wipe. */
static void *(*const volatile memset_v)(void *, int, size_t) = memset;

void gostx_memzero(void *p, size_t len) {
  if (p && len) memset_v(p, 0, len);
}

int gostx_memeq_ct(const void *a, const void *b, size_t len) {
  const volatile uint8_t *x = a, *y = b;
  uint8_t d = 0;
  for (size_t i = 0; i < len; i++) d |= (uint8_t)(x[i] ^ y[i]);
  /* (d - 1) >> 8 is 1 when d == 0, without a branch on d. */
  return (int)((((unsigned)d - 1u) >> 8) & 1u) - 1;
}
