/* gostx: GOST certificates and certificate requests written (RFC 5280,
 * RFC 2986 PKCS#10), signed with GOST R 34.10-2012 as RFC 9215 says. Part
 * of the public API; what `gostx req` and `gostx x509 -req` build on
 * (docs/X509.md).
 *
 * The pieces: a Name from openssl's -subj text, the extensions from
 * openssl's extension text (-addext, -extfile lines), then one call that
 * writes a signed request or certificate as DER. Nothing allocates: every
 * structure is the caller's, every output a buffer with its capacity
 * (GOSTX_ELEN with *out_len the length needed when it is short).
 *
 * Errors: GOSTX_EINVAL bad text (err, when not NULL, says what, in
 * err_cap bytes) or a bad key; GOSTX_EFORMAT malformed DER; GOSTX_EUNSUP
 * a request whose key or signature is not GOST R 34.10-2012; GOSTX_EAUTH
 * a request whose signature does not verify. */
#ifndef GOSTX_X509_WRITE_H
#define GOSTX_X509_WRITE_H

#include <stdint.h>

#include "common.h"
#include "gost3410.h"
#include "x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- names ---- */
#define GOSTX_X509_NAME_MAX 2048
typedef struct gostx_x509_name {
  uint8_t der[GOSTX_X509_NAME_MAX]; /* the Name, a whole DER element */
  size_t len;
} gostx_x509_name;

/* openssl's -subj text, "/CN=host/O=Org/C=RU": one RDN per "/TYPE=VALUE",
 * in that order; "\" takes the next character as it is ("\/" a slash in a
 * value). TYPE: CN, C, L, ST, O, OU, title, GN, SN, street, serialNumber,
 * emailAddress (or their long names: commonName, countryName, ...), INN,
 * INNLE, OGRN, SNILS, OGRNIP, or a dotted OID. Values are UTF8String (valid
 * UTF-8), but C and serialNumber (PrintableString; C two letters),
 * emailAddress (IA5String) and the Russian numbers (NumericString, digits
 * only); none empty; the upper bounds of RFC 5280 Appendix A (CN 64
 * characters, ...). */
GOSTX_API int gostx_x509_name_parse(const char *subj, gostx_x509_name *name, char *err,
                                    size_t err_cap);

/* ---- extensions ---- */
#define GOSTX_X509_EXTS_MAX 16
#define GOSTX_X509_EXTS_DATA 4096
typedef struct gostx_x509_ext {
  uint8_t oid[16]; /* the OID's content bytes */
  size_t oid_len;
  int critical;
  size_t off, len; /* the extnValue's content (DER) in data */
} gostx_x509_ext;
typedef struct gostx_x509_exts {
  gostx_x509_ext ext[GOSTX_X509_EXTS_MAX];
  size_t n, used;
  uint8_t data[GOSTX_X509_EXTS_DATA];
  int ski; /* write subjectKeyIdentifier (1 after init; "none" clears it) */
  int aki; /* write authorityKeyIdentifier keyid (1 after init) */
} gostx_x509_exts;

GOSTX_API void gostx_x509_exts_init(gostx_x509_exts *e);
/* One extension as openssl's configuration writes it: NAME the
 * extension's name, VALUE its text, "critical," first to mark it critical:
 *   basicConstraints = [critical,] CA:TRUE|CA:FALSE [, pathlen:N]
 *   keyUsage = [critical,] digitalSignature, nonRepudiation,
 *     keyEncipherment, dataEncipherment, keyAgreement, keyCertSign, cRLSign,
 *     encipherOnly, decipherOnly
 *   extendedKeyUsage = [critical,] serverAuth, clientAuth, codeSigning,
 *     emailProtection, timeStamping, OCSPSigning, ipsecIKE, anyExtendedKeyUsage, OID
 *   subjectAltName = [critical,] DNS:name, IP:v4-or-v6, email:addr, URI:uri
 *   subjectKeyIdentifier = hash | none
 *   authorityKeyIdentifier = keyid[:always][, issuer] | none ("issuer" is
 *     only a fallback of openssl's for an issuer without a key identifier:
 *     gostx always has one; issuer:always is refused)
 * An extension given twice is refused. The identifiers are RFC 7093's
 * method 1 with Streebog-256: its first 160 bits over the subjectPublicKey
 * BIT STRING's bytes. */
GOSTX_API int gostx_x509_exts_add(gostx_x509_exts *e, const char *name, const char *value,
                                  char *err, size_t err_cap);
/* "NAME = VALUE" (or "NAME=VALUE") in one string, as -addext takes it. */
GOSTX_API int gostx_x509_exts_add_line(gostx_x509_exts *e, const char *line, char *err,
                                       size_t err_cap);
/* An extension as DER (a request's, copied into the certificate): oid the
 * OID's content bytes. 1 when one with that OID is there already (nothing
 * done: what was asked for wins), 0 added, GOSTX_ELEN no room. */
