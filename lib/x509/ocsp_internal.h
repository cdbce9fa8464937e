/* lib/x509's OCSP files (ocsp_request.c, ocsp_response.c, ocsp_check.c):
 * the OIDs they share and the CertID and extension readers and writer. */
#ifndef GOSTX_OCSP_INTERNAL_H
#define GOSTX_OCSP_INTERNAL_H

#include "gostx/ocsp.h"
#include "x509/write_internal.h"

#define OID_OCSP_BASIC "\x2b\x06\x01\x05\x05\x07\x30\x01\x01"   /* 1.3.6.1.5.5.7.48.1.1 */
#define OID_OCSP_NONCE "\x2b\x06\x01\x05\x05\x07\x30\x01\x02"   /* 1.3.6.1.5.5.7.48.1.2 */
#define OID_OCSP_NOCHECK "\x2b\x06\x01\x05\x05\x07\x30\x01\x05" /* 1.3.6.1.5.5.7.48.1.5 */
#define OID_EKU_OCSP_SIGNING "\x2b\x06\x01\x05\x05\x07\x03\x09" /* 1.3.6.1.5.5.7.3.9 */
#define OID_SHA1 "\x2b\x0e\x03\x02\x1a"                         /* 1.3.14.3.2.26 */
#define OID_STREEBOG256 "\x2a\x85\x03\x07\x01\x01\x02\x02"      /* 1.2.643.7.1.1.2.2 */
#define OID_STREEBOG512 "\x2a\x85\x03\x07\x01\x01\x02\x03"      /* 1.2.643.7.1.1.2.3 */

/* A CertID element read from r into *id (its whole element kept). */
int gostx__ocsp_certid_read(gostx__der *r, gostx_ocsp_certid *id);
/* id written: its element as it came, else from its fields. */
void gostx__ocsp_certid_write(gostx__der_w *w, const gostx_ocsp_certid *id);
/* [tag] EXPLICIT Extensions, the last element of r: the nonce's content
 * into *nonce (NULL p when absent). GOSTX_EFORMAT a malformed one, more
 * after it, or a nonce that is no OCTET STRING of 1..max bytes;
 * GOSTX_EUNSUP an unknown critical one. */
int gostx__ocsp_exts_read(gostx__der *r, uint8_t tag, gostx__der *nonce, size_t max);
/* [tag] EXPLICIT Extensions holding the nonce extension alone. */
void gostx__ocsp_nonce_write(gostx__der_w *w, uint8_t tag, const uint8_t *nonce, size_t len);
/* The SHA-1 of a SubjectPublicKeyInfo's key bits (byKey, CertID's key hash). */
int gostx__ocsp_key_sha1(const uint8_t *spki, size_t spki_len, uint8_t out[20]);

#endif
