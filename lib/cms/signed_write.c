/* SignedData written as DER (RFC 5652 section 5) with the algorithms and
 * forms gost-engine writes: Streebog digests and the key's OID as the
 * signature algorithm, each with NULL parameters; the signature s || r
 * (RFC 4490 section 3.2); signingCertificateV2 with the signer's digest
 * and its issuerSerial (RFC 5035). The private key is only handed to
 * gostx_gost3410_sign. */
#include <stdio.h>

#include "cms/cms_internal.h"

/* Room for one signer's signed attributes (the issuer's Name is the only
 * part of unbounded size). */
#define ATTRS_MAX 4096
#define ATTR_COUNT 4

typedef struct span {
  const uint8_t *p;
  size_t n;
} span;

/* X.690 11.6: a SET OF in DER is in the order of its elements' encodings,
 * the shorter one first when it is a prefix of the other (its padding with
 * zero bytes could only tie; no two of our elements are that alike). */
static int span_less(span a, span b) {
  size_t m = a.n < b.n ? a.n : b.n;
  int c = memcmp(a.p, b.p, m);
  return c < 0 || (c == 0 && a.n < b.n);
}

static void sort_spans(span *s, size_t n) {
  for (size_t i = 1; i < n; i++) /* a handful of elements: insertion sort */
    for (size_t j = i; j > 0 && span_less(s[j], s[j - 1]); j--) {
      span t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
}

static void write_set(gostx__der_w *w, uint8_t tag, span *s, size_t n) {
  sort_spans(s, n);
  gostx__der_w_begin(w, tag);
  for (size_t i = 0; i < n; i++) gostx__der_w_raw(w, s[i].p, s[i].n);
  gostx__der_w_end(w);
}

static const char *digest_oid(size_t len) { return len == 32 ? "1.2.643.7.1.1.2.2" : "1.2.643.7.1.1.2.3"; }
static const char *key_oid(size_t len) { return len == 32 ? "1.2.643.7.1.1.1.1" : "1.2.643.7.1.1.1.2"; }

static void write_alg(gostx__der_w *w, const char *oid) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, oid);
  gostx__der_w_tlv(w, GOSTX__DER_NULL, NULL, 0);
  gostx__der_w_end(w);
}

/* RFC 5652 section 11.3: UTCTime for 1950..2049, GeneralizedTime else. */
static void write_time(gostx__der_w *w, int64_t t) {
  int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400, secs = t - days * 86400;
  /* days since 1970 to a civil date (the proleptic Gregorian calendar) */
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1, mon = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (mon <= 2);
  char text[32];
  int utc = year >= 1950 && year < 2050;
  int n = snprintf(text, sizeof text, "%0*lld%02d%02d%02d%02d%02dZ", utc ? 2 : 4,
                   (long long)(utc ? year % 100 : year), (int)mon, (int)day, (int)(secs / 3600),
                   (int)(secs / 60 % 60), (int)(secs % 60));
  if (!utc && (year < 0 || year > 9999)) {
    w->err = w->err ? w->err : GOSTX_EINVAL; /* GeneralizedTime has four digits */
    return;
  }
  gostx__der_w_tlv(w, utc ? GOSTX__DER_UTCTIME : GOSTX__DER_GENTIME, text, (size_t)n);
}

/* One Attribute into its own writer: SEQUENCE { OID, SET { value } }. */
void gostx__cms_attr_begin(gostx__der_w *w, const char *oid) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, oid);
  gostx__der_w_begin(w, GOSTX__DER_SET);
}

void gostx__cms_attr_end(gostx__der_w *w) {
  gostx__der_w_end(w);
  gostx__der_w_end(w);
}

void gostx__cms_write_issuer_serial(gostx__der_w *w, const gostx_x509_cert *cert) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(4));
  gostx__der_w_raw(w, cert->issuer, cert->issuer_len);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_tlv(w, GOSTX__DER_INT, cert->serial, cert->serial_len);
  gostx__der_w_end(w);
}

/* SigningCertificateV2 { certs { ESSCertIDv2 { hashAlgorithm, certHash,
 * issuerSerial { GeneralNames { [4] Name }, serial } } } } */
