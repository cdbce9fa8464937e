/* PBKDF2 (RFC 8018) with the PRFs of files others write, internal: the
 * public one is gostx_pbkdf2_streebog512 (include/gostx/kdf.h), the
 * HMAC-SHA256 one is kdf/sha256.h's. Arguments and errors as
 * gostx_pbkdf2_streebog512. */
#ifndef GOSTX_KDF_PBKDF2_H
#define GOSTX_KDF_PBKDF2_H

#include <stddef.h>
#include <stdint.h>

/* HMAC-Streebog-256: the PRF of the MacData key openssl derives for
 * -macalg md_gost12_256 (lib/pkcs12/mac.c). */
int gostx__pbkdf2_streebog256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                              size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len);
/* HMAC-GOST R 34.11-94 (CryptoPro parameter set; OID 1.2.643.2.2.10): the
 * PBES2 PRF GnuTLS certtool writes with --pkcs-cipher gost28147-cpa. */
int gostx__pbkdf2_gost94(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len);

#endif
