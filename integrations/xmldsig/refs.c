/* SignedInfo read: its canonicalization, its signature algorithm and
 * each Reference with its transforms, digest and target element. Every
 * algorithm not listed here is refused by name (XPath, XSLT, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "refs.h"

#define EXC_NS "http://www.w3.org/2001/10/xml-exc-c14n#"

static const struct { const char *uri, *name; } REFUSED[] = {
    {"http://www.w3.org/TR/1999/REC-xpath-19991116", "XPath"},
    {"http://www.w3.org/2002/06/xmldsig-filter2", "XPath Filter 2.0"},
    {"http://www.w3.org/TR/1999/REC-xslt-19991116", "XSLT"},
    {"http://www.w3.org/2000/09/xmldsig#base64", "base64"},
};

static char *attr(xmlNodePtr n, const char *name) {
  return (char *)xmlGetNoNsProp(n, (const xmlChar *)name);
}

/* exc-c14n's InclusiveNamespaces PrefixList under n, split on whitespace. */
static int prefixes(xmlNodePtr n, xd_transforms *t) {
  xmlNodePtr in = NULL;
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (xd_is(c, EXC_NS, "InclusiveNamespaces")) in = c;
  if (!in) return 0;
  char *list = attr(in, "PrefixList");
  if (!list) return -1;
  size_t cap = 1;
  for (char *p = list; *p; p++) cap += *p == ' ';
  t->prefixes = calloc(cap + 1, sizeof *t->prefixes);
  if (!t->prefixes) {
    xmlFree(list);
    return -1;
  }
  size_t k = 0;
  for (char *save = NULL, *tok = strtok_r(list, " \t\r\n", &save); tok && k < cap;
       tok = strtok_r(NULL, " \t\r\n", &save))
    t->prefixes[k++] = xmlStrdup((const xmlChar *)tok);
  xmlFree(list);
  return 0;
}

