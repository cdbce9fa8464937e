/* lib/pkcs12 inside: what the reader (read.c) and the writer (write.c)
 * share. Above lib/x509 and the key files; on lib/asn1's DER. */
#ifndef GOSTX_PKCS12_INTERNAL_H
#define GOSTX_PKCS12_INTERNAL_H

#include "asn1/der.h"
#include "gost3410/pbes2.h"
#include "gostx/pkcs12.h"
#include "internal.h"

#define GOSTX__P12_OID_DATA "1.2.840.113549.1.7.1"
#define GOSTX__P12_OID_ENCRYPTED_DATA "1.2.840.113549.1.7.6"
#define GOSTX__P12_OID_KEY_BAG "1.2.840.113549.1.12.10.1.1"
#define GOSTX__P12_OID_SHROUDED_KEY_BAG "1.2.840.113549.1.12.10.1.2"
#define GOSTX__P12_OID_CERT_BAG "1.2.840.113549.1.12.10.1.3"
#define GOSTX__P12_OID_X509_CERT "1.2.840.113549.1.9.22.1"
#define GOSTX__P12_OID_FRIENDLY_NAME "1.2.840.113549.1.9.20"
#define GOSTX__P12_OID_LOCAL_KEY_ID "1.2.840.113549.1.9.21"
#define GOSTX__P12_OID_STREEBOG512 "1.2.643.7.1.1.2.3"

/* MacData's HMAC-Streebog-512 the R 50.1.112-2016 way: keyed by the last 32
 * bytes of PBKDF2-HMAC-Streebog-512(pass, salt, iter) taken to 96 bytes;
 * over data[len] (the AuthenticatedSafe's DER); mac[64]. */
int gostx__pkcs12_mac(const uint8_t *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                      uint32_t iter, const uint8_t *data, size_t len, uint8_t *mac);

#endif
