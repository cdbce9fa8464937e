/* Signed certificates and PKCS#10 requests written (RFC 5280 section 4.1,
 * RFC 2986 section 4), GOST R 34.10-2012 signatures as RFC 9215 section 2
 * has them: the AlgorithmIdentifier without parameters, the value s || r
 * (each half big-endian) as the bits of a BIT STRING. */

#include "asn1/pem.h"
#include "x509/write_internal.h"

#define OID_EXT_SKI "2.5.29.14"
#define OID_EXT_AKI "2.5.29.35"
#define OID_EXT_REQUEST "1.2.840.113549.1.9.14" /* PKCS#9 extensionRequest */

/* A key that can sign: the key object with its private part. */
int gostx__x509_key_ok(const gostx_gost3410_key *k) {
  return gostx_gost3410_key_is_private(k) && (k->len == 32 || k->len == 64) &&
         gostx_gost3410_size(k->curve) == k->len;
}

void gostx__x509_put_sig_alg(gostx__der_w *w, size_t len) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, len == 32 ? "1.2.643.7.1.1.3.2" : "1.2.643.7.1.1.3.3");
  gostx__der_w_end(w);
}

/* After the signed part (tbs at w->buf + start, up to w->n): the algorithm
 * and the signature (sign_finish then closes the outer SEQUENCE). When the writer only
 * counts (a short buffer), a signature of the right length stands in. */
int gostx__x509_sign_put(gostx__der_w *w, size_t start, const gostx_gost3410_key *k) {
  uint8_t digest[64], sig[1 + 128] = {0};
  size_t len = k->len;
  int rc = 0;
  if (w->buf && !w->err) {
    rc = gostx_streebog(len, w->buf + start, w->n - start, digest);
    if (!rc) rc = gostx_gost3410_key_sign(k, digest, len, sig + 1, 2 * len);
    if (!rc) rc = gostx_gost3410_sig_swap(sig + 1, 2 * len, sig + 1, 2 * len); /* r||s -> s||r */
  }
  gostx__x509_put_sig_alg(w, len);
  gostx__der_w_tlv(w, GOSTX__DER_BITS, sig, 1 + 2 * len); /* 0 unused bits */
  gostx_memzero(digest, sizeof digest);
  return rc;
}

size_t gostx__x509_sign_open(gostx__der_w *w, uint8_t *out, size_t cap) {
  gostx__der_w_init(w, out, cap);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  size_t start = w->n;
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  return start;
}

int gostx__x509_sign_finish(gostx__der_w *w, size_t start, const gostx_gost3410_key *k, size_t *out_len) {
  gostx__der_w_end(w); /* the tbs */
  int rc = gostx__x509_sign_put(w, start, k);
  gostx__der_w_end(w);
  return rc ? rc : gostx__der_w_finish(w, out_len);
}

/* ---- times (RFC 5280 4.1.2.5) ---- */

/* Days since 1970-01-01 to a civil date (the proleptic Gregorian calendar). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  unsigned doe = (unsigned)(days - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

int gostx__x509_put_time(gostx__der_w *w, int64_t t) { return gostx__x509_put_time_as(w, t, 0); }

int gostx__x509_put_time_as(gostx__der_w *w, int64_t t, int gen) {
  int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400, y;
  int64_t secs = t - days * 86400;
  unsigned m, d;
  civil(days, &y, &m, &d);
  if (y < 1950 || y > 9999) return GOSTX_EINVAL;
  /* digits by hand, not snprintf: an OCSP response writes three times and
   * snprintf was a visible part of the responder's time */
  char text[16], *p = text;
  int utc = y < 2050 && !gen;
  unsigned f[6] = {(unsigned)(y / 100), (unsigned)(y % 100), m, d, (unsigned)(secs / 3600),
                   (unsigned)(secs / 60 % 60)};
  for (int i = utc; i < 6; i++) *p++ = (char)('0' + f[i] / 10), *p++ = (char)('0' + f[i] % 10);
  *p++ = (char)('0' + secs % 60 / 10), *p++ = (char)('0' + secs % 10), *p++ = 'Z';
  gostx__der_w_tlv(w, utc ? GOSTX__DER_UTCTIME : GOSTX__DER_GENTIME, text, (size_t)(p - text));
  return 0;
}

