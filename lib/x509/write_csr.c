/* PKCS#10 requests read (RFC 2986 section 4) for `gostx x509 -req`: the
 * structure checked as strictly as certificates are (DER, version 0), the
 * key a GOST R 34.10-2012 one, the signature checked with that key before
 * anything is issued from it. Requests are public data. */
#include "asn1/pem.h"
#include "gost3410/keys_der.h"
#include "x509/write_internal.h"

#define OID_EXT_REQUEST_DER "\x2a\x86\x48\x86\xf7\x0d\x01\x09\x0e" /* 1.2.840.113549.1.9.14 */

/* One Extension: OID, critical (TRUE only, DER), extnValue. */
static int get_ext(gostx__der *seq, gostx__der *oid, int *critical, gostx__der *value) {
  gostx__der ext;
  *critical = 0;
  if (gostx__der_get(seq, GOSTX__DER_SEQ, &ext, NULL) || gostx__der_oid(&ext, oid))
    return GOSTX_EFORMAT;
  if (gostx__der_peek(&ext, GOSTX__DER_BOOL) && (gostx__der_bool(&ext, critical) || !*critical))
    return GOSTX_EFORMAT;
  if (gostx__der_get(&ext, GOSTX__DER_OCTETS, value, NULL) || ext.n) return GOSTX_EFORMAT;
  return 0;
}

/* Extensions: at least one, each OID once. */
static int check_exts(gostx__der exts) {
  gostx__der seen[GOSTX_X509_EXTS_MAX * 4], oid, value;
  size_t n = 0;
  int critical;
  if (!exts.n) return GOSTX_EFORMAT;
  while (exts.n) {
    if (get_ext(&exts, &oid, &critical, &value) || n == sizeof seen / sizeof seen[0])
      return GOSTX_EFORMAT;
    for (size_t i = 0; i < n; i++)
      if (gostx__der_oid_is(seen[i], oid.p, oid.n)) return GOSTX_EFORMAT;
    seen[n++] = oid;
  }
  return 0;
}

/* attributes [0] SET OF Attribute: extensionRequest kept (once), the
 * others (challengePassword, ...) passed over. */
static int get_attributes(gostx__der attrs, gostx_x509_csr *c) {
  while (attrs.n) {
    gostx__der attr, type, values, exts, whole;
    if (gostx__der_get(&attrs, GOSTX__DER_SEQ, &attr, NULL) || gostx__der_oid(&attr, &type) ||
        gostx__der_get(&attr, GOSTX__DER_SET, &values, NULL) || attr.n || !values.n)
      return GOSTX_EFORMAT;
    if (!GOSTX__DER_OID_IS(type, OID_EXT_REQUEST_DER)) continue;
    if (c->exts || gostx__der_get(&values, GOSTX__DER_SEQ, &exts, &whole) || values.n ||
        check_exts(exts))
      return GOSTX_EFORMAT;
    c->exts = whole.p;
    c->exts_len = whole.n;
  }
  return 0;
}

static int get_info(gostx__der info, gostx_x509_csr *c) {
  gostx__der name, spki, attrs;
  int version;
  char text[8];
  if (gostx__der_small_uint(&info, &version) || version != 0 ||
      gostx__der_get(&info, GOSTX__DER_SEQ, NULL, &name) ||
      gostx_x509_name_text(name.p, name.n, text, sizeof text) ||
      gostx__der_get(&info, GOSTX__DER_SEQ, NULL, &spki) ||
      gostx__der_get(&info, GOSTX__DER_CTXC(0), &attrs, NULL) || info.n)
    return GOSTX_EFORMAT;
  c->subject = name.p;
  c->subject_len = name.n;
  c->spki = spki.p;
  c->spki_len = spki.n;
  gostx_gost3410_key key; /* the key object's DER reader: no PEM, no PBES2 here */
  int rc = gostx__key_from_der(&key, spki.p, spki.n);
  if (rc == GOSTX_EUNSUP) return GOSTX_EUNSUP;
  if (rc || key.has_private) {
    gostx_gost3410_key_clear(&key);
    return GOSTX_EFORMAT;
  }
  c->curve = key.curve;
  c->len = key.len;
  memcpy(c->pub, key.q, 2 * key.len);
  return get_attributes(attrs, c);
}

