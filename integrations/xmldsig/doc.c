/* The document side of libgostx-xmldsig: the safe parse (no network, no
 * entities, no DOCTYPE at all), the Id index that refuses duplicates, the
 * algorithm URIs, base64, and small tree helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include <gostx/base64.h>
#include <gostx/gost94.h>
#include <gostx/hash.h>

#include "internal.h"

void xd_err(char *err, size_t cap, const char *fmt, ...) {
  if (!err || !cap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
}

/* A DOCTYPE is refused where the parser meets it, before any declaration
 * in it is read: no entity, internal or external, ever exists. */
static void refuse_dtd(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys) {
  (void)name, (void)ext, (void)sys;
  xmlParserCtxtPtr c = ctx;
  c->_private = (void *)1;
  xmlStopParser(c);
}

/* libxml2's errors go nowhere (the caller names the refusal). */
static void quiet(void *ctx, const char *msg, ...) { (void)ctx, (void)msg; }

void xd_ns_error(const xmlError *e, char *out, size_t cap) {
  const char *m = e && e->domain == XML_FROM_NAMESPACE && e->message ? e->message : "";
  size_t n = strcspn(m, "\n"); /* libxml2's line, its newline left out */
  snprintf(out, cap, "not namespace-well-formed: %.*s", (int)(n < 120 ? n : 120),
           *m ? m : "a namespace error");
}

static xmlDocPtr parse(const uint8_t *xml, size_t len, unsigned scale, gostx_xmldsig_status *st,
                       char *err, size_t err_cap) {
  if (len > GOSTX_XMLDSIG_MAX_SIZE || len > (size_t)INT32_MAX) {
    *st = GOSTX_XMLDSIG_TOO_LARGE;
    xd_err(err, err_cap, "document over %u bytes", GOSTX_XMLDSIG_MAX_SIZE);
    return NULL;
  }
  /* the limits checked before libxml2's work can grow past linear (scan.c) */
  xd_scan sc;
  xd_scan_init(&sc, GOSTX_XMLDSIG_MAX_NODES, scale);
  if (xd_scan_feed(&sc, xml, len)) {
    *st = xd_scan_status(&sc, err, err_cap);
    return NULL;
  }
  xmlSetGenericErrorFunc(NULL, quiet);
  xmlParserCtxtPtr c = xmlNewParserCtxt();
  if (!c) {
    *st = GOSTX_XMLDSIG_MALFORMED;
    xd_err(err, err_cap, "out of memory");
    return NULL;
  }
  c->sax->internalSubset = refuse_dtd;
  c->sax->externalSubset = refuse_dtd;
  c->_private = NULL;
  /* NONET: nothing fetched; no NOENT (entities never substituted), no
   * DTDLOAD/DTDATTR (no DTD read), no HUGE (libxml2's depth and size limits
   * stay); NOBLANKS off: whitespace is content that c14n keeps. */
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
  xmlDocPtr doc = xmlCtxtReadMemory(c, (const char *)xml, (int)len, NULL, NULL, opts);
  int dtd = c->_private != NULL;
  /* libxml2 2.9 reports its depth limit (256) as an internal error */
  int limit = c->lastError.code == XML_ERR_INTERNAL_ERROR;
  /* A namespace error (an undeclared prefix, xmlns:p="", the xml prefix
   * rebound) leaves libxml2's tree built, the element in no namespace:
   * signed or verified it would mean what the other implementations refuse. */
  char ns_err[160] = "";
  if (doc && !c->nsWellFormed) xd_ns_error(&c->lastError, ns_err, sizeof ns_err);
  xmlFreeParserCtxt(c);
  if (dtd || (doc && (doc->intSubset || doc->extSubset))) {
    if (doc) xmlFreeDoc(doc);
    *st = GOSTX_XMLDSIG_DTD;
    xd_err(err, err_cap, "a DOCTYPE (DTDs and entities are refused)");
    return NULL;
  }
  if (doc && ns_err[0]) {
    xmlFreeDoc(doc);
    *st = GOSTX_XMLDSIG_MALFORMED;
    xd_err(err, err_cap, "%s", ns_err);
    return NULL;
  }
  if (!doc || !xmlDocGetRootElement(doc)) {
    if (doc) xmlFreeDoc(doc);
    *st = limit ? GOSTX_XMLDSIG_TOO_LARGE : GOSTX_XMLDSIG_MALFORMED;
    xd_err(err, err_cap, limit ? "past the parser's depth or size limit" : "not well-formed XML");
    return NULL;
  }
  *st = GOSTX_XMLDSIG_OK;
  return doc;
}

