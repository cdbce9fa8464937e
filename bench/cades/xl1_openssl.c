/* bench/cades/xl1_openssl.c: the peer of xl1_gostx.c, OpenSSL 3's
 * libcrypto with gost-engine (OPENSSL_CONF: tests/support/gost_engine.cnf),
 * the same CAdES-X Long Type 1 checks on the same file, in one process per
 * iteration:
 *   1. CMS_verify: the signature over the detached document, the signer's
 *      chain to the trust anchor now (and its signingCertificateV2);
 *   2. every signature-time-stamp (id-aa-signatureTimeStampToken) by
 *      TS_RESP_verify_token: the TSA's signature and chain, the imprint
 *      against Streebog-256 (EVP md_gost12_256) of the signature value;
 *   3. the references against the values: each complete-certificate-
 *      reference's hash against a certificate of certificate-values or the
 *      SignedData (EVP digest over its DER, issuerSerial when given), each
 *      complete-revocation-reference's against a revocation value; one
 *      CrlOcspRef for the signer and one per certificate reference;
 *   4. the CAdES-C-time-stamp: its token as in 2., the imprint over the
 *      signature value and the signature-time-stamp, complete-certificate-
 *      and complete-revocation-references attributes (RFC 5126 6.3.5), not
 *      older than the signature-time-stamp;
 *   5. the signer's chain again at the signature-time-stamp's genTime
 *      (X509_STORE_CTX_set_time), the certificates of certificate-values
 *      as intermediates, and for each but the anchor a status from the
 *      revocation values: an OCSP response (OCSP_basic_verify,
 *      OCSP_resp_find_status, OCSP_check_validity) or a CRL of its issuer
 *      (X509_CRL_verify, X509_CRL_get0_by_cert); good, or revoked after
 *      genTime.
 * The RFC 5126 attributes are read from the SignerInfo's unsigned
 * attributes with libcrypto's DER primitives (ASN1_get_object, d2i_*).
 *
 * Usage: xl1_openssl SIG.der DOC CAFILE [SECONDS] [ROUNDS]
 * Prints "openssl: N ops/CPU-s (median of R rounds)"; exit 1 when a
 * check fails (which one said on stderr). */
#define _GNU_SOURCE /* timegm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/asn1.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ocsp.h>
#include <openssl/pem.h>
#include <openssl/ts.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "xl1_run.h"

#define MAXV 16 /* entries per list, as GOSTX_CADES_MAX */

/* id-aa 1.2.840.113549.1.9.16.2.N */
#define AA(n) "1.2.840.113549.1.9.16.2." #n
enum { SIG_TS, CERT_REFS, REV_REFS, CERT_VALUES, REV_VALUES, ESC_TS, N_ATTRS };
static const char *const attr_oid[N_ATTRS] = {AA(14), AA(21), AA(22), AA(23), AA(24), AA(25)};
static ASN1_OBJECT *attr_obj[N_ATTRS];

static int fail(const char *what) {
  fprintf(stderr, "xl1_openssl: %s\n", what);
  ERR_print_errors_fp(stderr);
  return 1;
}

/* ---- DER walking: a TLV at *p within end ---- */
typedef struct tlv {
  const unsigned char *start, *body, *end; /* the element, its content, past it */
  int tag, cls;
} tlv;

static int next_tlv(const unsigned char **p, const unsigned char *end, tlv *t) {
  long len;
  int tag, cls;
  const unsigned char *q = *p;
  if (q >= end || (ASN1_get_object(&q, &len, &tag, &cls, end - *p) & 0x80)) return 0;
  t->start = *p, t->body = q, t->end = q + len, t->tag = tag, t->cls = cls;
  *p = t->end;
  return 1;
}

/* The content of a constructed element of tag (universal, or context when cls given). */
static int enter(const unsigned char **p, const unsigned char *end, int tag, int cls, tlv *t) {
  return next_tlv(p, end, t) && t->tag == tag && t->cls == cls;
}