/* ---- key identifiers ---- */

int gostx_x509_key_id(const uint8_t *spki, size_t spki_len, uint8_t id[20]) {
  if (!spki || !id) return GOSTX_EINVAL;
  gostx__der r = {spki, spki_len}, body, bits;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &body, NULL) || r.n ||
      gostx__der_get(&body, GOSTX__DER_SEQ, NULL, NULL) ||
      gostx__der_get(&body, GOSTX__DER_BITS, &bits, NULL) || body.n || bits.n < 1 || bits.p[0])
    return GOSTX_EFORMAT;
  uint8_t h[32];
  int rc = gostx_streebog(32, bits.p + 1, bits.n - 1, h);
  memcpy(id, h, 20);
  return rc;
}

int gostx_x509_cert_key_id(const gostx_x509_cert *cert, uint8_t *id, size_t cap, size_t *id_len) {
  if (!cert || !id || !id_len) return GOSTX_EINVAL;
  gostx__der v, ski;
  uint8_t oid[8];
  size_t oid_len;
  (void)gostx__der_oid_encode(OID_EXT_SKI, oid, sizeof oid, &oid_len);
  if (gostx__x509_cert_ext(cert, oid, oid_len, &v) && !gostx__der_get(&v, GOSTX__DER_OCTETS, &ski, NULL) &&
      !v.n && ski.n && ski.n <= 64) {
    if (ski.n > cap) return GOSTX_ELEN;
    memcpy(id, ski.p, ski.n);
    *id_len = ski.n;
    return 0;
  }
  if (cap < 20) return GOSTX_ELEN;
  *id_len = 20;
  return gostx_x509_key_id(cert->spki, cert->spki_len, id);
}

/* ---- extensions ---- */

void gostx__x509_put_ext(gostx__der_w *w, const uint8_t *oid, size_t oid_len, int critical,
                    const uint8_t *value, size_t len) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_tlv(w, GOSTX__DER_OID, oid, oid_len);
  if (critical) gostx__der_w_tlv(w, GOSTX__DER_BOOL, "\xff", 1);
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, value, len);
  gostx__der_w_end(w);
}

static void put_listed(gostx__der_w *w, const gostx_x509_exts *e) {
  for (size_t i = 0; e && i < e->n; i++)
    gostx__x509_put_ext(w, e->ext[i].oid, e->ext[i].oid_len, e->ext[i].critical, e->data + e->ext[i].off,
            e->ext[i].len);
}

/* An identifier extension: OCTET STRING (SKI) or SEQUENCE { [0] keyid }. */
static void put_key_id(gostx__der_w *w, const char *oid_text, const uint8_t *id, size_t len) {
  uint8_t oid[8], value[80];
  size_t oid_len, vlen = 0;
  gostx__der_w v;
  (void)gostx__der_oid_encode(oid_text, oid, sizeof oid, &oid_len);
  gostx__der_w_init(&v, value, sizeof value);
  int aki = !strcmp(oid_text, OID_EXT_AKI);
  if (aki) gostx__der_w_begin(&v, GOSTX__DER_SEQ);
  gostx__der_w_tlv(&v, aki ? GOSTX__DER_CTX(0) : GOSTX__DER_OCTETS, id, len);
  if (aki) gostx__der_w_end(&v);
  if (gostx__der_w_finish(&v, &vlen)) w->err = GOSTX_EINVAL;
  else gostx__x509_put_ext(w, oid, oid_len, 0, value, vlen);
}

