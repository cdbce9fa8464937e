/* gostx: OCSP (RFC 6960) with GOST signatures: requests built and read,
 * BasicOCSPResponses signed and read, and a response checked for the
 * certificates asked. Part of the public API; what `gostx ocsp` (client
 * and responder) builds on (docs/OCSP.md).
 *
 * CertIDs hash the issuer's name and key with SHA-1 (what every client
 * and responder knows, openssl's default) or Streebog-256/-512; the nonce
 * is id-pkix-ocsp-nonce (RFC 8954: 1..32 bytes). Responses are signed
 * with GOST R 34.10-2012 (Streebog of the ResponseData) by the CA itself
 * or by a delegated responder it issued with id-kp-OCSPSigning.
 *
 * Nothing allocates: parsed structures are views into the caller's DER,
 * every output a buffer with its capacity (GOSTX_ELEN with *out_len the
 * length needed when it is short). */
#ifndef GOSTX_OCSP_H
#define GOSTX_OCSP_H

#include <stdint.h>

#include "common.h"
#include "gost3410.h"
#include "x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The hash of a CertID. OTHER: one gostx does not know (a responder
 * answers "unknown" for it; the CertID is echoed as it came). */
typedef enum gostx_ocsp_hash {
  GOSTX_OCSP_HASH_OTHER = 0,
  GOSTX_OCSP_SHA1 = 1,
  GOSTX_OCSP_STREEBOG256 = 2,
  GOSTX_OCSP_STREEBOG512 = 3
} gostx_ocsp_hash;

#define GOSTX_OCSP_SERIAL_MAX 32 /* RFC 5280 allows 20 octets; a little room */
typedef struct gostx_ocsp_certid {
  gostx_ocsp_hash hash;
  uint8_t name_hash[64], key_hash[64]; /* hash_len bytes each */
  size_t hash_len;
  uint8_t serial[GOSTX_OCSP_SERIAL_MAX]; /* the INTEGER's content bytes */
  size_t serial_len;
  /* when read from DER: the whole CertID element (a view), written back
   * as it is (so an OTHER hash is echoed); NULL when made here */
  const uint8_t *der;
  size_t der_len;
} gostx_ocsp_certid;

/* The CertID of the certificate with serial (INTEGER content bytes, e.g.
 * gostx_x509_cert.serial) issued by issuer: the hash of the issuer's
 * subject Name (DER) and of its subjectPublicKey's bits. */
GOSTX_API int gostx_ocsp_certid_make(const gostx_x509_cert *issuer, const uint8_t *serial,
                                     size_t serial_len, gostx_ocsp_hash hash,
                                     gostx_ocsp_certid *id);
/* 1 when a and b name the same certificate (hash, both hashes, serial). */
GOSTX_API int gostx_ocsp_certid_equal(const gostx_ocsp_certid *a, const gostx_ocsp_certid *b);

/* ---- requests ---- */
#define GOSTX_OCSP_MAX_IDS 64   /* CertIDs in one request (more: refused) */
#define GOSTX_OCSP_NONCE_MAX 32 /* RFC 8954 section 2.1 */
typedef struct gostx_ocsp_request {
  gostx_ocsp_certid id[GOSTX_OCSP_MAX_IDS];
  size_t n;
  uint8_t nonce[GOSTX_OCSP_NONCE_MAX];
  size_t nonce_len; /* 0: no nonce */
} gostx_ocsp_request;

/* An unsigned OCSPRequest of req's CertIDs (1..GOSTX_OCSP_MAX_IDS) and,
 * when nonce_len is not 0, its nonce extension. */
GOSTX_API int gostx_ocsp_request_write(const gostx_ocsp_request *req, uint8_t *out, size_t cap,
                                       size_t *out_len);
/* An OCSPRequest read (strict DER; a request signature and requestorName
 * are read over, not checked). 0; GOSTX_EFORMAT for what is no request
 * (or no CertID, or a nonce of 0 or more than 32 bytes); GOSTX_EUNSUP
 * more than GOSTX_OCSP_MAX_IDS CertIDs or an unknown critical extension. */
GOSTX_API GOSTX_MUST_CHECK int gostx_ocsp_request_parse(const uint8_t *der, size_t len,
                                                       gostx_ocsp_request *req);

/* ---- responses ---- */
typedef enum gostx_ocsp_cert_status {
  GOSTX_OCSP_GOOD = 0,
  GOSTX_OCSP_REVOKED = 1,
  GOSTX_OCSP_UNKNOWN = 2
} gostx_ocsp_cert_status;

