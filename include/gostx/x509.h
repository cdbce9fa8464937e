/* gostx: X.509 certificates with GOST R 34.10 keys and signatures (RFC 5280,
 * RFC 9215 for the GOST algorithms). Part of the public API.
 *
 * What the TLS handshake and `gostx x509 verify` build on (docs/X509.md).
 * Certificates are DER; the PEM readers take one or more
 * "-----BEGIN CERTIFICATE-----" blocks. Nothing here allocates except the
 * trust store. Verification never trusts a certificate the peer sent: only
 * the store's anchors end a chain.
 *
 * Verdicts: every refusal is one gostx_x509_status naming the check that
 * failed, and gostx_x509_status_name() its text; the TLS layer maps each
 * one to an RFC 8446 alert. */
#ifndef GOSTX_X509_H
#define GOSTX_X509_H

#include <stdint.h>
#include <time.h>

#include "common.h"
#include "gost3410.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gostx_x509_status {
  GOSTX_X509_OK = 0,
  GOSTX_X509_MALFORMED,         /* not DER, or not a certificate's structure */
  GOSTX_X509_UNSUPPORTED,       /* a key or signature algorithm that is not GOST */
  GOSTX_X509_BAD_SIGNATURE,     /* a signature in the chain does not verify */
  GOSTX_X509_NOT_YET_VALID,     /* notBefore is after the time checked */
  GOSTX_X509_EXPIRED,           /* notAfter is before the time checked */
  GOSTX_X509_UNKNOWN_CA,        /* the chain does not end at a trust anchor */
  GOSTX_X509_NOT_CA,            /* an issuer without basicConstraints cA = TRUE */
  GOSTX_X509_PATH_LEN,          /* more CAs below an issuer than its pathLenConstraint */
  GOSTX_X509_KEY_USAGE,         /* keyUsage forbids the use (signing, certSign) */
  GOSTX_X509_EXT_KEY_USAGE,     /* extendedKeyUsage lacks the purpose (serverAuth, clientAuth, ipsecIKE) */
  GOSTX_X509_NAME_MISMATCH,     /* hostname or IP not in subjectAltName */
  GOSTX_X509_CRITICAL_EXT,      /* an unknown extension marked critical */
  GOSTX_X509_BAD_KEY,           /* the subject key is not a valid point */
  GOSTX_X509_NAME_CONSTRAINTS,  /* a name outside a CA's permitted or inside its excluded subtrees */
  GOSTX_X509_POLICY,            /* no valid policy where one is required, or a bad mapping */
  GOSTX_X509_PATH_TOO_LONG,     /* no path within GOSTX_X509_MAX_DEPTH certificates */
  GOSTX_X509_BAD_EXTENSION,     /* DER, but an extension's value RFC 5280 4.2 does not allow */
  GOSTX_X509_BAD_VERSION,       /* a field the certificate's version does not have */
  GOSTX_X509_SIG_ALG_MISMATCH,  /* tbsCertificate.signature is not the outer signatureAlgorithm */
  GOSTX_X509_PROFILE,           /* a MUST of RFC 5280's profile broken (docs/X509.md lists them) */
  GOSTX_X509_EMAIL_MISMATCH,    /* the expected email address not in rfc822Name (nor emailAddress) */
  /* revocation (x509_crl.h) */
  GOSTX_X509_REVOKED,           /* a CRL in force lists the certificate, or an OCSP response
                                   says revoked (at or before the time checked) */
  GOSTX_X509_CRL_UNAVAILABLE,   /* no CRL of the certificate's issuer (no revocation data) */
  GOSTX_X509_CRL_SCOPE,         /* the issuer's CRLs do not cover the certificate: status unknown */
  GOSTX_X509_CRL_EXPIRED,       /* the CRL's nextUpdate is before the time checked (stale data) */
  GOSTX_X509_CRL_BAD_SIGNATURE, /* the CRL's signature does not verify under the issuer's key */
  GOSTX_X509_CRL_WRONG_ISSUER,  /* the CRL names another issuer or another key of it */
  GOSTX_X509_CRL_CRITICAL_EXT,  /* the CRL or an entry has an unknown critical extension */
  GOSTX_X509_CRL_MALFORMED,     /* not DER, or not a CRL's structure */
  GOSTX_X509_CRL_DELTA,         /* a delta CRL: not supported */
  GOSTX_X509_CRL_INDIRECT,      /* an indirect CRL: not supported */
  /* revocation from OCSP responses (ocsp.h; gostx_x509_verify_opts.ocsps) */
  GOSTX_X509_OCSP_UNKNOWN,      /* the responder answered "unknown" for the certificate */
  GOSTX_X509_OCSP_INVALID,      /* the response for the certificate fails its checks (signer,
                                   signature, responder's EKU or validity) */
  GOSTX_X509_OCSP_STALE,        /* the response's nextUpdate is before the time checked */
  GOSTX_X509_NO_REVOCATION_DATA, /* neither a CRL nor an OCSP response for the certificate */
  /* CRLs again (added after the OCSP ones; the values above keep theirs) */
  GOSTX_X509_CRL_NO_NUMBER,      /* the CRL has no cRLNumber (RFC 5280 5.2.3: a MUST) */
  GOSTX_X509_CRL_NUMBER_CRITICAL /* the CRL's cRLNumber is marked critical (5.2.3: non-critical) */
} gostx_x509_status;

