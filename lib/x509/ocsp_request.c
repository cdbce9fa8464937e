/* OCSP requests (RFC 6960 4.1) built and read, and what requests and
 * responses share: the CertID (4.1.1) and the nonce extension (RFC 8954). */
#include "sha1/sha1.h"
#include "x509/ocsp_internal.h"

static size_t hash_len(gostx_ocsp_hash h) {
  return h == GOSTX_OCSP_SHA1 ? 20 : h == GOSTX_OCSP_STREEBOG256 ? 32 : h == GOSTX_OCSP_STREEBOG512 ? 64 : 0;
}

static int digest(gostx_ocsp_hash h, const uint8_t *p, size_t n, uint8_t *out) {
  if (h == GOSTX_OCSP_SHA1) {
    gostx__sha1(p, n, out);
    return 0;
  }
  return gostx_streebog(hash_len(h), p, n, out);
}

/* The subjectPublicKey BIT STRING's bits (after the unused-bits byte). */
static int key_bits(const uint8_t *spki, size_t spki_len, gostx__der *bits) {
  gostx__der r = {spki, spki_len}, body;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) || r.n ||
      gostx__der_get(&body, GOSTX__DER_SEQ, NULL, NULL) ||
      gostx__der_get(&body, GOSTX__DER_BITS, bits, NULL) || body.n || bits->n < 1 || bits->p[0])
    return GOSTX_EFORMAT;
  bits->p++, bits->n--;
  return 0;
}

int gostx__ocsp_key_sha1(const uint8_t *spki, size_t spki_len, uint8_t out[20]) {
  gostx__der bits;
  int rc = key_bits(spki, spki_len, &bits);
  if (!rc) gostx__sha1(bits.p, bits.n, out);
  return rc;
}

int gostx_ocsp_certid_make(const gostx_x509_cert *issuer, const uint8_t *serial, size_t serial_len,
                           gostx_ocsp_hash hash, gostx_ocsp_certid *id) {
  gostx__der bits;
  if (!issuer || !serial || !id || !hash_len(hash) || !serial_len ||
      serial_len > GOSTX_OCSP_SERIAL_MAX)
    return GOSTX_EINVAL;
  memset(id, 0, sizeof *id);
  int rc = key_bits(issuer->spki, issuer->spki_len, &bits);
  if (rc) return rc;
  id->hash = hash;
  id->hash_len = hash_len(hash);
  rc = digest(hash, issuer->subject, issuer->subject_len, id->name_hash);
  if (!rc) rc = digest(hash, bits.p, bits.n, id->key_hash);
  memcpy(id->serial, serial, serial_len);
  id->serial_len = serial_len;
  return rc;
}

int gostx_ocsp_certid_equal(const gostx_ocsp_certid *a, const gostx_ocsp_certid *b) {
  return a && b && a->hash && a->hash == b->hash && a->hash_len == b->hash_len &&
         !memcmp(a->name_hash, b->name_hash, a->hash_len) &&
         !memcmp(a->key_hash, b->key_hash, a->hash_len) && a->serial_len == b->serial_len &&
         !memcmp(a->serial, b->serial, a->serial_len);
}

int gostx__ocsp_certid_read(gostx__der *r, gostx_ocsp_certid *id) {
  gostx__der body, whole, alg, oid, name, key, serial;
  memset(id, 0, sizeof *id);
  if (gostx__der_get(r, GOSTX__DER_SEQ, &body, &whole) ||
      gostx__der_get(&body, GOSTX__DER_SEQ, &alg, NULL) || gostx__der_oid(&alg, &oid) ||
      (alg.n && (gostx__der_get(&alg, GOSTX__DER_NULL, &key, NULL) || key.n || alg.n)) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, &name, NULL) ||
      gostx__der_get(&body, GOSTX__DER_OCTETS, &key, NULL) ||
      gostx__der_get(&body, GOSTX__DER_INT, &serial, NULL) || body.n || !serial.n ||
      serial.n > GOSTX_OCSP_SERIAL_MAX || name.n != key.n || name.n > 64)
    return GOSTX_EFORMAT;
  id->hash = GOSTX__DER_OID_IS(oid, OID_SHA1)          ? GOSTX_OCSP_SHA1
             : GOSTX__DER_OID_IS(oid, OID_STREEBOG256) ? GOSTX_OCSP_STREEBOG256
             : GOSTX__DER_OID_IS(oid, OID_STREEBOG512) ? GOSTX_OCSP_STREEBOG512
                                                       : GOSTX_OCSP_HASH_OTHER;
  if (id->hash && hash_len(id->hash) != name.n) return GOSTX_EFORMAT;
  id->hash_len = name.n;
  memcpy(id->name_hash, name.p, name.n);
  memcpy(id->key_hash, key.p, key.n);
  memcpy(id->serial, serial.p, serial.n);
  id->serial_len = serial.n;
  id->der = whole.p, id->der_len = whole.n;
  return 0;
}

void gostx__ocsp_certid_write(gostx__der_w *w, const gostx_ocsp_certid *id) {
  if (id->der) {
    gostx__der_w_raw(w, id->der, id->der_len);
    return;
  }
  if (!hash_len(id->hash) || id->hash_len != hash_len(id->hash)) {
    w->err = GOSTX_EINVAL;
    return;
  }
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, id->hash == GOSTX_OCSP_SHA1          ? "1.3.14.3.2.26"
                      : id->hash == GOSTX_OCSP_STREEBOG256 ? "1.2.643.7.1.1.2.2"
                                                           : "1.2.643.7.1.1.2.3");
  if (id->hash == GOSTX_OCSP_SHA1) gostx__der_w_tlv(w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(w);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, id->name_hash, id->hash_len);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, id->key_hash, id->hash_len);
  gostx__der_w_tlv(w, GOSTX__DER_INT, id->serial, id->serial_len); /* as it came: its content */
  gostx__der_w_end(w);
}

