/* The streaming exclusive c14n (integrations/xmldsig/c14n_stream.c)
 * against libxml2's on the DOM, byte for byte: random documents
 * (prefixes bound, rebound and shadowed, the default namespace set and
 * undone, attributes in namespaces, xml:*, special characters, CR, CDATA,
 * PIs, comments inside and outside the root) and fixed tricky ones, as a
 * whole document and as the subtree of a random element; and the same
 * walker's copy mode, whose output must canonicalize as the original. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/c14n.h>
#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#include "internal.h"
#include "testutil.h"

#define OPTS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

typedef struct {
  char *p;
  size_t n, cap;
} buf;

static void add(buf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->p = realloc(b->p, b->cap);
    if (!b->p) abort();
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void adds(buf *b, const char *s) { add(b, s, strlen(s)); }

static int sink(void *ctx, const uint8_t *p, size_t n) { return add(ctx, (const char *)p, n), 0; }

static const char *pick(const char *const *v, size_t n) { return v[t_rand_below(n)]; }
#define PICK(v) pick(v, sizeof v / sizeof *v)

static const char *const uris[] = {"urn:a", "urn:b", "http://x.example/n?q=1", "urn:a"};
static const char *const texts[] = {
    "plain", " spaced\tout\n", "a &amp; b &lt; c &gt; d", "&quot;q&quot; 'a'", "cr&#13;lf&#xD;&#10;",
    "\xd0\x9f\xd1\x80\xd0\xb8", "]]&gt;", "tab&#9;x", ""};
static const char *const avals[] = {"v", "a&amp;b&lt;c&gt;d", "&quot;x&quot;", "t&#9;n&#10;r&#13;",
                                    "lit\ttab\nnl", "'s'", "", "\xc3\xa9"};

/* In-scope prefixes: three slots ("", p, q), each a URI index or -1. */
static void element(buf *b, int depth, const int *scope) {
  static const char *const pfx[] = {"", "p", "q"};
  int sc[3];
  memcpy(sc, scope, sizeof sc);
  char decl[512] = "";
  for (int i = 0; i < 3; i++) /* declare or redeclare some */
    if (t_rand_below(3) == 0) {
      int u = (int)t_rand_below(4);
      if (i == 0 && t_rand_below(3) == 0) { /* undo the default */
        strcat(decl, " xmlns=\"\"");
        sc[0] = -1;
        continue;
      }
      snprintf(decl + strlen(decl), sizeof decl - strlen(decl), " xmlns%s%s=\"%s\"", i ? ":" : "",
               pfx[i], uris[u]);
      sc[i] = u;
    }
  int use = (int)t_rand_below(3);
  if (use && sc[use] < 0) use = 0; /* a prefix must be bound */
  char name[16];
  snprintf(name, sizeof name, "%s%se%d", pfx[use], use ? ":" : "", (int)t_rand_below(3));
  adds(b, "<"), adds(b, name), adds(b, decl);
  int nat = (int)t_rand_below(4);
  for (int i = 0; i < nat; i++) {
    int ap = (int)t_rand_below(4); /* 0 none, 1 p, 2 q, 3 xml */
    char an[32];
    if (ap == 3)
      snprintf(an, sizeof an, "xml:%s", i & 1 ? "lang" : "space");
    else if (ap && sc[ap] >= 0)
      snprintf(an, sizeof an, "%s:a%d", pfx[ap], i);
    else
      snprintf(an, sizeof an, "a%d", i);
    if (ap == 3 && strstr(b->p + b->n - 64 > b->p ? b->p + b->n - 64 : b->p, an)) continue;
    adds(b, " "), adds(b, an), adds(b, "=\"");
    adds(b, ap == 3 ? (i & 1 ? "ru" : "preserve") : PICK(avals)), adds(b, "\"");
  }
  if (depth > 4 || t_rand_below(5) == 0) {
    adds(b, "/>");
    return;
  }
  adds(b, ">");
  int kids = (int)t_rand_below(5);
  for (int i = 0; i < kids; i++) switch (t_rand_below(6)) {
    case 0: adds(b, PICK(texts)); break;
    case 1: adds(b, "<![CDATA[<&>\"\r\n]]]]>"), adds(b, "x"); break;
    case 2: adds(b, "<!-- c & -->"); break;
    case 3: adds(b, t_rand_below(2) ? "<?pi some data ?>" : "<?empty?>"); break;
    default: element(b, depth + 1, sc);
    }
  adds(b, "</"), adds(b, name), adds(b, ">");
}

