/* gostx: errors, implementation names, CPU features. Part of the public API. */
#ifndef GOSTX_COMMON_H
#define GOSTX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GOSTX_API __attribute__((visibility("default")))
#else
#define GOSTX_API
#endif

/* Member alignment spelled for both languages: the headers are also used
 * from C++ (extern "C"), which has alignas but no _Alignas. */
#if defined(__cplusplus)
#define GOSTX_ALIGNAS(n) alignas(n)
#else
#define GOSTX_ALIGNAS(n) _Alignas(n)
#endif

/* Return codes: 0 is success, errors are negative. */
#define GOSTX_OK 0
#define GOSTX_EINVAL (-1)  /* bad argument (NULL, unknown id, bad parameter) */
#define GOSTX_ELEN (-2)    /* bad length (not a block multiple, IV/tag size, ...) */
#define GOSTX_EAUTH (-3)   /* authentication failed: tag mismatch; nothing written */
#define GOSTX_ENOMEM (-4)  /* allocation failed */
#define GOSTX_ESTATE (-5)  /* call out of order (update after final, ...) */
#define GOSTX_EPAD (-6)    /* bad padding on removal */
#define GOSTX_EUNSUP (-7)  /* not supported by this build or CPU */
#define GOSTX_EIO (-8)     /* I/O error (CLI and file helpers) */
#define GOSTX_EFORMAT (-9) /* malformed input structure (container header, ...) */

/* Human-readable text for a return code; never NULL. */
GOSTX_API const char *gostx_strerror(int err);

/* Library version string, e.g. "0.1.0". */
GOSTX_API const char *gostx_version(void);

/* Primitives with run-time-selected implementations. */
enum gostx_primitive {
  GOSTX_PRIM_KUZNYECHIK = 0,
  GOSTX_PRIM_MAGMA = 1,
  GOSTX_PRIM_STREEBOG = 2,
  GOSTX_PRIM_MGM = 3, /* MGM's GF(2^128) / GF(2^64) multiply-accumulate */
  GOSTX_PRIM_COUNT
};

/* Name of the implementation chosen for a primitive ("portable", "avx2", ...).
 * The choice is made once per process; GOSTX_IMPL=name in the environment
 * forces a level (an unavailable level falls back to "portable"). */
GOSTX_API const char *gostx_impl(int primitive);
/* Short name of the primitive ("kuznyechik", "magma", "streebog", "mgm"), or NULL. */
GOSTX_API const char *gostx_primitive_name(int primitive);

/* Space-separated list of the CPU features gostx looks at and found,
 * e.g. "sse2 ssse3 avx2 pclmul gfni avx512f avx512vbmi". */
GOSTX_API const char *gostx_cpu_features(void);

/* Wipe memory in a way the compiler may not optimise away. */
GOSTX_API void gostx_memzero(void *p, size_t len);
/* Constant-time comparison: 0 when equal, -1 otherwise (time depends on len only). */
GOSTX_API int gostx_memeq_ct(const void *a, const void *b, size_t len);

#ifdef __cplusplus
}
#endif
#endif
