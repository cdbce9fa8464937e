/* The revocation status of a built path's certificates for
 * gostx_x509_verify_with (verify.c): from the OCSP responses first (a
 * response naming the certificate, checked with gostx_ocsp_check against
 * the certificate's issuer), then from the CRLs (crl_status.c). Public
 * data only. */
#include <stdio.h>
#include <time.h>

#include "x509/ocsp_internal.h"
#include "x509/x509_internal.h"

/* 1 when s is about cert: its CertID remade under s's own hash. */
static int names_cert(const gostx_ocsp_single *s, const gostx_x509_cert *cert,
                      const gostx_x509_cert *issuer, gostx_ocsp_certid *id) {
  return s->id.hash != GOSTX_OCSP_HASH_OTHER &&
         !gostx_ocsp_certid_make(issuer, cert->serial, cert->serial_len, s->id.hash, id) &&
         gostx_ocsp_certid_equal(id, &s->id);
}

/* cert's status at now from those of rs[n] that name it: OK, REVOKED or
 * OCSP_UNKNOWN from the first that passes its checks; else OCSP_STALE or
 * OCSP_INVALID (*failed the check), NO_REVOCATION_DATA when none names it.
 * A response produced after now is checked as of its producedAt (the
 * responder's certificate then; x509.h says why it is used). */
static gostx_x509_status ocsp_status(const gostx_ocsp_response *rs, size_t n,
                                     const gostx_x509_cert *cert, const gostx_x509_cert *issuer,
                                     int64_t now, gostx_x509_sig_memo *memo, gostx_x509_revocation *out,
                                     gostx_ocsp_status *failed) {
  gostx_x509_status worst = GOSTX_X509_NO_REVOCATION_DATA;
  for (size_t i = 0; i < n; i++) {
    gostx_ocsp_single s, got;
    gostx_ocsp_certid id;
    size_t pos = 0;
    int named = 0;
    while (!named && gostx_ocsp_single_next(&rs[i], &pos, &s)) named = names_cert(&s, cert, issuer, &id);
    if (!named) continue;
    gostx_ocsp_check_opts o;
    gostx_ocsp_check_opts_init(&o, now > rs[i].produced_at ? now : rs[i].produced_at);
    o.issuer = issuer;
    o.memo = memo;
    gostx_ocsp_status st = gostx_ocsp_check(&rs[i], &o, &id, 1, &got, NULL, NULL);
    if (st != GOSTX_OCSP_OK) {
      if (worst == GOSTX_X509_NO_REVOCATION_DATA || st == GOSTX_OCSP_STALE)
        worst = st == GOSTX_OCSP_STALE ? GOSTX_X509_OCSP_STALE : GOSTX_X509_OCSP_INVALID, *failed = st;
      continue;
    }
    out->crl = i;
    if (got.status == GOSTX_OCSP_UNKNOWN) return GOSTX_X509_OCSP_UNKNOWN;
    /* a revocation dated after now was not one at now */
    if (got.status == GOSTX_OCSP_REVOKED && got.revocation_time <= now) {
      out->reason = got.reason < 0 ? GOSTX_X509_REASON_NONE : got.reason;
      out->revocation_date = got.revocation_time;
      return GOSTX_X509_REVOKED;
    }
    return GOSTX_X509_OK;
  }
  return worst;
}

/* One certificate's status: OCSP's when it is OK or REVOKED, else the
 * CRLs' when they decide or have something to say, else OCSP's failure. */
static gostx_x509_status cert_status(const gostx_x509_verify_opts *o, const gostx_x509_cert *cert,
                                     const gostx_x509_cert *issuer, gostx_x509_revocation *r,
                                     gostx_ocsp_status *failed, int *by_ocsp) {
  memset(r, 0, sizeof *r);
  r->reason = GOSTX_X509_REASON_NONE;
  r->invalidity_date = -1;
  gostx_x509_status st = GOSTX_X509_NO_REVOCATION_DATA;
  if (o->ocsps && o->n_ocsps) st = ocsp_status(o->ocsps, o->n_ocsps, cert, issuer, o->now, o->memo, r, failed);
  *by_ocsp = 1;
  if (st == GOSTX_X509_OK || st == GOSTX_X509_REVOKED) return st;
  gostx_x509_revocation cr;
  gostx_x509_status cst = gostx__x509_crl_status(o->crls, o->n_crls, cert, issuer, o->now, &cr, o->memo);
  if (cst == GOSTX_X509_CRL_UNAVAILABLE && o->n_ocsps) return st; /* OCSP's word, or no data */
  if (cst != GOSTX_X509_OK && cst != GOSTX_X509_REVOKED && st != GOSTX_X509_NO_REVOCATION_DATA)
    return st; /* neither decided: the response's failure says more */
  *by_ocsp = 0;
  *r = cr;
  return cst;
}

static void date_text(int64_t t, char *date, size_t cap) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || !strftime(date, cap, "%Y-%m-%d %H:%M:%S UTC", &tm))
    snprintf(date, cap, "%lld", (long long)t);
}

gostx_x509_status gostx__x509_revocation(const gostx_x509_cert *const *path, size_t len,
                                         const gostx_x509_verify_opts *o, size_t *depth,
                                         char *why, size_t cap) {
  int check = o->crl_check;
  if (check == GOSTX_X509_CRL_CHECK_NONE && o->ocsps && o->n_ocsps) check = GOSTX_X509_CRL_CHECK_LEAF;
  if (check == GOSTX_X509_CRL_CHECK_NONE || len < 2) return GOSTX_X509_OK;
  size_t last = check == GOSTX_X509_CRL_CHECK_ALL ? len - 2 : 0; /* the anchor: none */
  for (size_t i = 0; i <= last; i++) {
    gostx_x509_revocation r;
    gostx_ocsp_status failed = GOSTX_OCSP_OK;
    int by_ocsp;
    gostx_x509_status st = cert_status(o, path[i], path[i + 1], &r, &failed, &by_ocsp);
    if (st == GOSTX_X509_OK) continue;
    *depth = i;
    const char *text = gostx_x509_status_name(st);
    if (st == GOSTX_X509_REVOKED) {
      const char *rn = gostx_x509_crl_reason_name(r.reason);
      char date[40];
      date_text(r.revocation_date, date, sizeof date);
      snprintf(why, cap, "%s (reason: %s, revoked %s%s)", text, rn ? rn : "?", date,
               by_ocsp ? ", by OCSP" : "");
    } else if (st == GOSTX_X509_KEY_USAGE) {
      snprintf(why, cap, "revocation: the CRL's issuer has no cRLSign in its keyUsage");
    } else if (failed != GOSTX_OCSP_OK && (st == GOSTX_X509_OCSP_INVALID || st == GOSTX_X509_OCSP_STALE)) {
      snprintf(why, cap, "%s (%s)", text, gostx_ocsp_status_name(failed));
    } else {
      snprintf(why, cap, "%s", text);
    }
    return st;
  }
  return GOSTX_X509_OK;
}
