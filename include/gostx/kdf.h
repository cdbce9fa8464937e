/* gostx: key derivation. KDF_GOSTR3411_2012_256 and KDF_TREE_GOSTR3411_2012_256
 * (RFC 7836 section 4.4/4.5, R 50.1.113-2016) and PBKDF2 with
 * HMAC-Streebog-512 (R 50.1.111-2016). Part of the public API. */
#ifndef GOSTX_KDF_H
#define GOSTX_KDF_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* KDF_256(K, label, seed) = HMAC_256(K, 0x01 | label | 0x00 | seed | 0x01 0x00). */
GOSTX_API int gostx_kdf256(const uint8_t *key, size_t key_len, const uint8_t *label,
                           size_t label_len, const uint8_t *seed, size_t seed_len,
                           uint8_t out[32]);
/* KDF_TREE_256 with counter width R (1..4 bytes) producing out_len bytes
 * (L = 8 * out_len bits, encoded big-endian in the minimal number of bytes
 * as RFC 7836 specifies). */
GOSTX_API int gostx_kdf_tree256(const uint8_t *key, size_t key_len, const uint8_t *label,
                                size_t label_len, const uint8_t *seed, size_t seed_len,
                                size_t r_bytes, uint8_t *out, size_t out_len);
/* PBKDF2-HMAC-Streebog-512; iterations >= 1; out_len >= 1. */
GOSTX_API int gostx_pbkdf2_streebog512(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                                       size_t salt_len, uint32_t iterations, uint8_t *out,
                                       size_t out_len);

#ifdef __cplusplus
}
#endif
#endif