/* An OtherHash: sha1Hash OCTET STRING or OtherHashAlgAndValue. */
typedef struct other_hash {
  const EVP_MD *md;
  unsigned char value[64];
  int len;
} other_hash;

static int read_other_hash(const unsigned char **p, const unsigned char *end, other_hash *h) {
  tlv t, v;
  const unsigned char *q = *p;
  if (!next_tlv(&q, end, &t)) return 0;
  if (t.tag == V_ASN1_OCTET_STRING && t.cls == V_ASN1_UNIVERSAL) {
    h->md = EVP_sha1();
    v = t;
  } else if (t.tag == V_ASN1_SEQUENCE) {
    const unsigned char *r = t.body;
    X509_ALGOR *alg = d2i_X509_ALGOR(NULL, &r, t.end - r);
    if (!alg) return 0;
    h->md = EVP_get_digestbyobj(alg->algorithm);
    X509_ALGOR_free(alg);
    if (!h->md || !enter(&r, t.end, V_ASN1_OCTET_STRING, V_ASN1_UNIVERSAL, &v)) return 0;
  } else {
    return 0;
  }
  if (v.end - v.body > 64) return 0;
  h->len = (int)(v.end - v.body);
  memcpy(h->value, v.body, h->len);
  *p = q;
  return 1;
}

static int hash_is(const other_hash *h, const unsigned char *der, size_t len) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned n;
  return EVP_Digest(der, len, md, &n, h->md, NULL) && (int)n == h->len && !memcmp(md, h->value, n);
}

/* ---- one iteration's state ---- */
typedef struct xl1 {
  CMS_ContentInfo *cms;
  CMS_SignerInfo *si;
  X509 *signer;
  X509_ATTRIBUTE *attr[N_ATTRS][MAXV]; /* the signer's unsigned attributes of interest */
  int n_attr[N_ATTRS];
  STACK_OF(X509) *certs; /* certificate-values' and the SignedData's */
  STACK_OF(X509_CRL) *crls;
  OCSP_BASICRESP *ocsps[MAXV];
  const unsigned char *ocsp_der[MAXV];
  size_t ocsp_len[MAXV];
  int n_ocsps;
  time_t sig_time; /* the earliest signature-time-stamp's genTime */
} xl1;

static const unsigned char *attr_value(X509_ATTRIBUTE *a, size_t *len) {
  ASN1_TYPE *t = X509_ATTRIBUTE_count(a) == 1 ? X509_ATTRIBUTE_get0_type(a, 0) : NULL;
  if (!t || t->type != V_ASN1_SEQUENCE) return NULL;
  *len = (size_t)t->value.sequence->length;
  return t->value.sequence->data;
}

static int read_attrs(xl1 *x) {
  for (int i = 0; i < CMS_unsigned_get_attr_count(x->si); i++) {
    X509_ATTRIBUTE *a = CMS_unsigned_get_attr(x->si, i);
    for (int k = 0; k < N_ATTRS; k++)
      if (!OBJ_cmp(X509_ATTRIBUTE_get0_object(a), attr_obj[k])) {
        if (x->n_attr[k] == MAXV || (k != SIG_TS && k != ESC_TS && x->n_attr[k]))
          return fail("an RFC 5126 attribute repeated");
        x->attr[k][x->n_attr[k]++] = a;
      }
  }
  for (int k = 0; k < N_ATTRS; k++)
    if (!x->n_attr[k]) return fail("not CAdES-X Long Type 1: an attribute is missing");
  return 0;
}

/* certificate-values: SEQUENCE OF Certificate, into x->certs */
static int read_cert_values(xl1 *x) {
  size_t len;
  tlv seq, c;
  const unsigned char *p = attr_value(x->attr[CERT_VALUES][0], &len), *end = p + len;
  if (!p || !enter(&p, end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &seq)) return fail("certificate-values: malformed");
  for (p = seq.body; next_tlv(&p, seq.end, &c);) {
    const unsigned char *q = c.start;
    X509 *cert = d2i_X509(NULL, &q, c.end - c.start);
    if (!cert || !sk_X509_push(x->certs, cert)) return X509_free(cert), fail("certificate-values: a certificate");
  }
  return p == seq.end ? 0 : fail("certificate-values: malformed");
}

/* revocation-values: [0] CRLs, [1] BasicOCSPResponses */
static int read_rev_values(xl1 *x) {
  size_t len;
  tlv seq, list, e;
  const unsigned char *p = attr_value(x->attr[REV_VALUES][0], &len), *end = p + len;
  if (!p || !enter(&p, end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &seq)) return fail("revocation-values: malformed");
  for (p = seq.body; next_tlv(&p, seq.end, &list);) {
    const unsigned char *q = list.body;
    tlv inner;
    if (list.cls != V_ASN1_CONTEXT_SPECIFIC || !enter(&q, list.end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &inner))
      return fail("revocation-values: malformed");
    for (q = inner.body; next_tlv(&q, inner.end, &e);) {
      const unsigned char *d = e.start;
      if (list.tag == 0) {
        X509_CRL *crl = d2i_X509_CRL(NULL, &d, e.end - e.start);
        if (!crl || !sk_X509_CRL_push(x->crls, crl)) return X509_CRL_free(crl), fail("revocation-values: a CRL");
      } else if (list.tag == 1) {
        if (x->n_ocsps == MAXV || !(x->ocsps[x->n_ocsps] = d2i_OCSP_BASICRESP(NULL, &d, e.end - e.start)))
          return fail("revocation-values: an OCSP response");
        x->ocsp_der[x->n_ocsps] = e.start, x->ocsp_len[x->n_ocsps++] = (size_t)(e.end - e.start);
      }
    }
  }
  return 0;
}

/* ---- timestamps ---- */
/* A TimeStampToken (ContentInfo) over data: TS_RESP_verify_token with the
 * TSA's signature and chain (store), its imprint against the digest of
 * data by the imprint's algorithm (Streebog-256 here); *gen its genTime. */
static int check_token(const unsigned char *der, size_t len, const unsigned char *data, size_t data_len,
                       X509_STORE *store, time_t *gen, const char *what) {
  const unsigned char *p = der;
  PKCS7 *token = d2i_PKCS7(NULL, &p, (long)len);
  TS_TST_INFO *tst = token ? PKCS7_to_TS_TST_INFO(token) : NULL;
  TS_VERIFY_CTX *ctx = TS_VERIFY_CTX_new();
  unsigned char *imprint = OPENSSL_malloc(EVP_MAX_MD_SIZE);
  unsigned n = 0;
  int ok = 0;
  if (tst && ctx && imprint) {
    TS_MSG_IMPRINT *mi = TS_TST_INFO_get_msg_imprint(tst);
    const EVP_MD *md = EVP_get_digestbyobj(TS_MSG_IMPRINT_get_algo(mi)->algorithm);
    struct tm tm;
    if (md && EVP_Digest(data, data_len, imprint, &n, md, NULL) && X509_STORE_up_ref(store)) {
      TS_VERIFY_CTX_set_store(ctx, store); /* the context's reference, freed with it */
      TS_VERIFY_CTX_set_imprint(ctx, imprint, n);
      imprint = NULL;
      TS_VERIFY_CTX_set_flags(ctx, TS_VFY_VERSION | TS_VFY_SIGNATURE | TS_VFY_IMPRINT);
      ok = TS_RESP_verify_token(ctx, token) == 1 && ASN1_TIME_to_tm(TS_TST_INFO_get_time(tst), &tm);
      if (ok) *gen = timegm(&tm);
    }
  }
  OPENSSL_free(imprint);
  TS_VERIFY_CTX_free(ctx);
  TS_TST_INFO_free(tst);
  PKCS7_free(token);
  return ok ? 0 : fail(what);
}

