/* gostx: CAdES-T, RFC 3161 signature timestamps in CMS SignedData (the
 * unsigned attribute id-aa-signatureTimeStampToken, RFC 3161 appendix A).
 * Part of the public API; docs/CMS.md.
 *
 * The steps, as a TSA client does them without a network: the request
 * for one signer's signature value (gostx_cms_ts_request, a DER
 * TimeStampReq to hand to the TSA), the TSA's reply read
 * (gostx_cms_ts_parse) and checked against that signature value
 * (gostx_cms_ts_verify: the imprint, the token's own signature through
 * gostx_cms_signed_verify, the TSA certificate's extendedKeyUsage and
 * its chain), then the token embedded (gostx_cms_ts_embed). A
 * verification of the signature later finds the tokens again
 * (gostx_cms_ts_tokens) and checks each the same way.
 *
 * Nothing here allocates; a parsed token is views into the caller's DER. */
#ifndef GOSTX_CMS_TS_H
#define GOSTX_CMS_TS_H

#include "cms.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_cms_ts_status {
  GOSTX_CMS_TS_OK = 0,
  GOSTX_CMS_TS_MALFORMED,        /* not a DER TimeStampResp or TimeStampToken */
  GOSTX_CMS_TS_REFUSED,          /* the TSA's PKIStatus is neither granted nor grantedWithMods */
  GOSTX_CMS_TS_NOT_TSTINFO,      /* the token's content is no TSTInfo, or it has not one signer */
  GOSTX_CMS_TS_UNKNOWN_ALGORITHM, /* the imprint's hash is no Streebog (OID in the verdict) */
  GOSTX_CMS_TS_IMPRINT_MISMATCH, /* the token is for another signature (another request) */
  GOSTX_CMS_TS_TOKEN,            /* the token's SignedData failed: cms verdict in the verdict */
  GOSTX_CMS_TS_NOT_TSA,          /* the signer's certificate lacks a critical EKU timeStamping alone */
  /* gostx/tsa.h's checks against a query */
  GOSTX_CMS_TS_NONCE_MISMATCH,   /* the token's nonce is not the query's (or is missing) */
  GOSTX_CMS_TS_POLICY_MISMATCH,  /* the token's policy is not the one the query asked */
  GOSTX_CMS_TS_NO_SIGNING_CERT   /* the token's signer has no signingCertificateV2 (RFC 5816) */
} gostx_cms_ts_status;

GOSTX_API const char *gostx_cms_ts_status_name(gostx_cms_ts_status st);

/* A TSA's reply, parsed. */
typedef struct gostx_cms_ts_token {
  int pki_status;                  /* the reply's PKIStatus; 0 for a bare token */
  const uint8_t *token;            /* the TimeStampToken (a ContentInfo) */
  size_t token_len;
  gostx_cms_signed sd;             /* the token parsed (its content: the TSTInfo) */
  const uint8_t *policy;           /* TSTInfo fields: the policy OID's content, */
  size_t policy_len;
  const uint8_t *imprint_oid, *imprint; /* the imprint's hash OID content and value, */
  size_t imprint_oid_len, imprint_len;
  const uint8_t *serial;           /* the serial number INTEGER's content, */
  size_t serial_len;
  int64_t gen_time;                /* genTime, seconds since 1970 (fractions dropped) */
  uint32_t gen_millis;             /* genTime's fraction, in milliseconds (cut, not rounded) */
  int has_accuracy;                /* accuracy present: its seconds, millis, micros */
  uint32_t accuracy_secs, accuracy_millis, accuracy_micros;
  int ordering;
  const uint8_t *nonce;            /* the nonce INTEGER's content, or NULL */
  size_t nonce_len;
  const uint8_t *tsa;              /* tsa [0]'s GeneralName element, or NULL */
  size_t tsa_len;
} gostx_cms_ts_token;

typedef struct gostx_cms_ts_verdict {
  gostx_cms_ts_status status;
  gostx_cms_verdict cms;           /* status TOKEN: what the token's SignedData said */
  char oid[64];                    /* status UNKNOWN_ALGORITHM: the OID's dotted text */
} gostx_cms_ts_verdict;

/* A DER TimeStampReq (RFC 3161 section 2.4.1) for a signature value:
 * version 1, messageImprint Streebog-256 or -512 (digest_len 32 or 64) of
 * sig[sig_len], certReq TRUE (the token must carry the TSA's certificate
 * to be checked); no nonce and no policy. out NULL: *out_len only.
 * GOSTX_ELEN when cap is short. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_request(const uint8_t *sig, size_t sig_len,
                                                     size_t digest_len, uint8_t *out, size_t cap,
                                                     size_t *out_len);

/* A TimeStampResp (section 2.4.2) or a bare TimeStampToken (what
 * openssl ts -reply -token_out writes) into *t. 0; GOSTX_EFORMAT with *st
 * (MALFORMED, REFUSED with t->pki_status set, NOT_TSTINFO). Strict DER. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_parse(const uint8_t *der, size_t der_len,
                                                   gostx_cms_ts_token *t, gostx_cms_ts_status *st);

/* The token checked as a timestamp of sig[sig_len]: the imprint is the
 * Streebog hash of it; the token's SignedData verifies (its one signer,
 * signed attributes, signingCertificateV2, keyUsage, chain to params'
 * store at params->now); the signer's certificate has the critical
 * extendedKeyUsage with timeStamping as its only purpose (RFC 3161
 * section 2.3). 0; GOSTX_EAUTH with *v naming the first failure. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_verify(const gostx_cms_ts_token *t, const uint8_t *sig,
                                                    size_t sig_len,
                                                    const gostx_cms_verify_params *params,
                                                    gostx_cms_ts_verdict *v);

/* The SignedData sd (parsed, its der still there) again with token added
 * to signer's unsigned attributes as id-aa-signatureTimeStampToken; the
 * rest is copied as it was. out NULL: *out_len only. GOSTX_ELEN, or
 * GOSTX_EINVAL (no such signer). */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_embed(const gostx_cms_signed *sd, size_t signer,
                                                   const uint8_t *token, size_t token_len,
                                                   uint8_t *out, size_t cap, size_t *out_len);

/* The signatureTimeStampTokens of a signer's unsigned attributes: up to
 * cap of them into tokens[]/lens[], *n how many there are (also beyond
 * cap). GOSTX_EFORMAT when the unsigned attributes are malformed. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_tokens(const gostx_cms_signer_info *si,
                                                    const uint8_t **tokens, size_t *lens,
                                                    size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif
