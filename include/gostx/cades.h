/* gostx: CAdES-C, -X Long and -X Long Type 1 (RFC 5126 sections 6.2 and
 * 6.3, ETSI TS 101 733): the validation data of a signature carried in
 * its signer's unsigned attributes. Part of the public API; docs/ESIGN.md.
 *
 *   complete-certificate-references  id-aa-ets-certificateRefs 1.2.840.113549.1.9.16.2.21
 *   complete-revocation-references   id-aa-ets-revocationRefs  ...2.22
 *   certificate-values               id-aa-ets-certValues      ...2.23
 *   revocation-values                id-aa-ets-revocationValues ...2.24
 *   CAdES-C-time-stamp (X Type 1)    id-aa-ets-escTimeStamp    ...2.25
 *   time-stamped-certs-crls-refs (X Type 2) id-aa-ets-certCRLTimestamp ...2.26
 *
 * Enhancing a CAdES-T signature (the signature-time-stamp added by
 * gostx_cades_add_timestamp, kind GOSTX_CADES_TS_SIGNATURE) to X Long
 * Type 1, as a command does it, every input a DER blob:
 *   1. gostx_cades_add_validation: the signer's chain above its
 *      certificate, the CRLs and OCSP responses, as references
 *      (Streebog-256 hashes) and values: an X Long;
 *   2. gostx_cades_ts_data on that result's signer: the bytes the
 *      CAdES-C-time-stamp covers; gostx_tsa_query_write for their hash
 *      is the TSA request, gostx_tsa_verify with their digests checks
 *      the reply (gostx/tsa.h);
 *   3. gostx_cades_add_timestamp: the token embedded: X Long Type 1.
 * The signed bytes never change: only the signer's unsignedAttrs grow.
 *
 * Verification (gostx_cades_verify) is offline: every reference against a
 * value, every timestamp's imprint and signature, each timestamp token's
 * own validation data and its TSA's path at the token's time, the level
 * reached. The signer's own chain at its signature timestamp's time is the
 * caller's: the values are handed out (gostx_cades_info) for that.
 *
 * Nothing here allocates: parsed results are views into the caller's DER. */
#ifndef GOSTX_CADES_H
#define GOSTX_CADES_H

#include "cms.h"
#include "cms_ts.h"
#include "ocsp.h"
#include "x509_crl.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_cades_status {
  GOSTX_CADES_OK = 0,
  GOSTX_CADES_MALFORMED,          /* an attribute's value is not the DER RFC 5126 gives */
  GOSTX_CADES_DUPLICATE,          /* an attribute RFC 5126 allows once is there twice */
  GOSTX_CADES_TOO_MANY,           /* more entries than GOSTX_CADES_MAX */
  GOSTX_CADES_UNKNOWN_HASH,       /* a reference's hash is none of SHA-1, Streebog-256/512 */
  GOSTX_CADES_NO_SIGNATURE_TIMESTAMP, /* validation data without a signature-time-stamp */
  GOSTX_CADES_NO_REFERENCES,      /* values or an ES-C timestamp without both complete refs */
  GOSTX_CADES_REFS_COUNT,         /* revocation refs are not one plus one per certificate ref */
  GOSTX_CADES_CERT_WITHOUT_VALUE, /* a certificate reference no value or SignedData cert matches */
  GOSTX_CADES_CERT_HASH_MISMATCH, /* the certificate of that issuer and serial has another hash */
  GOSTX_CADES_REV_WITHOUT_VALUE,  /* a CRL or OCSP reference no revocation value matches */
  GOSTX_CADES_REV_HASH_MISMATCH,  /* the CRL (issuer, thisUpdate) or OCSP response (responder,
                                     producedAt) referenced has another hash */
  GOSTX_CADES_SIGNATURE_TIMESTAMP, /* a signature-time-stamp fails (timestamp verdict given) */
  GOSTX_CADES_ESC_TIMESTAMP,      /* a CAdES-C-time-stamp fails (timestamp verdict given);
                                     IMPRINT_MISMATCH there: it is over other bytes */
  GOSTX_CADES_TIME_ORDER,         /* a CAdES-C-time-stamp older than the signature-time-stamp */
  GOSTX_CADES_BAD_CRL,            /* an input CRL or a revocation value is no CRL lib/x509
                                     reads (x509_crl.h: gostx_x509_crl_parse) */
  GOSTX_CADES_BAD_OCSP,           /* an input or a revocation value is no successful OCSP
                                     response lib/x509 reads (gostx_ocsp_response_parse) */
  GOSTX_CADES_BAD_CERT,           /* building: an input certificate does not parse */
  GOSTX_CADES_TIMESTAMPED,        /* building: the signature-time-stamps are covered by a
                                     CAdES-C-time-stamp: changing one or adding one would
                                     break that one */
  GOSTX_CADES_OTHER_TOKEN,        /* building: the new token is not the old one (its TSTInfo
                                     and signature) with unsigned attributes added */
  GOSTX_CADES_TSA_PATH,           /* a timestamp's TSA certificate fails at the time it is
                                     judged at (revoked, ...; the verdict says which, how) */
  GOSTX_CADES_CERT_REF_MISMATCH,  /* the certificate of the reference's hash is not the one
                                     its issuerSerial names (RFC 5126 6.2.1) */
  GOSTX_CADES_REV_REF_MISMATCH    /* the CRL or OCSP response of the reference's hash is not
                                     the one its identifier names: a CRL's issuer,
                                     crlIssuedTime or crlNumber, a response's responder or
                                     producedAt differs (RFC 5126 6.2.2) */
} gostx_cades_status;