/* An attribute's DER without its SEQUENCE's tag and length (RFC 5126 6.3.5 notes 1, 2), appended. */
static int append_attr(X509_ATTRIBUTE *a, unsigned char **buf, size_t *len) {
  unsigned char *der = NULL;
  int n = i2d_X509_ATTRIBUTE(a, &der);
  const unsigned char *p = der;
  tlv t;
  int ok = n > 0 && next_tlv(&p, der + n, &t);
  unsigned char *grown = ok ? realloc(*buf, *len + (size_t)(t.end - t.body)) : NULL;
  if (grown) {
    memcpy(grown + *len, t.body, t.end - t.body);
    *buf = grown, *len += (size_t)(t.end - t.body);
  }
  OPENSSL_free(der);
  return grown ? 0 : 1;
}

static int check_timestamps(xl1 *x, X509_STORE *store) {
  const ASN1_OCTET_STRING *sig = CMS_SignerInfo_get0_signature(x->si);
  x->sig_time = 0;
  for (int i = 0; i < x->n_attr[SIG_TS]; i++) {
    size_t len;
    time_t t;
    const unsigned char *tok = attr_value(x->attr[SIG_TS][i], &len);
    if (!tok || check_token(tok, len, sig->data, (size_t)sig->length, store, &t, "signature-time-stamp: does not verify"))
      return 1;
    if (!i || t < x->sig_time) x->sig_time = t;
  }
  /* the CAdES-C-time-stamp's data: signature value, signature-time-stamps, both complete refs */
  unsigned char *data = malloc((size_t)sig->length);
  size_t len = (size_t)sig->length;
  int rc = data ? 0 : 1;
  if (data) memcpy(data, sig->data, len);
  for (int i = 0; !rc && i < x->n_attr[SIG_TS]; i++) rc = append_attr(x->attr[SIG_TS][i], &data, &len);
  if (!rc) rc = append_attr(x->attr[CERT_REFS][0], &data, &len);
  if (!rc) rc = append_attr(x->attr[REV_REFS][0], &data, &len);
  for (int i = 0; !rc && i < x->n_attr[ESC_TS]; i++) {
    size_t tlen;
    time_t t;
    const unsigned char *tok = attr_value(x->attr[ESC_TS][i], &tlen);
    rc = !tok || check_token(tok, tlen, data, len, store, &t, "CAdES-C-time-stamp: does not verify");
    if (!rc && t < x->sig_time) rc = fail("CAdES-C-time-stamp: older than the signature-time-stamp");
  }
  free(data);
  return rc;
}

/* ---- references against values ---- */
static int issuer_serial_is(const unsigned char *p, const unsigned char *end, X509 *c) {
  const unsigned char *q = p;
  tlv seq;
  if (!enter(&q, end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &seq)) return 0;
  q = seq.body;
  GENERAL_NAMES *gn = d2i_GENERAL_NAMES(NULL, &q, seq.end - q);
  ASN1_INTEGER *serial = gn ? d2i_ASN1_INTEGER(NULL, &q, seq.end - q) : NULL;
  GENERAL_NAME *name = gn && sk_GENERAL_NAME_num(gn) == 1 ? sk_GENERAL_NAME_value(gn, 0) : NULL;
  int same = serial && name && name->type == GEN_DIRNAME &&
             !X509_NAME_cmp(name->d.directoryName, X509_get_issuer_name(c)) &&
             !ASN1_INTEGER_cmp(serial, X509_get0_serialNumber(c));
  ASN1_INTEGER_free(serial);
  GENERAL_NAMES_free(gn);
  return same;
}

