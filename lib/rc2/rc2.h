/* RC2 (RFC 2268) decryption in CBC mode, internal and legacy: only for
 * certificates that PKCS#12 files made by others keep under
 * pbeWithSHAAnd40BitRC2-CBC or pbeWithSHAAnd128BitRC2-CBC (RFC 7292
 * appendix C), as openssl -legacy writes them and as CryptoPro CSP's
 * certmgr is described to. Not a GOST primitive, not in the public API;
 * gostx never encrypts with it. */
#ifndef GOSTX_RC2_H
#define GOSTX_RC2_H

#include <stddef.h>
#include <stdint.h>

#define GOSTX__RC2_BLOCK 8

/* in[len] (a multiple of 8) decrypted under key[key_len] (1..128 bytes)
 * with `bits` effective key bits (1..1024) and iv[8] into out (in == out
 * allowed). GOSTX_EINVAL for bad lengths. */
int gostx__rc2_cbc_decrypt(const uint8_t *key, size_t key_len, unsigned bits,
                           const uint8_t iv[GOSTX__RC2_BLOCK], const uint8_t *in, size_t len,
                           uint8_t *out);
/* One block encrypted (for RFC 2268's known answers); GOSTX_EINVAL as above. */
int gostx__rc2_encrypt_block(const uint8_t *key, size_t key_len, unsigned bits, const uint8_t in[8],
                             uint8_t out[8]);

#endif
