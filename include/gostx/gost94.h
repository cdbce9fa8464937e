/* gostx: the hash function GOST R 34.11-94 (RFC 5831), with the parameter
 * sets of RFC 4357: id-GostR3411-94-CryptoProParamSet (gost-engine's
 * md_gost94) and id-GostR3411-94-TestParamSet (the standard's examples).
 * Part of the public API. A legacy hash: for new designs use Streebog.
 * Digests are the byte strings gost-engine's `openssl dgst -md_gost94`
 * prints (RFC 5831 prints them reversed). */
#ifndef GOSTX_GOST94_H
#define GOSTX_GOST94_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_GOST94_LEN 32
#define GOSTX_GOST94_BLOCK_LEN 32

typedef struct gostx_gost94_ctx {
  uint8_t h[32];     /* chaining value */
  uint8_t sigma[32]; /* sum of the message blocks mod 2^256, little-endian */
  uint8_t buf[32];
  size_t buf_len;
  uint64_t total;    /* message bytes so far */
  int sbox;          /* enum gostx_sbox */
  int started;       /* 1 after init; 0 = unusable (not initialised, or finalised) */
} gostx_gost94_ctx;

/* sbox: the parameter set's S-boxes, GOSTX_SBOX_CRYPTOPRO_3411_94 (the
 * CryptoPro set, gost-engine's default) or GOSTX_SBOX_TEST_3411_94 (the
 * test set); any other gostx_sbox set is allowed too. The start vector is
 * zero, as in both sets. */
GOSTX_API int gostx_gost94_init(gostx_gost94_ctx *ctx, gostx_sbox sbox);
GOSTX_API int gostx_gost94_update(gostx_gost94_ctx *ctx, const void *data, size_t len);
/* Writes 32 bytes and wipes the context. */
GOSTX_API int gostx_gost94_final(gostx_gost94_ctx *ctx, uint8_t digest[GOSTX_GOST94_LEN]);
GOSTX_API int gostx_gost94(gostx_sbox sbox, const void *data, size_t len,
                           uint8_t digest[GOSTX_GOST94_LEN]);
GOSTX_API void gostx_gost94_clear(gostx_gost94_ctx *ctx);

/* sizeof of the struct above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_gost94_ctx(void);

#ifdef __cplusplus
}
#endif
#endif