/* The status as text that starts with the check's name, "validity:
 * certificate has expired", "keyUsage: ...", "subjectAltName: ...". */
GOSTX_API const char *gostx_x509_status_name(gostx_x509_status st);

/* The signature algorithms (gostx_x509_cert.sig_alg) and the subject key's
 * algorithm (key_alg). The values are those the fields held as plain ints
 * before (callers built against them keep working): 0 is neither. */
typedef enum gostx_x509_sig_alg {
  GOSTX_X509_SIG_2012_256 = 1, /* id-tc26-signwithdigest-gost3410-12-256, Streebog-256 */
  GOSTX_X509_SIG_2012_512 = 2, /* id-tc26-signwithdigest-gost3410-12-512, Streebog-512 */
  GOSTX_X509_SIG_2001 = 3      /* id-GostR3411-94-with-GostR3410-2001 (RFC 4491) */
} gostx_x509_sig_alg;
typedef enum gostx_x509_key_alg {
  GOSTX_X509_KEY_2012_256 = 1, /* id-tc26-gost3410-12-256 */
  GOSTX_X509_KEY_2012_512 = 2, /* id-tc26-gost3410-12-512 */
  GOSTX_X509_KEY_2001 = 3      /* id-GostR3410-2001 (a 256-bit curve) */
} gostx_x509_key_alg;

/* One parsed certificate: views into the caller's DER (which must outlive
 * it) and the fields verification needs. tbs, issuer, subject and spki are
 * whole DER elements (tag and length included: names compare as bytes);
 * sig_value is the signature's s || r (RFC 4491/9215: each half big-endian;
 * 64 or 128 bytes); serial the INTEGER's content. */
typedef struct gostx_x509_cert {
  const uint8_t *der;
  size_t der_len;
  const uint8_t *tbs, *issuer, *subject, *sig_value;
  size_t tbs_len, issuer_len, subject_len, sig_value_len;
  const uint8_t *serial, *spki;
  size_t serial_len, spki_len;
  int version;      /* 1, 2 or 3 */
  gostx_x509_key_alg key_alg;
  int unknown_critical; /* an extension marked critical that is not one of ours */
  const uint8_t *san; /* subjectAltName's GeneralNames, NULL if absent */
  size_t san_len;
  int64_t not_before, not_after; /* seconds since 1970 (UTC) */
  gostx_gost3410_curve curve;    /* the subject key's curve */
  uint8_t pub[128];              /* x || y big-endian, 2 * gostx_gost3410_size(curve) */
  size_t pub_len;
  gostx_x509_sig_alg sig_alg;
  int is_ca;        /* basicConstraints cA */
  int path_len;     /* pathLenConstraint, -1 when absent */
  unsigned key_usage; /* the KeyUsage bits as RFC 5280 numbers them (bit 0 = digitalSignature), ~0u when absent */
  unsigned ext_key_usage; /* GOSTX_X509_EKU_* bits, ~0u when absent */
  /* The path-processing extensions (RFC 5280 4.2.1.4, .5, .10, .11, .14),
   * checked when parsed: each the content of its outer SEQUENCE, NULL
   * when absent; the SkipCerts values -1 when absent. */
  const uint8_t *name_constraints, *policies, *policy_mappings;
  size_t name_constraints_len, policies_len, policy_mappings_len;
  int require_explicit_policy, inhibit_policy_mapping, inhibit_any_policy;
} gostx_x509_cert;

