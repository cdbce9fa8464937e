/* The streaming paths' document: libxml2's xmlTextReader over the
 * caller's read callback, as safe as xd_parse (doc.c): nothing fetched, no
 * entity substituted, and a DOCTYPE refused before the parser reads a
 * declaration of it. The reader has no hook where xd_parse stops the
 * parser (its SAX internalSubset), so every byte is scanned (scan.c) as it
 * passes to it: a "<!" before the root that does not open a comment stops
 * the read, as do the limits on attributes, depth and names, and the
 * encodings that would hide markup from the scan. */
#include <string.h>

#include <libxml/xmlreader.h>

#include "internal.h"

static int io_read(void *ctx, char *buf, int len) {
  xd_stream *s = ctx;
  if (s->scan.st || s->io_err) return -1;
  long n = s->io->read(s->io->read_ctx, (uint8_t *)buf, (size_t)len);
  if (n < 0 || n > len) return s->io_err = 1, -1;
  return xd_scan_feed(&s->scan, (const uint8_t *)buf, (size_t)n) ? -1 : (int)n;
}

/* libxml2's errors go nowhere; the first one's code names the refusal. A
 * namespace error does not stop the reader: noted, xd_stream_next stops. */
static void quiet(void *arg, xmlErrorPtr e) {
  xd_stream *s = arg;
  if (!s->xml_err && e && e->level >= XML_ERR_ERROR) s->xml_err = e->code ? e->code : -1;
  if (!s->ns_err[0] && e && e->domain == XML_FROM_NAMESPACE && e->level >= XML_ERR_ERROR)
    xd_ns_error(e, s->ns_err, sizeof s->ns_err);
}

int xd_stream_open(xd_stream *s, const gostx_xmldsig_io *io) {
  memset(s, 0, sizeof *s);
  s->io = io;
  xd_scan_init(&s->scan, 0, 1); /* nodes unbounded: the reader keeps few */
  /* as xd_parse: NONET, no NOENT, no DTDLOAD, no HUGE (libxml2's limits stay) */
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
  s->r = xmlReaderForIO(io_read, NULL, s, NULL, NULL, opts);
  if (!s->r) return -1;
  xmlTextReaderSetStructuredErrorHandler(s->r, quiet, s);
  return 0;
}

int xd_stream_next(xd_stream *s, int skip) {
  int rc = skip ? xmlTextReaderNext(s->r) : xmlTextReaderRead(s->r);
  if (rc == 1 && xmlTextReaderNodeType(s->r) == XML_READER_TYPE_DOCUMENT_TYPE) {
    s->dtd = 1; /* not reached past the scan; kept should the scan miss one */
    return -1;
  }
  if (s->ns_err[0]) return -1;
  return rc == 1 ? 1 : rc == 0 ? 0 : -1;
}

gostx_xmldsig_status xd_stream_status(const xd_stream *s, char *err, size_t cap) {
  if (s->scan.st) return xd_scan_status(&s->scan, err, cap);
  if (s->dtd) {
    xd_err(err, cap, "a DOCTYPE (DTDs and entities are refused)");
    return GOSTX_XMLDSIG_DTD;
  }
  if (s->ns_err[0]) {
    xd_err(err, cap, "%s", s->ns_err);
    return GOSTX_XMLDSIG_MALFORMED;
  }
  if (s->io_err) {
    xd_err(err, cap, "reading the document failed");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  /* libxml2 2.9 reports its depth limit (256) as an internal error */
  int limit = s->xml_err == XML_ERR_INTERNAL_ERROR;
  xd_err(err, cap, limit ? "past the parser's depth or size limit" : "not well-formed XML");
  return limit ? GOSTX_XMLDSIG_TOO_LARGE : GOSTX_XMLDSIG_MALFORMED;
}

void xd_stream_close(xd_stream *s) {
  if (s->r) xmlFreeTextReader(s->r);
  s->r = NULL;
}

int xd_stream_is(xmlTextReaderPtr r, const char *ns, const char *name) {
  const xmlChar *u = xmlTextReaderConstNamespaceUri(r);
  return xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT && u &&
         !strcmp((const char *)u, ns) &&
         !strcmp((const char *)xmlTextReaderConstLocalName(r), name);
}

int xd_obuf_write(void *ctx, const uint8_t *p, size_t n) {
  xd_obuf *o = ctx;
  if (o->failed) return -1;
  if (n > sizeof o->b - o->n) {
    if (xd_obuf_flush(o)) return -1;
    if (n >= sizeof o->b) return (o->failed = o->flush(o->ctx, p, n) != 0) ? -1 : 0;
  }
  memcpy(o->b + o->n, p, n);
  o->n += n;
  return 0;
}

int xd_obuf_flush(xd_obuf *o) {
  if (!o->failed && o->n && o->flush(o->ctx, o->b, o->n)) o->failed = 1;
  o->n = 0;
  return o->failed ? -1 : 0;
}
