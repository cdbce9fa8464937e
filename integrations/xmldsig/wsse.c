/* WS-Security's form (the X.509 token profile): a SOAP Envelope whose
 * Header holds wsse:Security with a BinarySecurityToken (the signer's
 * certificate, base64) and the Signature, whose KeyInfo is a
 * SecurityTokenReference to that token by wsu:Id; the Reference signs the
 * Body (or the element of an Id). Verification takes the same token by Id
 * (verify.c) and, as any KeyInfo, never without a chain to an anchor. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SOAP11 "http://schemas.xmlsoap.org/soap/envelope/"
#define SOAP12 "http://www.w3.org/2003/05/soap-envelope"
#define TOKEN_ID "X509Token"

static int soap(xmlNodePtr n, const char *name) {
  return xd_is(n, SOAP11, name) || xd_is(n, SOAP12, name);
}

/* The first element child of n, or of n's namespace named name. */
static xmlNodePtr soap_child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE && c->ns == n->ns && !strcmp((const char *)c->name, name))
      return c;
  return NULL;
}

/* The namespace uri in scope at n, else declared on n as prefix. */
static xmlNsPtr ns_at(xmlNodePtr n, const char *uri, const char *prefix) {
  xmlNsPtr ns = xmlSearchNsByHref(n->doc, n, (const xmlChar *)uri);
  return ns ? ns : xmlNewNs(n, (const xmlChar *)uri, (const xmlChar *)prefix);
}

/* An Id of n: its own, else a new wsu:Id="body". */
static const char *id_of(xmlNodePtr n) {
  static const char *const names[] = {"Id", "ID", "id"};
  for (size_t i = 0; i < 3; i++) {
    xmlAttrPtr a = xmlHasNsProp(n, (const xmlChar *)names[i], NULL);
    if (a && a->children) return (const char *)a->children->content;
  }
  xmlAttrPtr a = xmlHasNsProp(n, (const xmlChar *)"Id", (const xmlChar *)XD_WSU_NS);
  if (a && a->children) return (const char *)a->children->content;
  xmlNsPtr wsu = ns_at(n, XD_WSU_NS, "wsu");
  a = wsu ? xmlNewNsProp(n, wsu, (const xmlChar *)"Id", (const xmlChar *)"body") : NULL;
  return a ? "body" : NULL;
}

gostx_xmldsig_status xd_wsse_target(xmlNodePtr root, const char *ref, xmlNodePtr *target,
                                    const char **id, char *err, size_t cap) {
  if (!soap(root, "Envelope")) {
    xd_err(err, cap, "-wsse signs a SOAP Envelope (1.1 or 1.2), not <%.100s>",
           (const char *)root->name);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  if (*ref) {
    gostx_xmldsig_status st = xd_find_id(root, ref, target, err, cap);
    if (!st && !*target) {
      xd_err(err, cap, "no element has the Id \"%.200s\"", ref);
      st = GOSTX_XMLDSIG_BAD_REFERENCE;
    }
    *id = ref;
    return st;
  }
  *target = soap_child(root, "Body");
  *id = *target ? id_of(*target) : NULL;
  if (!*id) {
    xd_err(err, cap, *target ? "out of memory" : "the Envelope has no Body");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status xd_wsse_place(xmlNodePtr root, xmlNodePtr target, xmlNodePtr sig,
                                   xmlNodePtr ki, const uint8_t *cert, size_t len, char *err,
                                   size_t cap) {
  xmlNodePtr hdr = soap_child(root, "Header");
  if (!hdr) { /* a new Header, the Envelope's first element */
    xmlNodePtr first = root->children;
    while (first && first->type != XML_ELEMENT_NODE) first = first->next;
    hdr = xmlNewDocNode(root->doc, root->ns, (const xmlChar *)"Header", NULL);
    if (hdr && first) xmlAddPrevSibling(first, hdr);
    else if (hdr) xmlAddChild(root, hdr);
  }
  for (xmlNodePtr n = hdr; n; n = n->parent)
    if (n == target) {
      xd_err(err, cap, "-wsse: the element signed holds the SOAP Header (sign the Body)");
      return GOSTX_XMLDSIG_BAD_REFERENCE;
    }
  xmlNodePtr sec = hdr ? xmlNewChild(hdr, NULL, (const xmlChar *)"Security", NULL) : NULL;
  xmlNsPtr wsse = sec ? xmlNewNs(sec, (const xmlChar *)XD_WSSE_NS, (const xmlChar *)"wsse") : NULL;
  if (wsse) xmlSetNs(sec, wsse);
  xmlNsPtr wsu = wsse ? ns_at(sec, XD_WSU_NS, "wsu") : NULL;
  xmlNodePtr tok = wsu ? xmlNewChild(sec, wsse, (const xmlChar *)"BinarySecurityToken", NULL) : NULL;
  char *b64 = tok ? xd_b64_encode(cert, len) : NULL;
  xmlNodePtr str = b64 ? xmlNewChild(ki, wsse, (const xmlChar *)"SecurityTokenReference", NULL) : NULL;
  xmlNodePtr r = str ? xmlNewChild(str, wsse, (const xmlChar *)"Reference", NULL) : NULL;
  int bad = !r ||
            !xmlNewProp(tok, (const xmlChar *)"EncodingType", (const xmlChar *)XD_WSSE_BASE64) ||
            !xmlNewProp(tok, (const xmlChar *)"ValueType", (const xmlChar *)XD_WSSE_X509V3) ||
            !xmlNewNsProp(tok, wsu, (const xmlChar *)"Id", (const xmlChar *)TOKEN_ID) ||
            !xmlNewProp(r, (const xmlChar *)"URI", (const xmlChar *)"#" TOKEN_ID) ||
            !xmlNewProp(r, (const xmlChar *)"ValueType", (const xmlChar *)XD_WSSE_X509V3);
  if (!bad) {
    xmlNodeSetContent(tok, (const xmlChar *)b64);
    xmlAddChild(sec, sig);
  }
  free(b64);
  if (bad) xd_err(err, cap, "out of memory");
  return bad ? GOSTX_XMLDSIG_MALFORMED : GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status xd_wsse_token(xmlNodePtr tok, char *err, size_t cap) {
  static const char *const want[2][2] = {{"ValueType", XD_WSSE_X509V3},
                                         {"EncodingType", XD_WSSE_BASE64}};
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  for (int i = 0; i < 2 && !st; i++) {
    char *v = (char *)xmlGetNoNsProp(tok, (const xmlChar *)want[i][0]);
    if (v && strcmp(v, want[i][1])) { /* absent: X.509v3 in base64, the profile's default */
      xd_err(err, cap, "BinarySecurityToken of %s %.200s: an X.509v3 certificate in base64 is taken",
             want[i][0], v);
      st = GOSTX_XMLDSIG_NO_CERT;
    }
    xmlFree(v);
  }
  return st;
}