static void signing_cert_v2(gostx__der_w *w, const gostx_x509_cert *cert, size_t len) {
  uint8_t h[64];
  gostx_streebog(len, cert->der, cert->der_len, h);
  gostx__cms_attr_begin(w, "1.2.840.113549.1.9.16.2.47");
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  write_alg(w, digest_oid(len));
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, h, len);
  gostx__cms_write_issuer_serial(w, cert);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__der_w_end(w);
  gostx__cms_attr_end(w);
}

/* The signed attributes as a DER SET OF into set[ATTRS_MAX] (what the
 * signature covers; written as [0] in the SignerInfo). */
static int signed_attrs(const gostx_x509_cert *cert, const uint8_t *md, size_t len,
                        const gostx_cms_sign_params *p, const char *type, uint8_t *set,
                        size_t *set_len) {
  uint8_t arena[ATTRS_MAX];
  span s[ATTR_COUNT];
  size_t n = 0, used = 0, l;
  for (int which = 0; which < ATTR_COUNT; which++) {
    gostx__der_w w;
    gostx__der_w_init(&w, arena + used, sizeof arena - used);
    if (which == 0) {
      gostx__cms_attr_begin(&w, "1.2.840.113549.1.9.3");
      gostx__der_w_oid(&w, type);
    } else if (which == 1) {
      if (p->flags & GOSTX_CMS_NO_SIGNING_TIME) continue;
      gostx__cms_attr_begin(&w, "1.2.840.113549.1.9.5");
      write_time(&w, p->signing_time);
    } else if (which == 2) {
      gostx__cms_attr_begin(&w, "1.2.840.113549.1.9.4");
      gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, md, len);
    } else {
      if (!(p->flags & GOSTX_CMS_CADES)) continue;
      signing_cert_v2(&w, cert, len);
      goto done; /* closed by signing_cert_v2 */
    }
    gostx__cms_attr_end(&w);
  done:
    if (gostx__der_w_finish(&w, &l)) return GOSTX_EUNSUP; /* a Name of kilobytes */
    s[n].p = arena + used, s[n++].n = l;
    used += l;
  }
  gostx__der_w w;
  gostx__der_w_init(&w, set, ATTRS_MAX);
  write_set(&w, GOSTX__DER_SET, s, n);
  return gostx__der_w_finish(&w, set_len) ? GOSTX_EUNSUP : 0;
}

/* The signature of digest as s || r; zeros when only counting. */
static int sign_digest(const gostx_gost3410_key *key, const uint8_t *digest, uint8_t *sig, int count) {
  size_t len = key->len;
  memset(sig, 0, 2 * len);
  if (count) return 0;
  int rc = gostx_gost3410_key_sign(key, digest, len, sig, 2 * len);
  if (!rc) rc = gostx_gost3410_sig_swap(sig, 2 * len, sig, 2 * len);
  return rc;
}

void gostx__cms_w_open(gostx__der_w *w, uint8_t *out, size_t cap, const char *type) {
  gostx__der_w_init(w, out, out ? cap : 0);
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_oid(w, type);
  gostx__der_w_begin(w, GOSTX__DER_CTXC(0));
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
}

void gostx__cms_w_close(gostx__der_w *w) {
  for (int i = 0; i < 3; i++) gostx__der_w_end(w);
}

void gostx__cms_write_ias(gostx__der_w *w, const gostx_x509_cert *cert) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_raw(w, cert->issuer, cert->issuer_len);
  gostx__der_w_tlv(w, GOSTX__DER_INT, cert->serial, cert->serial_len);
  gostx__der_w_end(w);
}

