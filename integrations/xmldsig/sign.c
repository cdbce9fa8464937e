/* Signing: an enveloped Signature (the whole document or the element of
 * an Id), exclusive or inclusive c14n, Streebog and GOST R 34.10-2012 by
 * the key's size, the certificate in KeyInfo/X509Data. Its octets come from
 * the same code verification runs (c14n.c). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static xmlNodePtr add(xmlNodePtr parent, xmlNsPtr ns, const char *name, const char *alg) {
  xmlNodePtr n = xmlNewChild(parent, ns, (const xmlChar *)name, NULL);
  if (n && alg && !xmlNewProp(n, (const xmlChar *)"Algorithm", (const xmlChar *)alg)) return NULL;
  return n;
}

/* Sets n's text to base64 of p[len]. */
static int set_b64(xmlNodePtr n, const uint8_t *p, size_t len) {
  char *b = xd_b64_encode(p, len);
  if (!b) return -1;
  xmlNodeSetContent(n, (const xmlChar *)b);
  free(b);
  return 0;
}

/* The Signature element, empty DigestValue and SignatureValue, as the
 * target's last child. */
static xmlNodePtr skeleton(xmlNodePtr target, const char *uri, int inclusive, int smev, size_t len,
                           xmlNodePtr *dv, xmlNodePtr *si, xmlNodePtr *sv, xmlNodePtr *xc) {
  const char *c14n = inclusive ? XD_C14N : XD_EXC_C14N;
  xmlNodePtr sig = xmlNewDocNode(target->doc, NULL, (const xmlChar *)"Signature", NULL);
  if (!sig) return NULL;
  xmlNsPtr ns = xmlNewNs(sig, (const xmlChar *)XD_NS, (const xmlChar *)"ds");
  xmlSetNs(sig, ns);
  xmlAddChild(target, sig);
  *si = add(sig, ns, "SignedInfo", NULL);
  xmlNodePtr ref = NULL, ts = NULL, kd = NULL;
  if (*si && add(*si, ns, "CanonicalizationMethod", c14n) && add(*si, ns, "SignatureMethod", xd_sig_uri(len)))
    ref = add(*si, ns, "Reference", NULL);
  if (ref && xmlNewProp(ref, (const xmlChar *)"URI", (const xmlChar *)uri))
    ts = add(ref, ns, "Transforms", NULL);
  if (ts && add(ts, ns, "Transform", XD_ENVELOPED) && add(ts, ns, "Transform", c14n) &&
      (!smev || add(ts, ns, "Transform", XD_SMEV)) && add(ref, ns, "DigestMethod", xd_digest_uri(len)))
    *dv = add(ref, ns, "DigestValue", NULL);
  if (*dv) *sv = add(sig, ns, "SignatureValue", NULL);
  xmlNodePtr ki = *sv ? add(sig, ns, "KeyInfo", NULL) : NULL;
  if (ki) kd = add(ki, ns, "X509Data", NULL);
  *xc = kd ? add(kd, ns, "X509Certificate", NULL) : NULL;
  return *xc ? sig : NULL;
}

gostx_xmldsig_status gostx_xmldsig_sign(const uint8_t *xml, size_t len,
                                        const gostx_xmldsig_sign_opts *opts,
                                        const gostx_gost3410_key *key, uint8_t **out,
                                        size_t *out_len, char *err, size_t err_cap) {
  *out = NULL;
  *out_len = 0;
  gostx_x509_cert cert;
  gostx_x509_status xs = GOSTX_X509_MALFORMED;
  const uint8_t *cert_der = opts->cert_der;
  const size_t cert_len = opts->cert_len, priv_len = key->len;
  if (gostx_x509_parse(cert_der, cert_len, &cert, &xs)) {
    xd_err(err, err_cap, "the certificate does not parse (%s)", gostx_x509_status_name(xs));
    return GOSTX_XMLDSIG_MALFORMED;
  }
  if (!key->has_private || (priv_len != 32 && priv_len != 64) || cert.pub_len != 2 * priv_len ||
      memcmp(key->q, cert.pub, cert.pub_len)) {
    xd_err(err, err_cap, "the key is not the certificate's");
    return GOSTX_XMLDSIG_KEY_MISMATCH;
  }
  gostx_xmldsig_status st;
  xmlDocPtr doc = xd_parse(xml, len, &st, err, err_cap);
  if (!doc) return st;
  xmlNodePtr root = xmlDocGetRootElement(doc), target = root;
  const char *ref = opts && opts->ref ? opts->ref : "";
  char uri[256];
  snprintf(uri, sizeof uri, "%s%s", *ref ? "#" : "", ref);
  st = xd_find_id(root, *ref ? ref : NULL, &target, err, err_cap);
  if (!st && !*ref) target = root;
  if (!st && !target) {
    xd_err(err, err_cap, "no element has the Id \"%.200s\"", ref);
    st = GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  if (!st && strlen(ref) >= sizeof uri - 1) {
    xd_err(err, err_cap, "an Id over %zu bytes", sizeof uri - 2);
    st = GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  xmlNodePtr dv = NULL, si = NULL, sv = NULL, xc = NULL, sig = NULL;
  if (!st) {
    sig = skeleton(target, uri, opts->inclusive, opts->smev, priv_len, &dv, &si,
                   &sv, &xc);
    if (!sig) st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "out of memory");
  }
  xd_transforms t = {.enveloped = 1, .c14n = 1, .exclusive = !(opts && opts->inclusive),
                     .smev = opts && opts->smev};
  xd_transforms ts = {.c14n = 1, .exclusive = t.exclusive};
  xmlChar *oct = NULL;
  size_t n = 0;
  uint8_t h[64], v[128];
  if (!st) {
    /* the Reference's digest, then SignedInfo's signature over it */
    int bad = xd_canonical(doc, *ref ? target : (xmlNodePtr)doc, sig, &t, &oct, &n) ||
              xd_digest((int)priv_len, oct, n, h) != priv_len || set_b64(dv, h, priv_len);
    xmlFree(oct);
    oct = NULL;
    bad = bad || xd_canonical(doc, si, NULL, &ts, &oct, &n) ||
          xd_digest((int)priv_len, oct, n, h) != priv_len ||
          gostx_gost3410_sign(key->curve, key->d, priv_len, h, priv_len, v, 2 * priv_len) ||
          gostx_gost3410_sig_swap(v, 2 * priv_len, v, 2 * priv_len) ||
          set_b64(sv, v, 2 * priv_len) || set_b64(xc, cert_der, cert_len);
    xmlFree(oct);
    if (bad) st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "signing failed");
  }
  if (!st) {
    xmlChar *mem = NULL;
    int size = 0;
    xmlDocDumpMemoryEnc(doc, &mem, &size, "UTF-8");
    *out = mem ? malloc((size_t)size) : NULL;
    if (*out) memcpy(*out, mem, (size_t)size), *out_len = (size_t)size;
    else st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "out of memory");
    xmlFree(mem);
  }
  memset(h, 0, sizeof h);
  xmlFreeDoc(doc);
  return st;
}