static int visible(void *user, xmlNodePtr node, xmlNodePtr parent) {
  xmlNodePtr n = node->type == XML_NAMESPACE_DECL ? parent : node;
  for (; n; n = n->parent)
    if (n == user) return 1;
  return 0;
}

static xmlNodePtr nth_element(xmlNodePtr n, int *k) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    if ((*k)-- == 0) return n;
    xmlNodePtr f = nth_element(n->children, k);
    if (f) return f;
  }
  return NULL;
}

/* Copy mode (the streaming signer's Object content): the document's
 * element written again from the reader's events must parse to the same
 * exclusive c14n as the original's element. */
static void copy_check(xmlDocPtr doc, const char *xml, const char *what) {
  buf cp = {0};
  xd_c14s c;
  xd_c14s_init(&c, 1, sink, &cp);
  xmlTextReaderPtr r = xmlReaderForMemory(xml, (int)strlen(xml), NULL, NULL, OPTS);
  int in_root = 0, rc;
  while ((rc = xmlTextReaderRead(r)) == 1) {
    int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
    if (depth == 0 && type == XML_READER_TYPE_ELEMENT) in_root = 1;
    if (!in_root) continue;
    xd_c14s_node(&c, r);
    if (depth == 0 && (type == XML_READER_TYPE_END_ELEMENT || xmlTextReaderIsEmptyElement(r)))
      in_root = 0;
  }
  xmlFreeTextReader(r);
  xd_c14s_free(&c);
  xmlOutputBufferPtr ob = xmlAllocOutputBuffer(NULL);
  int wn = xmlC14NExecute(doc, visible, xmlDocGetRootElement(doc), XML_C14N_EXCLUSIVE_1_0, NULL, 0, ob);
  xmlDocPtr again = cp.p ? xmlReadMemory(cp.p, (int)cp.n, NULL, NULL, OPTS) : NULL;
  xmlChar *got = NULL;
  int gn = again ? xmlC14NDocDumpMemory(again, NULL, XML_C14N_EXCLUSIVE_1_0, NULL, 0, &got) : -1;
  const xmlChar *w = xmlOutputBufferGetContent(ob);
  int same = rc == 0 && !c.failed && wn >= 0 && gn >= 0 && (size_t)gn == xmlOutputBufferGetSize(ob) &&
             !memcmp(got, w, (size_t)gn);
  CHECK(same, "%s copy: rc %d\n in:   %s\n copy: %s\n want: %s\n got:  %s", what, rc, xml,
        cp.p ? cp.p : "", w, got ? (const char *)got : "");
  xmlFree(got);
  if (again) xmlFreeDoc(again);
  xmlOutputBufferClose(ob);
  free(cp.p);
}