/* One SingleResponse. reason: CRLReason (RFC 5280 5.3.1: 0 unspecified,
 * 1 keyCompromise, ...), -1 none; next_update 0: absent. */
typedef struct gostx_ocsp_single {
  gostx_ocsp_certid id;
  gostx_ocsp_cert_status status;
  int64_t revocation_time;
  int reason;
  int64_t this_update, next_update;
} gostx_ocsp_single;

/* OCSPResponseStatus (RFC 6960 4.2.1). */
#define GOSTX_OCSP_RESP_SUCCESSFUL 0
#define GOSTX_OCSP_RESP_MALFORMED_REQUEST 1
#define GOSTX_OCSP_RESP_INTERNAL_ERROR 2
#define GOSTX_OCSP_RESP_TRY_LATER 3
#define GOSTX_OCSP_RESP_SIG_REQUIRED 5
#define GOSTX_OCSP_RESP_UNAUTHORIZED 6

/* What a BasicOCSPResponse says. The responder's certificate (signer)
 * names it (byName: its subject; by_key: the SHA-1 of its key's bits, as
 * RFC 6960 4.2.1 has it) and is put in certs; extra_certs (whole DER
 * certificates) follow it. */
typedef struct gostx_ocsp_response_spec {
  const gostx_x509_cert *signer;
  int by_key;
  int64_t produced_at;
  const gostx_ocsp_single *single;
  size_t n_single;
  const uint8_t *nonce; /* echoed; NULL: none */
  size_t nonce_len;
  int no_certs; /* 1: no certs field (openssl's -resp_no_certs) */
} gostx_ocsp_response_spec;

/* An OCSPResponse, successful, with a BasicOCSPResponse of spec signed by
 * key (the signer's private key: GOSTX_EINVAL when it is not). Times as
 * GeneralizedTime. */
GOSTX_API int gostx_ocsp_response_write(const gostx_ocsp_response_spec *spec,
                                        const gostx_gost3410_key *key, uint8_t *out, size_t cap,
                                        size_t *out_len);
/* An OCSPResponse of an error status alone (GOSTX_OCSP_RESP_*, not 0). */
GOSTX_API int gostx_ocsp_response_error(int status, uint8_t *out, size_t cap, size_t *out_len);

/* A response read. Views into the caller's DER. */
typedef struct gostx_ocsp_response {
  int status; /* responseStatus; the rest is set only when 0 */
  const uint8_t *tbs; /* ResponseData, the whole element (what is signed) */
  size_t tbs_len;
  gostx_x509_sig_alg sig_alg; /* 0: an algorithm that is not GOST */
  const uint8_t *sig; /* s || r, as certificates write it */
  size_t sig_len;
  int by_key;
  const uint8_t *responder; /* byName: the Name (whole); byKey: the hash */
  size_t responder_len;
  int64_t produced_at;
  const uint8_t *responses; /* the SingleResponses (the SEQUENCE's content) */
  size_t responses_len, n_single;
  const uint8_t *nonce; /* NULL: no nonce extension */
  size_t nonce_len;
  const uint8_t *certs; /* the certs SEQUENCE's content; NULL: none */
  size_t certs_len;
} gostx_ocsp_response;

/* The response's structure read (strict DER; its signature is not checked
 * here): an OCSPResponse, or a bare BasicOCSPResponse (what CAdES
 * revocation-values carry; read as a successful response). 0,
 * GOSTX_EFORMAT (not an OCSPResponse, or a malformed or
 * unsupported BasicOCSPResponse: not version 1, an unknown critical
 * extension, a SingleResponse that does not read). A response whose
 * status is not successful reads (status set) with nothing else. */
GOSTX_API GOSTX_MUST_CHECK int gostx_ocsp_response_parse(const uint8_t *der, size_t len,
                                                        gostx_ocsp_response *r);
/* The SingleResponses one by one from *pos = 0: 1, 0 when none is left. */
GOSTX_API int gostx_ocsp_single_next(const gostx_ocsp_response *r, size_t *pos,
                                     gostx_ocsp_single *s);
/* The certificates in the response one by one from *pos = 0: 1 and the
 * DER of the next (a view), 0 when none is left. */
GOSTX_API int gostx_ocsp_cert_next(const gostx_ocsp_response *r, size_t *pos,
                                   const uint8_t **der, size_t *len);