/* complete-certificate-references: each OtherCertID met by a certificate; *n their count */
static int check_cert_refs(xl1 *x, int *n) {
  size_t len;
  tlv seq, id;
  const unsigned char *p = attr_value(x->attr[CERT_REFS][0], &len), *end = p + len;
  if (!p || !enter(&p, end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &seq)) return fail("certificate-references: malformed");
  for (*n = 0, p = seq.body; next_tlv(&p, seq.end, &id); ++*n) {
    const unsigned char *q = id.body;
    other_hash h;
    int met = 0;
    if (!read_other_hash(&q, id.end, &h)) return fail("certificate-references: a hash");
    for (int i = 0; !met && i < sk_X509_num(x->certs); i++) {
      X509 *c = sk_X509_value(x->certs, i);
      unsigned char *der = NULL;
      int dlen = i2d_X509(c, &der);
      met = dlen > 0 && hash_is(&h, der, (size_t)dlen) && (q == id.end || issuer_serial_is(q, id.end, c));
      OPENSSL_free(der);
    }
    if (!met) return fail("complete-certificate-references: a reference no certificate value matches");
  }
  return 0;
}

/* A CRL or OCSP reference's hash against the revocation values. */
static int rev_value_met(xl1 *x, const other_hash *h, int crl) {
  if (!crl) {
    for (int i = 0; i < x->n_ocsps; i++)
      if (hash_is(h, x->ocsp_der[i], x->ocsp_len[i])) return 1;
    return 0;
  }
  for (int i = 0; i < sk_X509_CRL_num(x->crls); i++) {
    unsigned char *der = NULL;
    int dlen = i2d_X509_CRL(sk_X509_CRL_value(x->crls, i), &der);
    int met = dlen > 0 && hash_is(h, der, (size_t)dlen);
    OPENSSL_free(der);
    if (met) return 1;
  }
  return 0;
}

/* complete-revocation-references: one CrlOcspRef per certificate reference
 * plus the signer's, each CrlValidatedID and hashed OcspResponsesID met. */
static int check_rev_refs(xl1 *x, int n_cert_refs) {
  size_t len;
  tlv seq, ref, list, inner, id;
  int n = 0;
  const unsigned char *p = attr_value(x->attr[REV_REFS][0], &len), *end = p + len;
  if (!p || !enter(&p, end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &seq)) return fail("revocation-references: malformed");
  for (p = seq.body; next_tlv(&p, seq.end, &ref); n++) {
    const unsigned char *q = ref.body;
    while (next_tlv(&q, ref.end, &list)) { /* [0] crlids, [1] ocspids, [2] otherRev */
      const unsigned char *r = list.body, *s;
      tlv ids;
      if (list.cls != V_ASN1_CONTEXT_SPECIFIC || list.tag > 2) return fail("revocation-references: malformed");
      if (list.tag == 2) continue;
      if (!enter(&r, list.end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &inner) ||
          !(s = inner.body, enter(&s, inner.end, V_ASN1_SEQUENCE, V_ASN1_UNIVERSAL, &ids)))
        return fail("revocation-references: malformed");
      for (s = ids.body; next_tlv(&s, ids.end, &id);) {
        const unsigned char *t = id.body;
        tlv ocsp_id;
        other_hash h;
        if (list.tag == 1 && !next_tlv(&t, id.end, &ocsp_id)) return fail("revocation-references: malformed");
        if (list.tag == 1 && t == id.end) continue; /* an OcspResponsesID without ocspRepHash */
        if (!read_other_hash(&t, id.end, &h)) return fail("revocation-references: a hash");
        if (!rev_value_met(x, &h, list.tag == 0))
          return fail("complete-revocation-references: a reference no revocation value matches");
      }
    }
  }
  return n == n_cert_refs + 1 ? 0 : fail("complete-revocation-references: not one per certificate plus the signer's");
}

