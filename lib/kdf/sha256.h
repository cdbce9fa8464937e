/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), internal and only for
 * PBKDF2-HMAC-SHA256: OpenSSL's default PBES2 PRF, which gost-engine writes
 * around GOST private keys unless told -v2prf (lib/gost3410/keys.c). Not a
 * public hash: gostx's API is the GOST algorithms. */
#ifndef GOSTX_KDF_SHA256_H
#define GOSTX_KDF_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h"

#define GOSTX__SHA256_LEN 32
#define GOSTX__SHA256_BLOCK 64

typedef struct gostx__sha256_ctx {
  uint32_t h[8];
  gostx_md32 m; /* the block buffer, the byte count */
} gostx__sha256_ctx;

typedef struct gostx__hmac_sha256_ctx {
  gostx__sha256_ctx inner, outer;
} gostx__hmac_sha256_ctx;

void gostx__sha256_init(gostx__sha256_ctx *ctx);
void gostx__sha256_update(gostx__sha256_ctx *ctx, const void *data, size_t len);
void gostx__sha256_final(gostx__sha256_ctx *ctx, uint8_t out[GOSTX__SHA256_LEN]);
void gostx__sha256(const void *data, size_t len, uint8_t out[GOSTX__SHA256_LEN]);

void gostx__hmac_sha256_init(gostx__hmac_sha256_ctx *ctx, const uint8_t *key, size_t key_len);
void gostx__hmac_sha256_update(gostx__hmac_sha256_ctx *ctx, const void *data, size_t len);
void gostx__hmac_sha256_final(gostx__hmac_sha256_ctx *ctx, uint8_t out[GOSTX__SHA256_LEN]);

/* PBKDF2 (RFC 8018 5.2) with HMAC-SHA256; arguments and errors as
 * gostx_pbkdf2_streebog512. */
int gostx__pbkdf2_sha256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len);

#endif