int gostx__ocsp_exts_read(gostx__der *r, uint8_t tag, gostx__der *nonce, size_t max) {
  gostx__der wrap, exts;
  nonce->p = NULL, nonce->n = 0;
  if (gostx__der_get(r, tag, &wrap, NULL) || r->n ||
      gostx__der_get(&wrap, GOSTX__DER_SEQ, &exts, NULL) || wrap.n)
    return GOSTX_EFORMAT;
  while (exts.n) {
    gostx__der ext, oid, value, inner;
    int critical = 0;
    if (gostx__der_get(&exts, GOSTX__DER_SEQ, &ext, NULL) || gostx__der_oid(&ext, &oid) ||
        (gostx__der_peek(&ext, GOSTX__DER_BOOL) && (gostx__der_bool(&ext, &critical) || !critical)) ||
        gostx__der_get(&ext, GOSTX__DER_OCTETS, &value, NULL) || ext.n)
      return GOSTX_EFORMAT;
    if (GOSTX__DER_OID_IS(oid, OID_OCSP_NONCE)) {
      if (nonce->p || gostx__der_get(&value, GOSTX__DER_OCTETS, &inner, NULL) || value.n ||
          !inner.n || inner.n > max)
        return GOSTX_EFORMAT;
      *nonce = inner;
    } else if (critical) {
      return GOSTX_EUNSUP;
    }
  }
  return 0;
}

void gostx__ocsp_nonce_write(gostx__der_w *w, uint8_t tag, const uint8_t *nonce, size_t len) {
  gostx__der_w_begin(w, tag);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, "1.3.6.1.5.5.7.48.1.2");
  gostx__der_w_begin(w, GOSTX__DER_OCTETS);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, nonce, len);
  for (int i = 0; i < 4; i++) gostx__der_w_end(w);
}

/* OCSPRequest ::= SEQUENCE { tbsRequest, optionalSignature [0] EXPLICIT }
 * TBSRequest ::= SEQUENCE { version [0] DEFAULT v1, requestorName [1],
 *   requestList SEQUENCE OF Request, requestExtensions [2] }
 * Request ::= SEQUENCE { reqCert CertID, singleRequestExtensions [0] } */
int gostx_ocsp_request_write(const gostx_ocsp_request *req, uint8_t *out, size_t cap,
                             size_t *out_len) {
  if (!req || !out_len || !req->n || req->n > GOSTX_OCSP_MAX_IDS ||
      req->nonce_len > GOSTX_OCSP_NONCE_MAX)
    return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__der_w_init(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  for (size_t i = 0; i < req->n; i++) {
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    gostx__ocsp_certid_write(&w, &req->id[i]);
    gostx__der_w_end(&w);
  }
  gostx__der_w_end(&w);
  if (req->nonce_len) gostx__ocsp_nonce_write(&w, GOSTX__DER_CTXC(2), req->nonce, req->nonce_len);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return gostx__der_w_finish(&w, out_len);
}

int gostx_ocsp_request_parse(const uint8_t *der, size_t len, gostx_ocsp_request *req) {
  if (!der || !req) return GOSTX_EINVAL;
  memset(req, 0, sizeof *req);
  gostx__der r = {der, len}, outer, tbs, list, el;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &outer, NULL) || r.n ||
      gostx__der_get(&outer, GOSTX__DER_SEQ, &tbs, NULL))
    return GOSTX_EFORMAT;
  if (outer.n && (gostx__der_get(&outer, GOSTX__DER_CTXC(0), NULL, NULL) || outer.n))
    return GOSTX_EFORMAT; /* optionalSignature: read over */
  if (gostx__der_peek(&tbs, GOSTX__DER_CTXC(0))) {
    gostx__der v;
    uint32_t version;
    /* DER leaves a DEFAULT out: an explicit v1 is no DER */
    if (gostx__der_get(&tbs, GOSTX__DER_CTXC(0), &v, NULL) || gostx__der_u32(&v, &version) ||
        v.n || version == 0)
      return GOSTX_EFORMAT;
    return GOSTX_EUNSUP;
  }
  if (gostx__der_peek(&tbs, GOSTX__DER_CTXC(1)) &&
      gostx__der_get(&tbs, GOSTX__DER_CTXC(1), NULL, NULL))
    return GOSTX_EFORMAT;
  if (gostx__der_get(&tbs, GOSTX__DER_SEQ, &list, NULL) || !list.n) return GOSTX_EFORMAT;
  while (list.n) {
    if (req->n == GOSTX_OCSP_MAX_IDS) return GOSTX_EUNSUP;
    if (gostx__der_get(&list, GOSTX__DER_SEQ, &el, NULL) ||
        gostx__ocsp_certid_read(&el, &req->id[req->n]))
      return GOSTX_EFORMAT;
    if (el.n) { /* singleRequestExtensions: only their form is checked */
      gostx__der nonce;
      int rc = gostx__ocsp_exts_read(&el, GOSTX__DER_CTXC(0), &nonce, GOSTX_OCSP_NONCE_MAX);
      if (rc) return rc;
    }
    req->n++;
  }
  if (tbs.n) {
    gostx__der nonce;
    int rc = gostx__ocsp_exts_read(&tbs, GOSTX__DER_CTXC(2), &nonce, GOSTX_OCSP_NONCE_MAX);
    if (rc) return rc;
    if (nonce.n) memcpy(req->nonce, nonce.p, nonce.n);
    req->nonce_len = nonce.n;
  }
  return 0;
}
