/* A response judged for the certificates asked (RFC 6960 3.2 and 4.2.2.2):
 * who signed it (the CA, a responder trusted as it is, or a delegated
 * responder the CA issued with id-kp-OCSPSigning), the nonce, one
 * SingleResponse per certificate, their times. */
#include "x509/ocsp_internal.h"

static const char *const names[] = {
    [GOSTX_OCSP_OK] = "ok",
    [GOSTX_OCSP_MALFORMED] = "malformed: not a DER OCSPResponse",
    [GOSTX_OCSP_NOT_SUCCESSFUL] = "responseStatus: the responder refused the request",
    [GOSTX_OCSP_UNSIGNED] = "signature: the response is unsigned",
    [GOSTX_OCSP_UNSUPPORTED] = "signature: not a GOST R 34.10-2012 signature",
    [GOSTX_OCSP_UNKNOWN_RESPONDER] = "responderID: no certificate of the responder found",
    [GOSTX_OCSP_BAD_SIGNATURE] = "signature: the response's signature does not verify",
    [GOSTX_OCSP_NOT_AUTHORIZED] = "responder: its certificate lacks extendedKeyUsage OCSPSigning",
    [GOSTX_OCSP_RESPONDER_NOT_ISSUED] = "responder: its certificate is not issued by the CA",
    [GOSTX_OCSP_RESPONDER_EXPIRED] = "responder: its certificate is not valid now",
    [GOSTX_OCSP_CERT_MISSING] = "certID: no status for the certificate asked (another's?)",
    [GOSTX_OCSP_NONCE_MISSING] = "nonce: the response has none",
    [GOSTX_OCSP_NONCE_MISMATCH] = "nonce: the response's is not the one sent",
    [GOSTX_OCSP_NOT_YET_VALID] = "thisUpdate: the status is not yet valid",
    [GOSTX_OCSP_STALE] = "nextUpdate: the status is stale",
};

const char *gostx_ocsp_status_name(gostx_ocsp_status st) {
  return (unsigned)st < sizeof names / sizeof names[0] && names[st] ? names[st] : "unknown status";
}

void gostx_ocsp_check_opts_init(gostx_ocsp_check_opts *o, int64_t now) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->now = now;
  o->skew = GOSTX_OCSP_SKEW_DEFAULT;
  o->max_age = -1;
}

/* 1 when c is the response's responderID. */
static int is_responder(const gostx_ocsp_response *r, const gostx_x509_cert *c) {
  if (!r->by_key)
    return gostx__x509_name_equal(r->responder, r->responder_len, c->subject, c->subject_len);
  uint8_t h[20];
  return !gostx__ocsp_key_sha1(c->spki, c->spki_len, h) && !memcmp(h, r->responder, 20);
}

/* The response's signature under c's key: 0 or the status. */
static gostx_ocsp_status sig_ok(const gostx_ocsp_response *r, const gostx_x509_cert *c,
                                gostx_x509_sig_memo *memo) {
  gostx_x509_cert fake = *c; /* the response as a "certificate" for signature.c */
  fake.tbs = r->tbs, fake.tbs_len = r->tbs_len;
  fake.sig_alg = r->sig_alg, fake.sig_value = r->sig, fake.sig_value_len = r->sig_len;
  int rc = gostx__x509_check_signature(&fake, c, memo);
  return rc == GOSTX_EUNSUP ? GOSTX_OCSP_UNSUPPORTED : rc ? GOSTX_OCSP_BAD_SIGNATURE : GOSTX_OCSP_OK;
}

static int has_eku_ocsp(const gostx_x509_cert *c) {
  gostx__der v, seq, oid;
  if (!gostx__x509_cert_ext(c, (const uint8_t *)OID_EXT_EKU, 3, &v) ||
      gostx__der_get(&v, GOSTX__DER_SEQ, &seq, NULL))
    return 0;
  while (seq.n && !gostx__der_oid(&seq, &oid))
    if (GOSTX__DER_OID_IS(oid, OID_EKU_OCSP_SIGNING)) return 1;
  return 0;
}

