/* A certificate's revocation status from CRLs (RFC 5280 6.3, complete
 * CRLs of the certificate's own issuer): each CRL checked against the
 * issuer, its scope (issuingDistributionPoint) against the certificate,
 * its time against the time asked (revocation.c checks a path's
 * certificates with it). Public data only. */
#include <stdio.h>
#include <time.h>

#include "x509/x509_internal.h"

#define OID_EXT_CRLDP "\x55\x1d\x1f" /* 2.5.29.31 cRLDistributionPoints */

/* gostx_x509_crl_verify through the run's memo (NULL: none) */
static gostx_x509_status crl_verify(const gostx_x509_crl *crl, const gostx_x509_cert *issuer,
                                    gostx_x509_sig_memo *memo) {
  if (!crl || !issuer) return GOSTX_X509_CRL_MALFORMED;
  if (!gostx__x509_name_equal(crl->issuer, crl->issuer_len, issuer->subject, issuer->subject_len))
    return GOSTX_X509_CRL_WRONG_ISSUER;
  int rc = gostx__x509_check_sig(crl->sig_alg, crl->tbs, crl->tbs_len, crl->sig_value,
                                 crl->sig_value_len, issuer, memo);
  if (rc == GOSTX_EUNSUP) return GOSTX_X509_CRL_WRONG_ISSUER; /* a key of another kind signed it */
  if (rc) {
    /* an authorityKeyIdentifier that names another key says why */
    uint8_t id[64];
    size_t id_len;
    if (crl->aki_key_id && !gostx_x509_cert_key_id(issuer, id, sizeof id, &id_len) &&
        (id_len != crl->aki_key_id_len || memcmp(id, crl->aki_key_id, id_len)))
      return GOSTX_X509_CRL_WRONG_ISSUER;
    return GOSTX_X509_CRL_BAD_SIGNATURE;
  }
  /* 6.3.3(f): a key allowed to sign CRLs (no keyUsage: any use) */
  if (issuer->key_usage != ~0u && !(issuer->key_usage & GOSTX_X509_KU_CRL_SIGN))
    return GOSTX_X509_KEY_USAGE;
  return GOSTX_X509_OK;
}

gostx_x509_status gostx_x509_crl_verify(const gostx_x509_crl *crl, const gostx_x509_cert *issuer) {
  return crl_verify(crl, issuer, NULL);
}

/* 1 when one of the DistributionPointName's names (a [0] fullName's
 * GeneralNames, or the whole [1] element) is one of dp's (the same
 * encoding, as 5.2.5 asks of the issuer). */
static int dp_names_meet(gostx__der a, gostx__der b) {
  gostx__der an, bn, x, y, xw, yw;
  uint8_t ta, tb;
  if (gostx__der_next(&a, &ta, &an, NULL) || gostx__der_next(&b, &tb, &bn, NULL) || ta != tb)
    return 0;
  if (ta != GOSTX__DER_CTXC(0)) return an.n == bn.n && !memcmp(an.p, bn.p, an.n);
  for (gostx__der r = an; r.n && !gostx__der_next(&r, &ta, &x, &xw);)
    for (gostx__der s = bn; s.n && !gostx__der_next(&s, &tb, &y, &yw);)
      if (xw.n == yw.n && !memcmp(xw.p, yw.p, xw.n)) return 1;
  return 0;
}

/* 6.3.3(b)(2): the CRL's issuingDistributionPoint covers cert. A CRL
 * with a distributionPoint covers only certificates that name it in
 * cRLDistributionPoints (openssl's reading too). */
static int in_scope(const gostx_x509_crl *crl, const gostx_x509_cert *cert) {
  if (!crl->idp) return 1;
  if (crl->only_attr || (crl->only_user && cert->is_ca) || (crl->only_ca && !cert->is_ca)) return 0;
  if (!crl->idp_dp) return 1;
  gostx__der v, seq, dp, name;
  gostx__der idp = {crl->idp_dp, crl->idp_dp_len};
  if (!gostx__x509_cert_ext(cert, (const uint8_t *)OID_EXT_CRLDP, sizeof OID_EXT_CRLDP - 1, &v) ||
      gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL))
    return 0;
  while (!gostx__der_get(&seq, GOSTX__DER_SEQ, &dp, NULL))
    if (gostx__der_peek(&dp, GOSTX__DER_CTXC(0)) &&
        !gostx__der_get(&dp, GOSTX__DER_CTXC(0), &name, NULL) && dp_names_meet(idp, name))
      return 1;
  return 0;
}

/* How near a CRL that did not decide came to deciding: the later the
 * check it failed, the higher (what gostx_x509_crl_status reports). */