xmlDocPtr xd_parse(const uint8_t *xml, size_t len, gostx_xmldsig_status *st, char *err,
                   size_t err_cap) {
  return parse(xml, len, 1, st, err, err_cap);
}

xmlDocPtr xd_parse_canonical(const uint8_t *xml, size_t len) {
  gostx_xmldsig_status st;
  return parse(xml, len, 2, &st, NULL, 0);
}

/* The Id of element n: Id, ID, id (no namespace) or wsu:Id; NULL if none.
 * Two on one element are refused by the caller as a duplicate. */
int xd_ids_of(xmlNodePtr n, const xmlChar *out[4]) {
  int k = 0;
  for (xmlAttrPtr a = n->properties; a && k < 4; a = a->next) {
    const char *nm = (const char *)a->name;
    int plain = !a->ns && (!strcmp(nm, "Id") || !strcmp(nm, "ID") || !strcmp(nm, "id"));
    int wsu = a->ns && !strcmp(nm, "Id") && !strcmp((const char *)a->ns->href, XD_WSU_NS);
    if ((plain || wsu) && a->children && a->children->type == XML_TEXT_NODE)
      out[k++] = a->children->content;
  }
  return k;
}

xmlNodePtr xd_next(xmlNodePtr n, xmlNodePtr root) {
  if (n->type == XML_ELEMENT_NODE && n->children) return n->children;
  while (n != root && !n->next) n = n->parent;
  return n != root ? n->next : NULL;
}

typedef struct {
  const xmlChar **v;
  size_t n, cap;
} id_list;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

gostx_xmldsig_status xd_find_id(xmlNodePtr root, const char *id, xmlNodePtr *found, char *err,
                                size_t err_cap) {
  id_list l = {0};
  *found = NULL;
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  for (xmlNodePtr n = root; n; n = xd_next(n, root)) {
    if (n->type == XML_ELEMENT_NODE) {
      const xmlChar *ids[4];
      int k = xd_ids_of(n, ids);
      for (int i = 0; i < k; i++) {
        if (l.n == l.cap) {
          size_t cap = l.cap ? 2 * l.cap : 64;
          const xmlChar **v = realloc(l.v, cap * sizeof *v);
          if (!v) {
            free(l.v);
            xd_err(err, err_cap, "out of memory");
            return GOSTX_XMLDSIG_MALFORMED;
          }
          l.v = v, l.cap = cap;
        }
        l.v[l.n++] = ids[i];
        if (id && !strcmp((const char *)ids[i], id)) *found = n;
      }
    }
  }
  if (l.n > 1) qsort(l.v, l.n, sizeof *l.v, cmp_str);
  for (size_t i = 1; i < l.n; i++)
    if (!strcmp((const char *)l.v[i], (const char *)l.v[i - 1])) {
      xd_err(err, err_cap, "the Id \"%.100s\" is on two elements (signature wrapping?)",
             (const char *)l.v[i]);
      st = GOSTX_XMLDSIG_DUPLICATE_ID;
      *found = NULL;
      break;
    }
  free(l.v);
  return st;
}

int xd_c14n_alg(const char *uri, int *exclusive, int *comments) {
  static const struct { const char *uri; int excl, comm; } t[] = {
      {XD_EXC_C14N, 1, 0}, {XD_EXC_C14N_COMMENTS, 1, 1},
      {XD_C14N, 0, 0},     {XD_C14N_COMMENTS, 0, 1}};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (!strcmp(uri, t[i].uri)) {
      *exclusive = t[i].excl, *comments = t[i].comm;
      return 1;
    }
  return 0;
}

#define CPXML "urn:ietf:params:xml:ns:cpxmlsec:algorithms:"
#define MORE "http://www.w3.org/2001/04/xmldsig-more#"

int xd_digest_alg(const char *uri) {
  if (!strcmp(uri, CPXML "gostr34112012-256")) return 32;
  if (!strcmp(uri, CPXML "gostr34112012-512")) return 64;
  if (!strcmp(uri, CPXML "gostr3411") || !strcmp(uri, MORE "gostr3411")) return 94;
  return 0;
}

