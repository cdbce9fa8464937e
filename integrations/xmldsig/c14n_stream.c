/* Exclusive XML Canonicalization 1.0 (without comments, no
 * InclusiveNamespaces) over xmlTextReader events, so a document is
 * canonicalized in memory bounded by its depth and its largest node,
 * never by its size. The octets go to a callback as they are made.
 * tests/xmldsig/test_c14n_stream.c compares it byte for byte with libxml2's
 * xmlC14NDocSaveTo on the DOM. The same walker in copy mode writes the
 * events back as ordinary XML (the streaming signer's ds:Object content). */
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "internal.h"

/* A namespace an output ancestor rendered: prefix ("" the default), its
 * URI, and the depth of the element that rendered it. */
struct xd_c14s_ns {
  xmlChar *prefix, *uri;
  int depth;
};
typedef struct xd_c14s_ns rendered;
typedef xd_c14s c14s;

static void put(c14s *s, const char *p, size_t n) {
  if (!s->failed && n && s->write(s->ctx, (const uint8_t *)p, n)) s->failed = 1;
}
static void puts_(c14s *s, const char *p) { put(s, p, strlen(p)); }

/* Text (attr 0), an attribute value (attr 1) or CDATA (attr 2), escaped
 * as c14n says. A CR in CDATA is a line end libxml2's push parser (the
 * reader's) left unnormalized, where the DOM's has "\n": normalized
 * here (no character reference can put one there). */
static void escaped(c14s *s, const xmlChar *t, int attr) {
  const char *p = (const char *)t, *run = p;
  for (; *p; p++) {
    const char *e = NULL;
    if (attr == 2 && *p == '\r') {
      put(s, run, (size_t)(p - run));
      if (p[1] != '\n') puts_(s, "\n");
      run = p + 1;
      continue;
    }
    switch (*p) {
    case '&': e = "&amp;"; break;
    case '<': e = "&lt;"; break;
    case '>': e = attr == 1 ? NULL : "&gt;"; break;
    case '"': e = attr == 1 ? "&quot;" : NULL; break;
    case '\t': e = attr == 1 ? "&#x9;" : NULL; break;
    case '\n': e = attr == 1 ? "&#xA;" : NULL; break;
    case '\r': e = "&#xD;"; break;
    }
    if (!e) continue;
    put(s, run, (size_t)(p - run));
    puts_(s, e);
    run = p + 1;
  }
  put(s, run, (size_t)(p - run));
}

static const xmlChar *nz(const xmlChar *p) { return p ? p : (const xmlChar *)""; }

/* The URI an output ancestor rendered for prefix ("" when none). */
static const xmlChar *in_output(const c14s *s, const xmlChar *prefix) {
  for (size_t i = s->n_ns; i-- > 0;)
    if (xmlStrEqual(s->ns[i].prefix, prefix)) return s->ns[i].uri;
  return (const xmlChar *)"";
}

typedef struct {
  xmlChar *prefix, *uri, *local, *value; /* value NULL: a namespace to render */
} item;

static int by_prefix(const void *a, const void *b) {
  return xmlStrcmp(((const item *)a)->prefix, ((const item *)b)->prefix);
}
static int by_uri_local(const void *a, const void *b) {
  const item *x = a, *y = b;
  int c = xmlStrcmp(x->uri, y->uri);
  return c ? c : xmlStrcmp(x->local, y->local);
}

static void items_free(item *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    xmlFree(v[i].prefix), xmlFree(v[i].uri), xmlFree(v[i].local), xmlFree(v[i].value);
  }
  free(v);
}

/* Adds (prefix, uri) to the namespaces to render unless already there or
 * an output ancestor rendered the same; "xml" is never rendered. */
static int utilize(c14s *s, item **ns, size_t *n, size_t *cap, const xmlChar *prefix,
                   const xmlChar *uri) {
  prefix = nz(prefix), uri = nz(uri);
  if (xmlStrEqual(prefix, BAD_CAST "xml")) return 0;
  for (size_t i = 0; i < *n; i++)
    if (xmlStrEqual((*ns)[i].prefix, prefix)) return 0;
  if (xmlStrEqual(in_output(s, prefix), uri)) return 0;
  if (*n == *cap) {
    size_t c = *cap ? *cap * 2 : 8;
    item *p = realloc(*ns, c * sizeof *p);
    if (!p) return -1;
    *ns = p, *cap = c;
  }
  item *it = &(*ns)[(*n)++];
  memset(it, 0, sizeof *it);
  it->prefix = xmlStrdup(prefix), it->uri = xmlStrdup(uri);
  return it->prefix && it->uri ? 0 : -1;
}

