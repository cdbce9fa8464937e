/* gostx: certificate revocation lists (RFC 5280 section 5) with GOST
 * R 34.10 signatures: read, checked against their issuer, written, and a
 * certificate's revocation status at a given time (RFC 5280 6.3). Part of
 * the public API; what `gostx x509 verify -crl_check` and `gostx ca`
 * build on (docs/X509.md, "Revocation").
 *
 * Only complete CRLs: a delta CRL (deltaCRLIndicator) is refused by name
 * (GOSTX_X509_CRL_DELTA), and so is an indirect one (indirectCRL, or an
 * entry's certificateIssuer: GOSTX_X509_CRL_INDIRECT). Every verdict is a
 * gostx_x509_status (x509.h), its text gostx_x509_status_name(). Nothing
 * here allocates: a parsed CRL is views into the caller's DER. */
#ifndef GOSTX_X509_CRL_H
#define GOSTX_X509_CRL_H

#include <stdint.h>

#include "common.h"
#include "gost3410.h"
#include "x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CRLReason (RFC 5280 5.3.1); GOSTX_X509_REASON_NONE: the entry has no
 * reasonCode. */
typedef enum gostx_x509_crl_reason {
  GOSTX_X509_REASON_NONE = -1,
  GOSTX_X509_REASON_UNSPECIFIED = 0,
  GOSTX_X509_REASON_KEY_COMPROMISE = 1,
  GOSTX_X509_REASON_CA_COMPROMISE = 2,
  GOSTX_X509_REASON_AFFILIATION_CHANGED = 3,
  GOSTX_X509_REASON_SUPERSEDED = 4,
  GOSTX_X509_REASON_CESSATION_OF_OPERATION = 5,
  GOSTX_X509_REASON_CERTIFICATE_HOLD = 6,
  GOSTX_X509_REASON_REMOVE_FROM_CRL = 8,
  GOSTX_X509_REASON_PRIVILEGE_WITHDRAWN = 9,
  GOSTX_X509_REASON_AA_COMPROMISE = 10
} gostx_x509_crl_reason;

/* openssl's name of a reason ("keyCompromise", "CACompromise", ...;
 * "none" for GOSTX_X509_REASON_NONE), NULL for a value that is none. */
GOSTX_API const char *gostx_x509_crl_reason_name(int reason);
/* The reason of one of those names (openssl ca -crl_reason's, any ASCII
 * case), or -2 for a name that is none. */
GOSTX_API int gostx_x509_crl_reason_by_name(const char *name);

/* ReasonFlags (RFC 5280 4.2.1.13) as bits: bit k is the BIT STRING's bit
 * k (1 keyCompromise .. 6 certificateHold, 7 privilegeWithdrawn, 8
 * aACompromise). All of them: what a CRL without onlySomeReasons covers. */
#define GOSTX_X509_CRL_ALL_REASONS 0x1feu

/* One parsed CRL. tbs and issuer are whole DER elements; sig_value the
 * signature's s || r (64 or 128 bytes); crl_number and aki_key_id the
 * contents of the INTEGER and of the keyIdentifier, NULL when absent. */
typedef struct gostx_x509_crl {
  const uint8_t *der;
  size_t der_len;
  const uint8_t *tbs, *issuer, *sig_value;
  size_t tbs_len, issuer_len, sig_value_len;
  gostx_x509_sig_alg sig_alg;
  int version;                      /* 1 or 2 */
  int64_t this_update, next_update; /* seconds since 1970; next_update -1 when absent */
  const uint8_t *crl_number, *aki_key_id;
  size_t crl_number_len, aki_key_id_len;
  /* issuingDistributionPoint (5.2.5): present, its distributionPoint
   * (the [0] element's content, NULL when absent), the "only" flags, and
   * the reasons it covers (GOSTX_X509_CRL_ALL_REASONS without
   * onlySomeReasons) */
  int idp, only_user, only_ca, only_attr;
  const uint8_t *idp_dp;
  size_t idp_dp_len;
  unsigned reasons;
  /* an extension marked critical, of the CRL or of an entry, that gostx
   * does not process: the CRL may be read but not used (5.2) */
  int unknown_critical;
  const uint8_t *revoked; /* revokedCertificates' content, NULL when absent */
  size_t revoked_len, n_revoked;
  /* the cRLNumber extension is marked critical: the CRL may be read but
   * is no source of revocation status (5.2.3), as one without crl_number */
  int crl_number_critical;
} gostx_x509_crl;

/* One revokedCertificates entry. */
typedef struct gostx_x509_crl_entry {
  const uint8_t *serial; /* the INTEGER's content */
  size_t serial_len;
  int64_t revocation_date;
  int reason;              /* gostx_x509_crl_reason, GOSTX_X509_REASON_NONE when absent */
  int64_t invalidity_date; /* -1 when absent */
} gostx_x509_crl_entry;

/* Parses one DER CRL (every entry checked). GOSTX_EFORMAT with *st (when
 * not NULL): GOSTX_X509_CRL_MALFORMED, UNSUPPORTED (not a GOST signature),
 * SIG_ALG_MISMATCH, BAD_VERSION (v1 with extensions, a version other than
 * v2), BAD_EXTENSION (a known extension's value wrong, or one repeated),
 * GOSTX_X509_CRL_DELTA, GOSTX_X509_CRL_INDIRECT. */
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_crl_parse(const uint8_t *der, size_t der_len,
                                                     gostx_x509_crl *out, gostx_x509_status *st);