static int nearness(gostx_x509_status st) {
  switch (st) {
    case GOSTX_X509_CRL_CRITICAL_EXT: return 1;
    case GOSTX_X509_CRL_SCOPE: return 2;
    case GOSTX_X509_CRL_WRONG_ISSUER: return 4;
    case GOSTX_X509_CRL_BAD_SIGNATURE: return 5;
    case GOSTX_X509_KEY_USAGE: return 6;
    case GOSTX_X509_CRL_NO_NUMBER: return 7;
    case GOSTX_X509_CRL_NUMBER_CRITICAL: return 7;
    case GOSTX_X509_CRL_EXPIRED: return 8;
    default: return 0;
  }
}

/* One CRL of cert's issuer's name: GOSTX_X509_OK when it may be used at
 * now, else why not. One issued after now is taken (x509_crl.h says why). */
static gostx_x509_status usable(const gostx_x509_crl *crl, const gostx_x509_cert *cert,
                                const gostx_x509_cert *issuer, int64_t now, gostx_x509_sig_memo *memo) {
  if (crl->unknown_critical) return GOSTX_X509_CRL_CRITICAL_EXT;
  if (!in_scope(crl, cert)) return GOSTX_X509_CRL_SCOPE;
  gostx_x509_status st = crl_verify(crl, issuer, memo);
  if (st != GOSTX_X509_OK) return st;
  /* 5.2.3: conforming issuers MUST include cRLNumber, non-critical; one
   * that does not is not trusted for status (openssl refuses the critical
   * one, x509-limbo's crl::crlnumber-* expect both refused). Judged once
   * the CRL is known to be the issuer's, so a stranger's CRL is named so. */
  if (!crl->crl_number) return GOSTX_X509_CRL_NO_NUMBER;
  if (crl->crl_number_critical) return GOSTX_X509_CRL_NUMBER_CRITICAL;
  if (crl->next_update >= 0 && now > crl->next_update) return GOSTX_X509_CRL_EXPIRED;
  return GOSTX_X509_OK;
}

gostx_x509_status gostx_x509_crl_status(const gostx_x509_crl *crls, size_t n,
                                        const gostx_x509_cert *cert, const gostx_x509_cert *issuer,
                                        int64_t now, gostx_x509_revocation *out) {
  return gostx__x509_crl_status(crls, n, cert, issuer, now, out, NULL);
}

gostx_x509_status gostx__x509_crl_status(const gostx_x509_crl *crls, size_t n, const gostx_x509_cert *cert,
                                         const gostx_x509_cert *issuer, int64_t now, gostx_x509_revocation *out,
                                         gostx_x509_sig_memo *memo) {
  gostx_x509_revocation dummy;
  if (!out) out = &dummy;
  memset(out, 0, sizeof *out);
  out->reason = GOSTX_X509_REASON_NONE;
  out->invalidity_date = -1;
  if (!cert || !issuer || (n && !crls)) return GOSTX_X509_CRL_MALFORMED;
  gostx_x509_status worst = GOSTX_X509_CRL_UNAVAILABLE;
  unsigned covered = 0;
  for (size_t i = 0; i < n; i++) {
    const gostx_x509_crl *crl = &crls[i];
    if (!gostx__x509_name_equal(crl->issuer, crl->issuer_len, cert->issuer, cert->issuer_len))
      continue;
    gostx_x509_status st = usable(crl, cert, issuer, now, memo);
    if (st != GOSTX_X509_OK) {
      if (nearness(st) > nearness(worst)) worst = st, out->crl = i;
      continue;
    }
    gostx_x509_crl_entry e;
    /* revoked at now: an entry dated later was not yet a revocation then;
     * removeFromCRL belongs to delta CRLs and revokes nothing */
    if (gostx_x509_crl_find(crl, cert->serial, cert->serial_len, &e) && e.revocation_date <= now &&
        e.reason != GOSTX_X509_REASON_REMOVE_FROM_CRL) {
      out->reason = e.reason;
      out->revocation_date = e.revocation_date;
      out->invalidity_date = e.invalidity_date;
      out->crl = i;
      return GOSTX_X509_REVOKED;
    }
    unsigned before = covered;
    covered |= crl->reasons;
    if (covered != before) out->crl = i;
  }
  if (covered == GOSTX_X509_CRL_ALL_REASONS) return GOSTX_X509_OK;
  /* CRLs in force whose reasons do not add up: nothing stale or broken to name */
  if (covered && nearness(worst) <= nearness(GOSTX_X509_CRL_SCOPE)) return GOSTX_X509_CRL_SCOPE;
  return worst;
}
