/* Triple DES (TDEA, NIST SP 800-67, keying option 1: three keys, EDE)
 * decryption in CBC mode, internal and legacy: only for certificates that
 * PKCS#12 files made by others keep under pbeWithSHAAnd3-KeyTripleDES-CBC
 * (RFC 7292 appendix C), as CryptoPro CSP writes them. Not a GOST
 * primitive, not in the public API; gostx never encrypts with it. */
#ifndef GOSTX_DES3_H
#define GOSTX_DES3_H

#include <stddef.h>
#include <stdint.h>

#define GOSTX__DES3_KEY_LEN 24
#define GOSTX__DES3_BLOCK 8

/* in[len] (a multiple of 8) decrypted under key[24] (K1 | K2 | K3) and
 * iv[8] into out (in == out allowed). GOSTX_EINVAL for a length that is no
 * multiple of 8. */
int gostx__des3_cbc_decrypt(const uint8_t key[GOSTX__DES3_KEY_LEN],
                            const uint8_t iv[GOSTX__DES3_BLOCK], const uint8_t *in, size_t len,
                            uint8_t *out);
/* One block encrypted (for the known-answer tests' encryption vectors). */
void gostx__des3_encrypt_block(const uint8_t key[GOSTX__DES3_KEY_LEN], const uint8_t in[8],
                               uint8_t out[8]);

#endif