/* The next "X509 CRL" PEM block at or after *pos: as gostx_x509_pem_next. */
GOSTX_API GOSTX_MUST_CHECK int gostx_x509_crl_pem_next(const char *pem, size_t pem_len,
                                                        size_t *pos, uint8_t *der, size_t cap,
                                                        size_t *der_len);
/* The entries one by one from *pos = 0: 1 and *e; 0 when none is left. */
GOSTX_API int gostx_x509_crl_next(const gostx_x509_crl *crl, size_t *pos,
                                  gostx_x509_crl_entry *e);
/* The entry for serial (an INTEGER's content, as gostx_x509_cert.serial):
 * 1 and *e, or 0. */
GOSTX_API int gostx_x509_crl_find(const gostx_x509_crl *crl, const uint8_t *serial,
                                  size_t serial_len, gostx_x509_crl_entry *e);

/* Whether crl is issuer's: GOSTX_X509_OK; GOSTX_X509_CRL_WRONG_ISSUER (the
 * CRL names another issuer, its signature is not one the issuer's key
 * makes, or it does not verify and the authorityKeyIdentifier names
 * another key); GOSTX_X509_CRL_BAD_SIGNATURE; GOSTX_X509_KEY_USAGE (the
 * issuer's keyUsage lacks cRLSign). */
GOSTX_API GOSTX_MUST_CHECK gostx_x509_status gostx_x509_crl_verify(const gostx_x509_crl *crl,
                                                                   const gostx_x509_cert *issuer);

/* What gostx_x509_crl_status found. */
typedef struct gostx_x509_revocation {
  int reason;              /* REVOKED: the entry's reason (GOSTX_X509_REASON_NONE: none given) */
  int64_t revocation_date; /* REVOKED: when */
  int64_t invalidity_date; /* REVOKED: -1 when not given */
  size_t crl;              /* the index in crls of the CRL that decided (REVOKED, OK, stale) */
} gostx_x509_revocation;

/* cert's status at time now from those of crls[n] that issuer issued
 * (RFC 5280 6.3.3, complete CRLs). A CRL issued after now is used: it
 * tells of the past too (an entry dated after now is no revocation at
 * now), which a status at a past time (a signature's) needs; one whose
 * nextUpdate is before now is stale. GOSTX_X509_OK (a CRL in force, or
 * CRLs whose scopes together cover every reason, have no entry for it);
 * GOSTX_X509_REVOKED (an entry revoked at or before now: a revocation
 * after now is not one at that time; removeFromCRL is none) with *out;
 * else why no CRL decided, the one of the issuer's CRLs nearest to use:
 * GOSTX_X509_CRL_BAD_SIGNATURE, GOSTX_X509_CRL_WRONG_ISSUER,
 * GOSTX_X509_KEY_USAGE (no cRLSign), GOSTX_X509_CRL_CRITICAL_EXT,
 * GOSTX_X509_CRL_NO_NUMBER, GOSTX_X509_CRL_NUMBER_CRITICAL (the issuer's
 * CRL without a cRLNumber, or with a critical one: RFC 5280 5.2.3),
 * GOSTX_X509_CRL_EXPIRED (nextUpdate before now: stale data),
 * GOSTX_X509_CRL_SCOPE (the issuer's CRLs
 * do not cover this certificate: its status unknown), and
 * GOSTX_X509_CRL_UNAVAILABLE when none names the issuer (no revocation
 * data). out may be NULL. */
GOSTX_API GOSTX_MUST_CHECK gostx_x509_status gostx_x509_crl_status(
    const gostx_x509_crl *crls, size_t n, const gostx_x509_cert *cert,
    const gostx_x509_cert *issuer, int64_t now, gostx_x509_revocation *out);

/* ---- writing ---- */

/* One entry to write. */
typedef struct gostx_x509_crl_revoked {
  const uint8_t *serial; /* big-endian, 1..20 bytes (as gostx_x509_cert_spec's) */
  size_t serial_len;
  int64_t date;
  int reason; /* GOSTX_X509_REASON_NONE or UNSPECIFIED: no reasonCode (5.3.1's SHOULD) */
  int64_t invalidity_date; /* -1: none */
} gostx_x509_crl_revoked;

typedef struct gostx_x509_crl_spec {
  const uint8_t *issuer; /* the issuer's subject Name, whole DER element */
  size_t issuer_len;
  int64_t this_update, next_update; /* next_update -1: none (5.1.2.5 says MUST) */
  const uint8_t *crl_number;        /* big-endian, 1..20 bytes, required (5.2.3's MUST;
                                       written non-critical, as 5.2.3 asks) */
  size_t crl_number_len;
  const uint8_t *issuer_key_id; /* authorityKeyIdentifier's keyIdentifier; NULL: none */
  size_t issuer_key_id_len;
  const gostx_x509_crl_revoked *entries;
  size_t n_entries;
} gostx_x509_crl_spec;

/* A v2 CRL of spec signed by issuer_key (GOST R 34.10-2012, 256 or 512
 * bits) as DER into out[cap]: 0; GOSTX_ELEN with *out_len the length
 * needed; GOSTX_EINVAL a bad spec or key (no crl_number among them: a CRL
 * without one is no source of revocation status, gostx_x509_crl_status). */
GOSTX_API int gostx_x509_crl_write(const gostx_x509_crl_spec *spec,
                                   const gostx_gost3410_key *issuer_key, uint8_t *out, size_t cap,
                                   size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
