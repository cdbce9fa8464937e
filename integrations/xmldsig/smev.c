/* The SMEV 3 transform (urn://smev-gov-ru/xmldsig/transform), written from
 * the rules of SMEV 3's methodological recommendations: the octets a
 * canonicalization gave are parsed again (the safe parser) and written
 * with no XML declaration, processing instruction or comment; no text node
 * of only characters <= U+0020; no empty-element tag; every namespace
 * prefix replaced by a generated one (ns1, ns2, ... in the order they are
 * first needed in the fragment; xml:lang and xml:space keep xml), declared on the element that first needs
 * it in its scope, declarations not needed dropped; attributes sorted,
 * qualified ones first by namespace URI then local name, then the
 * unqualified by local name; an element's own declaration before those its
 * attributes need, in the attributes' order, and all before the
 * attributes. Characters are escaped as the reference transform's writer
 * (Woodstox, the recommendations' step 9) escapes them: see text() and
 * attr_value() (docs/XMLDSIG.md, "The SMEV 3 transform"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlIO.h>

#include "internal.h"

#define MAX_NS 4096 /* generated prefixes in scope at once */

typedef struct {
  xmlOutputBufferPtr out;
  const xmlChar *uri[MAX_NS]; /* in scope, innermost last */
  unsigned prefix[MAX_NS];    /* its generated number */
  size_t n;
  unsigned next; /* the next number to generate */
  int failed;
} smev;

static void put(smev *s, const char *p) { xmlOutputBufferWriteString(s->out, p); }

/* An attribute value (and a declared URI): &, <, " as entities, tab, LF
 * and CR as &#x9; &#xa; &#xd; (lower case), > and the rest as they are. */
static void attr_value(smev *s, const xmlChar *t) {
  char one[2] = {0, 0};
  for (; *t; t++) {
    switch (*t) {
      case '&': put(s, "&amp;"); break;
      case '<': put(s, "&lt;"); break;
      case '"': put(s, "&quot;"); break;
      case '\r': put(s, "&#xd;"); break;
      case '\t': put(s, "&#x9;"); break;
      case '\n': put(s, "&#xa;"); break;
      default: one[0] = (char)*t, put(s, one);
    }
  }
}

/* UTF-16 code units of UTF-8 text (Java's String.length()). */
static size_t utf16_units(const xmlChar *t) {
  size_t n = 0;
  for (; *t; t++)
    if ((*t & 0xC0) != 0x80) n += *t >= 0xF0 ? 2 : 1;
  return n;
}

/* A text block as Woodstox writes one StAX Characters event: &, < and CR
 * (&#xd;) and U+007F..U+009F (&#x7f;..&#x9f;) always escaped; > only where
 * it could close "]]>". A block under 12 UTF-16 units is written as a
 * string: > escaped when first or after ]. A longer one goes in 512-unit
 * chunks: > escaped when first in a chunk, right after an escaped
 * character, or after ]. */
static void text(smev *s, const xmlChar *t) {
  int longer = utf16_units(t) >= 12, after_escape = 0;
  size_t unit = 0; /* UTF-16 units before this character */
  unsigned prev = 0;
  char ent[8];
  while (*t) {
    unsigned c = *t;
    size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    for (size_t i = 1; i < len; i++)
      if (!t[i]) len = i; /* never past the end, were the UTF-8 cut short */
    if (c == 0xC2) c = t[1]; /* U+0080..U+00BF: its second byte is the code */
    const char *e = NULL;
    if (c == '&') e = "&amp;";
    else if (c == '<') e = "&lt;";
    else if (c == '\r') e = "&#xd;";
    else if (*t <= 0xC2 && c >= 0x7F && c <= 0x9F) snprintf(ent, sizeof ent, "&#x%x;", c), e = ent;
    else if (c == '>' && (prev == ']' || (longer ? unit % 512 == 0 || after_escape : unit == 0)))
      e = "&gt;";
    if (e) put(s, e);
    else xmlOutputBufferWrite(s->out, (int)len, (const char *)t);
    after_escape = e != NULL;
    prev = len == 1 ? c : 0;
    unit += len == 4 ? 2 : 1;
    t += len;
  }
}

/* The generated prefix of uri in scope, 0 when none. */
static unsigned lookup(const smev *s, const xmlChar *uri) {
  for (size_t i = s->n; i-- > 0;)
    if (xmlStrEqual(s->uri[i], uri)) return s->prefix[i];
  return 0;
}

