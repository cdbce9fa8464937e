/* Verification: every Signature of the document, each on its own: every
 * Reference's digest over the octets its transforms give, SignatureValue
 * over the canonical SignedInfo under KeyInfo's leaf certificate, and that
 * certificate's chain through lib/x509. What the References signed is
 * handed back: the only data an application may take as signed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "refs.h"

void gostx_xmldsig_result_free(gostx_xmldsig_result *r) {
  free(r->signed_data);
  r->signed_data = NULL;
  r->signed_len = 0;
  free(r->ref);
  r->ref = NULL;
  for (size_t i = 0; i < GOSTX_XMLDSIG_MAX_SIGNATURES; i++) {
    free(r->sig[i].cert);
    r->sig[i].cert = NULL;
    r->sig[i].cert_len = 0;
  }
}


void xd_certs_free(xd_certs *l) {
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
}

static gostx_xmldsig_status add_cert(xd_certs *l, xmlNodePtr n, char *err, size_t cap) {
  if (l->n == XD_MAX_CERTS) {
    xd_err(err, cap, "KeyInfo: more than %d certificates", XD_MAX_CERTS);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  char *t = xd_text(n);
  uint8_t *der = malloc(GOSTX_X509_CERT_MAX);
  long len = t && der ? xd_b64_decode(t, der, GOSTX_X509_CERT_MAX) : -1;
  xmlFree(t);
  gostx_x509_status xs = GOSTX_X509_MALFORMED;
  if (len <= 0 || gostx_x509_parse(der, (size_t)len, &l->c[l->n], &xs)) {
    free(der);
    xd_err(err, cap, "KeyInfo: a certificate that does not parse (%s)", gostx_x509_status_name(xs));
    return GOSTX_XMLDSIG_MALFORMED;
  }
  l->der[l->n++] = der;
  return GOSTX_XMLDSIG_OK;
}

/* KeyInfo's certificates, the leaf first: X509Data/X509Certificate, or
 * WS-Security's SecurityTokenReference to a BinarySecurityToken by Id. */
gostx_xmldsig_status xd_key_info(xmlNodePtr root, xmlNodePtr sig, xd_certs *l, char *err,
                                 size_t cap) {
  xmlNodePtr ki = xd_child(sig, "KeyInfo");
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  for (xmlNodePtr c = ki ? ki->children : NULL; c && !st; c = c->next) {
    if (xd_is(c, XD_NS, "X509Data")) {
      for (xmlNodePtr x = c->children; x && !st; x = x->next)
        if (xd_is(x, XD_NS, "X509Certificate")) st = add_cert(l, x, err, cap);
    } else if (xd_is(c, XD_WSSE_NS, "SecurityTokenReference")) {
      for (xmlNodePtr r = c->children; r && !st; r = r->next) {
        if (!xd_is(r, XD_WSSE_NS, "Reference")) continue;
        char *uri = (char *)xmlGetNoNsProp(r, (const xmlChar *)"URI");
        xmlNodePtr tok = NULL;
        if (uri && uri[0] == '#') st = xd_find_id(root, uri + 1, &tok, err, cap);
        xmlFree(uri);
        if (!st && !xd_is(tok, XD_WSSE_NS, "BinarySecurityToken")) {
          xd_err(err, cap, "SecurityTokenReference names no BinarySecurityToken");
          st = GOSTX_XMLDSIG_NO_CERT;
        }
        if (!st) st = xd_wsse_token(tok, err, cap);
        if (!st) st = add_cert(l, tok, err, cap);
      }
    }
  }
  if (!st && !l->n) {
    xd_err(err, cap, "KeyInfo gives no certificate");
    st = GOSTX_XMLDSIG_NO_CERT;
  }
  return st;
}

/* Appends p[len] to the result's signed data. */
static int append(gostx_xmldsig_result *res, const uint8_t *p, size_t len) {
  uint8_t *d = realloc(res->signed_data, res->signed_len + len + 1);
  if (!d) return -1;
  memcpy(d + res->signed_len, p, len);
  res->signed_len += len;
  d[res->signed_len] = 0;
  res->signed_data = d;
  return 0;
}

/* Signature number's References (in res->ref, from its start) and their
 * octets, one after another in res->signed_data. */
