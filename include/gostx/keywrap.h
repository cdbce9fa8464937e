/* gostx: KExp15 / KImp15 key export and import (R 1323565.1.017-2018 section
 * 8.2.1/8.2.2): the key is MACed with OMAC under key_mac over IV || key and
 * encrypted with CTR under key_enc. Part of the public API. */
#ifndef GOSTX_KEYWRAP_H
#define GOSTX_KEYWRAP_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

/* enc, mac: the two keys (K_exp_enc, K_exp_mac) as ciphers of the same
 * algorithm (GOSTX_EINVAL otherwise). iv: n/2 bytes (GOSTX_ELEN otherwise).
 * key_len >= 1 (usually 32). out receives key_len + n bytes (encrypted key ||
 * encrypted MAC); *out_len is set. out may equal key. */
GOSTX_API int gostx_kexp15(const gostx_cipher *enc, const gostx_cipher *mac, const uint8_t *iv,
                           size_t iv_len, const uint8_t *key, size_t key_len, uint8_t *out,
                           size_t *out_len);
/* Inverse: in_len = key_len + n > n; key receives in_len - n bytes and
 * *key_len is set. The MAC is compared in constant time; GOSTX_EAUTH (and
 * nothing written to key or *key_len) when it is wrong. */
GOSTX_API GOSTX_MUST_CHECK int gostx_kimp15(const gostx_cipher *enc, const gostx_cipher *mac,
                                            const uint8_t *iv, size_t iv_len, const uint8_t *in,
                                            size_t in_len, uint8_t *key, size_t *key_len);

#ifdef __cplusplus
}
#endif
#endif
