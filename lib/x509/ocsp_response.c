/* OCSP responses (RFC 6960 4.2): a BasicOCSPResponse built and signed
 * with GOST R 34.10-2012, the error-only responses, and a response read
 * (its structure; ocsp_check.c judges it). */
#include "x509/ocsp_internal.h"

#define DER_ENUM 0x0a

static const char *const reasons[] = {"unspecified", "keyCompromise", "cACompromise",
                                      "affiliationChanged", "superseded", "cessationOfOperation",
                                      "certificateHold", "unknown", "removeFromCRL",
                                      "privilegeWithdrawn", "aACompromise"};

const char *gostx_ocsp_reason_name(int reason) {
  return reason >= 0 && reason < (int)(sizeof reasons / sizeof reasons[0]) ? reasons[reason]
                                                                          : "unknown";
}

static void put_enum(gostx__der_w *w, int v) {
  uint8_t b = (uint8_t)v;
  gostx__der_w_tlv(w, DER_ENUM, &b, 1);
}

static int put_single(gostx__der_w *w, const gostx_ocsp_single *s) {
  int rc = 0;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__ocsp_certid_write(w, &s->id);
  switch (s->status) {
    case GOSTX_OCSP_GOOD: gostx__der_w_tlv(w, GOSTX__DER_CTX(0), NULL, 0); break;
    case GOSTX_OCSP_REVOKED:
      gostx__der_w_begin(w, GOSTX__DER_CTXC(1));
      rc |= gostx__x509_put_time_as(w, s->revocation_time, 1);
      if (s->reason >= 0) {
        if (s->reason > 10 || s->reason == 7) return GOSTX_EINVAL;
        gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
        put_enum(w, s->reason);
        gostx__der_w_end(w);
      }
      gostx__der_w_end(w);
      break;
    case GOSTX_OCSP_UNKNOWN: gostx__der_w_tlv(w, GOSTX__DER_CTX(2), NULL, 0); break;
    default: return GOSTX_EINVAL;
  }
  rc |= gostx__x509_put_time_as(w, s->this_update, 1);
  if (s->next_update) {
    gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
    rc |= gostx__x509_put_time_as(w, s->next_update, 1);
    gostx__der_w_end(w);
  }
  gostx__der_w_end(w);
  return rc ? GOSTX_EINVAL : 0;
}

int gostx_ocsp_response_write(const gostx_ocsp_response_spec *s, const gostx_gost3410_key *k,
                              uint8_t *out, size_t cap, size_t *out_len) {
  if (!s || !s->signer || !gostx__x509_key_ok(k) || !out_len || (s->n_single && !s->single) ||
      s->nonce_len > GOSTX_OCSP_NONCE_MAX || (s->nonce_len && !s->nonce))
    return GOSTX_EINVAL;
  uint8_t key_hash[20];
  if (s->by_key && gostx__ocsp_key_sha1(s->signer->spki, s->signer->spki_len, key_hash))
    return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  put_enum(&w, GOSTX_OCSP_RESP_SUCCESSFUL);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, "1.3.6.1.5.5.7.48.1.1");
  gostx__der_w_begin(&w, GOSTX__DER_OCTETS);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* BasicOCSPResponse */
  size_t start = w.n;
  gostx__der_w_begin(&w, GOSTX__DER_SEQ); /* ResponseData, version v1 left out */
  if (s->by_key) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(2));
    gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, key_hash, sizeof key_hash);
  } else {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(1));
    gostx__der_w_raw(&w, s->signer->subject, s->signer->subject_len);
  }
  gostx__der_w_end(&w);
  int rc = gostx__x509_put_time_as(&w, s->produced_at, 1);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  for (size_t i = 0; !rc && i < s->n_single; i++) rc = put_single(&w, &s->single[i]);
  gostx__der_w_end(&w);
  if (s->nonce_len) gostx__ocsp_nonce_write(&w, GOSTX__DER_CTXC(1), s->nonce, s->nonce_len);
  gostx__der_w_end(&w);
  if (rc) return rc;
  rc = gostx__x509_sign_put(&w, start, k);
  if (!s->no_certs) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    gostx__der_w_raw(&w, s->signer->der, s->signer->der_len);
    gostx__der_w_end(&w);
    gostx__der_w_end(&w);
  }
  for (int i = 0; i < 5; i++) gostx__der_w_end(&w);
  if (rc) return rc;
  return gostx__der_w_finish(&w, out_len);
}