static gostx_xmldsig_status check_refs(xmlDocPtr doc, xmlNodePtr sig, size_t number,
                                       const xd_signed *s, gostx_xmldsig_result *res) {
  gostx_xmldsig_reference *more = realloc(res->ref, (res->refs + s->nrefs + 1) * sizeof *more);
  if (!more) {
    xd_err(res->why, sizeof res->why, "out of memory");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  res->ref = more;
  for (size_t i = 0; i < s->nrefs; i++) {
    const xd_ref *r = &s->refs[i];
    uint8_t *oct = NULL;
    size_t len = 0, at = res->signed_len;
    uint8_t h[64];
    if (xd_canonical(doc, r->target, sig, &r->t, &oct, &len)) {
      xd_err(res->why, sizeof res->why, "Reference \"%s\": canonicalization failed", r->uri);
      return GOSTX_XMLDSIG_MALFORMED;
    }
    size_t hl = xd_digest(r->alg, oct, len, h);
    int bad = !hl || memcmp(h, r->digest, hl);
    if (!bad && !res->signed_data) /* the first: taken as it is (NUL-terminated), not copied */
      res->signed_data = oct, res->signed_len = len, oct = NULL;
    else if (!bad && append(res, oct, len))
      bad = 2;
    free(oct);
    if (bad) {
      xd_err(res->why, sizeof res->why, "Reference \"%s\": %s", r->uri,
             bad == 2 ? "out of memory" : "the digest differs (content changed)");
      return GOSTX_XMLDSIG_DIGEST_MISMATCH;
    }
    gostx_xmldsig_reference *out = &res->ref[res->refs++];
    out->signature = number;
    snprintf(out->uri, sizeof out->uri, "%s", r->uri);
    out->offset = at;
    out->len = len;
  }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status xd_check_value(xmlDocPtr doc, xmlNodePtr sig, const xd_signed *s,
                                    const gostx_x509_cert *leaf, char *err, size_t cap) {
  int key_ok = leaf->pub_len == 2 * s->key_len &&
               (s->legacy ? leaf->key_alg == GOSTX_X509_KEY_2001
                          : leaf->key_alg == (s->key_len == 64 ? GOSTX_X509_KEY_2012_512
                                                               : GOSTX_X509_KEY_2012_256));
  if (!key_ok) {
    xd_err(err, cap, "the certificate's key is not of SignatureMethod's algorithm");
    return GOSTX_XMLDSIG_KEY_MISMATCH;
  }
  xmlNodePtr sv = xd_child(sig, "SignatureValue");
  char *t = sv ? xd_text(sv) : NULL;
  uint8_t v[128], h[64];
  long vl = t ? xd_b64_decode(t, v, sizeof v) : -1;
  xmlFree(t);
  if (vl != (long)(2 * s->key_len)) {
    xd_err(err, cap, "SignatureValue missing, not base64 or not %zu bytes", 2 * s->key_len);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  uint8_t *oct = NULL;
  size_t len = 0;
  if (xd_canonical(doc, s->node, NULL, &s->c14n, &oct, &len)) {
    xd_err(err, cap, "SignedInfo: canonicalization failed");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  size_t hl = xd_digest(s->alg, oct, len, h);
  free(oct);
  /* SignatureValue is s || r, each half big-endian (as in X.509 and CMS);
   * the library's verification takes r || s. */
  if (!hl || gostx_gost3410_sig_swap(v, (size_t)vl, v, (size_t)vl) ||
      gostx_gost3410_verify(leaf->curve, leaf->pub, leaf->pub_len, h, s->key_len, v,
                            (size_t)vl)) {
    xd_err(err, cap, "SignatureValue does not verify under the certificate's key");
    return GOSTX_XMLDSIG_BAD_SIGNATURE;
  }
  return GOSTX_XMLDSIG_OK;
}

/* KeyInfo's key is trusted only through a chain to an anchor: KeyInfo's
 * certificates then the untrusted ones as intermediates. */
gostx_xmldsig_status xd_check_chain(const xd_certs *l, const gostx_x509_store *store,
                                    const gostx_x509_verify_opts *opts,
                                    const gostx_x509_cert *untrusted, size_t n_untrusted,
                                    gostx_xmldsig_result *res) {
  if (!store) {
    res->x509 = GOSTX_X509_UNKNOWN_CA;
    xd_err(res->why, sizeof res->why, "no trust anchors given");
    return GOSTX_XMLDSIG_CHAIN;
  }
  gostx_x509_verify_opts o;
  if (opts) o = *opts;
  else gostx_x509_verify_opts_init(&o, (int64_t)time(NULL));
  gostx_x509_cert *all = calloc(l->n + n_untrusted, sizeof *all);
  if (!all) {
    xd_err(res->why, sizeof res->why, "out of memory");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  memcpy(all, l->c, l->n * sizeof *all);
  if (n_untrusted) memcpy(all + l->n, untrusted, n_untrusted * sizeof *all);
  gostx_x509_verify_result vr;
  res->x509 = gostx_x509_verify_with(store, all, l->n + n_untrusted, &o, &vr);
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  if (res->x509 != GOSTX_X509_OK) {
    snprintf(res->why, sizeof res->why, "%s", vr.why);
    res->depth = vr.depth;
    if (vr.depth < vr.path_len &&
        gostx_x509_name_text(vr.path[vr.depth]->subject, vr.path[vr.depth]->subject_len,
                             res->subject, sizeof res->subject))
      res->subject[0] = 0;
    st = GOSTX_XMLDSIG_CHAIN;
  }
  free(all);
  return st;
}

/* Every ds:Signature of the document in document order, the first cap in
 * sig: their number (cap + 1 once there are more). */
static size_t signatures(xmlNodePtr root, xmlNodePtr *sig, size_t cap) {
  size_t k = 0;
  for (xmlNodePtr n = root; n && k <= cap; n = xd_next(n, root))
    if (xd_is(n, XD_NS, "Signature")) {
      if (k < cap) sig[k] = n;
      k++;
    }
  return k;
}

/* n's name as the document writes it (prefix:name). */
static void qname(xmlNodePtr n, char *out, size_t cap) {
  if (n->ns && n->ns->prefix) snprintf(out, cap, "%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
  else snprintf(out, cap, "%s", (const char *)n->name);
}

/* One verification of a document's Signatures: what every check shares. */
typedef struct {
  xmlDocPtr doc;
  xmlNodePtr root, sigs[GOSTX_XMLDSIG_MAX_SIGNATURES];
  size_t nsig;
  const gostx_x509_store *store;
  const gostx_x509_verify_opts *opts;
  const gostx_x509_cert *untrusted;
  size_t n_untrusted;
} xd_verify;

/* A copy of a Signature adds nothing signed, only a place an application
 * may look at (wrapping): two with one SignatureValue are refused before
 * either is verified, as one alone would be a second signature. */
static gostx_xmldsig_status copies(const xd_verify *v, gostx_xmldsig_result *res) {
  uint8_t val[GOSTX_XMLDSIG_MAX_SIGNATURES][128];
  long len[GOSTX_XMLDSIG_MAX_SIGNATURES];
  for (size_t i = 0; i < v->nsig; i++) {
    xmlNodePtr sv = xd_child(v->sigs[i], "SignatureValue");
    char *t = sv ? xd_text(sv) : NULL;
    len[i] = t ? xd_b64_decode(t, val[i], sizeof val[i]) : -1;
    xmlFree(t);
    for (size_t j = 0; j < i && len[i] > 0; j++)
      if (len[j] == len[i] && !memcmp(val[j], val[i], (size_t)len[i])) {
        res->failed = i + 1;
        xd_err(res->why, sizeof res->why,
               "Signature %zu is a copy of Signature %zu (the same SignatureValue)", i + 1, j + 1);
        return GOSTX_XMLDSIG_SECOND_SIGNATURE;
      }
  }
  return GOSTX_XMLDSIG_OK;
}

/* The index of the other Signature whose own nodes hold target (the
 * Signature itself, its SignedInfo, SignatureValue, KeyInfo...: its
 * ds:Objects' content is another document's), or -1: a Reference there
 * would sign another signature's parts, never taken. */
static long into_other(const xd_verify *v, xmlNodePtr own, xmlNodePtr target) {
  xmlNodePtr below = NULL;
  for (xmlNodePtr a = target; a && a->type == XML_ELEMENT_NODE; below = a, a = a->parent) {
    if (a == own || !xd_is(a, XD_NS, "Signature") || xd_is(below, XD_NS, "Object")) continue;
    for (size_t k = 0; k < v->nsig; k++)
      if (v->sigs[k] == a) return (long)k;
  }
  return -1;
}

static int holds(xmlNodePtr outer, xmlNodePtr n) {
  for (; n; n = n->parent)
    if (n == outer) return 1;
  return 0;
}

/* Appends to buf[cap] (at *n, kept NUL-terminated when it overflows). */
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (*n < cap) *n += (size_t)vsnprintf(buf + *n, cap - *n, fmt, ap);
  va_end(ap);
}

/* What Signature i covered, into info: each Reference's URI and element,
 * and the other Signatures inside what it signed. */
static void describe(const xd_verify *v, size_t i, const xd_signed *s,
                     gostx_xmldsig_signature *info) {
  size_t n = 0, cap = sizeof info->covers;
  for (size_t r = 0; r < s->nrefs; r++) {
    char name[128] = "the document";
    xmlNodePtr t = s->refs[r].target;
    if (t->type == XML_ELEMENT_NODE) qname(t, name, sizeof name);
    put(info->covers, cap, &n, "%s%s (%s", r ? "; " : "", s->refs[r].uri, name);
    for (size_t k = 0; k < v->nsig; k++)
      if (k != i && holds(t, v->sigs[k])) put(info->covers, cap, &n, ", holding Signature %zu", k + 1);
    put(info->covers, cap, &n, ")");
  }
  info->refs = s->nrefs;
}

/* Signature i, verified on its own (its References, its SignatureValue,
 * its signer's chain); what it signed appended to res->signed_data. */
static gostx_xmldsig_status verify_one(const xd_verify *v, size_t i, gostx_xmldsig_result *res) {
  xmlNodePtr sig = v->sigs[i];
  gostx_xmldsig_signature *info = &res->sig[i];
  xd_signed s;
  xd_certs l = {0};
  info->offset = res->signed_len;
  gostx_xmldsig_status st = xd_signed_info(v->root, sig, &s, res->why, sizeof res->why);
  for (size_t r = 0; !st && r < s.nrefs; r++) {
    long k = s.refs[r].target->type == XML_ELEMENT_NODE ? into_other(v, sig, s.refs[r].target) : -1;
    if (k >= 0) {
      xd_err(res->why, sizeof res->why, "Reference \"%s\" names a part of Signature %ld",
             s.refs[r].uri, k + 1);
      st = GOSTX_XMLDSIG_SECOND_SIGNATURE;
    }
  }
  if (!st) st = xd_key_info(v->root, sig, &l, res->why, sizeof res->why);
  if (!st) st = check_refs(v->doc, sig, i + 1, &s, res);
  if (!st) st = xd_check_value(v->doc, sig, &s, &l.c[0], res->why, sizeof res->why);
  if (!st) st = xd_check_chain(&l, v->store, v->opts, v->untrusted, v->n_untrusted, res);
  if (!st) {
    describe(v, i, &s, info);
    info->len = res->signed_len - info->offset;
    if (gostx_x509_name_text(l.c[0].subject, l.c[0].subject_len, info->subject,
                             sizeof info->subject))
      info->subject[0] = 0;
    /* the signer's certificate handed back (KeyInfo's DER, not kept past here) */
    info->cert = malloc(l.c[0].der_len);
    if (info->cert) {
      memcpy(info->cert, l.c[0].der, l.c[0].der_len);
      info->cert_len = l.c[0].der_len;
    } else {
      xd_err(res->why, sizeof res->why, "out of memory");
      st = GOSTX_XMLDSIG_MALFORMED;
    }
  }
  xd_signed_free(&s);
  xd_certs_free(&l);
  return st;
}

gostx_xmldsig_status gostx_xmldsig_verify_untrusted(const uint8_t *xml, size_t len,
                                                    const gostx_x509_store *store,
                                                    const gostx_x509_verify_opts *opts,
                                                    const gostx_x509_cert *untrusted,
                                                    size_t n_untrusted,
                                                    gostx_xmldsig_result *res) {
  memset(res, 0, sizeof *res);
  gostx_xmldsig_status st;
  xd_verify v = {.store = store, .opts = opts, .untrusted = untrusted, .n_untrusted = n_untrusted};
  v.doc = xd_parse(xml, len, &st, res->why, sizeof res->why);
  if (!v.doc) return st;
  v.root = xmlDocGetRootElement(v.doc);
  xmlNodePtr dummy;
  v.nsig = signatures(v.root, v.sigs, GOSTX_XMLDSIG_MAX_SIGNATURES);
  if (!v.nsig) {
    st = GOSTX_XMLDSIG_NO_SIGNATURE;
    xd_err(res->why, sizeof res->why, "no Signature");
  } else if (v.nsig > GOSTX_XMLDSIG_MAX_SIGNATURES) {
    st = GOSTX_XMLDSIG_TOO_LARGE;
    xd_err(res->why, sizeof res->why, "more than %d Signature elements",
           GOSTX_XMLDSIG_MAX_SIGNATURES);
    v.nsig = 0;
  }
  res->nsig = v.nsig;
  for (size_t i = 0; i < v.nsig; i++)
    if (v.sigs[i]->parent->type == XML_ELEMENT_NODE)
      qname(v.sigs[i]->parent, res->sig[i].where, sizeof res->sig[i].where);
  if (!st) st = xd_find_id(v.root, NULL, &dummy, res->why, sizeof res->why);
  if (!st) st = copies(&v, res);
  for (size_t i = 0; !st && i < v.nsig; i++)
    if ((st = verify_one(&v, i, res))) res->failed = i + 1;
  if (st) gostx_xmldsig_result_free(res);
  xmlFreeDoc(v.doc);
  return st;
}

gostx_xmldsig_status gostx_xmldsig_verify(const uint8_t *xml, size_t len,
                                          const gostx_x509_store *store,
                                          const gostx_x509_verify_opts *opts,
                                          gostx_xmldsig_result *res) {
  return gostx_xmldsig_verify_untrusted(xml, len, store, opts, NULL, 0, res);
}