GOSTX_API const char *gostx_cades_status_name(gostx_cades_status st);

/* The forms, lowest first. X_LONG_TYPE1 has all of X Long and X Type 1. */
typedef enum gostx_cades_level {
  GOSTX_CADES_BES = 0,
  GOSTX_CADES_T,             /* a signature-time-stamp */
  GOSTX_CADES_C,             /* + complete-certificate- and complete-revocation-references */
  GOSTX_CADES_X_LONG,        /* + certificate-values and revocation-values, every reference met */
  GOSTX_CADES_X_TYPE1,       /* C + a CAdES-C-time-stamp (no values, or not all met) */
  GOSTX_CADES_X_LONG_TYPE1   /* X Long + a CAdES-C-time-stamp */
} gostx_cades_level;

GOSTX_API const char *gostx_cades_level_name(gostx_cades_level l);

#define GOSTX_CADES_MAX 16 /* per list: references, values, timestamps */

/* An OtherHash: SHA-1 (sha1Hash, hash_len 20) or an
 * OtherHashAlgAndValue; alg the digest size it names: 20 SHA-1, 32 or 64
 * Streebog, 0 unknown (the OID's content in oid). */
typedef struct gostx_cades_hash {
  size_t alg;
  const uint8_t *oid, *value;
  size_t oid_len, value_len;
} gostx_cades_hash;

typedef struct gostx_cades_cert_ref { /* OtherCertID */
  gostx_cades_hash hash;
  const uint8_t *issuer, *serial; /* issuerSerial's directoryName (whole Name) and INTEGER
                                     content; NULL when absent */
  size_t issuer_len, serial_len;
} gostx_cades_cert_ref;

#define GOSTX_CADES_REF_CRL 1
#define GOSTX_CADES_REF_OCSP 2
typedef struct gostx_cades_rev_ref { /* a CrlValidatedID or an OcspResponsesID */
  int kind;                    /* GOSTX_CADES_REF_* */
  size_t owner;                /* which CrlOcspRef: 0 the signer's, i + 1 cert_refs[i]'s */
  int has_hash;                /* ocspRepHash is OPTIONAL */
  gostx_cades_hash hash;
  const uint8_t *name;         /* CRL: crlissuer (whole Name), NULL without crlIdentifier;
                                  OCSP: ocspResponderID (whole [1] or [2] element) */
  size_t name_len;
  int64_t time;                /* crlIssuedTime or producedAt */
  const uint8_t *crl_number;   /* INTEGER content, NULL when absent */
  size_t crl_number_len;
} gostx_cades_rev_ref;

