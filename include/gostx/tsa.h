/* gostx: the RFC 3161 time-stamp protocol over any data, both sides, with
 * GOST algorithms: Streebog-256/512 imprints, tokens signed with GOST R
 * 34.10-2012 carrying signingCertificateV2 (RFC 5816's ESSCertIDv2 with
 * the Streebog hash of the TSA's certificate). Part of the public API;
 * docs/TSA.md. The one RFC 3161 API of libgostx: a signature's timestamp
 * (CAdES-T) is the same query, reply and check over the signature value,
 * the token then added with gostx_cades_add_timestamp (gostx/cades.h).
 *
 * The client: a TimeStampReq for a digest (gostx_tsa_query_write), the
 * reply or token read (gostx_cms_ts_parse) and checked against the data's
 * digests, the query's nonce and policy (gostx_tsa_verify). The TSA: a
 * TimeStampReq read (gostx_tsa_query_parse) and judged (gostx_tsa_check),
 * then granted (gostx_tsa_reply: a TSTInfo signed as CMS SignedData) or
 * refused (gostx_tsa_refusal: PKIStatus rejection with a PKIFailureInfo).
 * The token's types and reader keep their 0.x names (gostx_cms_ts_*).
 *
 * Nothing here allocates; a parsed query or token is views into the
 * caller's DER. */
#ifndef GOSTX_TSA_H
#define GOSTX_TSA_H

#include "cms.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the reply and its token: statuses, fields, the reader ---- */