static void write_signer_info(gostx__der_w *w, const gostx_x509_cert *cert, size_t len,
                              const uint8_t *attrs, size_t attrs_len, const uint8_t *sig) {
  gostx__der_w_begin(w, GOSTX__DER_SEQ);
  gostx__der_w_u32(w, 1); /* issuerAndSerialNumber */
  gostx__cms_write_ias(w, cert);
  write_alg(w, digest_oid(len));
  gostx__der set = {attrs, attrs_len}, content;
  if (attrs && !gostx__der_get(&set, GOSTX__DER_SET, &content, NULL)) /* re-tagged [0] IMPLICIT */
    gostx__der_w_tlv(w, GOSTX__DER_CTXC(0), content.p, content.n);
  write_alg(w, key_oid(len));
  gostx__der_w_tlv(w, GOSTX__DER_OCTETS, sig, 2 * len);
  gostx__der_w_end(w);
}

/* One signer: its attributes, its signature, its SignerInfo into w. */
static int one_signer(gostx__der_w *w, const gostx_cms_signer *s, const gostx_cms_sign_params *p,
                      const char *type, const uint8_t *md, int count) {
  uint8_t attrs[ATTRS_MAX], digest[64], sig[128];
  size_t len = s->key->len, attrs_len = 0;
  int rc = 0;
  if (!(p->flags & GOSTX_CMS_NO_ATTRS)) {
    rc = signed_attrs(s->cert, md, len, p, type, attrs, &attrs_len);
    if (!rc) gostx_streebog(len, attrs, attrs_len, digest);
  } else {
    memcpy(digest, md, len);
  }
  if (!rc) rc = sign_digest(s->key, digest, sig, count);
  if (!rc) write_signer_info(w, s->cert, len, p->flags & GOSTX_CMS_NO_ATTRS ? NULL : attrs, attrs_len, sig);
  gostx_memzero(digest, sizeof digest);
  return rc;
}

/* The key is the certificate's, and of a size we sign with. */
static int signer_ok(const gostx_cms_signer *s) {
  const gostx_gost3410_key *k = s->key;
  if (!s->cert || !gostx_gost3410_key_is_private(k) || s->cert->key_alg == GOSTX_X509_KEY_2001) return 0;
  return s->cert->curve == k->curve && s->cert->pub_len == 2 * k->len &&
         memcmp(s->cert->pub, k->q, 2 * k->len) == 0;
}

/* The certificates: the signers' (unless NO_CERTS), then the caller's,
 * each once, in DER order. */
static void write_certs(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns,
                        const gostx_cms_sign_params *p) {
  span s[GOSTX_CMS_MAX_SIGNERS + GOSTX_CMS_MAX_CERTS];
  size_t n = 0;
  for (size_t i = 0; i < ns + p->n_certs && n < sizeof s / sizeof s[0]; i++) {
    if (i < ns && (p->flags & GOSTX_CMS_NO_CERTS)) continue;
    const gostx_x509_cert *c = i < ns ? signers[i].cert : &p->certs[i - ns];
    int dup = 0;
    for (size_t j = 0; j < n; j++) dup |= s[j].n == c->der_len && !memcmp(s[j].p, c->der, c->der_len);
    if (!dup) s[n].p = c->der, s[n++].n = c->der_len;
  }
  if (n) write_set(w, GOSTX__DER_CTXC(0), s, n);
}

static void write_digest_algs(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns) {
  unsigned sizes = 0;
  for (size_t i = 0; i < ns; i++) sizes |= signers[i].key->len == 32 ? 1u : 2u;
  gostx__der_w_begin(w, GOSTX__DER_SET); /* 1.2.643.7.1.1.2.2 sorts before .2.3 */
  if (sizes & 1u) write_alg(w, digest_oid(32));
  if (sizes & 2u) write_alg(w, digest_oid(64));
  gostx__der_w_end(w);
}

unsigned gostx__cms_signers_want(const gostx_cms_signer *signers, size_t ns) {
  unsigned want = 0;
  for (size_t i = 0; i < ns; i++) want |= signers[i].key->len == 32 ? GOSTX_CMS_HASH_256 : GOSTX_CMS_HASH_512;
  return want;
}