int gostx_ocsp_response_error(int status, uint8_t *out, size_t cap, size_t *out_len) {
  if (status <= 0 || status > 6 || status == 4 || !out_len) return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  put_enum(&w, status);
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, out_len);
}

/* ---- reading ---- */

static int gen_time(gostx__der *r, int64_t *t) {
  return gostx__der_peek(r, GOSTX__DER_GENTIME) ? gostx__der_time(r, t) : GOSTX_EFORMAT;
}

static int enum_value(gostx__der *r, int *v) {
  gostx__der c;
  if (gostx__der_get(r, DER_ENUM, &c, NULL) || c.n != 1 || c.p[0] > 0x7f) return GOSTX_EFORMAT;
  *v = c.p[0];
  return 0;
}

/* One SingleResponse from r. */
static int read_single(gostx__der *r, gostx_ocsp_single *s) {
  gostx__der body, st, x;
  uint8_t tag;
  memset(s, 0, sizeof *s);
  s->reason = -1;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &body, NULL) || gostx__ocsp_certid_read(&body, &s->id) ||
      gostx__der_next(&body, &tag, &st, NULL))
    return GOSTX_EFORMAT;
  if (tag == GOSTX__DER_CTX(0) && !st.n) s->status = GOSTX_OCSP_GOOD;
  else if (tag == GOSTX__DER_CTX(2) && !st.n) s->status = GOSTX_OCSP_UNKNOWN;
  else if (tag == GOSTX__DER_CTXC(1)) {
    s->status = GOSTX_OCSP_REVOKED;
    if (gen_time(&st, &s->revocation_time)) return GOSTX_EFORMAT;
    if (st.n && (gostx__der_get(&st, GOSTX__DER_CTXC(0), &x, NULL) || enum_value(&x, &s->reason) ||
                 x.n || st.n || s->reason > 10 || s->reason == 7))
      return GOSTX_EFORMAT;
  } else
    return GOSTX_EFORMAT;
  if (gen_time(&body, &s->this_update)) return GOSTX_EFORMAT;
  if (gostx__der_peek(&body, GOSTX__DER_CTXC(0)) &&
      (gostx__der_get(&body, GOSTX__DER_CTXC(0), &x, NULL) || gen_time(&x, &s->next_update) || x.n))
    return GOSTX_EFORMAT;
  gostx__der nonce; /* singleExtensions: read for their form, none is acted on */
  if (body.n && gostx__ocsp_exts_read(&body, GOSTX__DER_CTXC(1), &nonce, 128)) return GOSTX_EFORMAT;
  return 0;
}

static int read_sig_alg(gostx__der *r, gostx_x509_sig_alg *alg) {
  gostx__der a, oid, null;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &a, NULL) || gostx__der_oid(&a, &oid) ||
      (a.n && (gostx__der_get(&a, GOSTX__DER_NULL, &null, NULL) || null.n || a.n)))
    return GOSTX_EFORMAT;
  *alg = GOSTX__DER_OID_IS(oid, OID_SIG_2012_256)   ? GOSTX_X509_SIG_2012_256
         : GOSTX__DER_OID_IS(oid, OID_SIG_2012_512) ? GOSTX_X509_SIG_2012_512
                                                    : (gostx_x509_sig_alg)0;
  return 0;
}

static int read_data(gostx__der tbs, gostx_ocsp_response *r) {
  gostx__der body, id, list;
  uint8_t tag;
  if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &body, NULL) || tbs.n) return GOSTX_EFORMAT;
  if (gostx__der_peek(&body, GOSTX__DER_CTXC(0))) return GOSTX_EFORMAT; /* v1 is left out in DER */
  if (gostx__der_next(&body, &tag, &id, NULL)) return GOSTX_EFORMAT;
  if (tag == GOSTX__DER_CTXC(1)) {
    gostx__der name, whole;
    if (gostx__der_get(&id, GOSTX__DER_SEQ, &name, &whole) || id.n ||
        gostx__x509_check_name(name))
      return GOSTX_EFORMAT;
    r->responder = whole.p, r->responder_len = whole.n;
  } else if (tag == GOSTX__DER_CTXC(2)) {
    gostx__der h;
    if (gostx__der_get(&id, GOSTX__DER_OCTETS, &h, NULL) || id.n || h.n != 20) return GOSTX_EFORMAT;
    r->by_key = 1, r->responder = h.p, r->responder_len = h.n;
  } else
    return GOSTX_EFORMAT;
  if (gen_time(&body, &r->produced_at) || gostx__der_get(&body, GOSTX__DER_SEQ, &list, NULL))
    return GOSTX_EFORMAT;
  r->responses = list.p, r->responses_len = list.n;
  while (list.n) {
    gostx_ocsp_single s;
    if (read_single(&list, &s)) return GOSTX_EFORMAT;
    r->n_single++;
  }
  if (body.n) {
    gostx__der nonce;
    if (gostx__ocsp_exts_read(&body, GOSTX__DER_CTXC(1), &nonce, 128)) return GOSTX_EFORMAT;
    r->nonce = nonce.p, r->nonce_len = nonce.n;
  }
  return 0;
}