/* ---- the chain at the signature-time-stamp's time, with the revocation values ---- */
static int ocsp_status(xl1 *x, X509 *cert, X509 *issuer, X509_STORE *store) {
  for (int i = 0; i < x->n_ocsps; i++) {
    OCSP_BASICRESP *bs = x->ocsps[i];
    for (int k = 0; k < OCSP_resp_count(bs); k++) {
      ASN1_OBJECT *alg;
      OCSP_SINGLERESP *one = OCSP_resp_get0(bs, k);
      if (!OCSP_id_get0_info(NULL, &alg, NULL, NULL, (OCSP_CERTID *)OCSP_SINGLERESP_get0_id(one))) continue;
      OCSP_CERTID *want = OCSP_cert_to_id(EVP_get_digestbyobj(alg), cert, issuer);
      int status, reason;
      ASN1_GENERALIZEDTIME *rev, *this_upd, *next_upd;
      int found = want && OCSP_resp_find_status(bs, want, &status, &reason, &rev, &this_upd, &next_upd);
      OCSP_CERTID_free(want);
      if (!found) continue;
      if (OCSP_basic_verify(bs, x->certs, store, 0) != 1) return fail("an OCSP response does not verify");
      if (!OCSP_check_validity(this_upd, next_upd, 300, -1)) return fail("an OCSP response is out of date");
      if (status == V_OCSP_CERTSTATUS_GOOD) return 0;
      struct tm tm;
      if (status == V_OCSP_CERTSTATUS_REVOKED && ASN1_TIME_to_tm(rev, &tm) && timegm(&tm) > x->sig_time) return 0;
      return fail("OCSP: a certificate of the chain was revoked, or is unknown");
    }
  }
  return -1; /* no OCSP status */
}

static int crl_status(xl1 *x, X509 *cert, X509 *issuer) {
  for (int i = 0; i < sk_X509_CRL_num(x->crls); i++) {
    X509_CRL *crl = sk_X509_CRL_value(x->crls, i);
    X509_REVOKED *r = NULL;
    if (X509_NAME_cmp(X509_CRL_get_issuer(crl), X509_get_subject_name(issuer))) continue;
    if (X509_CRL_verify(crl, X509_get0_pubkey(issuer)) != 1) return fail("a CRL does not verify");
    if (!X509_CRL_get0_by_cert(crl, &r, cert)) return 0;
    struct tm tm;
    if (ASN1_TIME_to_tm(X509_REVOKED_get0_revocationDate(r), &tm) && timegm(&tm) > x->sig_time) return 0;
    return fail("CRL: a certificate of the chain was revoked");
  }
  return -1;
}

static int check_path_at_time(xl1 *x, X509_STORE *store) {
  X509_STORE_CTX *ctx = X509_STORE_CTX_new();
  int rc = !ctx || !X509_STORE_CTX_init(ctx, store, x->signer, x->certs);
  if (!rc) {
    X509_STORE_CTX_set_time(ctx, 0, x->sig_time);
    rc = X509_verify_cert(ctx) == 1 ? 0 : fail("the chain at the signature-time-stamp's time");
  }
  STACK_OF(X509) *chain = rc ? NULL : X509_STORE_CTX_get0_chain(ctx);
  for (int i = 0; !rc && i + 1 < sk_X509_num(chain); i++) {
    X509 *cert = sk_X509_value(chain, i), *issuer = sk_X509_value(chain, i + 1);
    int st = ocsp_status(x, cert, issuer, store);
    if (st < 0) st = crl_status(x, cert, issuer);
    rc = st < 0 ? fail("no revocation value for a certificate of the chain") : st;
  }
  X509_STORE_CTX_free(ctx);
  return rc;
}

/* ---- one verification ---- */
typedef struct job {
  const unsigned char *sig, *doc;
  size_t sig_len, doc_len;
  X509_STORE *store;
} job;