/* signatureAlgorithm: a 2012 one of the key's size; parameters absent or NULL. */
static int get_sig_alg(gostx__der *r, gostx_x509_csr *c) {
  gostx__der seq, oid, null;
  if (gostx__der_get(r, GOSTX__DER_SEQ, &seq, NULL) || gostx__der_oid(&seq, &oid) ||
      (seq.n && (gostx__der_get(&seq, GOSTX__DER_NULL, &null, NULL) || null.n || seq.n)))
    return GOSTX_EFORMAT;
  if (GOSTX__DER_OID_IS(oid, OID_SIG_2012_256) && c->len == 32)
    c->sig_alg = GOSTX_X509_SIG_2012_256;
  else if (GOSTX__DER_OID_IS(oid, OID_SIG_2012_512) && c->len == 64)
    c->sig_alg = GOSTX_X509_SIG_2012_512;
  else
    return GOSTX_EUNSUP;
  return 0;
}

static int check_signature(const gostx_x509_csr *c) {
  uint8_t digest[64], sig[128];
  size_t len = c->len;
  int rc = gostx_streebog(len, c->info, c->info_len, digest);
  if (!rc) rc = gostx_gost3410_sig_swap(c->sig_value, 2 * len, sig, 2 * len);
  if (!rc) rc = gostx_gost3410_verify(c->curve, c->pub, 2 * len, digest, len, sig, 2 * len);
  return rc ? GOSTX_EAUTH : 0;
}

int gostx_x509_csr_parse(const uint8_t *der, size_t der_len, gostx_x509_csr *out) {
  if (!der || !out) return GOSTX_EINVAL;
  gostx_x509_csr c;
  memset(&c, 0, sizeof c);
  gostx__der all = {der, der_len}, req, info, info_whole, bits;
  if (gostx__der_get(&all, GOSTX__DER_SEQ, &req, NULL) || all.n ||
      gostx__der_get(&req, GOSTX__DER_SEQ, &info, &info_whole))
    return GOSTX_EFORMAT;
  c.info = info_whole.p;
  c.info_len = info_whole.n;
  int rc = get_info(info, &c);
  if (!rc) rc = get_sig_alg(&req, &c);
  if (rc) return rc;
  if (gostx__der_get(&req, GOSTX__DER_BITS, &bits, NULL) || req.n || bits.n != 1 + 2 * c.len ||
      bits.p[0])
    return GOSTX_EFORMAT;
  c.sig_value = bits.p + 1;
  c.sig_value_len = 2 * c.len;
  rc = check_signature(&c);
  if (rc) return rc;
  memcpy(out, &c, sizeof c);
  return 0;
}

int gostx_x509_csr_ext_next(const gostx_x509_csr *csr, size_t *pos, const uint8_t **oid,
                            size_t *oid_len, int *critical, const uint8_t **value,
                            size_t *value_len) {
  if (!csr || !pos || !oid || !oid_len || !critical || !value || !value_len) return GOSTX_EINVAL;
  gostx__der all = {csr->exts, csr->exts_len}, seq, o, v;
  if (!csr->exts || gostx__der_get(&all, GOSTX__DER_SEQ, &seq, NULL) || *pos >= seq.n) return 0;
  seq.p += *pos;
  seq.n -= *pos;
  size_t before = seq.n;
  if (get_ext(&seq, &o, critical, &v)) return GOSTX_EFORMAT; /* not from csr_parse */
  *pos += before - seq.n;
  *oid = o.p, *oid_len = o.n, *value = v.p, *value_len = v.n;
  return 1;
}

int gostx_x509_csr_pem_next(const char *pem, size_t pem_len, size_t *pos, uint8_t *der,
                            size_t cap, size_t *der_len) {
  if (!pem || !pos || !der || !der_len || *pos > pem_len) return GOSTX_EINVAL;
  size_t start = *pos;
  int rc = gostx__pem_block(pem, pem_len, pos, "CERTIFICATE REQUEST", der, cap, der_len);
  if (rc) return rc;
  *pos = start; /* openssl's older label */
  return gostx__pem_block(pem, pem_len, pos, "NEW CERTIFICATE REQUEST", der, cap, der_len);
}