static int put_cert_exts(gostx__der_w *w, const gostx_x509_cert_spec *s) {
  const gostx_x509_exts *e = s->exts;
  int ski = !e || e->ski, aki = (!e || e->aki) && s->issuer_key_id;
  if (!ski && !aki && (!e || !e->n)) return 0;
  uint8_t id[20];
  if (ski && gostx_x509_key_id(s->spki, s->spki_len, id)) return GOSTX_EINVAL;
  if (s->issuer_key_id_len > 64) return GOSTX_EINVAL;
  gostx__der_w_begin(w, GOSTX__DER_CTXC(3));
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  put_listed(w, e);
  if (ski) put_key_id(w, OID_EXT_SKI, id, sizeof id);
  if (aki) put_key_id(w, OID_EXT_AKI, s->issuer_key_id, s->issuer_key_id_len);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  return 0;
}

/* ---- certificates ---- */

int gostx__x509_serial_ok(const uint8_t *p, size_t n) {
  size_t nonzero = 0;
  for (size_t i = 0; i < n; i++) nonzero |= p[i];
  return p && n >= 1 && n <= 20 && !(p[0] & 0x80) && nonzero;
}

int gostx_x509_cert_write(const gostx_x509_cert_spec *s, const gostx_gost3410_key *k, uint8_t *out,
                          size_t cap, size_t *out_len) {
  if (!s || !gostx__x509_key_ok(k) || !out_len || !s->issuer || !s->subject || !s->spki ||
      !gostx__x509_serial_ok(s->serial, s->serial_len) || s->not_after < s->not_before)
    return GOSTX_EINVAL;
  gostx__der_w w;
  size_t start = gostx__x509_sign_open(&w, out, cap);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
  gostx__der_w_u32(&w, 2); /* v3 */
  gostx__der_w_end(&w);
  gostx__der_w_uint(&w, s->serial, s->serial_len);
  gostx__x509_put_sig_alg(&w, k->len);
  gostx__der_w_raw(&w, s->issuer, s->issuer_len);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  if (gostx__x509_put_time(&w, s->not_before) || gostx__x509_put_time(&w, s->not_after)) return GOSTX_EINVAL;
  gostx__der_w_end(&w);
  gostx__der_w_raw(&w, s->subject, s->subject_len);
  gostx__der_w_raw(&w, s->spki, s->spki_len);
  if (put_cert_exts(&w, s)) return GOSTX_EINVAL;
  return gostx__x509_sign_finish(&w, start, k, out_len);
}

/* ---- requests ---- */

int gostx_x509_csr_write(const gostx_x509_name *subject, const gostx_x509_exts *e,
                         const gostx_gost3410_key *k, uint8_t *out, size_t cap, size_t *out_len) {
  uint8_t spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len;
  if (!subject || !gostx__x509_key_ok(k) || !out_len || subject->len > sizeof subject->der) return GOSTX_EINVAL;
  int rc = gostx_gost3410_key_write(k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, spki,
                                    sizeof spki, &spki_len);
  if (rc) return rc;
  gostx__der_w w;
  size_t start = gostx__x509_sign_open(&w, out, cap);
  gostx__der_w_u32(&w, 0); /* v1 */
  gostx__der_w_raw(&w, subject->der, subject->len);
  gostx__der_w_raw(&w, spki, spki_len);
  gostx__der_w_begin(&w, GOSTX__DER_CTXC(0)); /* attributes, present even when empty */
  if (e && e->n) {
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    gostx__der_w_oid(&w, OID_EXT_REQUEST);
    gostx__der_w_begin(&w, GOSTX__DER_SET);
    gostx__der_w_begin(&w, GOSTX__DER_SEQ);
    put_listed(&w, e);
    gostx__der_w_end(&w);
    gostx__der_w_end(&w);
    gostx__der_w_end(&w);
  }
  gostx__der_w_end(&w);
  return gostx__x509_sign_finish(&w, start, k, out_len);
}

/* ---- PEM ---- */

int gostx_x509_to_pem(const char *label, const uint8_t *der, size_t der_len, char *out, size_t cap,
                      size_t *out_len) {
  if (!label || !der || !out_len) return GOSTX_EINVAL;
  return gostx__pem_write(label, der, der_len, out, cap, out_len);
}