#define GOSTX_X509_EKU_SERVER 1u
#define GOSTX_X509_EKU_CLIENT 2u
#define GOSTX_X509_EKU_ANY 4u
#define GOSTX_X509_EKU_IPSEC_IKE 8u /* id-kp-ipsecIKE, RFC 4945 5.1.3.12 */
#define GOSTX_X509_EKU_EMAIL 16u     /* id-kp-emailProtection */
#define GOSTX_X509_EKU_CODE 32u      /* id-kp-codeSigning */
#define GOSTX_X509_EKU_TIMESTAMP 64u /* id-kp-timeStamping */
#define GOSTX_X509_EKU_OTHER 128u    /* any purpose not named above */
#define GOSTX_X509_EKU_CRITICAL 256u /* the extension is marked critical */

/* Parses one DER certificate. GOSTX_EFORMAT (with *st, when st is not NULL,
 * MALFORMED, UNSUPPORTED, BAD_KEY, BAD_EXTENSION, BAD_VERSION or
 * SIG_ALG_MISMATCH) when it cannot be used. */
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_parse(const uint8_t *der, size_t der_len,
                                                 gostx_x509_cert *out, gostx_x509_status *st);

/* The next "CERTIFICATE" block of PEM text at or after *pos (text and
 * other blocks before it skipped): its DER into der[cap] (*der_len), *pos
 * moved past it; 1. 0 when no such block is left; GOSTX_EFORMAT for a
 * malformed block, GOSTX_ELEN for one whose DER is longer than cap. */
/* The largest certificate (DER) the trust store and the gostx command
 * read from PEM. */
#define GOSTX_X509_CERT_MAX 65536
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_pem_next(const char *pem, size_t pem_len, size_t *pos,
                                                    uint8_t *der, size_t cap, size_t *der_len);

/* A Name (the issuer or subject element) as one line of text, the RDNs
 * in their order, "CN=x, O=y" (short names for the common attributes, the
 * dotted OID for others; UTF8String as it is, BMPString and
 * UniversalString converted to UTF-8; control characters, backslash and
 * what is no character (a surrogate, a partial one) as \xHH), NUL-terminated
 * into text[cap] and cut short when longer. GOSTX_EFORMAT when name is no
 * Name. */
GOSTX_API int gostx_x509_name_text(const uint8_t *name, size_t name_len, char *text, size_t cap);

/* The entries of cert's subjectAltName one by one, from *pos = 0: the
 * GeneralName's tag number in *type (2 dNSName, 7 iPAddress, 1 rfc822Name,
 * 6 URI, ...) and its content in value[len] (for a constructed one, its
 * DER content); 1, and *pos moved on. 0 when none is left (or there is no
 * subjectAltName). */
#define GOSTX_X509_SAN_DNS 2
#define GOSTX_X509_SAN_IP 7
GOSTX_API int gostx_x509_san_next(const gostx_x509_cert *cert, size_t *pos, int *type,
                                  const uint8_t **value, size_t *len);

