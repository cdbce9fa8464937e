/* gostx: MGM authenticated encryption (RFC 9058, R 1323565.1.026-2019) for
 * Kuznyechik and Magma. Part of the public API. */
#ifndef GOSTX_AEAD_H
#define GOSTX_AEAD_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* nonce: one block of the cipher, n bytes (16 Kuznyechik, 8 Magma; read
 * from nonce, no length passed), its most significant bit 0 (GOSTX_EINVAL
 * otherwise). tag_len: 4..n bytes (32 <= S <= n bits). RFC 9058 limits:
 * 0 < aad_len + len and aad_len + len < 2^(n/2) bits, i.e. under 2^61 bytes
 * for Kuznyechik and 2^29 bytes (512 MiB) for Magma; GOSTX_ELEN otherwise.
 * out may equal in (no other overlap). A nonce must never repeat under one
 * key. */
GOSTX_API int gostx_mgm_encrypt(const gostx_cipher *c, const uint8_t *nonce, const uint8_t *aad,
                                size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                                uint8_t *tag, size_t tag_len);
/* Verifies the tag first, in constant time; on mismatch returns GOSTX_EAUTH and
 * writes nothing to out. */
GOSTX_API GOSTX_MUST_CHECK int gostx_mgm_decrypt(const gostx_cipher *c, const uint8_t *nonce,
                                                 const uint8_t *aad, size_t aad_len,
                                                 const uint8_t *in, size_t len,
                                                 const uint8_t *tag, size_t tag_len,
                                                 uint8_t *out);

/* Streaming MGM: init, any number of aad() calls, then any number of update()
 * calls (any split of the data), then final_encrypt or final_decrypt matching
 * the direction given to init (GOSTX_ESTATE otherwise, and for aad() after
 * update() or anything after final). update() with decrypt = 1 takes
 * ciphertext and releases plaintext BEFORE it is authenticated: callers must
 * discard it unless final_decrypt returns 0 (the one-shot gostx_mgm_decrypt
 * does not have this hazard). The length limits above are checked as data
 * arrives (GOSTX_ELEN, state unchanged). The context holds a copy of the
 * cipher key: wipe it with gostx_mgm_clear. Internals: y/z are the running
 * counters (Y1/Z1 right after init), sum the hash accumulator, buf a partial
 * AAD or ciphertext block, gamma the keystream block in use. */
typedef struct gostx_mgm_ctx {
  gostx_cipher c;
  size_t n;
  int decrypt, phase; /* phase: 0 = aad, 1 = data, 2 = done */
  uint8_t y[GOSTX_MAX_BLOCK_LEN], z[GOSTX_MAX_BLOCK_LEN], sum[GOSTX_MAX_BLOCK_LEN];
  uint8_t buf[GOSTX_MAX_BLOCK_LEN], gamma[GOSTX_MAX_BLOCK_LEN];
  size_t buf_len;
  uint64_t aad_len, data_len; /* bytes */
} gostx_mgm_ctx;

/* nonce_len must be the cipher's block (GOSTX_ELEN otherwise). */
GOSTX_API int gostx_mgm_init(gostx_mgm_ctx *ctx, const gostx_cipher *c, int decrypt,
                             const uint8_t *nonce, size_t nonce_len);
GOSTX_API int gostx_mgm_aad(gostx_mgm_ctx *ctx, const uint8_t *aad, size_t len);
/* Writes exactly len bytes to out. */
GOSTX_API int gostx_mgm_update(gostx_mgm_ctx *ctx, const uint8_t *in, size_t len, uint8_t *out);
GOSTX_API int gostx_mgm_final_encrypt(gostx_mgm_ctx *ctx, uint8_t *tag, size_t tag_len);
/* GOSTX_EAUTH when the tag does not match (compared in constant time). */
GOSTX_API GOSTX_MUST_CHECK int gostx_mgm_final_decrypt(gostx_mgm_ctx *ctx, const uint8_t *tag,
                                                       size_t tag_len);
GOSTX_API void gostx_mgm_clear(gostx_mgm_ctx *ctx);

/* sizeof of the structs above, for bindings (lib/sizes.c). */
GOSTX_API size_t gostx_sizeof_mgm_ctx(void);

#ifdef __cplusplus
}
#endif
#endif