/* A new prefix for uri, its declaration written into the start tag now. */
static unsigned declare(smev *s, const xmlChar *uri) {
  if (s->n == MAX_NS) return s->failed = 1, 0;
  s->uri[s->n] = uri;
  s->prefix[s->n++] = ++s->next;
  char decl[32];
  snprintf(decl, sizeof decl, " xmlns:ns%u=\"", s->next);
  put(s, decl);
  attr_value(s, uri);
  put(s, "\"");
  return s->next;
}

static void prefixed(smev *s, unsigned p, const xmlChar *name) {
  char tag[32];
  if (p) snprintf(tag, sizeof tag, "ns%u:", p), put(s, tag);
  put(s, (const char *)name);
}

/* xml:lang and xml:space keep their prefix, bound by definition: a
 * declaration binding another prefix to the xml namespace is forbidden
 * (Namespaces in XML 1.0, 3), and the recommendations' writer refuses it. */
static int xml_ns(xmlAttrPtr a) { return a->ns && xmlStrEqual(a->ns->href, XML_XML_NAMESPACE); }

static int cmp_attr(const void *pa, const void *pb) {
  xmlAttrPtr a = *(xmlAttrPtr const *)pa, b = *(xmlAttrPtr const *)pb;
  if (!a->ns != !b->ns) return a->ns ? -1 : 1; /* the qualified first */
  int c = a->ns ? xmlStrcmp(a->ns->href, b->ns->href) : 0;
  return c ? c : xmlStrcmp(a->name, b->name);
}

static int whitespace_only(const xmlChar *t) {
  for (; *t; t++)
    if (*t > 0x20) return 0;
  return 1;
}

static void element(smev *s, xmlNodePtr e, int depth);

static void children(smev *s, xmlNodePtr e, int depth) {
  for (xmlNodePtr c = e->children; c && !s->failed; c = c->next) {
    if (c->type == XML_ELEMENT_NODE) element(s, c, depth + 1);
    else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
             !whitespace_only(c->content))
      text(s, c->content);
  }
}

static void element(smev *s, xmlNodePtr e, int depth) {
  size_t scope = s->n, na = 0;
  for (xmlAttrPtr a = e->properties; a; a = a->next) na++;
  xmlAttrPtr *attrs = na ? malloc(na * sizeof *attrs) : NULL;
  if ((na && !attrs) || depth > 256) {
    free(attrs);
    s->failed = 1;
    return;
  }
  na = 0;
  for (xmlAttrPtr a = e->properties; a; a = a->next) attrs[na++] = a;
  if (na > 1) qsort(attrs, na, sizeof *attrs, cmp_attr);
  /* the name, its namespace's declaration when not in scope, then those
   * the attributes need in their order */
  const xmlChar *uri = e->ns && e->ns->href && *e->ns->href ? e->ns->href : NULL;
  unsigned p = uri ? lookup(s, uri) : 0;
  int fresh = uri && !p;
  if (fresh) p = s->next + 1;
  put(s, "<");
  prefixed(s, p, e->name);
  if (fresh) declare(s, uri);
  for (size_t i = 0; i < na; i++)
    if (attrs[i]->ns && !xml_ns(attrs[i]) && !lookup(s, attrs[i]->ns->href))
      declare(s, attrs[i]->ns->href);
  for (size_t i = 0; i < na; i++) {
    xmlChar *v = xmlNodeListGetString(e->doc, attrs[i]->children, 1);
    put(s, xml_ns(attrs[i]) ? " xml:" : " ");
    prefixed(s, attrs[i]->ns && !xml_ns(attrs[i]) ? lookup(s, attrs[i]->ns->href) : 0,
             attrs[i]->name);
    put(s, "=\"");
    attr_value(s, v ? v : (const xmlChar *)"");
    put(s, "\"");
    xmlFree(v);
  }
  free(attrs);
  put(s, ">");
  children(s, e, depth);
  put(s, "</");
  prefixed(s, p, e->name);
  put(s, ">");
  s->n = scope; /* this element's declarations go out of scope */
}

int xd_smev(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len) {
  xmlDocPtr doc = xd_parse_canonical(in, len);
  if (!doc) return -1;
  smev *s = calloc(1, sizeof *s);
  xd_sink k;
  xmlOutputBufferPtr buf = s ? xd_sink_open(&k) : NULL;
  int rc = -1;
  if (buf) {
    s->out = buf;
    element(s, xmlDocGetRootElement(doc), 0);
    if (!xd_sink_close(&k, buf) && !s->failed) *out = k.p, *out_len = k.n, rc = 0;
    else free(k.p);
  }
  free(s);
  xmlFreeDoc(doc);
  return rc;
}