/* The trust anchors. */
typedef struct gostx_x509_store gostx_x509_store;
GOSTX_API gostx_x509_store *gostx_x509_store_new(void);
GOSTX_API void gostx_x509_store_free(gostx_x509_store *store);
/* Adds one DER certificate, or every certificate of a file (its PEM
 * "CERTIFICATE" blocks, or the file as one DER certificate), or of each
 * file in a directory (path a file or a directory; in a directory, files
 * that hold no certificate are passed over). A certificate already there
 * is not added again. Certificates of other algorithms (an RSA or ECDSA
 * root in a system bundle) are passed over; a path that gives no GOST
 * certificate at all is GOSTX_EFORMAT. GOSTX_EFORMAT names the first file
 * and block that did not parse in err (cap bytes) when not NULL; GOSTX_EIO
 * a file that cannot be read; GOSTX_ENOMEM. add_der: 0 or GOSTX_EFORMAT
 * (any certificate gostx_x509_parse refuses), GOSTX_ENOMEM. */
GOSTX_API int gostx_x509_store_add_der(gostx_x509_store *store, const uint8_t *der, size_t len);
GOSTX_API int gostx_x509_store_add_path(gostx_x509_store *store, const char *path, char *err,
                                        size_t err_cap);

/* What the leaf is verified for. */
typedef enum gostx_x509_purpose {
  GOSTX_X509_PURPOSE_ANY = 0,
  GOSTX_X509_PURPOSE_SERVER, /* TLS server: EKU serverAuth when EKU present */
  GOSTX_X509_PURPOSE_CLIENT, /* TLS client: EKU clientAuth when EKU present */
  /* TLS 1.2 server of RFC 9189's suites, whose key exchanges the
   * preliminary secret and never signs: EKU serverAuth when present, and
   * a keyUsage (when present) with keyEncipherment or keyAgreement (or
   * digitalSignature, as openssl's SSL server purpose takes) */
  GOSTX_X509_PURPOSE_SERVER_TLS12,
  /* openssl's X509 purposes of the same names (openssl-verification-options
   * "Certificate Extensions"); the EKU, when the leaf or a CA has one, must
   * name the purpose for the first three (anchors exempt, as above) */
  /* smimesign: EKU emailProtection; keyUsage digitalSignature or nonRepudiation */
  GOSTX_X509_PURPOSE_SMIME_SIGN,
  GOSTX_X509_PURPOSE_SMIME_ENCRYPT, /* smimeencrypt: EKU emailProtection; keyUsage keyEncipherment */
  GOSTX_X509_PURPOSE_NS_SERVER,     /* nssslserver: EKU serverAuth; keyUsage keyEncipherment */
  GOSTX_X509_PURPOSE_CRL_SIGN,      /* crlsign: the leaf's keyUsage cRLSign */
  GOSTX_X509_PURPOSE_OCSP_HELPER,   /* ocsphelper: no leaf check (as openssl's, here) */
  /* timestampsign: the leaf's EKU present, critical, timeStamping only;
   * keyUsage only digitalSignature and/or nonRepudiation */
  GOSTX_X509_PURPOSE_TIMESTAMP_SIGN,
  /* codesign: the leaf's EKU present with codeSigning; keyUsage digitalSignature */
  GOSTX_X509_PURPOSE_CODE_SIGN
} gostx_x509_purpose;

/* Verifies chain[0] (the leaf) through the others, in any order, to an
 * anchor of store, at time now (seconds since 1970), for purpose, and,
 * when name is not NULL, that the leaf is for name (a DNS name, matched
 * against subjectAltName dNSName with RFC 6125 left-most wildcards, or an
 * IPv4/IPv6 literal matched against iPAddress). Paths are built as RFC
 * 4158 describes: every candidate issuer (the anchors first) is tried,
 * depth first, until a path passes every check; at most
 * GOSTX_X509_MAX_TRIES signatures are checked in one call, and no path
 * holds the same subject and key twice. Returns GOSTX_X509_OK, or the
 * first check that failed on the most complete path tried (one that
 * reached an anchor before one that did not; of those that did, the one
 * that got furthest through the checks); *depth (when not NULL) the index
 * in that path of the certificate that failed it. */
GOSTX_API GOSTX_MUST_CHECK gostx_x509_status gostx_x509_verify(
    const gostx_x509_store *store, const gostx_x509_cert *chain, size_t n, int64_t now,
    gostx_x509_purpose purpose, const char *name, size_t *depth);