/* How gostx_cades_verify judged a timestamp's TSA certificate: its path
 * (the token's certificates and certificate-values, the signature's) at
 * the token's time with the revocation values (the token's own, the
 * signature's, the caller's). */
#define GOSTX_CADES_TSA_NOT_JUDGED 0 /* no store, or no values in the signature or the token */
#define GOSTX_CADES_TSA_OK 1         /* the path and every certificate's status good at `at` */
#define GOSTX_CADES_TSA_NO_DATA 2    /* no revocation value for the certificate at depth: its
                                        status not judged, not refused (RFC 5126 makes the
                                        TSU's data optional) */
typedef struct gostx_cades_tsa_judged {
  int outcome;      /* GOSTX_CADES_TSA_* */
  int64_t at;       /* the time judged at */
  int stale;        /* 1: the values were stale at stale_at (past a CRL's nextUpdate, a
                       response's) for the certificate at depth: judged at the token's
                       genTime (at) instead, when they were current */
  int64_t stale_at;
  size_t depth;     /* NO_DATA or stale: the certificate's (0 the TSA's) */
} gostx_cades_tsa_judged;

/* A signer's CAdES attributes, read (gostx_cades_parse). Values as DER
 * elements: certificates, CertificateLists, BasicOCSPResponses, tokens. */
typedef struct gostx_cades_info {
  size_t n_sig_ts, n_esc_ts, n_certs_crls_ts;
  const uint8_t *sig_ts[GOSTX_CADES_MAX], *esc_ts[GOSTX_CADES_MAX];
  size_t sig_ts_len[GOSTX_CADES_MAX], esc_ts_len[GOSTX_CADES_MAX];
  int has_cert_refs, has_rev_refs, has_cert_values, has_rev_values;
  size_t n_cert_refs, n_crl_ocsp_refs, n_rev_refs;
  gostx_cades_cert_ref cert_refs[GOSTX_CADES_MAX];
  gostx_cades_rev_ref rev_refs[2 * GOSTX_CADES_MAX];
  size_t n_certs, n_crls, n_ocsps;
  const uint8_t *certs[GOSTX_CADES_MAX], *crls[GOSTX_CADES_MAX], *ocsps[GOSTX_CADES_MAX];
  size_t cert_len[GOSTX_CADES_MAX], crl_len[GOSTX_CADES_MAX], ocsp_len[GOSTX_CADES_MAX];
  /* filled by gostx_cades_verify: the timestamps' genTime, how their TSAs were judged */
  int64_t sig_ts_time[GOSTX_CADES_MAX], esc_ts_time[GOSTX_CADES_MAX];
  gostx_cades_tsa_judged sig_ts_tsa[GOSTX_CADES_MAX], esc_ts_tsa[GOSTX_CADES_MAX];
} gostx_cades_info;

/* The signer's unsigned attributes read into *info: 0, or GOSTX_EFORMAT
 * with *st MALFORMED, DUPLICATE or TOO_MANY. Other attributes are passed over. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_parse(const gostx_cms_signer_info *si,
                                                  gostx_cades_info *info,
                                                  gostx_cades_status *st);

/* The validation data to add: DER blobs, each list up to GOSTX_CADES_MAX.
 * certs: the chain above the signer's certificate (its issuer first, the
 * root last or left out), each referenced (RFC 5126 6.2.1: all but the
 * signer's) and carried; crls: CertificateLists; ocsps: OCSPResponses
 * (what openssl ocsp -respout writes) or bare BasicOCSPResponses. Each CRL
 * is referenced for the certificates its issuer issued, each OCSP
 * response for those its SingleResponses name (serial and issuer name
 * hash); all are carried in revocation-values. */
typedef struct gostx_cades_validation {
  const uint8_t *const *certs, *const *crls, *const *ocsps;
  const size_t *cert_len, *crl_len, *ocsp_len;
  size_t n_certs, n_crls, n_ocsps;
} gostx_cades_validation;

/* gostx_cades_add_validation's what */
#define GOSTX_CADES_REFS 1u   /* complete-certificate- and -revocation-references (C) */
#define GOSTX_CADES_VALUES 2u /* certificate-values and revocation-values (X Long) */

/* sd (parsed, its der still there) again with the validation data v added
 * to signer's unsigned attributes as what asks (REFS | VALUES: X Long), its
 * signer certificate signer_cert (the CrlOcspRef for it first). The
 * signer must have a signature-time-stamp (CAdES-T), and none of the
 * attributes added yet. out NULL: *out_len only. 0; GOSTX_ELEN when cap is
 * short; GOSTX_EFORMAT with *st (BAD_CRL, BAD_OCSP, BAD_CERT, TOO_MANY,
 * NO_SIGNATURE_TIMESTAMP, DUPLICATE, or the unsigned attributes' MALFORMED);
 * GOSTX_EINVAL for misuse. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_add_validation(
    const gostx_cms_signed *sd, size_t signer, const gostx_x509_cert *signer_cert,
    const gostx_cades_validation *v, unsigned what, uint8_t *out, size_t cap, size_t *out_len,
    gostx_cades_status *st);

/* The timestamps this layer adds */
#define GOSTX_CADES_TS_ESC 1           /* CAdES-C-time-stamp (X Type 1), RFC 5126 6.3.5 */
#define GOSTX_CADES_TS_CERTS_CRLS 2    /* time-stamped-certs-crls-references (X Type 2), 6.3.6 */
#define GOSTX_CADES_TS_SIGNATURE 3     /* signature-time-stamp (CAdES-T), 6.1.1 */

/* The bytes a timestamp of kind covers, into out[cap] (out NULL: *out_len
 * only): ESC: the signature value, then each signature-time-stamp
 * attribute, complete-certificate-references and -revocation-references,
 * each attribute as its attrType and attrValues elements without its
 * SEQUENCE's tag and length (RFC 5126 6.3.5, notes 1 and 2); CERTS_CRLS:
 * the two references alone. Their hash is what gostx_tsa_query_write
 * asks for and gostx_tsa_verify checks (gostx/tsa.h). 0;
 * GOSTX_ELEN; GOSTX_EFORMAT with *st (MALFORMED, NO_REFERENCES,
 * NO_SIGNATURE_TIMESTAMP). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_ts_data(const gostx_cms_signer_info *si, int kind,
                                                    uint8_t *out, size_t cap, size_t *out_len,
                                                    gostx_cades_status *st);

/* sd again with token (a TimeStampToken, or a TimeStampResp whose token is
 * taken) added to signer's unsigned attributes as the attribute of kind:
 * SIGNATURE (a signature-time-stamp, CAdES-T: any signer), ESC or
 * CERTS_CRLS (the signer has both complete references). out NULL:
 * *out_len only. 0; GOSTX_ELEN; GOSTX_EFORMAT with *st (MALFORMED: no
 * token; NO_REFERENCES: ESC or CERTS_CRLS on a signer without the
 * references); GOSTX_EINVAL misuse. The token is not checked here:
 * gostx_tsa_verify over the signature value (SIGNATURE) or
 * gostx_cades_ts_data's bytes does that before. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_add_timestamp(const gostx_cms_signed *sd, size_t signer,
                                                          int kind, const uint8_t *token,
                                                          size_t token_len, uint8_t *out,
                                                          size_t cap, size_t *out_len,
                                                          gostx_cades_status *st);

/* A TSA's own validation data (RFC 5126 Annex B.2; 6.2.1, 6.2.2, 6.3.3 and
 * 6.3.4 "for any TSUs ... added to the signedData of the relevant
 * time-stamp token"): the token t again (out, a TimeStampToken) with
 * complete-certificate-references, complete-revocation-references,
 * certificate-values and revocation-values added to its SignerInfo's
 * unsignedAttrs, for its TSA certificate tsa_cert and v (the chain above
 * it, the CRLs and OCSP responses), as gostx_cades_add_validation writes
 * them for a signer. The token's signature and TSTInfo are unchanged.
 * out NULL: *out_len only. 0; GOSTX_ELEN; GOSTX_EFORMAT with *st
 * (DUPLICATE: the token has such attributes already; BAD_CRL, BAD_OCSP,
 * BAD_CERT, TOO_MANY, MALFORMED); GOSTX_EINVAL for misuse. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_add_tsa_validation(
    const gostx_cms_ts_token *t, const gostx_x509_cert *tsa_cert, const gostx_cades_validation *v,
    uint8_t *out, size_t cap, size_t *out_len, gostx_cades_status *st);

/* Which timestamp: signer's index-th of kind (GOSTX_CADES_TS_SIGNATURE or
 * GOSTX_CADES_TS_ESC), counted in gostx_cades_info's order. */
typedef struct gostx_cades_ts_at {
  size_t signer;
  int kind;
  size_t index;
} gostx_cades_ts_at;

/* sd again with the timestamp at `at` replaced by
 * token: the same token with unsigned attributes added (what
 * gostx_cades_add_tsa_validation made), the attribute order kept. A
 * signature-time-stamp can be replaced only before a CAdES-C-time-stamp
 * covers it. 0; GOSTX_ELEN; GOSTX_EFORMAT with *st (TIMESTAMPED,
 * OTHER_TOKEN, MALFORMED); GOSTX_EINVAL for misuse (no such timestamp). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_replace_timestamp(const gostx_cms_signed *sd,
                                                              const gostx_cades_ts_at *at,
                                                              const uint8_t *token, size_t token_len,
                                                              uint8_t *out, size_t cap, size_t *out_len,
                                                              gostx_cades_status *st);

/* The TSA's own validation data in token t's SignerInfo read into *info
 * (zero counts when it has none) and checked as gostx_cades_verify checks a
 * signer's: both complete references when any attribute is there, one
 * CrlOcspRef per certificate reference plus the TSA's, every revocation
 * value one lib/x509 reads, every reference met by a value (the token's
 * certificates count as values). 0; GOSTX_EFORMAT (MALFORMED, DUPLICATE,
 * TOO_MANY, BAD_CRL, BAD_OCSP) or GOSTX_EAUTH with *st and *index (the
 * reference or value that failed). gostx_cades_verify does this for each
 * token itself. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_tsa_values(const gostx_cms_ts_token *t, gostx_cades_info *info,
                                                       gostx_cades_status *st, size_t *index);

/* The verdict on one signer's CAdES layers. */
typedef struct gostx_cades_verdict {
  gostx_cades_status status;   /* the first failure */
  gostx_cades_level level;     /* the level reached (below the failure's) */
  size_t index;                /* which reference or timestamp failed */
  gostx_cms_ts_verdict ts;     /* status *_TIMESTAMP: the timestamp's verdict */
  /* where: 0 the signer's own attributes; GOSTX_CADES_TS_SIGNATURE or
   * GOSTX_CADES_TS_ESC: that kind's ts_index-th token, its own validation
   * data (RFC 5126 Annex B.2) or its TSA's path (TSA_PATH) */
  int ts_kind;
  size_t ts_index;
  /* BAD_CRL: lib/x509's status for the value; TSA_PATH: the path's, depth
   * the certificate that failed (0 the TSA's), at the time judged at, why
   * gostx_x509_verify_result's line ("revocation: certificate revoked ...") */
  gostx_x509_status x509;
  size_t depth;
  int64_t at;
  char why[GOSTX_X509_WHY_MAX];
} gostx_cades_verdict;

/* Verifies the CAdES layers of sd's signer, offline: every
 * signature-time-stamp over the signature value, then (when present) the
 * complete references (revocation refs one per certificate ref plus the
 * signer's), each certificate reference met by certificate-values or sd's
 * certificates (hash over the certificate's DER), each revocation value
 * read by lib/x509 (BAD_CRL, BAD_OCSP), each CRL and OCSP reference met by
 * one (its hash; an OCSP reference without a hash by responder and
 * producedAt), each CAdES-C-time-stamp over gostx_cades_ts_data's bytes
 * and not older than the signature-time-stamp. Tokens are checked by
 * gostx_tsa_verify with the stamped bytes' digests (params: the TSAs'
 * trust anchors), a CAdES-C-time-stamp's chain at params->now, a signature-time-stamp's at
 * the earliest CAdES-C-time-stamp's genTime when there is one (that token
 * proves it existed then: its TSA certificate may expire after), else at
 * params->now. Then each token's own validation data, as gostx_cades_tsa_values checks
 * it (a failure: its status, v->ts_kind and v->ts_index the token), and,
 * with params->store, when the signer or the token carries values, its
 * TSA's path at the token's time (gostx_x509_verify_with, every
 * certificate but the anchor needing a status): a signature-time-stamp's
 * at the earliest CAdES-C-time-stamp's genTime (that one proves the token
 * existed then), else at params->now; a CAdES-C-time-stamp's at
 * params->now; either at the token's own genTime when the values are
 * stale at that time (past a CRL's nextUpdate) and the token older.
 * Revoked there (any failure but no data) is TSA_PATH; how each was
 * judged goes to info's sig_ts_tsa and esc_ts_tsa. The signature itself
 * is gostx_cms_signed_verify's, the signer's chain the caller's. info (may
 * be NULL) gets the attributes and the tokens' times. 0 with v->level;
 * GOSTX_EAUTH or GOSTX_EFORMAT with v->status, v->level the level below
 * the failure (the level reached, for a token's data or TSA). About 100
 * KiB of stack at most. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_verify(const gostx_cms_signed *sd, size_t signer,
                                                   const gostx_cms_verify_params *params,
                                                   gostx_cades_info *info,
                                                   gostx_cades_verdict *v);

/* 1 when signer si carries validation values (certificate-values or
 * revocation-values) beside a signature-time-stamp: an X Long form, whose
 * certificate's path is judged at its earliest signature-time-stamp's
 * genTime with those values (RFC 5126 6.3.2 note 2: its certificate may
 * have expired since), not at the verifier's time. Then the caller checks
 * the CMS signature without the chain (gostx_cms_signed_verify with no
 * store), and after gostx_cades_verify the path at that time
 * (gostx_x509_verify_with over gostx_cades_info's values), as gostx cms
 * -verify and gostx.cms.verify do. 0 otherwise, and for attributes
 * gostx_cades_parse refuses (gostx_cades_verify names them). */
GOSTX_API int gostx_cades_judged_at_timestamp(const gostx_cms_signer_info *si);

/* Revocation data the caller has beyond what the signature and its tokens
 * carry, parsed (each list up to GOSTX_CADES_MAX). */
typedef struct gostx_cades_revocation {
  const gostx_x509_crl *crls;
  size_t n_crls;
  const gostx_ocsp_response *ocsps;
  size_t n_ocsps;
} gostx_cades_revocation;

/* gostx_cades_verify with more (NULL: none) also used for the TSAs'
 * paths. GOSTX_EINVAL when a list of more is over GOSTX_CADES_MAX. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_verify_with(const gostx_cms_signed *sd, size_t signer,
                                                        const gostx_cms_verify_params *params,
                                                        const gostx_cades_revocation *more,
                                                        gostx_cades_info *info, gostx_cades_verdict *v);

/* ---- Enhancing a signature: one call, the caller doing the I/O ----
 *
 * gostx_cades_enhance takes a signer of a SignedData to the level asked,
 * the policy `gostx cms -enhance` and gostx.cms.enhance share: a
 * signature-time-stamp over the signature value (T); the signer's path
 * built to params->store at that timestamp's time and judged there with
 * the revocation data (every certificate but the anchor needing a status),
 * the certificates above the signer and the CRLs and OCSP responses for
 * the path as references (C) and values (X Long); each
 * signature-time-stamp's TSA's own data put in its token (RFC 5126 Annex
 * B.2: its path judged at params->now); a CAdES-C-time-stamp, its TSA's
 * data likewise (X Long Type 1). A layer already there is kept. Each
 * TSA reply is checked (gostx_tsa_verify at params->now) before it is
 * embedded; the result is judged once, by gostx_cades_verify, before it
 * is handed to put. No sockets, files or clocks: every byte from outside
 * comes through the callbacks, every time from params->now. */

/* A fetch callback's "not now" (a TSA query kept to be answered later):
 * the call stops there, the message so far judged and put. */
#define GOSTX_CADES_LATER 1

typedef struct gostx_cades_report gostx_cades_report;

/* The caller's side. A fetch answers 0 with its bytes in *out[*out_len]
 * (kept by the caller until the next call of the same callback or until
 * gostx_cades_enhance returns: they are copied), GOSTX_CADES_LATER (tsa
 * only), or anything else to stop the call (R_FETCH, rc its return). */
typedef struct gostx_cades_fetch {
  void *ctx;
  /* RFC 3161: the TimeStampReq for the timestamp of kind
   * (GOSTX_CADES_TS_SIGNATURE or _ESC) to a TimeStampResp or a token */
  int (*tsa)(void *ctx, int kind, const uint8_t *query, size_t query_len, const uint8_t **out,
             size_t *out_len);
  /* NULL: none asked. An OCSPRequest (RFC 6960, one SHA-1 CertID, a nonce)
   * about a path's first certificate to an OCSPResponse, checked at
   * params->now against the certificate's issuer and the nonce */
  int (*ocsp)(void *ctx, const uint8_t *request, size_t request_len, const uint8_t **out,
              size_t *out_len);
  /* NULL: none asked. The CRL of the certificates issued by issuer (its
   * whole Name); 0 with *out NULL: none. Asked once per issuer on a path
   * that the caller's crls have no CRL of. */
  int (*crl)(void *ctx, const uint8_t *issuer, size_t issuer_len, const uint8_t **out,
             size_t *out_len);
  /* NULL: none. What happened on the way (R_STAMPED, R_TSA_DATA,
   * R_NO_DATA, R_CHAIN forced): to say, or to warn of */
  void (*note)(void *ctx, const gostx_cades_report *r);
  /* the new message (R_OK, R_PENDING), once, before the call returns */
  int (*put)(void *ctx, const uint8_t *der, size_t der_len);
} gostx_cades_fetch;

typedef struct gostx_cades_enhance_opts {
  size_t signer;
  gostx_cades_level to;                 /* T, C, X_LONG or X_LONG_TYPE1 */
  /* the trust anchors (store NULL: no path judged, every CRL and
   * response carried, no TSA's data), more certificates, the time */
  const gostx_cms_verify_params *params;
  /* NULL, or what the caller has: certs the chain above the signer, its
   * issuer first (none: the path built; up to GOSTX_CADES_MAX); crls and
   * ocsps (OCSPResponses or BasicOCSPResponses; up to 256 each), those for
   * each path are carried (more than TOO_MANY allows: R_BUILD) */
  const gostx_cades_validation *have;
  int force; /* a path refused for revocation: the data added anyway (a
                note R_CHAIN) */
} gostx_cades_enhance_opts;

/* gostx_cades_report's what: how the call ended ... */
#define GOSTX_CADES_R_OK 0       /* the level asked reached, put */
#define GOSTX_CADES_R_PENDING 1  /* a tsa said LATER (ts_kind which): what there is put */
#define GOSTX_CADES_R_INPUT 2    /* the message: cms the SignedData's status, or v.status its
                                    attributes' (MALFORMED, DUPLICATE, TOO_MANY) */
#define GOSTX_CADES_R_FETCH 3    /* a callback failed: fetch which, rc what it returned */
#define GOSTX_CADES_R_STAMP 4    /* a TSA's reply (ts_kind) refused: v.ts (its parse status:
                                    MALFORMED, REFUSED with pki_status, ...; or the check's) */
#define GOSTX_CADES_R_OCSP 5     /* an OCSP response fetched refused: ocsp */
#define GOSTX_CADES_R_NO_CERT 6  /* no certificate for the signer (ts_kind 0) or the TSA of
                                    ts_kind/ts_index in the message, its token, params */
#define GOSTX_CADES_R_CHAIN 7    /* a path refused: the signer's (ts_kind 0) at the signature-
                                    time-stamp's time, a TSA's at params->now; revocation 0: no
                                    path to an anchor; v.x509, v.depth, v.at, v.why */
#define GOSTX_CADES_R_BUILD 8    /* a part refused by the call adding it: v.status (BAD_CRL,
                                    BAD_OCSP, BAD_CERT with v.index: which of have's, a
                                    fetched CRL counted after them; TOO_MANY, ...) */