static int verify_once(void *arg) {
  job *j = arg;
  xl1 x = {0};
  const unsigned char *p = j->sig;
  BIO *doc = BIO_new_mem_buf(j->doc, (int)j->doc_len);
  int rc = 1, n_cert_refs;
  x.certs = sk_X509_new_null(), x.crls = sk_X509_CRL_new_null();
  x.cms = d2i_CMS_ContentInfo(NULL, &p, (long)j->sig_len);
  STACK_OF(CMS_SignerInfo) *sis = x.cms ? CMS_get0_SignerInfos(x.cms) : NULL;
  STACK_OF(X509) *sd_certs = x.cms ? CMS_get1_certs(x.cms) : NULL;
  if (!doc || !x.certs || !x.crls || !sis || sk_CMS_SignerInfo_num(sis) != 1) {
    fail("not a SignedData of one signer");
    goto done;
  }
  x.si = sk_CMS_SignerInfo_value(sis, 0);
  if (CMS_verify(x.cms, NULL, j->store, doc, NULL, CMS_BINARY | CMS_CADES) != 1) { /* CADES: ESS signingCertificateV2 too */
    fail("CMS_verify");
    goto done;
  }
  if (read_attrs(&x) || read_cert_values(&x) || read_rev_values(&x)) goto done;
  for (int i = 0; i < sk_X509_num(sd_certs); i++)
    if (sk_X509_push(x.certs, sk_X509_value(sd_certs, i))) X509_up_ref(sk_X509_value(sd_certs, i));
  for (int i = 0; !x.signer && i < sk_X509_num(x.certs); i++)
    if (!CMS_SignerInfo_cert_cmp(x.si, sk_X509_value(x.certs, i))) x.signer = sk_X509_value(x.certs, i);
  if (!x.signer) {
    fail("the signer's certificate is not in the message");
    goto done;
  }
  rc = check_timestamps(&x, j->store) || check_cert_refs(&x, &n_cert_refs) || check_rev_refs(&x, n_cert_refs) ||
       check_path_at_time(&x, j->store);
done:
  for (int i = 0; i < x.n_ocsps; i++) OCSP_BASICRESP_free(x.ocsps[i]);
  sk_X509_CRL_pop_free(x.crls, X509_CRL_free);
  sk_X509_pop_free(x.certs, X509_free);
  sk_X509_pop_free(sd_certs, X509_free);
  CMS_ContentInfo_free(x.cms);
  BIO_free(doc);
  return rc;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  long n = f && !fseek(f, 0, SEEK_END) ? ftell(f) : -1;
  if (n >= 0 && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
    *len = (size_t)n;
  else
    fprintf(stderr, "xl1_openssl: %s: cannot read\n", path), exit(2);
  fclose(f);
  return buf;
}

int main(int argc, char **argv) {
  xl1_args a;
  if (!xl1_args_read(argc, argv, "xl1_openssl", &a)) return 2;
  OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL);
  if (!EVP_get_digestbyname("md_gost12_256"))
    return fail("no md_gost12_256: gost-engine not loaded (OPENSSL_CONF=tests/support/gost_engine.cnf)"), 2;
  for (int k = 0; k < N_ATTRS; k++)
    if (!(attr_obj[k] = OBJ_txt2obj(attr_oid[k], 1))) return 2;
  job j = {0};
  j.sig = slurp(a.sig, &j.sig_len);
  j.doc = slurp(a.doc, &j.doc_len);
  if (!(j.store = X509_STORE_new()) || X509_STORE_load_file(j.store, a.cafile) != 1)
    return fail("the trust anchors"), 2;
  if (verify_once(&j)) {
    fprintf(stderr, "xl1_openssl: %s: verification failure\n", a.sig);
    return 1;
  }
  fprintf(stderr, "xl1_openssl: %s: verified (signature, chain, timestamps, refs, OCSP/CRL at the timestamp's time)\n",
          a.sig);
  if (a.seconds <= 0) return 0;
  if (xl1_time(&a, "openssl", verify_once, &j)) return fail("a verification failed in the loop");
  return 0;
}