/* The longest path gostx_x509_verify builds, anchor included: a longer
 * one is GOSTX_X509_PATH_TOO_LONG. */
#define GOSTX_X509_MAX_DEPTH 32
/* The most signatures checked (candidate issuers tried) in one
 * verification: a bound on the work a hostile set of certificates can ask
 * for. */
#define GOSTX_X509_MAX_TRIES 128

/* The keyUsage bits (RFC 5280 4.2.1.3 numbers them: bit 0 first), as
 * gostx_x509_cert.key_usage holds them. */
#define GOSTX_X509_KU_DIGITAL_SIGNATURE (1u << 0)
#define GOSTX_X509_KU_NON_REPUDIATION (1u << 1)
#define GOSTX_X509_KU_KEY_ENCIPHERMENT (1u << 2)
#define GOSTX_X509_KU_DATA_ENCIPHERMENT (1u << 3)
#define GOSTX_X509_KU_KEY_AGREEMENT (1u << 4)
#define GOSTX_X509_KU_KEY_CERT_SIGN (1u << 5)
#define GOSTX_X509_KU_CRL_SIGN (1u << 6)
#define GOSTX_X509_KU_ENCIPHER_ONLY (1u << 7)
#define GOSTX_X509_KU_DECIPHER_ONLY (1u << 8)

/* RFC 5280's profile rules (docs/X509.md, "The profile") not enforced:
 * what openssl verify takes without -x509_strict. Name constraints and
 * every other check still apply. */
#define GOSTX_X509_VERIFY_LAX 1u

/* A memo of the signatures one verification run found valid, so that a
 * run which meets the same signature twice (a CAdES-X Long Type 1's chain
 * judged now and at its timestamp's time, a token checked by two callers)
 * does the GOST R 34.10 arithmetic once. An entry is the exact inputs of a
 * gostx_gost3410_verify that passed: curve, public key, digest, signature;
 * a verification whose inputs are all equal to one held is answered from
 * it (the function is pure), anything else is verified. Failures are not
 * held. For one run of one thread: zero it (= {0}) before, point the
 * options at it (gostx_x509_verify_opts.memo, gostx_ocsp_check_opts.memo,
 * gostx_cms_verify_params.memo); when full, more are verified, not held.
 * checked: the verifications done through it; answered: those answered
 * from it. */
#define GOSTX_X509_SIG_MEMO_MAX 32
typedef struct gostx_x509_sig_memo {
  size_t n, checked, answered;
  struct {
    gostx_gost3410_curve curve;
    size_t pub_len, digest_len, sig_len;
    uint8_t pub[128], digest[64], sig[128];
  } held[GOSTX_X509_SIG_MEMO_MAX];
} gostx_x509_sig_memo;

/* What gostx_x509_verify_with checks the chain for. Start from
 * gostx_x509_verify_opts_init, then set what differs: fields may be added
 * at the end, and init gives each its default. */
