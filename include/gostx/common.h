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

/* On the calls that authenticate or parse untrusted input (MGM decryption,
 * KImp15, file and LUKS headers and chunks, padding removal, ...): their
 * return code is the verdict, and ignoring it uses unauthenticated or
 * unparsed data. GCC and Clang warn when a result is dropped; other
 * compilers see nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define GOSTX_MUST_CHECK __attribute__((warn_unused_result))
#else
#define GOSTX_MUST_CHECK
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

/* The version of these headers, for #if at compile time. The version of the
 * library actually loaded is gostx_version(); the two differ only when a
 * program runs against another build than the one it was compiled with.
 * This is the one place the number is written: CMakeLists.txt's
 * project(VERSION) must agree (tests/test_version.sh checks it). */
#define GOSTX_VERSION_MAJOR 0
#define GOSTX_VERSION_MINOR 5
#define GOSTX_VERSION_PATCH 0
#define GOSTX__STR2(x) #x
#define GOSTX__STR(x) GOSTX__STR2(x)
/* "0.3.0" */
#define GOSTX_VERSION_STRING                                                      \
  GOSTX__STR(GOSTX_VERSION_MAJOR) "." GOSTX__STR(GOSTX_VERSION_MINOR) "." GOSTX__STR( \
      GOSTX_VERSION_PATCH)
/* One integer that orders versions: MAJOR * 10000 + MINOR * 100 + PATCH
 * (0.2.0 is 200), e.g. #if GOSTX_VERSION_NUMBER >= 300. */
#define GOSTX_VERSION_NUMBER \
  (GOSTX_VERSION_MAJOR * 10000 + GOSTX_VERSION_MINOR * 100 + GOSTX_VERSION_PATCH)

/* Library version string, e.g. "0.3.0": GOSTX_VERSION_STRING of the build
 * that made the library. */
GOSTX_API const char *gostx_version(void);

/* Algorithm ids: one space for the block ciphers (what gostx_cipher_init
 * takes) and for the primitives whose implementation is chosen at run time
 * (what gostx_impl takes). Ids run from 1 to GOSTX_ALG_END - 1; 0 is never
 * a valid id. The cipher ids are also the bytes the file format stores. */
typedef enum gostx_alg {
  GOSTX_ALG_KUZNYECHIK = 1, /* block cipher, GOST R 34.12-2015 (n = 128) */
  GOSTX_ALG_MAGMA = 2,      /* block cipher, GOST R 34.12-2015 (n = 64) */
  GOSTX_ALG_STREEBOG = 3,   /* hash, GOST R 34.11-2012 */
  GOSTX_ALG_MGM = 4,        /* MGM's GF(2^128) / GF(2^64) multiply-accumulate */
  GOSTX_ALG_GOST3410 = 5,   /* GOST R 34.10-2012's field and point arithmetic */
  GOSTX_ALG_END
} gostx_alg;

/* Short name ("kuznyechik", "magma", "streebog", "mgm", "gost3410"), or NULL. */
GOSTX_API const char *gostx_alg_name(gostx_alg alg);
/* The id of a name ("kuznyechik" or "grasshopper", "magma", "streebog",
 * "mgm", "gost3410"), or -1. */
GOSTX_API int gostx_alg_by_name(const char *name);
/* Name of the implementation chosen for alg ("portable", "avx2", ...), or
 * "unknown". The choice is made once per process; GOSTX_IMPL=name in the
 * environment forces a level (one the CPU lacks falls back to the best level
 * below it) or an implementation name (one the CPU cannot run, or an unknown
 * name, falls back to "portable"); see gostx_impl_requested. */
GOSTX_API const char *gostx_impl(gostx_alg alg);

/* What became of GOSTX_IMPL (the library never prints; callers can warn). */
typedef enum gostx_impl_request {
  GOSTX_IMPL_UNSET = 0,       /* unset or empty: the best the CPU runs */
  GOSTX_IMPL_HONOURED = 1,    /* a level or implementation name this CPU runs */
  GOSTX_IMPL_UNKNOWN = 2,     /* not a level nor a name (both case-sensitive): portable runs */
  GOSTX_IMPL_UNSUPPORTED = 3, /* a level or implementation this CPU cannot run */
} gostx_impl_request;
/* How GOSTX_IMPL was applied when the implementations were chosen (once per
 * process; this call makes the choice if none was made yet). *value gets the
 * value read (at most 63 bytes of it), *running the level or implementation
 * name that runs for it ("portable", "avx2", ...); both NULL when unset.
 * Either pointer may be NULL. */
GOSTX_API gostx_impl_request gostx_impl_requested(const char **value, const char **running);

/* Fills buf with len bytes from the OS generator (getrandom, else
 * /dev/urandom). 0 or GOSTX_EIO. */
GOSTX_API int gostx_random_bytes(uint8_t *buf, size_t len);

/* The implementation levels of this build's architecture, lowest first,
 * space-separated ("portable ssse3 avx2 avx512bw avx512" on x86-64, "portable neon"
 * on AArch64): the values GOSTX_IMPL accepts besides implementation names. */
GOSTX_API const char *gostx_levels(void);

/* Space-separated list of the CPU features gostx looks at and found,
 * e.g. "sse2 ssse3 avx2 pclmul gfni avx512f avx512vbmi". */
GOSTX_API const char *gostx_cpu_features(void);

/* Wipe memory in a way the compiler may not optimise away. */
GOSTX_API void gostx_memzero(void *p, size_t len);
/* Constant-time comparison: 0 when equal, -1 otherwise (time depends on len only). */
GOSTX_API GOSTX_MUST_CHECK int gostx_memeq_ct(const void *a, const void *b, size_t len);

#ifdef __cplusplus
}
#endif
#endif
