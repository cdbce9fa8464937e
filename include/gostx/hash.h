/* gostx: Streebog-256/512 (GOST R 34.11-2012, RFC 6986) and HMAC-Streebog
 * (RFC 7836 section 4.1). Part of the public API.
 * Digests are the byte strings gost-engine's `openssl dgst -md_gost12_*`
 * prints (RFC 6986 prints them reversed). */
#ifndef GOSTX_HASH_H
#define GOSTX_HASH_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_STREEBOG256_LEN 32
#define GOSTX_STREEBOG512_LEN 64
#define GOSTX_STREEBOG_BLOCK_LEN 64

typedef struct gostx_streebog_ctx {
  GOSTX_ALIGNAS(16) uint8_t h[64];
  uint8_t n[64];      /* processed bits, little-endian 512-bit integer */
  uint8_t sigma[64];  /* sum of blocks mod 2^512 */
  uint8_t buf[64];
  size_t buf_len;
  size_t digest_len;  /* 32 or 64 */
} gostx_streebog_ctx;

/* digest_len: 32 (Streebog-256) or 64 (Streebog-512). */
GOSTX_API int gostx_streebog_init(gostx_streebog_ctx *ctx, size_t digest_len);
GOSTX_API int gostx_streebog_update(gostx_streebog_ctx *ctx, const void *data, size_t len);
/* Writes digest_len bytes and wipes the context. */
GOSTX_API int gostx_streebog_final(gostx_streebog_ctx *ctx, uint8_t *digest);
GOSTX_API int gostx_streebog(size_t digest_len, const void *data, size_t len, uint8_t *digest);
GOSTX_API void gostx_streebog_clear(gostx_streebog_ctx *ctx);

typedef struct gostx_hmac_ctx {
  gostx_streebog_ctx inner, outer;
} gostx_hmac_ctx;

/* HMAC_GOSTR3411_2012_256 (digest_len 32) or _512 (64); any key length. */
GOSTX_API int gostx_hmac_init(gostx_hmac_ctx *ctx, size_t digest_len, const uint8_t *key,
                              size_t key_len);
GOSTX_API int gostx_hmac_update(gostx_hmac_ctx *ctx, const void *data, size_t len);
GOSTX_API int gostx_hmac_final(gostx_hmac_ctx *ctx, uint8_t *mac);
GOSTX_API void gostx_hmac_clear(gostx_hmac_ctx *ctx);
GOSTX_API int gostx_hmac(size_t digest_len, const uint8_t *key, size_t key_len, const void *data,
                         size_t len, uint8_t *mac);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_streebog_ctx(void);
GOSTX_API size_t gostx_sizeof_hmac_ctx(void);

#ifdef __cplusplus
}
#endif
#endif
