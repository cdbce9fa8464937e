/* gostx: Kuznyechik-XTS (the IEEE 1619 XTS construction over the Kuznyechik
 * block, as VeraCrypt and dm-crypt "kuznyechik-xts-plain64" use it), with
 * ciphertext stealing. Part of the public API. */
#ifndef GOSTX_XTS_H
#define GOSTX_XTS_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GOSTX_XTS_KEY_LEN 64 /* key1 (data) || key2 (tweak) */

typedef struct gostx_xts_key {
  gostx_kuz_key data;  /* K1 */
  gostx_kuz_key tweak; /* K2 */
} gostx_xts_key;

/* Returns GOSTX_EINVAL when the two halves are equal (IEEE 1619 forbids it). */
GOSTX_API int gostx_xts_set_key(gostx_xts_key *x, const uint8_t key[GOSTX_XTS_KEY_LEN]);
GOSTX_API void gostx_xts_clear(gostx_xts_key *x);
/* One data unit. len >= 16 (GOSTX_ELEN otherwise); any length >= 16 via
 * ciphertext stealing (IEEE 1619 section 5.3.2). tweak: 16 bytes as given to
 * E_K2; the tweak chain T_{j+1} = T_j * alpha treats T as a little-endian
 * 128-bit number (IEEE 1619). out may equal in. The full-block results match
 * VeraCrypt's Kuznyechik XTS self-test (tests/test_xts.c). */
GOSTX_API int gostx_xts_encrypt(const gostx_xts_key *x, const uint8_t tweak[16],
                                const uint8_t *in, uint8_t *out, size_t len);
GOSTX_API int gostx_xts_decrypt(const gostx_xts_key *x, const uint8_t tweak[16],
                                const uint8_t *in, uint8_t *out, size_t len);
/* Same with tweak = sector number as a 16-byte little-endian integer (plain64). */
GOSTX_API int gostx_xts_encrypt_sector(const gostx_xts_key *x, uint64_t sector,
                                       const uint8_t *in, uint8_t *out, size_t len);
GOSTX_API int gostx_xts_decrypt_sector(const gostx_xts_key *x, uint64_t sector,
                                       const uint8_t *in, uint8_t *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
