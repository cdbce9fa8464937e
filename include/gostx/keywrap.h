/* gostx: KExp15 / KImp15 key export and import (R 1323565.1.017-2018 section
 * 8.2.1/8.2.2): the key is MACed with OMAC under key_mac over IV || key and
 * encrypted with CTR under key_enc; and the key wraps of RFC 4357 (GOST
 * 28147-89 and CryptoPro). Part of the public API. */
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

/* ---- RFC 4357: the GOST 28147-89 and CryptoPro key wraps ----
 * kek and cek 32 bytes, ukm 8; sbox the S-box set of the KEK's cipher
 * (RFC 9189's TLS suite: GOSTX_SBOX_TC26_Z). The wrapped key is
 * ukm | ECB(KEK, CEK) | IMIT(ukm, KEK, CEK) (4 bytes), 44 bytes. */
#define GOSTX_GOST89_WRAP_LEN 44
/* Section 6.5, CryptoPro KEK diversification: out = KEK(UKM). */
GOSTX_API int gostx_cpro_kek_diversify(const uint8_t kek[32], gostx_sbox sbox,
                                       const uint8_t ukm[8], uint8_t out[32]);
/* Sections 6.1/6.2, the GOST 28147-89 key wrap under kek itself. Unwrap
 * takes the UKM from in[0..8); GOSTX_EAUTH (cek untouched) when the IMIT
 * is wrong, compared in constant time. out may equal cek. */
GOSTX_API int gostx_gost89_key_wrap(const uint8_t kek[32], gostx_sbox sbox, const uint8_t ukm[8],
                                    const uint8_t cek[32], uint8_t out[44]);
GOSTX_API GOSTX_MUST_CHECK int gostx_gost89_key_unwrap(const uint8_t kek[32], gostx_sbox sbox,
                                                       const uint8_t in[44], uint8_t cek[32]);
/* Sections 6.3/6.4, the CryptoPro key wrap: the same under KEK(UKM). */
GOSTX_API int gostx_cpro_key_wrap(const uint8_t kek[32], gostx_sbox sbox, const uint8_t ukm[8],
                                  const uint8_t cek[32], uint8_t out[44]);
GOSTX_API GOSTX_MUST_CHECK int gostx_cpro_key_unwrap(const uint8_t kek[32], gostx_sbox sbox,
                                                     const uint8_t in[44], uint8_t cek[32]);

#ifdef __cplusplus
}
#endif
#endif