/* The start tag of the reader's element at depth: its visibly utilized
 * namespaces not rendered above, then its attributes, each sorted. */
static int start_tag(c14s *s, xmlTextReaderPtr r, int depth) {
  item *ns = NULL, *at = NULL;
  size_t n_ns = 0, cap_ns = 0, n_at = 0, cap_at = 0;
  int rc = -1;
  if (utilize(s, &ns, &n_ns, &cap_ns, xmlTextReaderConstPrefix(r),
              xmlTextReaderConstNamespaceUri(r)))
    goto out;
  for (int k = xmlTextReaderMoveToFirstAttribute(r); k == 1; k = xmlTextReaderMoveToNextAttribute(r)) {
    if (xmlTextReaderIsNamespaceDecl(r)) continue;
    const xmlChar *prefix = xmlTextReaderConstPrefix(r);
    if (prefix && utilize(s, &ns, &n_ns, &cap_ns, prefix, xmlTextReaderConstNamespaceUri(r)))
      goto out;
    if (n_at == cap_at) {
      size_t c = cap_at ? cap_at * 2 : 8;
      item *p = realloc(at, c * sizeof *p);
      if (!p) goto out;
      at = p, cap_at = c;
    }
    item *it = &at[n_at++];
    it->prefix = xmlStrdup(nz(prefix));
    it->uri = xmlStrdup(nz(xmlTextReaderConstNamespaceUri(r)));
    it->local = xmlStrdup(xmlTextReaderConstLocalName(r));
    it->value = xmlTextReaderValue(r);
    if (!it->prefix || !it->uri || !it->local || !it->value) goto out;
  }
  xmlTextReaderMoveToElement(r);
  if (n_ns) qsort(ns, n_ns, sizeof *ns, by_prefix); /* never qsort(NULL, 0) */
  if (n_at) qsort(at, n_at, sizeof *at, by_uri_local);
  puts_(s, "<");
  puts_(s, (const char *)xmlTextReaderConstName(r));
  for (size_t i = 0; i < n_ns; i++) {
    puts_(s, *ns[i].prefix ? " xmlns:" : " xmlns");
    puts_(s, (const char *)ns[i].prefix);
    puts_(s, "=\"");
    escaped(s, ns[i].uri, 1);
    puts_(s, "\"");
  }
  for (size_t i = 0; i < n_at; i++) {
    puts_(s, " ");
    if (*at[i].prefix) puts_(s, (const char *)at[i].prefix), puts_(s, ":");
    puts_(s, (const char *)at[i].local);
    puts_(s, "=\"");
    escaped(s, at[i].value, 1);
    puts_(s, "\"");
  }
  puts_(s, ">");
  /* what this element rendered, in scope for its descendants */
  if (s->n_ns + n_ns > s->cap_ns) {
    size_t c = (s->n_ns + n_ns) * 2;
    rendered *p = realloc(s->ns, c * sizeof *p);
    if (!p) goto out;
    s->ns = p, s->cap_ns = c;
  }
  for (size_t i = 0; i < n_ns; i++) {
    s->ns[s->n_ns++] = (rendered){ns[i].prefix, ns[i].uri, depth};
    ns[i].prefix = ns[i].uri = NULL;
  }
  rc = 0;
out:
  items_free(ns, n_ns);
  items_free(at, n_at);
  return rc;
}

static void end_tag(c14s *s, xmlTextReaderPtr r, int depth) {
  puts_(s, "</");
  puts_(s, (const char *)xmlTextReaderConstName(r));
  puts_(s, ">");
  while (s->n_ns && s->ns[s->n_ns - 1].depth >= depth) {
    s->n_ns--;
    xmlFree(s->ns[s->n_ns].prefix), xmlFree(s->ns[s->n_ns].uri);
  }
}

static void pi(c14s *s, xmlTextReaderPtr r) {
  const xmlChar *v = xmlTextReaderConstValue(r);
  puts_(s, "<?");
  puts_(s, (const char *)xmlTextReaderConstName(r));
  if (v && *v) puts_(s, " "), put(s, (const char *)v, strlen((const char *)v));
  puts_(s, "?>");
}

void xd_c14s_init(xd_c14s *s, int copy, xd_c14s_write write, void *ctx) {
  memset(s, 0, sizeof *s);
  s->write = write, s->ctx = ctx, s->copy = copy;
}