typedef struct gostx_x509_verify_opts {
  int64_t now;                /* the time checked, seconds since 1970 (UTC) */
  gostx_x509_purpose purpose; /* default GOSTX_X509_PURPOSE_ANY */
  const char *name;           /* DNS name or IP literal the leaf must be for; NULL (default): none */
  /* openssl's -verify_depth: at most this many intermediate certificates
   * between the leaf and the anchor (neither counted, nor self-issued
   * intermediates, as for pathLenConstraint); a path that needs
   * more is GOSTX_X509_PATH_TOO_LONG. -1 (default): GOSTX_X509_MAX_DEPTH's
   * limit only. */
  int max_intermediates;
  unsigned flags; /* GOSTX_X509_VERIFY_*; 0 (default): the strict profile */
  /* GOSTX_X509_KU_* bits the leaf's keyUsage must all have, when it has
   * the extension (RFC 5280 4.2.1.3: without it the key is for any use);
   * nothing about extendedKeyUsage. 0 (default): none asked; a leaf
   * without them is GOSTX_X509_KEY_USAGE. */
  unsigned key_usage;
  /* When not NULL, the leaf must be for this mailbox ("local@domain"):
   * one of its subjectAltName rfc822Names, or, when it has none, an
   * emailAddress of its subject; the local part compared exactly, the
   * domain ignoring ASCII case (RFC 5280 4.2.1.6, 7.5); else
   * GOSTX_X509_EMAIL_MISMATCH. NULL (default): none. */
  const char *email;
  /* Revocation (x509_crl.h): the CRLs (parsed; any issuers', in any
   * order) and which certificates of the path must have a status from
   * them at `now`: GOSTX_X509_CRL_CHECK_NONE (default), _LEAF (openssl's
   * -crl_check) or _ALL (-crl_check_all: every one but the anchor). A
   * certificate whose status is not GOSTX_X509_OK fails the path with
   * that status (gostx_x509_crl_status's). */
  const struct gostx_x509_crl *crls;
  size_t n_crls;
  int crl_check;
  /* OCSP responses (ocsp.h: parsed OCSPResponses or bare
   * BasicOCSPResponses; any certificates', any order) for the same
   * certificates crl_check names (with ocsps and CRL_CHECK_NONE: the
   * leaf, as openssl's -ocsp_resp checks the certificate asked). A
   * response naming the certificate (its CertID, under the response's own
   * hash) decides first when it passes gostx_ocsp_check with the
   * certificate's issuer as CA: good is GOSTX_X509_OK, revoked at or
   * before now GOSTX_X509_REVOKED (later: not revoked at now), unknown
   * GOSTX_X509_OCSP_UNKNOWN. As with CRLs, a response produced after now
   * is used (a status at a past time, a signature's, needs that); one
   * whose nextUpdate is before now is stale. Otherwise the CRLs decide;
   * when they do not, the response's failure is said (GOSTX_X509_OCSP_STALE,
   * GOSTX_X509_OCSP_INVALID) or, with no data at all for the certificate,
   * GOSTX_X509_NO_REVOCATION_DATA. */
  const struct gostx_ocsp_response *ocsps;
  size_t n_ocsps;
  /* The run's memo of valid signatures (above): every signature here
   * (certificates, CRLs, OCSP responses) is looked up in it and a valid
   * one held; NULL (default): none. */
  gostx_x509_sig_memo *memo;
} gostx_x509_verify_opts;
#define GOSTX_X509_CRL_CHECK_NONE 0
#define GOSTX_X509_CRL_CHECK_LEAF 1
#define GOSTX_X509_CRL_CHECK_ALL 2
GOSTX_API void gostx_x509_verify_opts_init(gostx_x509_verify_opts *opts, int64_t now);

/* The longest refusal line gostx_x509_verify_result.why holds, its NUL
 * included (a longer one is cut). */
#define GOSTX_X509_WHY_MAX 512

/* What gostx_x509_verify_with found: the status it returned; the path it
 * built, path[0] the leaf, then each issuer found, the anchor last when one
 * was reached (pointers into chain or into the store, valid while both
 * are), path_len of them; when a check failed, depth is the index in path
 * of the certificate that failed it (when no issuer was found, the path
 * ends at the certificate without one); why the refusal as one line: the
 * status's text, or for name constraints and policies what failed and whose
 * constraint it was ("name constraints: DNS:www.evil.test not within
 * permitted subtrees of CN=..."); "" when the path verified. */
typedef struct gostx_x509_verify_result {
  gostx_x509_status status;
  size_t depth;
  size_t path_len;
  const gostx_x509_cert *path[GOSTX_X509_MAX_DEPTH];
  char why[GOSTX_X509_WHY_MAX];
} gostx_x509_verify_result;

/* gostx_x509_verify with its inputs in opts (NULL: GOSTX_X509_MALFORMED) and, when
 * result is not NULL, all it found there. */
GOSTX_API GOSTX_MUST_CHECK gostx_x509_status gostx_x509_verify_with(
    const gostx_x509_store *store, const gostx_x509_cert *chain, size_t n,
    const gostx_x509_verify_opts *opts, gostx_x509_verify_result *result);

#ifdef __cplusplus
}
#endif

#endif
