/* lib/cms's CAdES-C / X files (cades_read.c, cades_write.c,
 * cades_verify.c, cades_refs.c, cades_tsa.c, cades_tsa_verify.c): the
 * attributes' OIDs; CRLs and OCSP responses are read by lib/x509's parsers
 * (x509_crl.h, ocsp.h), so a value lib/x509 refuses is refused here too. */
#ifndef GOSTX_CADES_INTERNAL_H
#define GOSTX_CADES_INTERNAL_H

#include "cms/cms_internal.h"
#include "gostx/cades.h"
#include "gostx/ocsp.h"
#include "gostx/x509_crl.h"
#include "x509/x509_internal.h"

/* RFC 5126 Annex A: id-aa (1.2.840.113549.1.9.16.2) 14 and 21..26 */
#define OID_AA_PREFIX "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x10\x02"
#define OID_AA_SIG_TS OID_AA_PREFIX "\x0e"
#define OID_AA_CERT_REFS OID_AA_PREFIX "\x15"
#define OID_AA_REV_REFS OID_AA_PREFIX "\x16"
#define OID_AA_CERT_VALUES OID_AA_PREFIX "\x17"
#define OID_AA_REV_VALUES OID_AA_PREFIX "\x18"
#define OID_AA_ESC_TS OID_AA_PREFIX "\x19"
#define OID_AA_CERTS_CRLS_TS OID_AA_PREFIX "\x1a"
#define OID_SHA1 "\x2b\x0e\x03\x02\x1a" /* 1.3.14.3.2.26 */

/* An OCSP response read by lib/x509 (gostx_ocsp_response_parse: an
 * OCSPResponse or a bare BasicOCSPResponse), and the BasicOCSPResponse
 * element within: what revocation-values carries and ocspRepHash covers. */
typedef struct gostx__cades_ocsp {
  gostx_ocsp_response r;
  gostx__der basic;
} gostx__cades_ocsp;
int gostx__cades_read_ocsp(const uint8_t *der, size_t len, gostx__cades_ocsp *o);
/* 1 when a SingleResponse of o is for cert (its serial, and its issuer's
 * name hashed as the CertID says: SHA-1 or Streebog). */
int gostx__cades_ocsp_covers(const gostx__cades_ocsp *o, const gostx_x509_cert *cert);

/* gostx_cades_validation's inputs read once (cades_write.c): certificates,
 * CRLs and responses parsed; signer the certificate whose
 * CrlOcspRef comes first, what GOSTX_CADES_REFS and/or _VALUES. */
typedef struct gostx__cades_inputs {
  const gostx_x509_cert *signer;
  unsigned what;
  size_t n_certs, n_crls, n_ocsps;
  gostx_x509_cert certs[GOSTX_CADES_MAX];
  gostx_x509_crl crls[GOSTX_CADES_MAX];
  gostx__cades_ocsp ocsps[GOSTX_CADES_MAX];
} gostx__cades_inputs;
/* 1 when v's lists are there as their counts say */
int gostx__cades_validation_ok(const gostx_cades_validation *v);
/* v read into *in: OK, TOO_MANY, BAD_CERT, BAD_CRL or BAD_OCSP. */
gostx_cades_status gostx__cades_read_inputs(const gostx_cades_validation *v, gostx__cades_inputs *in);
/* A gostx__cms_attr_writer: in's (ctx) references and/or values. */
void gostx__cades_write_validation(gostx__der_w *w, const void *ctx);
/* Revocation values read by lib/x509: the signature's, then a token's
 * own, then the caller's (gostx_cades_verify_with's more). */
#define GOSTX__CADES_REVS_MAX (3 * GOSTX_CADES_MAX)
typedef struct gostx__cades_revs {
  gostx_x509_crl crls[GOSTX__CADES_REVS_MAX];
  gostx_ocsp_response ocsps[GOSTX__CADES_REVS_MAX];
  size_t n_crls, n_ocsps;
} gostx__cades_revs;
/* info's revocation values appended to *r (cades_refs.c): OK, or
 * BAD_CRL (*xs lib/x509's status) or BAD_OCSP for info's value *index. */
gostx_cades_status gostx__cades_read_revs(const gostx_cades_info *info, gostx__cades_revs *r, size_t *index,
                                          gostx_x509_status *xs);
/* Every reference of info met by a value of info (crls, ocsps: its
 * revocation values read, in its order) or sd's certificates: OK, or the
 * first that is not (*index). */
gostx_cades_status gostx__cades_refs_met(const gostx_cades_info *info, const gostx_cms_signed *sd,
                                         const gostx_x509_crl *crls, const gostx_ocsp_response *ocsps,
                                         size_t *index);
/* gostx_cades_verify's last step (cades_tsa_verify.c): each token's own
 * validation data checked and, with a store, its TSA's path judged; r
 * holds the signature's revocation values read. 0, or the failure in v. */
int gostx__cades_judge_tsas(const gostx_cms_signed *sd, gostx_cades_info *info, gostx__cades_revs *r,
                            const gostx_cms_verify_params *params, const gostx_cades_revocation *more,
                            gostx_cades_verdict *v);

/* An OtherHash read from r. */
int gostx__cades_read_hash(gostx__der *r, gostx_cades_hash *h);
/* 1 when h is the hash of der[len] (an unknown algorithm: 0). */
int gostx__cades_hash_is(const gostx_cades_hash *h, const uint8_t *der, size_t len);

/* The signer's unsigned attributes' content (SET OF Attribute; n 0 when
 * there are none): 0, or GOSTX_EFORMAT. */
int gostx__cades_unsigned(const gostx_cms_signer_info *si, gostx__der *attrs);
/* The next Attribute of attrs: its type OID, its SET of values' content
 * and the Attribute's content (attrType and attrValues, what timestamps
 * cover). */
int gostx__cades_next_attr(gostx__der *attrs, gostx__der *oid, gostx__der *values,
                           gostx__der *content);

/* The digests of data[len] of both sizes, as gostx_tsa_verify takes them
 * (the token names the size it stamps): no nonce asked, any policy; h
 * holds the digests (cades_verify.c). */
gostx_tsa_expect gostx__cades_digests(const uint8_t *data, size_t len, gostx_cms_hash *h);

#endif