static gostx_ocsp_status find_signer(const gostx_ocsp_response *r, const gostx_ocsp_check_opts *o,
                                     gostx_ocsp_signer_info *info) {
  gostx_ocsp_status best = GOSTX_OCSP_UNKNOWN_RESPONDER;
  /* the CA itself, then the responders trusted as they are */
  for (size_t i = 0; i <= o->n_trusted; i++) {
    const gostx_x509_cert *c = i ? &o->trusted[i - 1] : o->issuer;
    if (!c || !is_responder(r, c)) continue;
    gostx_ocsp_status st = sig_ok(r, c, o->memo);
    if (st == GOSTX_OCSP_OK) {
      info->cert = *c;
      return st;
    }
    best = st;
  }
  /* a delegated responder among the response's certificates */
  size_t pos = 0, len;
  const uint8_t *der;
  while (gostx_ocsp_cert_next(r, &pos, &der, &len)) {
    gostx_x509_cert c;
    if (gostx_x509_parse(der, len, &c, NULL) || !is_responder(r, &c)) continue;
    gostx_ocsp_status st = sig_ok(r, &c, o->memo);
    if (st == GOSTX_OCSP_OK && o->issuer) {
      /* RFC 6960 4.2.2.2: issued directly by the CA, with the purpose */
      if (!gostx__x509_name_equal(c.issuer, c.issuer_len, o->issuer->subject,
                                  o->issuer->subject_len) ||
          gostx__x509_check_signature(&c, o->issuer, o->memo))
        st = GOSTX_OCSP_RESPONDER_NOT_ISSUED;
      else if (!has_eku_ocsp(&c))
        st = GOSTX_OCSP_NOT_AUTHORIZED;
      else if (o->now < c.not_before - o->skew || o->now > c.not_after + o->skew)
        st = GOSTX_OCSP_RESPONDER_EXPIRED;
    } else if (st == GOSTX_OCSP_OK) {
      st = GOSTX_OCSP_RESPONDER_NOT_ISSUED; /* no CA given: nothing vouches for it */
    }
    if (st == GOSTX_OCSP_OK) {
      gostx__der v;
      info->delegated = 1;
      info->nocheck = gostx__x509_cert_ext(&c, (const uint8_t *)OID_OCSP_NOCHECK, 9, &v);
      info->cert = c;
      return st;
    }
    if (best == GOSTX_OCSP_UNKNOWN_RESPONDER || st > best) best = st;
  }
  return best;
}

static int all_zero(const uint8_t *p, size_t n) {
  uint8_t acc = 0;
  for (size_t i = 0; i < n; i++) acc |= p[i];
  return !acc;
}

gostx_ocsp_status gostx_ocsp_check(const gostx_ocsp_response *r, const gostx_ocsp_check_opts *o,
                                   const gostx_ocsp_certid *ids, size_t n, gostx_ocsp_single *out,
                                   size_t *which, gostx_ocsp_signer_info *signer) {
  gostx_ocsp_signer_info info;
  memset(&info, 0, sizeof info);
  if (which) *which = 0;
  if (!r || !o || (n && !ids)) return GOSTX_OCSP_MALFORMED;
  if (r->status != GOSTX_OCSP_RESP_SUCCESSFUL) return GOSTX_OCSP_NOT_SUCCESSFUL;
  if (!r->tbs) return GOSTX_OCSP_MALFORMED;
  if (!r->sig_len || all_zero(r->sig, r->sig_len)) return GOSTX_OCSP_UNSIGNED;
  if (!r->sig_alg) return GOSTX_OCSP_UNSUPPORTED;
  gostx_ocsp_status st = find_signer(r, o, &info);
  if (st) return st;
  if (signer) *signer = info;
  if (o->nonce) {
    if (!r->nonce) return GOSTX_OCSP_NONCE_MISSING;
    if (r->nonce_len != o->nonce_len || memcmp(r->nonce, o->nonce, o->nonce_len))
      return GOSTX_OCSP_NONCE_MISMATCH;
  }
  if (r->produced_at > o->now + o->skew) return GOSTX_OCSP_NOT_YET_VALID;
  for (size_t i = 0; i < n; i++) {
    gostx_ocsp_single s;
    size_t pos = 0;
    int found = 0;
    if (which) *which = i;
    while (!found && gostx_ocsp_single_next(r, &pos, &s)) found = gostx_ocsp_certid_equal(&ids[i], &s.id);
    if (!found) return GOSTX_OCSP_CERT_MISSING;
    if (s.this_update > o->now + o->skew) return GOSTX_OCSP_NOT_YET_VALID;
    if (s.next_update && s.next_update < o->now - o->skew) return GOSTX_OCSP_STALE;
    if (o->max_age >= 0 && !s.next_update && s.this_update < o->now - o->skew - o->max_age)
      return GOSTX_OCSP_STALE;
    if (out) out[i] = s;
  }
  return GOSTX_OCSP_OK;
}