int xd_sig_alg(const char *uri, size_t *key_len, int *legacy) {
  *legacy = 0;
  if (!strcmp(uri, CPXML "gostr34102012-gostr34112012-256")) return *key_len = 32, 32;
  if (!strcmp(uri, CPXML "gostr34102012-gostr34112012-512")) return *key_len = 64, 64;
  if (!strcmp(uri, CPXML "gostr34102001-gostr3411") || !strcmp(uri, MORE "gostr34102001-gostr3411"))
    return *key_len = 32, *legacy = 1, 94;
  return 0;
}

const char *xd_digest_uri(size_t len) {
  return len == 64 ? CPXML "gostr34112012-512" : CPXML "gostr34112012-256";
}
const char *xd_sig_uri(size_t len) {
  return len == 64 ? CPXML "gostr34102012-gostr34112012-512"
                   : CPXML "gostr34102012-gostr34112012-256";
}

size_t xd_digest(int alg, const uint8_t *data, size_t len, uint8_t *out) {
  if (alg == 94) return gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, data, len, out) ? 0 : 32;
  if (alg != 32 && alg != 64) return 0;
  return gostx_streebog((size_t)alg, data, len, out) ? 0 : (size_t)alg;
}

int xd_hash_init(xd_hash *h, int alg) {
  h->alg = alg;
  if (alg == 94) return gostx_gost94_init(&h->u.g, GOSTX_SBOX_CRYPTOPRO_3411_94) ? -1 : 0;
  return alg == 32 || alg == 64 ? (gostx_streebog_init(&h->u.s, (size_t)alg) ? -1 : 0) : -1;
}

int xd_hash_update(xd_hash *h, const uint8_t *p, size_t len) {
  return (h->alg == 94 ? gostx_gost94_update(&h->u.g, p, len)
                       : gostx_streebog_update(&h->u.s, p, len)) ? -1 : 0;
}

size_t xd_hash_final(xd_hash *h, uint8_t *out) {
  if (h->alg == 94) return gostx_gost94_final(&h->u.g, out) ? 0 : 32;
  return gostx_streebog_final(&h->u.s, out) ? 0 : (size_t)h->alg;
}

/* XML's base64 through gostx/base64.h: white space between the characters
 * skipped (each run between it a piece), then what the decoder leaves to
 * its caller: at most two '=', no character alone in its last group, that
 * group's unused bits zero. */
char *xd_b64_encode(const uint8_t *p, size_t len) {
  char *s = malloc(4 * ((len + 2) / 3) + 1);
  if (s) s[gostx_base64_encode(p, len, s)] = 0;
  return s;
}

static int xml_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

long xd_b64_decode(const char *s, uint8_t *out, size_t cap) {
  size_t chars = 0, pad = 0, n = 0, got;
  for (const char *c = s; *c; c++) chars += !xml_space(*c), pad += *c == '=';
  if (pad > 2 || (chars - pad) * 6 / 8 > cap) return -1; /* room for what the decoder writes */
  gostx_base64 d = {0, 0, 0};
  while (*s) {
    size_t run = 0;
    while (s[run] && !xml_space(s[run])) run++;
    if (run && gostx_base64_decode(&d, s, run, out + n, &got)) return -1;
    n += run ? got : 0;
    s += run;
    while (xml_space(*s)) s++;
  }
  unsigned left = (unsigned)((chars - pad) * 6 % 8); /* bits past the last whole byte */
  return left >= 6 || (d.bits & ((1u << left) - 1)) ? -1 : (long)n;
}

char *xd_text(xmlNodePtr n) { return (char *)xmlNodeGetContent(n); }

int xd_is(xmlNodePtr n, const char *ns, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && n->ns && !strcmp((const char *)n->ns->href, ns) &&
         !strcmp((const char *)n->name, name);
}

xmlNodePtr xd_child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
    if (xd_is(c, XD_NS, name)) return c;
  return NULL;
}

const char *gostx_xmldsig_status_name(gostx_xmldsig_status st) {
  static const char *const names[] = {
      "OK", "malformed", "too large", "DTD refused", "no signature", "a second signature",
      "duplicate Id", "bad reference", "unsupported algorithm", "digest mismatch",
      "bad signature", "no certificate", "key mismatch", "certificate chain",
      "the key failed"};
  return (unsigned)st < sizeof names / sizeof *names ? names[st] : "unknown";
}
