/* Signing: a Signature enveloped (the whole document or the element of an
 * Id), enveloping (the document inside its ds:Object) or detached beside
 * the element of an Id; exclusive or inclusive c14n, Streebog and GOST R
 * 34.10-2012 by the key's size, the certificate in KeyInfo/X509Data. Its
 * octets come from the same code verification runs (c14n.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

xmlNodePtr xd_add(xmlNodePtr parent, xmlNsPtr ns, const char *name, const char *alg) {
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

/* The Signature element, its DigestValue and SignatureValue empty, not yet
 * in the document (place() puts it there). */
int xd_skeleton(xmlDocPtr doc, const char *uri, const gostx_xmldsig_sign_opts *o, size_t len,
                    xd_parts *p) {
  const char *c14n = o->inclusive ? XD_C14N : XD_EXC_C14N;
  p->sig = xmlNewDocNode(doc, NULL, (const xmlChar *)"Signature", NULL);
  if (!p->sig) return -1;
  p->ns = xmlNewNs(p->sig, (const xmlChar *)XD_NS, (const xmlChar *)"ds");
  xmlSetNs(p->sig, p->ns);
  p->si = xd_add(p->sig, p->ns, "SignedInfo", NULL);
  xmlNodePtr ref = NULL, ts = NULL;
  if (p->si && xd_add(p->si, p->ns, "CanonicalizationMethod", c14n) &&
      xd_add(p->si, p->ns, "SignatureMethod", xd_sig_uri(len)))
    ref = xd_add(p->si, p->ns, "Reference", NULL);
  if (ref && xmlNewProp(ref, (const xmlChar *)"URI", (const xmlChar *)uri))
    ts = xd_add(ref, p->ns, "Transforms", NULL);
  int env = o->form == GOSTX_XMLDSIG_ENVELOPED;
  if (ts && (!env || xd_add(ts, p->ns, "Transform", XD_ENVELOPED)) &&
      xd_add(ts, p->ns, "Transform", c14n) && (!o->smev || xd_add(ts, p->ns, "Transform", XD_SMEV)) &&
      xd_add(ref, p->ns, "DigestMethod", xd_digest_uri(len)))
    p->dv = xd_add(ref, p->ns, "DigestValue", NULL);
  if (p->dv) p->sv = xd_add(p->sig, p->ns, "SignatureValue", NULL);
  if (p->sv) p->ki = xd_add(p->sig, p->ns, "KeyInfo", NULL);
  return p->ki ? 0 : -1;
}

/* A detached Signature's place: target's next element sibling when that
 * is an empty element named *Signature (SMEV 3's
 * CallerInformationSystemSignature), else NULL (beside target). */
static xmlNodePtr signature_slot(xmlNodePtr target) {
  xmlNodePtr nx = target->next;
  while (nx && nx->type != XML_ELEMENT_NODE) nx = nx->next;
  if (!nx || xd_is(nx, XD_NS, "Signature")) return NULL;
  for (xmlNodePtr c = nx->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) return NULL;
  size_t n = strlen((const char *)nx->name);
  return n >= 9 && !strcmp((const char *)nx->name + n - 9, "Signature") ? nx : NULL;
}

/* Puts the Signature where o->form says; *target the element signed.
 * Enveloping: the document's root moves into a ds:Object whose Id is id. */