/* ---- checking a response ---- */
typedef enum gostx_ocsp_status {
  GOSTX_OCSP_OK = 0,
  GOSTX_OCSP_MALFORMED,         /* no OCSPResponse, or a malformed BasicOCSPResponse */
  GOSTX_OCSP_NOT_SUCCESSFUL,    /* responseStatus is not successful (malformedRequest, ...) */
  GOSTX_OCSP_UNSIGNED,          /* the signature is empty (or all zero) */
  GOSTX_OCSP_UNSUPPORTED,       /* a signature algorithm that is not GOST R 34.10-2012 */
  GOSTX_OCSP_UNKNOWN_RESPONDER, /* no certificate (the CA, the response's, -VAfile's) is the responderID */
  GOSTX_OCSP_BAD_SIGNATURE,     /* the signature does not verify under the responder's key */
  GOSTX_OCSP_NOT_AUTHORIZED,    /* a delegated responder without id-kp-OCSPSigning */
  GOSTX_OCSP_RESPONDER_NOT_ISSUED, /* a delegated responder the CA did not issue (name or signature) */
  GOSTX_OCSP_RESPONDER_EXPIRED, /* the delegated responder's certificate is outside its validity */
  GOSTX_OCSP_CERT_MISSING,      /* no SingleResponse for a certificate asked (one for another) */
  GOSTX_OCSP_NONCE_MISSING,     /* a nonce was sent, the response has none */
  GOSTX_OCSP_NONCE_MISMATCH,    /* the response's nonce is not the one sent */
  GOSTX_OCSP_NOT_YET_VALID,     /* thisUpdate (or producedAt) is in the future */
  GOSTX_OCSP_STALE              /* nextUpdate has passed (or thisUpdate older than max_age) */
} gostx_ocsp_status;

/* The status as text that starts with the check's name. */
GOSTX_API const char *gostx_ocsp_status_name(gostx_ocsp_status st);

/* How much the clocks of client and responder may differ: openssl's
 * -validity_period default, 5 minutes. */
#define GOSTX_OCSP_SKEW_DEFAULT 300

typedef struct gostx_ocsp_check_opts {
  int64_t now;  /* seconds since 1970 (UTC) */
  int64_t skew; /* seconds allowed either side of thisUpdate/nextUpdate */
  int64_t max_age; /* openssl's -status_age: thisUpdate at most this old; -1: not checked */
  const gostx_x509_cert *issuer; /* the CA of the certificates asked (trusted as such) */
  const gostx_x509_cert *trusted; /* -VAfile: responders trusted as they are */
  size_t n_trusted;
  const uint8_t *nonce; /* the nonce sent; NULL: none (not checked) */
  size_t nonce_len;
  gostx_x509_sig_memo *memo; /* x509.h's memo of valid signatures; NULL: none */
} gostx_ocsp_check_opts;
/* opts with now, the default skew, no max_age, nothing else. */
GOSTX_API void gostx_ocsp_check_opts_init(gostx_ocsp_check_opts *opts, int64_t now);

/* What the check found about the signer. */
typedef struct gostx_ocsp_signer_info {
  int delegated;  /* 1: a responder certificate, 0: the CA itself or a trusted one */
  int nocheck;    /* its certificate has id-pkix-ocsp-nocheck (RFC 6960 4.2.2.2.1) */
  gostx_x509_cert cert; /* the signer (views into the response or the caller's) */
} gostx_ocsp_signer_info;

/* Checks r for the certificates ids[0..n): the signature by the CA (o's
 * issuer), by a responder of o's trusted, or by a delegated responder of
 * the response's certificates (issued by the CA, id-kp-OCSPSigning, valid
 * at now); the nonce (when o has one); for each id a SingleResponse
 * (into out[i], when out is not NULL) within thisUpdate - skew <= now <=
 * nextUpdate + skew. GOSTX_OCSP_OK or the first check failed; *which
 * (when not NULL) the index of the id that failed it. signer may be
 * NULL. */
GOSTX_API GOSTX_MUST_CHECK gostx_ocsp_status gostx_ocsp_check(
    const gostx_ocsp_response *r, const gostx_ocsp_check_opts *o, const gostx_ocsp_certid *ids,
    size_t n, gostx_ocsp_single *out, size_t *which, gostx_ocsp_signer_info *signer);

/* CRLReason's name as openssl prints it ("keyCompromise"), "unknown" past them. */
GOSTX_API const char *gostx_ocsp_reason_name(int reason);

#ifdef __cplusplus
}
#endif

#endif