/* One document: whole, and the subtree of its k-th element. */
static void compare(const char *xml, const char *what) {
  xmlDocPtr doc = xmlReadMemory(xml, (int)strlen(xml), NULL, NULL, OPTS);
  CHECK(doc != NULL, "%s parses: %s", what, xml);
  if (!doc) return;
  xmlChar *want = NULL;
  int wn = xmlC14NDocDumpMemory(doc, NULL, XML_C14N_EXCLUSIVE_1_0, NULL, 0, &want);
  buf got = {0};
  xmlTextReaderPtr r = xmlReaderForMemory(xml, (int)strlen(xml), NULL, NULL, OPTS);
  int rc = xd_c14s_run(r, 1, sink, &got);
  xmlFreeTextReader(r);
  int same = rc == 0 && wn >= 0 && got.n == (size_t)wn && !memcmp(got.p, want, got.n);
  CHECK(same, "%s whole: rc %d\n in:   %s\n want: %s\n got:  %s", what, rc, xml, want,
        got.p ? got.p : "");
  xmlFree(want);
  got.n = 0;

  int total = 0;
  for (int k = 0;; k++) {
    int kk = k;
    if (!nth_element(doc->children, &kk)) break;
    total++;
  }
  int k = (int)t_rand_below((size_t)total), kk = k;
  xmlNodePtr target = nth_element(doc->children, &kk);
  xmlOutputBufferPtr ob = xmlAllocOutputBuffer(NULL);
  wn = xmlC14NExecute(doc, visible, target, XML_C14N_EXCLUSIVE_1_0, NULL, 0, ob);
  r = xmlReaderForMemory(xml, (int)strlen(xml), NULL, NULL, OPTS);
  for (int seen = -1; seen < k && xmlTextReaderRead(r) == 1;)
    if (xmlTextReaderNodeType(r) == XML_READER_TYPE_ELEMENT) seen++;
  rc = xd_c14s_run(r, 0, sink, &got);
  xmlFreeTextReader(r);
  const xmlChar *w = xmlOutputBufferGetContent(ob);
  size_t wl = xmlOutputBufferGetSize(ob);
  same = rc == 0 && wn >= 0 && got.n == wl && !memcmp(got.p, w, wl);
  CHECK(same, "%s element %d: rc %d\n in:   %s\n want: %s\n got:  %s", what, k, rc, xml, w,
        got.p ? got.p : "");
  xmlOutputBufferClose(ob);
  free(got.p);
  copy_check(doc, xml, what);
  xmlFreeDoc(doc);
}

int main(void) {
  t_rand_init();
  static const char *const fixed[] = {
      "<a xmlns=\"urn:d\"><b xmlns=\"\"><c/></b></a>",
      "<a xmlns:p=\"urn:p\"><p:b><p:c xmlns:p=\"urn:p\"/><p:c xmlns:p=\"urn:q\"/></p:b></a>",
      "<a xmlns:p=\"urn:p\" xmlns:u=\"urn:unused\" p:z=\"1\" b=\"2\" a=\"3\"/>",
      "<a xmlns:p=\"urn:z\" xmlns:q=\"urn:a\" q:x=\"1\" p:x=\"2\" x=\"3\"/>",
      "<?first?><!-- c --><r xml:lang=\"en\">t&#13;\r\n<![CDATA[a<b&c>]]>"
      "<?pi  spaced  data?></r><!-- after --><?last x?>",
      "<ds:Object xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\" Id=\"o\"><doc xmlns=\"urn:x\">"
      "<rec n=\"1\">v</rec></doc></ds:Object>",
      "<a attr=\"&#9;&#10;&#13; &lt;&amp;&gt;&quot;'\">&gt;&#x10FFFF;</a>",
      "<a><b xmlns=\"urn:d\"/><c/></a>",
      "<a>raw\r\nlines\rend<?pi x\r\ny\rz?><![CDATA[c\r\nd\re]]><b at=\"v\r\nw\rx\"/></a>",
  };
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) compare(fixed[i], "fixed");
  for (int i = 0; i < 600; i++) {
    buf b = {0};
    if (t_rand_below(3) == 0) adds(&b, "<?top a?><!--x-->");
    int scope[3] = {-1, -1, -1};
    element(&b, 0, scope);
    if (t_rand_below(3) == 0) adds(&b, "<?tail?>");
    compare(b.p, "random");
    free(b.p);
  }
  return t_done();
}