static gostx_xmldsig_status place(xmlDocPtr doc, const gostx_xmldsig_sign_opts *o, const char *id,
                                  xd_parts *p, xmlNodePtr *target, char *err, size_t cap) {
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (o->form == GOSTX_XMLDSIG_ENVELOPED) {
    xmlAddChild(*target, p->sig);
    return GOSTX_XMLDSIG_OK;
  }
  if (o->form == GOSTX_XMLDSIG_DETACHED) {
    if (*target == root) {
      xd_err(err, cap, "a detached signature needs the Id of an element other than the root");
      return GOSTX_XMLDSIG_BAD_REFERENCE;
    }
    xmlNodePtr slot = signature_slot(*target);
    if (slot) xmlAddChild(slot, p->sig);
    else xmlAddNextSibling(*target, p->sig);
    return GOSTX_XMLDSIG_OK;
  }
  xmlNodePtr obj = xd_add(p->sig, p->ns, "Object", NULL);
  if (!obj || !xmlNewProp(obj, (const xmlChar *)"Id", (const xmlChar *)id)) {
    xd_err(err, cap, "out of memory");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  xmlUnlinkNode(root);
  xmlDocSetRootElement(doc, p->sig);
  xmlAddChild(obj, root);
  /* the Object's Id must name it alone in the new document */
  gostx_xmldsig_status st = xd_find_id(p->sig, id, target, err, cap);
  if (!st && *target != obj) {
    xd_err(err, cap, "the Id \"%.200s\" is not the Object's", id);
    st = GOSTX_XMLDSIG_DUPLICATE_ID;
  }
  return st;
}

/* The element signed (before place()): the root for ref "", else the
 * element of the Id; enveloping signs its Object, found by place(). */
static gostx_xmldsig_status target_of(xmlNodePtr root, const gostx_xmldsig_sign_opts *o,
                                      const char *ref, xmlNodePtr *target, char *err, size_t cap) {
  *target = root;
  gostx_xmldsig_status st;
  if (o->form == GOSTX_XMLDSIG_ENVELOPING || !*ref) {
    st = xd_find_id(root, NULL, target, err, cap); /* Ids unique all the same */
    *target = root;
    return st;
  }
  st = xd_find_id(root, ref, target, err, cap);
  if (!st && !*target) {
    xd_err(err, cap, "no element has the Id \"%.200s\"", ref);
    st = GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  return st;
}

/* KeyInfo/X509Data: the signer's certificate, then o->chain's. */
int xd_x509_data(const xd_parts *p, const gostx_xmldsig_sign_opts *o) {
  xmlNodePtr kd = xd_add(p->ki, p->ns, "X509Data", NULL);
  for (size_t i = 0; kd && i <= o->chain_n; i++) {
    xmlNodePtr xc = xd_add(kd, p->ns, "X509Certificate", NULL);
    if (!xc || set_b64(xc, i ? o->chain[i - 1].der : o->cert_der,
                       i ? o->chain[i - 1].der_len : o->cert_len))
      return -1;
  }
  return kd ? 0 : -1;
}

int xd_sign_info(xmlDocPtr doc, const xd_parts *p, const gostx_xmldsig_sign_opts *o,
                 const gostx_gost3410_key *key, const uint8_t *digest) {
  const size_t n = key->len;
  xd_transforms ts = {.c14n = 1, .exclusive = !o->inclusive};
  uint8_t *oct = NULL;
  size_t len = 0;
  uint8_t h[64], v[128] = {0};
  int rc = set_b64(p->dv, digest ? digest : v, n) ||
           xd_canonical(doc, p->si, NULL, &ts, &oct, &len) || xd_digest((int)n, oct, len, h) != n;
  if (!rc && digest) rc = gostx_gost3410_key_sign(key, h, n, v, 2 * n);
  /* SignatureValue is s || r, each half big-endian (verify.c) */
  if (!rc && (gostx_gost3410_sig_swap(v, 2 * n, v, 2 * n) || set_b64(p->sv, v, 2 * n))) rc = 1;
  free(oct);
  memset(h, 0, sizeof h);
  return rc;
}

gostx_xmldsig_status xd_sign_failed(int rc, const char *what, char *err, size_t cap) {
  if (rc > 0) {
    xd_err(err, cap, "%s", what);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  xd_err(err, cap, "the private key did not sign: %s", gostx_strerror(rc));
  return GOSTX_XMLDSIG_KEY_FAILED;
}

/* DigestValue over target, then SignatureValue over SignedInfo. */
static int compute(xmlDocPtr doc, xmlNodePtr target, const xd_parts *p,
                   const gostx_xmldsig_sign_opts *o, const gostx_gost3410_key *key) {
  const size_t n = key->len;
  xd_transforms t = {.enveloped = o->form == GOSTX_XMLDSIG_ENVELOPED, .c14n = 1,
                     .exclusive = !o->inclusive, .smev = o->smev};
  uint8_t *oct = NULL;
  size_t len = 0;
  uint8_t h[64];
  int rc = xd_canonical(doc, target, p->sig, &t, &oct, &len) || xd_digest((int)n, oct, len, h) != n;
  if (!rc) rc = xd_sign_info(doc, p, o, key, h);
  free(oct);
  return rc;
}

gostx_xmldsig_status xd_check_key(const gostx_xmldsig_sign_opts *o,
                                      const gostx_gost3410_key *key, char *err, size_t cap) {
  gostx_x509_cert cert;
  gostx_x509_status xs = GOSTX_X509_MALFORMED;
  if (gostx_x509_parse(o->cert_der, o->cert_len, &cert, &xs)) {
    xd_err(err, cap, "the certificate does not parse (%s)", gostx_x509_status_name(xs));
    return GOSTX_XMLDSIG_MALFORMED;
  }
  const size_t n = key->len;
  if (!gostx_gost3410_key_is_private(key) || (n != 32 && n != 64) || cert.pub_len != 2 * n ||
      memcmp(key->q, cert.pub, cert.pub_len)) {
    xd_err(err, cap, "the key is not the certificate's");
    return GOSTX_XMLDSIG_KEY_MISMATCH;
  }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status gostx_xmldsig_sign(const uint8_t *xml, size_t len,
                                        const gostx_xmldsig_sign_opts *opts,
                                        const gostx_gost3410_key *key, uint8_t **out,
                                        size_t *out_len, char *err, size_t err_cap) {
  *out = NULL;
  *out_len = 0;
  gostx_xmldsig_status st = xd_check_key(opts, key, err, err_cap);
  if (st) return st;
  const char *ref = opts->ref ? opts->ref : "";
  if (strlen(ref) > 200) {
    xd_err(err, err_cap, "an Id over 200 bytes");
    return GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  gostx_xmldsig_sign_opts o = *opts;
  if ((unsigned)o.form > GOSTX_XMLDSIG_DETACHED || (o.wsse && o.form == GOSTX_XMLDSIG_ENVELOPING)) {
    xd_err(err, err_cap, "no such form of signature (WS-Security's is detached)");
    return GOSTX_XMLDSIG_UNSUPPORTED;
  }
  if (o.wsse && o.chain_n) {
    xd_err(err, err_cap, "WS-Security's token is the signer's certificate alone");
    return GOSTX_XMLDSIG_UNSUPPORTED;
  }
  if (o.wsse) o.form = GOSTX_XMLDSIG_DETACHED; /* in the Header, never in what it signs */
  xmlDocPtr doc = xd_parse(xml, len, &st, err, err_cap);
  if (!doc) return st;
  xmlNodePtr target = NULL, root = xmlDocGetRootElement(doc);
  xd_parts p = {0};
  const char *id = o.form == GOSTX_XMLDSIG_ENVELOPING && !*ref ? "object" : ref;
  st = o.wsse ? xd_wsse_target(root, ref, &target, &id, err, err_cap)
              : target_of(root, &o, ref, &target, err, err_cap);
  char uri[208];
  snprintf(uri, sizeof uri, "%s%.200s", *id ? "#" : "", id);
  if (!st && xd_skeleton(doc, uri, &o, key->len, &p))
    st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "out of memory");
  if (!st && o.wsse)
    st = xd_wsse_place(root, target, p.sig, p.ki, o.cert_der, o.cert_len, err, err_cap);
  else if (!st)
    st = place(doc, &o, id, &p, &target, err, err_cap);
  xmlNodePtr any;
  if (p.sig && !p.sig->parent) {
    xmlFreeNode(p.sig); /* never placed */
  } else if (!st && !(st = xd_find_id(xmlDocGetRootElement(doc), NULL, &any, err, err_cap))) {
    /* Ids unique in the signed document too (an Id the signing added) */
    /* URI="": the whole document, its PIs outside the root too (XMLDSig 4.3.3.3) */
    xmlNodePtr signed_node = *id ? target : (xmlNodePtr)doc;
    int rc = !o.wsse && xd_x509_data(&p, &o);
    if (!rc) rc = compute(doc, signed_node, &p, &o, key);
    if (rc) st = xd_sign_failed(rc, "signing failed", err, err_cap);
  }
  if (!st) { /* written into the buffer handed back: never copied whole */
    xd_sink k;
    xmlOutputBufferPtr buf = xd_sink_open(&k);
    int bad = !buf || xmlSaveFormatFileTo(buf, doc, "UTF-8", 0) < 0; /* it closes buf */
    if (!bad && !k.failed && k.p) *out = k.p, *out_len = k.n;
    else free(k.p), st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "out of memory");
  }
  xmlFreeDoc(doc);
  return st;
}
