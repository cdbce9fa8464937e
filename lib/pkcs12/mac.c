/* PKCS#12 MacData with Streebog-512 (pkcs12_internal.h). R 50.1.112-2016
 * replaces RFC 7292 appendix B's KDF for GOST: the HMAC key is the last 32
 * of 96 PBKDF2 bytes, over the password's own bytes; checked against what
 * gost-engine and certtool write (tests/test_pkcs12_interop.sh). */
#include "pkcs12/pkcs12_internal.h"

int gostx__pkcs12_mac(const uint8_t *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                      uint32_t iter, const uint8_t *data, size_t len, uint8_t *mac) {
  uint8_t k[96];
  int rc = gostx_pbkdf2_streebog512(pass, pass_len, salt, salt_len, iter, k, sizeof k);
  if (!rc) rc = gostx_hmac(64, k + 64, 32, data, len, mac);
  gostx_memzero(k, sizeof k);
  return rc;
}
