/* PKCS#12 MacData with Streebog (pkcs12_internal.h). R 50.1.112-2016
 * replaces RFC 7292 appendix B's KDF for GOST: the HMAC key is the last 32
 * of 96 PBKDF2 bytes, over the password's own bytes; checked against what
 * gost-engine and certtool write (tests/test_pkcs12_interop.sh). OpenSSL
 * applies the same rule to a Streebog-256 MAC (-macalg md_gost12_256): its
 * PBKDF2 PRF is then HMAC-Streebog-256, three blocks to the 96 bytes. */
#include "kdf/pbkdf2.h"
#include "pkcs12/pkcs12_internal.h"

static int mac(size_t digest_len, const uint8_t *pass, size_t pass_len, const uint8_t *salt,
               size_t salt_len, uint32_t iter, const uint8_t *data, size_t len, uint8_t *out) {
  uint8_t k[96];
  int rc = (digest_len == 64 ? gostx_pbkdf2_streebog512 : gostx__pbkdf2_streebog256)(
      pass, pass_len, salt, salt_len, iter, k, sizeof k);
  if (!rc) rc = gostx_hmac(digest_len, k + 64, 32, data, len, out);
  gostx_memzero(k, sizeof k);
  return rc;
}

int gostx__pkcs12_mac(const uint8_t *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                      uint32_t iter, const uint8_t *data, size_t len, uint8_t *out) {
  return mac(64, pass, pass_len, salt, salt_len, iter, data, len, out);
}

int gostx__pkcs12_mac256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iter, const uint8_t *data, size_t len,
                         uint8_t *out) {
  return mac(32, pass, pass_len, salt, salt_len, iter, data, len, out);
}