/* The content's digests each signer needs, from the caller or made here. */
static int content_hash(const gostx_cms_signer *signers, size_t ns, const gostx_cms_hash *hash,
                        const uint8_t *content, size_t content_len, gostx_cms_hash *h) {
  unsigned want = gostx__cms_signers_want(signers, ns);
  if (hash) {
    if (!hash->done || (hash->want & want) != want) return GOSTX_EINVAL;
    *h = *hash;
    return 0;
  }
  if (!content && content_len) return GOSTX_EINVAL;
  int rc = gostx_cms_hash_init(h, want);
  if (!rc) rc = gostx_cms_hash_update(h, content ? content : (const uint8_t *)"", content_len);
  if (!rc) rc = gostx_cms_hash_final(h);
  return rc;
}

void gostx__cms_signed_head(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns,
                            const char *type) {
  /* RFC 5652 5.1: 1 for id-data (issuerAndSerialNumber, no v2 extras), 3 for another type */
  gostx__der_w_u32(w, strcmp(type, OID_DATA_TEXT) ? 3 : 1);
  write_digest_algs(w, signers, ns);
}

int gostx__cms_signed_tail(gostx__der_w *w, const gostx_cms_signer *signers, size_t ns,
                           const gostx_cms_sign_params *p, const char *type,
                           const gostx_cms_hash *h, int count) {
  write_certs(w, signers, ns, p);
  /* signerInfos in the caller's order: RFC 5652 asks DER only of the
   * signed attributes, and a SignerInfo is too large to sort in place */
  gostx__der_w_begin(w, GOSTX__DER_SET);
  int rc = 0;
  for (size_t i = 0; i < ns && !rc; i++)
    rc = one_signer(w, &signers[i], p, type, signers[i].key->len == 32 ? h->d256 : h->d512, count);
  gostx__der_w_end(w);
  return rc;
}

int gostx__cms_sign_args_ok(const gostx_cms_signer *signers, size_t n_signers,
                            const gostx_cms_sign_params *p) {
  if (!signers || n_signers == 0 || n_signers > GOSTX_CMS_MAX_SIGNERS || (p->n_certs && !p->certs) ||
      ((p->flags & GOSTX_CMS_NO_ATTRS) && (p->flags & GOSTX_CMS_CADES)))
    return 0;
  for (size_t i = 0; i < n_signers; i++)
    if (!signer_ok(&signers[i])) return 0;
  return 1;
}

int gostx__cms_sign_typed(const gostx_cms_signer *signers, size_t n_signers,
                          const gostx_cms_sign_params *params, const char *type,
                          const gostx_cms_hash *hash, const uint8_t *content, size_t content_len,
                          uint8_t *out, size_t cap, size_t *out_len) {
  const gostx_cms_sign_params *p = params ? params : &gostx__cms_sign_defaults;
  int attached = (p->flags & GOSTX_CMS_ATTACHED) != 0, count = out == NULL;
  if (!out_len || (attached && !content && content_len) || !gostx__cms_sign_args_ok(signers, n_signers, p))
    return GOSTX_EINVAL;
  gostx_cms_hash h;
  memset(&h, 0, sizeof h);
  if (!count && content_hash(signers, n_signers, hash, content, content_len, &h)) return GOSTX_EINVAL;
  gostx__der_w w;
  gostx__cms_w_open(&w, out, cap, "1.2.840.113549.1.7.2");
  gostx__cms_signed_head(&w, signers, n_signers, type);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__der_w_oid(&w, type);
  if (attached) {
    gostx__der_w_begin(&w, GOSTX__DER_CTXC(0));
    gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, content, content_len);
    gostx__der_w_end(&w);
  }
  gostx__der_w_end(&w);
  int rc = gostx__cms_signed_tail(&w, signers, n_signers, p, type, &h, count);
  gostx__cms_w_close(&w);
  if (rc) return rc;
  return gostx__der_w_finish(&w, out_len);
}

int gostx_cms_sign(const gostx_cms_signer *signers, size_t n_signers,
                   const gostx_cms_sign_params *params, const gostx_cms_hash *hash,
                   const uint8_t *content, size_t content_len, uint8_t *out, size_t cap,
                   size_t *out_len) {
  return gostx__cms_sign_typed(signers, n_signers, params, OID_DATA_TEXT, hash, content,
                               content_len, out, cap, out_len);
}

const gostx_cms_sign_params gostx__cms_sign_defaults = {0, 0, NULL, 0};
