/* lib/x509 internals shared by its files: the OIDs (their DER content
 * bytes) and the signature check verify.c and the tests use. */
#ifndef GOSTX_X509_INTERNAL_H
#define GOSTX_X509_INTERNAL_H

#include "asn1/der.h"

#define OID_SIG_2012_256 "\x2a\x85\x03\x07\x01\x01\x03\x02" /* 1.2.643.7.1.1.3.2 */
#define OID_SIG_2012_512 "\x2a\x85\x03\x07\x01\x01\x03\x03" /* 1.2.643.7.1.1.3.3 */
#define OID_SIG_2001 "\x2a\x85\x03\x02\x02\x03"             /* 1.2.643.2.2.3 */
#define OID_KEY_2012_256 "\x2a\x85\x03\x07\x01\x01\x01\x01" /* 1.2.643.7.1.1.1.1 */
#define OID_KEY_2012_512 "\x2a\x85\x03\x07\x01\x01\x01\x02" /* 1.2.643.7.1.1.1.2 */
#define OID_KEY_2001 "\x2a\x85\x03\x02\x02\x13"             /* 1.2.643.2.2.19 */
#define OID_GOST94_CRYPTOPRO "\x2a\x85\x03\x02\x02\x1e\x01" /* 1.2.643.2.2.30.1 */
#define OID_EXT_KEY_USAGE "\x55\x1d\x0f"                    /* 2.5.29.15 */
#define OID_EXT_SAN "\x55\x1d\x11"                          /* 2.5.29.17 */
#define OID_EXT_BASIC "\x55\x1d\x13"                        /* 2.5.29.19 */
#define OID_EXT_EKU "\x55\x1d\x25"                          /* 2.5.29.37 */
#define OID_EKU_ANY "\x55\x1d\x25\x00"                      /* 2.5.29.37.0 */
#define OID_EKU_SERVER "\x2b\x06\x01\x05\x05\x07\x03\x01"   /* 1.3.6.1.5.5.7.3.1 */
#define OID_EKU_CLIENT "\x2b\x06\x01\x05\x05\x07\x03\x02"   /* 1.3.6.1.5.5.7.3.2 */

/* GeneralName tags of subjectAltName (RFC 5280 section 4.2.1.6). */
#define SAN_DNS GOSTX__DER_CTX(2)
#define SAN_IP GOSTX__DER_CTX(7)

/* 0 when cert's signature verifies under issuer's key (the algorithm and
 * key size must fit); GOSTX_EAUTH when it does not, GOSTX_EUNSUP when the
 * issuer's key cannot make that signature. */
int gostx__x509_check_signature(const gostx_x509_cert *cert, const gostx_x509_cert *issuer);

/* gostx_x509_verify_path over an array of anchors (store.c holds them). */
gostx_x509_status gostx__x509_verify_path(const gostx_x509_cert *anchors, size_t n_anchors,
                                          const gostx_x509_cert *chain, size_t n, int64_t now,
                                          gostx_x509_purpose purpose, const char *name,
                                          size_t *depth, const gostx_x509_cert **path,
                                          size_t cap, size_t *path_len);

#endif