GOSTX_API int gostx_x509_exts_add_der(gostx_x509_exts *e, const uint8_t *oid, size_t oid_len,
                                      int critical, const uint8_t *value, size_t value_len);

/* ---- keys ---- */
/* The key that signs is a gostx_gost3410_key with its private part
 * (include/gostx/gost3410.h); its parameter set OID is the one written.
 * 256-bit keys sign with id-tc26-signwithdigest-gost3410-12-256, 512-bit
 * ones with -512. */

/* The key identifier (20 bytes) of a SubjectPublicKeyInfo (DER), as the
 * extensions above write it. */
GOSTX_API int gostx_x509_key_id(const uint8_t *spki, size_t spki_len, uint8_t id[20]);
/* A certificate's own key identifier: its subjectKeyIdentifier when it has
 * one (into id[cap], at most 64 bytes taken), else gostx_x509_key_id of its
 * key. What a certificate it issues names in authorityKeyIdentifier. */
GOSTX_API int gostx_x509_cert_key_id(const gostx_x509_cert *cert, uint8_t *id, size_t cap,
                                     size_t *id_len);

/* ---- requests (PKCS#10) ---- */
/* A CertificationRequest for subject and key's public key, the extensions
 * (when e has any) in an extensionRequest attribute, signed by key; e may
 * be NULL. Identifiers are certificate matters: a request carries none. */
GOSTX_API int gostx_x509_csr_write(const gostx_x509_name *subject, const gostx_x509_exts *e,
                                   const gostx_gost3410_key *key, uint8_t *out, size_t cap,
                                   size_t *out_len);

/* A parsed request: views into the caller's DER. */
typedef struct gostx_x509_csr {
  const uint8_t *info, *subject, *spki, *sig_value;
  size_t info_len, subject_len, spki_len, sig_value_len; /* whole elements; sig s || r */
  const uint8_t *exts; /* the Extensions of extensionRequest (whole SEQUENCE), NULL if none */
  size_t exts_len;
  gostx_gost3410_curve curve;
  size_t len; /* 32 or 64 */
  uint8_t pub[128];
  gostx_x509_sig_alg sig_alg; /* GOSTX_X509_SIG_2012_256 or _512 */
} gostx_x509_csr;
/* Parses a DER request and checks its signature with its own key: 0,
 * GOSTX_EFORMAT, GOSTX_EUNSUP, GOSTX_EAUTH (the signature does not verify:
 * the request was altered, or not signed by the key it carries). */
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_csr_parse(const uint8_t *der, size_t der_len,
                                                    gostx_x509_csr *out);
/* The request's extensions one by one, from *pos = 0: 1 and the OID's
 * content, critical and the extnValue's content; 0 when none is left. */
GOSTX_API int gostx_x509_csr_ext_next(const gostx_x509_csr *csr, size_t *pos,
                                      const uint8_t **oid, size_t *oid_len, int *critical,
                                      const uint8_t **value, size_t *value_len);

/* ---- certificates ---- */
typedef struct gostx_x509_cert_spec {
  const uint8_t *serial; /* big-endian, 1..20 bytes, not 0, high bit clear */
  size_t serial_len;
  const uint8_t *issuer, *subject; /* Names, whole DER elements */
  size_t issuer_len, subject_len;
  int64_t not_before, not_after; /* seconds since 1970 (UTC), years 1950..9999 */
  const uint8_t *spki; /* the subject's SubjectPublicKeyInfo, whole element */
  size_t spki_len;
  const gostx_x509_exts *exts; /* NULL: no extensions but the identifiers */
  const uint8_t *issuer_key_id; /* authorityKeyIdentifier's keyIdentifier; NULL: none */
  size_t issuer_key_id_len;
} gostx_x509_cert_spec;
/* A version 3 Certificate of spec, signed by issuer_key: extensions in the
 * order added, then subjectKeyIdentifier and authorityKeyIdentifier (when
 * e asks for them and, for the latter, issuer_key_id is given). UTCTime
 * for the years 1950..2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
GOSTX_API int gostx_x509_cert_write(const gostx_x509_cert_spec *spec,
                                    const gostx_gost3410_key *issuer_key, uint8_t *out, size_t cap,
                                    size_t *out_len);

/* ---- PEM ---- */
/* der as PEM with label ("CERTIFICATE", "CERTIFICATE REQUEST"): 64-column
 * lines, NUL-terminated in out[cap]; *out_len without the NUL. */
GOSTX_API int gostx_x509_to_pem(const char *label, const uint8_t *der, size_t der_len, char *out,
                                size_t cap, size_t *out_len);
/* The next "CERTIFICATE REQUEST" (or "NEW CERTIFICATE REQUEST") block of
 * pem at or after *pos: as gostx_x509_pem_next. */
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_csr_pem_next(const char *pem, size_t pem_len,
                                                        size_t *pos, uint8_t *der, size_t cap,
                                                        size_t *der_len);

#ifdef __cplusplus
}
#endif

#endif