int xd_c14s_rendered(xd_c14s *s, const char *prefix, const char *uri) {
  rendered *p = realloc(s->ns, (s->n_ns + 1) * sizeof *p);
  if (!p) return s->failed = 1, -1;
  s->ns = p, s->cap_ns = s->n_ns + 1;
  p[s->n_ns] = (rendered){xmlStrdup(BAD_CAST prefix), xmlStrdup(BAD_CAST uri), -1};
  return p[s->n_ns++].uri ? 0 : (s->failed = 1, -1);
}

void xd_c14s_put(xd_c14s *s, const char *p) { puts_(s, p); }
void xd_c14s_escaped(xd_c14s *s, const char *t, int attr) { escaped(s, BAD_CAST t, attr); }

/* Copy mode's start tag: the element's name, then its attributes and
 * namespace declarations as the document has them (in its order). */
static void copy_tag(c14s *s, xmlTextReaderPtr r) {
  puts_(s, "<");
  puts_(s, (const char *)xmlTextReaderConstName(r));
  for (int k = xmlTextReaderMoveToFirstAttribute(r); k == 1; k = xmlTextReaderMoveToNextAttribute(r)) {
    puts_(s, " ");
    puts_(s, (const char *)xmlTextReaderConstName(r));
    puts_(s, "=\"");
    xmlChar *v = xmlTextReaderValue(r);
    if (!v) s->failed = 1;
    else escaped(s, v, 1);
    xmlFree(v);
    puts_(s, "\"");
  }
  xmlTextReaderMoveToElement(r);
  puts_(s, xmlTextReaderIsEmptyElement(r) ? "/>" : ">");
}

int xd_c14s_node(xd_c14s *s, xmlTextReaderPtr r) {
  int depth = xmlTextReaderDepth(r);
  switch (xmlTextReaderNodeType(r)) {
  case XML_READER_TYPE_ELEMENT:
    if (s->copy) {
      copy_tag(s, r);
      break;
    }
    if (start_tag(s, r, depth)) s->failed = 1;
    if (xmlTextReaderIsEmptyElement(r)) end_tag(s, r, depth);
    break;
  case XML_READER_TYPE_END_ELEMENT: end_tag(s, r, depth); break;
  case XML_READER_TYPE_CDATA: escaped(s, xmlTextReaderConstValue(r), 2); break;
  case XML_READER_TYPE_TEXT:
  case XML_READER_TYPE_SIGNIFICANT_WHITESPACE:
  case XML_READER_TYPE_WHITESPACE: escaped(s, xmlTextReaderConstValue(r), 0); break;
  case XML_READER_TYPE_PROCESSING_INSTRUCTION: pi(s, r); break;
  case XML_READER_TYPE_COMMENT:
    if (s->copy) { /* a comment never holds "--": written as it is */
      puts_(s, "<!--");
      puts_(s, (const char *)xmlTextReaderConstValue(r));
      puts_(s, "-->");
    }
    break;
  default: break; /* nothing else a refused DOCTYPE lets through */
  }
  return s->failed ? -1 : 0;
}

void xd_c14s_free(xd_c14s *s) {
  for (size_t i = 0; i < s->n_ns; i++) xmlFree(s->ns[i].prefix), xmlFree(s->ns[i].uri);
  free(s->ns);
  s->ns = NULL, s->n_ns = s->cap_ns = 0;
}

int xd_c14s_run(xmlTextReaderPtr r, int whole, xd_c14s_write write, void *ctx) {
  c14s s;
  xd_c14s_init(&s, 0, write, ctx);
  int base = whole ? 0 : xmlTextReaderDepth(r), rc = 1, seen_root = 0;
  if (!whole && xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT) return -1;
  for (int first = !whole; !s.failed; first = 0) {
    if (!first && (rc = xmlTextReaderRead(r)) != 1) break;
    int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
    if (whole && depth == 0 && type != XML_READER_TYPE_ELEMENT &&
        type != XML_READER_TYPE_END_ELEMENT) { /* outside the document element */
      if (type == XML_READER_TYPE_PROCESSING_INSTRUCTION) {
        if (seen_root) puts_(&s, "\n");
        pi(&s, r);
        if (!seen_root) puts_(&s, "\n");
      }
      continue;
    }
    seen_root |= whole && depth == 0;
    xd_c14s_node(&s, r);
    if (!whole && depth == base &&
        (type == XML_READER_TYPE_END_ELEMENT ||
         (type == XML_READER_TYPE_ELEMENT && xmlTextReaderIsEmptyElement(r))))
      break;
  }
  int failed = s.failed;
  xd_c14s_free(&s);
  return failed || rc < 0 ? -1 : 0;
}