/* Transform or CanonicalizationMethod n as t's canonicalization. */
static gostx_xmldsig_status c14n_of(xmlNodePtr n, const char *alg, xd_transforms *t, char *err,
                                    size_t cap) {
  if (t->c14n) {
    xd_err(err, cap, "two canonicalizations in one Reference");
    return GOSTX_XMLDSIG_UNSUPPORTED;
  }
  t->c14n = 1;
  if (t->exclusive && prefixes(n, t)) {
    xd_err(err, cap, "a bad InclusiveNamespaces");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  (void)alg;
  return GOSTX_XMLDSIG_OK;
}

static gostx_xmldsig_status transforms(xmlNodePtr ref, xd_transforms *t, char *err, size_t cap) {
  xmlNodePtr ts = xd_child(ref, "Transforms");
  int count = 0;
  for (xmlNodePtr c = ts ? ts->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    if (!xd_is(c, XD_NS, "Transform") || ++count > GOSTX_XMLDSIG_MAX_TRANSFORMS) {
      xd_err(err, cap, "Transforms: not a Transform, or more than %d",
             GOSTX_XMLDSIG_MAX_TRANSFORMS);
      return GOSTX_XMLDSIG_MALFORMED;
    }
    char *alg = attr(c, "Algorithm");
    gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
    if (!alg) {
      xd_err(err, cap, "a Transform without Algorithm");
      st = GOSTX_XMLDSIG_MALFORMED;
    } else if (t->smev) {
      xd_err(err, cap, "a transform after the SMEV transform: %.200s", alg);
      st = GOSTX_XMLDSIG_UNSUPPORTED;
    } else if (!strcmp(alg, XD_SMEV)) {
      t->smev = 1;
    } else if (!strcmp(alg, XD_ENVELOPED) && !t->c14n && !t->enveloped) {
      t->enveloped = 1;
    } else if (xd_c14n_alg(alg, &t->exclusive, &t->comments)) {
      st = c14n_of(c, alg, t, err, cap);
    } else {
      const char *name = NULL;
      for (size_t i = 0; i < sizeof REFUSED / sizeof *REFUSED; i++)
        if (!strcmp(alg, REFUSED[i].uri)) name = REFUSED[i].name;
      xd_err(err, cap, "the %s transform is refused: %.200s", name ? name : "unknown", alg);
      st = GOSTX_XMLDSIG_UNSUPPORTED;
    }
    xmlFree(alg);
    if (st) return st;
  }
  return GOSTX_XMLDSIG_OK;
}

/* One Reference: its target and transforms, its digest algorithm and the
 * digest it claims. */
static gostx_xmldsig_status reference(xmlNodePtr root, xmlNodePtr n, xd_ref *r, char *err,
                                      size_t cap) {
  char *uri = attr(n, "URI");
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  if (!uri) {
    xd_err(err, cap, "a Reference without URI");
    return GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  snprintf(r->uri, sizeof r->uri, "%s", uri);
  if (!*uri && !root) { /* streamed: only elements by Id, never the document */
    xd_err(err, cap, "Reference URI=\"\" is not streamed (only \"#Id\")");
    st = GOSTX_XMLDSIG_UNSUPPORTED;
  } else if (!*uri) { /* the whole document: its PIs outside the root too (XMLDSig 4.3.3.3) */
    r->target = (xmlNodePtr)root->doc;
  } else if (uri[0] == '#' && strncmp(uri, "#xpointer(", 10)) {
    if (root) st = xd_find_id(root, uri + 1, &r->target, err, cap);
    if (!st && root && !r->target) {
      xd_err(err, cap, "Reference URI=\"%.200s\" names no element", uri);
      st = GOSTX_XMLDSIG_BAD_REFERENCE;
    }
  } else { /* #xpointer(/), #xpointer(id('x')) would keep comments: not taken either */
    xd_err(err, cap, "Reference URI=\"%.200s\": %sonly \"\" and \"#Id\" are taken", uri,
           uri[0] == '#' ? "XPointer is refused, " : "");
    st = uri[0] == '#' ? GOSTX_XMLDSIG_UNSUPPORTED : GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  xmlFree(uri);
  if (st) return st;
  if ((st = transforms(n, &r->t, err, cap))) return st;
  /* "" and "#Id" (the only URIs taken) dereference to a node set without
   * comments (XMLDSig 1.1, 4.3.3.3): a #WithComments canonicalization after
   * them has none left to keep. Only #xpointer(...) keeps them, refused above. */
  r->t.comments = 0;
  xmlNodePtr dm = xd_child(n, "DigestMethod"), dv = xd_child(n, "DigestValue");
  char *alg = dm ? attr(dm, "Algorithm") : NULL;
  r->alg = alg ? xd_digest_alg(alg) : 0;
  if (!r->alg) {
    xd_err(err, cap, "Reference \"%s\": digest %.200s not taken", r->uri, alg ? alg : "(none)");
    st = dm ? GOSTX_XMLDSIG_UNSUPPORTED : GOSTX_XMLDSIG_MALFORMED;
  }
  xmlFree(alg);
  if (st) return st;
  char *v = dv ? xd_text(dv) : NULL;
  long len = v ? xd_b64_decode(v, r->digest, sizeof r->digest) : -1;
  xmlFree(v);
  if (len != (r->alg == 64 ? 64 : 32)) {
    xd_err(err, cap, "Reference \"%s\": a DigestValue of the wrong length or not base64", r->uri);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status xd_signed_info(xmlNodePtr root, xmlNodePtr sig, xd_signed *s, char *err,
                                    size_t cap) {
  memset(s, 0, sizeof *s);
  xmlNodePtr si = sig->children;
  while (si && si->type != XML_ELEMENT_NODE) si = si->next;
  if (!xd_is(si, XD_NS, "SignedInfo")) {
    xd_err(err, cap, "Signature's first element is not SignedInfo");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  s->node = si;
  int state = 0; /* 0 CanonicalizationMethod, 1 SignatureMethod, 2 References */
  for (xmlNodePtr c = si->children; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE) continue;
    char *alg = NULL;
    gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
    if (state == 0 && xd_is(c, XD_NS, "CanonicalizationMethod")) {
      alg = attr(c, "Algorithm");
      if (!alg || !xd_c14n_alg(alg, &s->c14n.exclusive, &s->c14n.comments)) {
        xd_err(err, cap, "CanonicalizationMethod %.200s not taken", alg ? alg : "(none)");
        st = GOSTX_XMLDSIG_UNSUPPORTED;
      } else {
        st = c14n_of(c, alg, &s->c14n, err, cap);
      }
      state = 1;
    } else if (state == 1 && xd_is(c, XD_NS, "SignatureMethod")) {
      alg = attr(c, "Algorithm");
      s->alg = alg ? xd_sig_alg(alg, &s->key_len, &s->legacy) : 0;
      if (!s->alg) {
        xd_err(err, cap, "SignatureMethod %.200s not taken", alg ? alg : "(none)");
        st = GOSTX_XMLDSIG_UNSUPPORTED;
      }
      state = 2;
    } else if (state == 2 && xd_is(c, XD_NS, "Reference")) {
      if (s->nrefs == GOSTX_XMLDSIG_MAX_REFS) {
        xd_err(err, cap, "more than %d References", GOSTX_XMLDSIG_MAX_REFS);
        st = GOSTX_XMLDSIG_MALFORMED;
      } else {
        st = reference(root, c, &s->refs[s->nrefs++], err, cap);
      }
    } else {
      xd_err(err, cap, "SignedInfo: unexpected <%.100s>", (const char *)c->name);
      st = GOSTX_XMLDSIG_MALFORMED;
    }
    xmlFree(alg);
    if (st) return st;
  }
  if (!s->nrefs) {
    xd_err(err, cap, "SignedInfo without a Reference");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  return GOSTX_XMLDSIG_OK;
}

void xd_signed_free(xd_signed *s) {
  xd_transforms_free(&s->c14n);
  for (size_t i = 0; i < s->nrefs; i++) xd_transforms_free(&s->refs[i].t);
}
