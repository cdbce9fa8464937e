/* lib/cms internals shared by its files: the OIDs (their DER content
 * bytes, as lib/x509 keeps its own) and the helpers that parsing, signing
 * and verifying share. */
#ifndef GOSTX_CMS_INTERNAL_H
#define GOSTX_CMS_INTERNAL_H

#include "asn1/der.h"
#include "gostx/cms.h"

/* content types (RFC 5652 section 4, 5.1) */
#define OID_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x01"        /* 1.2.840.113549.1.7.1 */
#define OID_SIGNED_DATA "\x2a\x86\x48\x86\xf7\x0d\x01\x07\x02" /* 1.2.840.113549.1.7.2 */
/* attributes (RFC 5652 section 11, RFC 5035 section 5.4) */
#define OID_ATTR_CONTENT_TYPE "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x03"   /* 1.2.840.113549.1.9.3 */
#define OID_ATTR_DIGEST "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x04"         /* 1.2.840.113549.1.9.4 */
#define OID_ATTR_SIGNING_TIME "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x05"   /* 1.2.840.113549.1.9.5 */
#define OID_ATTR_SIGNING_CERT_V2 "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x02\x2f" /* 1.2.840.113549.1.9.16.2.47 */
/* Streebog (RFC 6986 in CMS: R 1323565.1.024-2019) */
#define OID_STREEBOG_256 "\x2a\x85\x03\x07\x01\x01\x02\x02" /* 1.2.643.7.1.1.2.2 */
#define OID_STREEBOG_512 "\x2a\x85\x03\x07\x01\x01\x02\x03" /* 1.2.643.7.1.1.2.3 */
#define OID_SHA256 "\x60\x86\x48\x01\x65\x03\x04\x02\x01" /* 2.16.840.1.101.3.4.2.1 */
/* signatures: the key's OID (what gost-engine writes in a SignerInfo) or
 * signwithdigest (what GnuTLS writes) */
#define OID_KEY_2012_256 "\x2a\x85\x03\x07\x01\x01\x01\x01" /* 1.2.643.7.1.1.1.1 */
#define OID_KEY_2012_512 "\x2a\x85\x03\x07\x01\x01\x01\x02" /* 1.2.643.7.1.1.1.2 */
#define OID_SIG_2012_256 "\x2a\x85\x03\x07\x01\x01\x03\x02" /* 1.2.643.7.1.1.3.2 */
#define OID_SIG_2012_512 "\x2a\x85\x03\x07\x01\x01\x03\x03" /* 1.2.643.7.1.1.3.3 */

/* The digest size an AlgorithmIdentifier's OID names: 32, 64, 0 unknown. */
size_t gostx__cms_digest_size(gostx__der oid);
/* The key size a signature AlgorithmIdentifier's OID names: 32, 64, 0. */
size_t gostx__cms_sig_size(gostx__der oid);
/* An AlgorithmIdentifier: its OID; parameters absent or NULL (RFC 9215
 * says absent, gost-engine writes NULL). */
int gostx__cms_alg_id(gostx__der *r, gostx__der *oid);

/* The signed attributes as the signature covers them: their [0] element
 * with the tag of a SET OF (RFC 5652 section 5.4), digested. */
int gostx__cms_attrs_digest(const uint8_t *attrs, size_t len, size_t digest_len, uint8_t *digest);

/* cert's subjectKeyIdentifier (the key id's bytes): 1 found, 0 none. */
int gostx__cms_cert_key_id(const gostx_x509_cert *cert, const uint8_t **id, size_t *len);

/* A writer into out[cap] (NULL: counting) with a ContentInfo of a
 * SignedData opened: SEQUENCE { id-signedData, [0] { SEQUENCE { (the
 * caller's fields; three ends close it) */
void gostx__cms_w_signed_open(gostx__der_w *w, uint8_t *out, size_t cap);

#endif