#define GOSTX_CADES_R_JUDGED 9   /* the result refused by gostx_cades_verify: v */
#define GOSTX_CADES_R_LEVEL 10   /* verified, but below the level asked: level */
/* ... and the notes */
#define GOSTX_CADES_R_STAMPED 11 /* a timestamp (ts_kind) checked, added: gen_time, serial */
#define GOSTX_CADES_R_TSA_DATA 12 /* a TSA's data added to its token (ts_kind, ts_index) */
#define GOSTX_CADES_R_NO_DATA 13 /* no revocation data for the TSA's certificate at v.depth:
                                    its token carries none for it */

/* gostx_cades_report's fetch */
#define GOSTX_CADES_FETCH_TSA 1
#define GOSTX_CADES_FETCH_OCSP 2
#define GOSTX_CADES_FETCH_CRL 3
#define GOSTX_CADES_FETCH_PUT 4

struct gostx_cades_report {
  int what;                 /* GOSTX_CADES_R_* */
  gostx_cades_level level;  /* the level of what was put; else the message's as it came */
  int ts_kind;              /* the timestamp it is about (GOSTX_CADES_TS_*), 0 the signer */
  size_t ts_index;
  int revocation;           /* R_CHAIN: 1 the revocation data refused it */
  int fetch, rc;            /* R_FETCH */
  gostx_cms_status cms;     /* R_INPUT */
  int pki_status;           /* R_STAMP, v.ts.status REFUSED: the reply's PKIStatus */
  gostx_ocsp_status ocsp;   /* R_OCSP */
  int64_t gen_time;         /* R_STAMPED: the token's genTime and serial (INTEGER content) */
  uint8_t serial[20];
  size_t serial_len;
  gostx_cades_verdict v;
};

/* Signer o->signer of der[der_len] taken to o->to with f's callbacks:
 * 0 with r->what R_OK or R_PENDING, the message handed to f->put; or,
 * nothing put, GOSTX_EAUTH (R_STAMP, R_OCSP, R_NO_CERT, R_CHAIN,
 * R_JUDGED, R_LEVEL), GOSTX_EFORMAT (R_INPUT, R_BUILD), GOSTX_EIO
 * (R_FETCH), GOSTX_ENOMEM, GOSTX_EINVAL (misuse: no such signer, a level
 * not in the list, no tsa or put), r saying which and where. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cades_enhance(const uint8_t *der, size_t der_len,
                                                    const gostx_cades_enhance_opts *o,
                                                    const gostx_cades_fetch *f,
                                                    gostx_cades_report *r);

#ifdef __cplusplus
}
#endif

#endif