int gostx_ocsp_response_parse(const uint8_t *der, size_t len, gostx_ocsp_response *r) {
  if (!der || !r) return GOSTX_EINVAL;
  memset(r, 0, sizeof *r);
  gostx__der in = {der, len}, outer, rb, rbs, oid, octets, basic, tbs, bits;
  if (gostx__der_get(&in, GOSTX__DER_SEQ, &outer, NULL) || in.n) return GOSTX_EFORMAT;
  if (gostx__der_peek(&outer, GOSTX__DER_SEQ)) {
    basic = outer; /* a bare BasicOCSPResponse (CAdES revocation-values carry these) */
  } else {
    if (enum_value(&outer, &r->status)) return GOSTX_EFORMAT;
    if (r->status != GOSTX_OCSP_RESP_SUCCESSFUL) return outer.n ? GOSTX_EFORMAT : 0;
    if (gostx__der_get(&outer, GOSTX__DER_CTXC(0), &rb, NULL) || outer.n ||
        gostx__der_get(&rb, GOSTX__DER_SEQ, &rbs, NULL) || rb.n || gostx__der_oid(&rbs, &oid) ||
        !GOSTX__DER_OID_IS(oid, OID_OCSP_BASIC) ||
        gostx__der_get(&rbs, GOSTX__DER_OCTETS, &octets, NULL) || rbs.n ||
        gostx__der_get(&octets, GOSTX__DER_SEQ, &basic, NULL) || octets.n)
      return GOSTX_EFORMAT;
  }
  if (gostx__der_get(&basic, GOSTX__DER_SEQ, NULL, &tbs) || read_sig_alg(&basic, &r->sig_alg) ||
      gostx__der_get(&basic, GOSTX__DER_BITS, &bits, NULL) || !bits.n || bits.p[0])
    return GOSTX_EFORMAT;
  r->tbs = tbs.p, r->tbs_len = tbs.n;
  r->sig = bits.p + 1, r->sig_len = bits.n - 1;
  if (basic.n) {
    gostx__der wrap, certs, scan;
    if (gostx__der_get(&basic, GOSTX__DER_CTXC(0), &wrap, NULL) || basic.n ||
        gostx__der_get(&wrap, GOSTX__DER_SEQ, &certs, NULL) || wrap.n)
      return GOSTX_EFORMAT;
    for (scan = certs; scan.n;)
      if (gostx__der_get(&scan, GOSTX__DER_SEQ, NULL, NULL)) return GOSTX_EFORMAT;
    r->certs = certs.p ? certs.p : tbs.p, r->certs_len = certs.n;
  }
  return read_data(tbs, r);
}

int gostx_ocsp_single_next(const gostx_ocsp_response *r, size_t *pos, gostx_ocsp_single *s) {
  if (!r || !pos || !s || !r->responses || *pos >= r->responses_len) return 0;
  gostx__der rest = {r->responses + *pos, r->responses_len - *pos};
  if (read_single(&rest, s)) return 0;
  *pos = r->responses_len - rest.n;
  return 1;
}

int gostx_ocsp_cert_next(const gostx_ocsp_response *r, size_t *pos, const uint8_t **der,
                         size_t *len) {
  if (!r || !pos || !der || !len || !r->certs || *pos >= r->certs_len) return 0;
  gostx__der rest = {r->certs + *pos, r->certs_len - *pos}, whole;
  if (gostx__der_get(&rest, GOSTX__DER_SEQ, NULL, &whole)) return 0;
  *der = whole.p, *len = whole.n;
  *pos = r->certs_len - rest.n;
  return 1;
}