typedef enum gostx_cms_ts_status {
  GOSTX_CMS_TS_OK = 0,
  GOSTX_CMS_TS_MALFORMED,        /* not a DER TimeStampResp or TimeStampToken */
  GOSTX_CMS_TS_REFUSED,          /* the TSA's PKIStatus is neither granted nor grantedWithMods */
  GOSTX_CMS_TS_NOT_TSTINFO,      /* the token's content is no TSTInfo, or it has not one signer */
  GOSTX_CMS_TS_UNKNOWN_ALGORITHM, /* the imprint's hash is no Streebog (OID in the verdict) */
  GOSTX_CMS_TS_IMPRINT_MISMATCH, /* the token is for another signature (another request) */
  GOSTX_CMS_TS_TOKEN,            /* the token's SignedData failed: cms verdict in the verdict */
  GOSTX_CMS_TS_NOT_TSA,          /* the signer's certificate lacks a critical EKU timeStamping alone */
  /* the checks against a query (gostx_tsa_expect's nonce and policy) */
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

/* A TimeStampResp (section 2.4.2) or a bare TimeStampToken (what
 * openssl ts -reply -token_out writes) into *t. 0; GOSTX_EFORMAT with *st
 * (MALFORMED, REFUSED with t->pki_status set, NOT_TSTINFO). Strict DER. */
GOSTX_API GOSTX_MUST_CHECK int gostx_cms_ts_parse(const uint8_t *der, size_t der_len,
                                                   gostx_cms_ts_token *t, gostx_cms_ts_status *st);

/* PKIFailureInfo's bits (RFC 3161 section 2.4.2), as a mask. */
#define GOSTX_TSA_FAIL_BAD_ALG (1u << 0)              /* the imprint's hash is not accepted */
#define GOSTX_TSA_FAIL_BAD_REQUEST (1u << 2)          /* a version or field not allowed */
#define GOSTX_TSA_FAIL_BAD_DATA_FORMAT (1u << 5)      /* not a DER TimeStampReq */
#define GOSTX_TSA_FAIL_TIME_NOT_AVAILABLE (1u << 14)  /* the TSA has no time source */
#define GOSTX_TSA_FAIL_UNACCEPTED_POLICY (1u << 15)   /* reqPolicy is not one of the TSA's */
#define GOSTX_TSA_FAIL_UNACCEPTED_EXTENSION (1u << 16) /* the request has extensions */
#define GOSTX_TSA_FAIL_SYSTEM_FAILURE (1u << 25)      /* the TSA failed (its key, its serial) */

/* The lowest bit of fail as text ("badAlg: ..."); "" for 0. */
GOSTX_API const char *gostx_tsa_fail_name(uint32_t fail);

/* ---- the client's request ---- */
typedef struct gostx_tsa_query_params {
  size_t digest_len;        /* 32 (Streebog-256) or 64 (Streebog-512) */
  const uint8_t *digest;    /* the data's hash */
  const char *policy;       /* reqPolicy as dotted text, or NULL */
  const uint8_t *nonce;     /* a positive integer, big-endian, 1..32 bytes; NULL: none */
  size_t nonce_len;
  int cert_req;             /* 1: the TSA's certificate in the token (certReq TRUE) */
} gostx_tsa_query_params;

/* A DER TimeStampReq (RFC 3161 section 2.4.1, version 1) into out[cap];
 * out NULL: *out_len only. GOSTX_ELEN when cap is short; GOSTX_EINVAL for
 * another digest size, a policy that is no OID, a nonce of 0 or > 32 bytes. */
GOSTX_API GOSTX_MUST_CHECK int gostx_tsa_query_write(const gostx_tsa_query_params *p, uint8_t *out,
                                                      size_t cap, size_t *out_len);

/* ---- the TSA's side ---- */
typedef struct gostx_tsa_query {
  const uint8_t *der;              /* the whole TimeStampReq */
  size_t der_len;
  const uint8_t *message_imprint;  /* the whole MessageImprint element (the token echoes it) */
  size_t message_imprint_len;
  const uint8_t *hash_oid;         /* the imprint's hash algorithm (OID content) */
  size_t hash_oid_len;
  size_t digest_len;               /* 32, 64: Streebog-256, -512 */
  const uint8_t *imprint;          /* hashedMessage */
  size_t imprint_len;
  const uint8_t *policy;           /* reqPolicy's OID content, or NULL */
  size_t policy_len;
  const uint8_t *nonce;            /* the nonce INTEGER's content, or NULL */
  size_t nonce_len;
  int cert_req;
} gostx_tsa_query;

/* Reads a DER TimeStampReq. 0; GOSTX_EFORMAT with *fail (when not NULL)
 * the bit a TSA refuses it with: BAD_DATA_FORMAT (not DER, truncated,
 * trailing bytes, a hash of the wrong length), BAD_REQUEST (version not 1,
 * a negative nonce or one over 32 bytes), BAD_ALG (a hash that is no
 * Streebog), UNACCEPTED_EXTENSION (extensions: none are known). */
GOSTX_API GOSTX_MUST_CHECK int gostx_tsa_query_parse(const uint8_t *der, size_t der_len,
                                                      gostx_tsa_query *q, uint32_t *fail);

typedef struct gostx_tsa_params {
  const gostx_x509_cert *cert;     /* the TSA's certificate (critical EKU timeStamping) */
  const gostx_gost3410_key *key;   /* its private key; its size picks the token's digest */
  const gostx_x509_cert *chain;    /* more certificates put in the token on certReq */
  size_t n_chain;
  const char *policy;              /* the TSA's policy (dotted), used when none is asked */
  const char *const *policies;     /* more policies a request may ask for */
  size_t n_policies;
  uint32_t accuracy_secs, accuracy_millis, accuracy_micros; /* all 0: no accuracy */
  int tsa_name;                    /* 1: the tsa field, the certificate's subject */
  unsigned digests;                /* imprints accepted: GOSTX_CMS_HASH_*; 0: both */
} gostx_tsa_params;

/* The parsed query judged by the TSA p: 0 (grant), or the failure bit
 * (BAD_ALG: a hash p does not accept; UNACCEPTED_POLICY: reqPolicy is not
 * p's policy nor one of policies). */
GOSTX_API uint32_t gostx_tsa_check(const gostx_tsa_params *p, const gostx_tsa_query *q);

/* A granted TimeStampResp for q (checked) into out[cap]: a TSTInfo
 * (version 1, the policy asked or p's, q's imprint, serial[serial_len]
 * (big-endian, positive, 1..20 bytes), genTime gen_time + millis/1000
 * (millis < 1000) as GeneralizedTime with milliseconds, p's accuracy,
 * ordering false, q's nonce, the tsa name when p asks) signed by p's key
 * as SignedData version 3 of id-ct-TSTInfo with the signed attributes
 * contentType, messageDigest and signingCertificateV2; the certificates
 * when q asks. out NULL: *out_len only (nothing signed). GOSTX_ELEN;
 * GOSTX_EINVAL for a key not the certificate's, a bad serial or policy. */
GOSTX_API GOSTX_MUST_CHECK int gostx_tsa_reply(const gostx_tsa_params *p, const gostx_tsa_query *q,
                                                const uint8_t *serial, size_t serial_len,
                                                int64_t gen_time, uint32_t millis, uint8_t *out,
                                                size_t cap, size_t *out_len);

/* A refused TimeStampResp: PKIStatus rejection (2), statusString text
 * (UTF8String; NULL for none) and failInfo fail (a nonzero mask). */
GOSTX_API GOSTX_MUST_CHECK int gostx_tsa_refusal(uint32_t fail, const char *text, uint8_t *out,
                                                  size_t cap, size_t *out_len);

/* ---- the client's check of a reply ---- */
typedef struct gostx_tsa_expect {
  const gostx_cms_hash *hash;      /* the data's digests (finished), or NULL */
  const uint8_t *digest;           /* or the imprint itself (32 or 64 bytes) */
  size_t digest_len;
  const uint8_t *nonce;            /* the query's nonce (INTEGER content); NULL: none asked */
  size_t nonce_len;
  const uint8_t *policy;           /* the query's reqPolicy (OID content); NULL: any */
  size_t policy_len;
} gostx_tsa_expect;

/* The token t (gostx_cms_ts_parse) checked as a timestamp of what e
 * names: the imprint (the Streebog hash of the data, of the size the
 * token names), the nonce and the policy asked; then the token itself:
 * its SignedData (one signer, signed attributes, keyUsage, the chain to
 * params' store at params->now), signingCertificateV2 present and naming
 * the signer's certificate, the TSA's critical extendedKeyUsage with
 * timeStamping its only purpose (RFC 3161 section 2.3). A signature's
 * timestamp: e->hash the digests of the signature value. 0; GOSTX_EAUTH
 * with *v naming the first failure; GOSTX_EINVAL when e names no data. */
GOSTX_API GOSTX_MUST_CHECK int gostx_tsa_verify(const gostx_cms_ts_token *t, const gostx_tsa_expect *e,
                                                 const gostx_cms_verify_params *params,
                                                 gostx_cms_ts_verdict *v);

#ifdef __cplusplus
}
#endif

#endif
