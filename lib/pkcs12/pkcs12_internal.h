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
#define GOSTX__P12_OID_STREEBOG256 "1.2.643.7.1.1.2.2"
#define GOSTX__P12_OID_SHA1 "1.3.14.3.2.26"
#define GOSTX__P12_OID_PBE_SHA_3DES "1.2.840.113549.1.12.1.3"
#define GOSTX__P12_OID_PBE_SHA_RC2_128 "1.2.840.113549.1.12.1.5"
#define GOSTX__P12_OID_PBE_SHA_RC2_40 "1.2.840.113549.1.12.1.6"
#define GOSTX__P12_OID_PBE_CRYPTOPRO "1.2.840.113549.1.12.1.80"
/* CryptoPro's scheme counts its rounds in 16 bits (cryptopro.c). */
#define GOSTX__P12_CPRO_ITER_MAX 65535u

/* MacData's HMAC-Streebog-512 the R 50.1.112-2016 way: keyed by the last 32
 * bytes of PBKDF2-HMAC-Streebog-512(pass, salt, iter) taken to 96 bytes;
 * over data[len] (the AuthenticatedSafe's DER); mac[64]. */
int gostx__pkcs12_mac(const uint8_t *pass, size_t pass_len, const uint8_t *salt, size_t salt_len,
                      uint32_t iter, const uint8_t *data, size_t len, uint8_t *mac);
/* The same with Streebog-256 (read only: openssl -macalg md_gost12_256):
 * PBKDF2-HMAC-Streebog-256's 96 bytes, HMAC-Streebog-256 into mac[32]. */
int gostx__pkcs12_mac256(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                         size_t salt_len, uint32_t iter, const uint8_t *data, size_t len,
                         uint8_t *mac);


/* ---- RFC 7292's own integrity and privacy, legacy.c: what CryptoPro CSP
 * writes around its key bag. bmp is the password as a BMPString with its
 * NUL (gostx__pkcs12_bmp_password). ---- */
/* UTF-8 pass to BMPString + NUL in bmp[cap]: GOSTX_EINVAL for text that is
 * not UTF-8 of the BMP, GOSTX_ELEN for a short cap. */
int gostx__pkcs12_bmp_password(const uint8_t *pass, size_t pass_len, uint8_t *bmp, size_t cap,
                               size_t *bmp_len);
/* Appendix B.2 over SHA-1: n bytes of purpose id (1 key, 2 IV, 3 MAC). */
int gostx__pkcs12_kdf_sha1(const uint8_t *bmp, size_t bmp_len, const uint8_t *salt,
                           size_t salt_len, uint8_t id, uint32_t iter, uint8_t *out, size_t n);
/* MacData's HMAC-SHA1 over data[len] into mac[20]. */
int gostx__pkcs12_mac_sha1(const uint8_t *bmp, size_t bmp_len, const uint8_t *salt,
                           size_t salt_len, uint32_t iter, const uint8_t *data, size_t len,
                           uint8_t *mac);
/* The PBEs of appendix C that are read. */
typedef enum gostx__p12_legacy_pbe {
  GOSTX__P12_SHA_3DES = 1,    /* pbeWithSHAAnd3-KeyTripleDES-CBC, 1.2.840.113549.1.12.1.3 */
  GOSTX__P12_SHA_RC2_128 = 2, /* pbeWithSHAAnd128BitRC2-CBC, 1.2.840.113549.1.12.1.5 */
  GOSTX__P12_SHA_RC2_40 = 3   /* pbeWithSHAAnd40BitRC2-CBC, 1.2.840.113549.1.12.1.6 */
} gostx__p12_legacy_pbe;
/* in[len] under pbe into out (len bytes of room), *out_len without the
 * padding. GOSTX_EFORMAT a length not of whole blocks, GOSTX_EAUTH bad
 * padding (judged in constant time). */
int gostx__pkcs12_legacy_decrypt(gostx__p12_legacy_pbe pbe, const uint8_t *bmp, size_t bmp_len,
                                 const uint8_t *salt, size_t salt_len, uint32_t iter,
                                 const uint8_t *in, size_t len, uint8_t *out, size_t *out_len);

/* ---- CryptoPro CSP's key bag, PBE 1.2.840.113549.1.12.1.80, cryptopro.c ---- */
/* Its parameters (the AlgorithmIdentifier's, whole): GOSTX_EFORMAT, or
 * GOSTX_EUNSUP for more than GOSTX__P12_CPRO_ITER_MAX rounds. */
int gostx__pkcs12_cpro_params(gostx__der params, gostx__der *salt, uint32_t *iter);
/* The bag's ciphertext to a PrivateKeyInfo in out[cap] (cap >= ct.n),
 * *out_len. GOSTX_EFORMAT: the plaintext is not a CryptoPro key blob (a
 * wrong password); GOSTX_EAUTH: the key wrap's MAC does not verify;
 * GOSTX_EUNSUP: a key that is not GOST R 34.10-2001 or -2012. */
int gostx__pkcs12_cpro_decrypt(const uint8_t *pass, size_t pass_len, gostx__der salt,
                               uint32_t iter, gostx__der ct, uint8_t *out, size_t cap,
                               size_t *out_len);

#endif
