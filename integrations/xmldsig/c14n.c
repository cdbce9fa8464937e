/* A Reference's octets: the referenced element's subtree as a node set
 * (less the enveloping Signature when the enveloped-signature transform is
 * there), canonicalized by libxml2's C14N (exclusive or inclusive 1.0,
 * with or without comments). */
#include <stdlib.h>
#include <string.h>

#include <libxml/c14n.h>

#include "internal.h"

typedef struct {
  xmlNodePtr target, sig;
} node_set;

/* In the set: n inside target's subtree (target included) and, when sig
 * is set, not inside sig's. Namespace nodes are judged by their element. */
static int visible(void *user, xmlNodePtr node, xmlNodePtr parent) {
  const node_set *s = user;
  xmlNodePtr n = node->type == XML_NAMESPACE_DECL ? parent : node;
  for (; n; n = n->parent) {
    if (s->sig && n == s->sig) return 0;
    if (n == s->target) return 1;
  }
  return 0;
}

static int sink_write(void *ctx, const char *buf, int len) {
  xd_sink *s = ctx;
  if (s->failed || len < 0) return -1;
  if (s->cap - s->n <= (size_t)len) { /* room for len and a NUL */
    size_t cap = s->cap ? s->cap + s->cap / 2 : 4096;
    if (cap - s->n <= (size_t)len) cap = s->n + (size_t)len + 1;
    uint8_t *p = realloc(s->p, cap);
    if (!p) return s->failed = 1, -1;
    s->p = p, s->cap = cap;
  }
  memcpy(s->p + s->n, buf, (size_t)len);
  s->n += (size_t)len;
  return len;
}

static int sink_none(void *ctx) { return (void)ctx, 0; }

xmlOutputBufferPtr xd_sink_open(xd_sink *s) {
  memset(s, 0, sizeof *s);
  return xmlOutputBufferCreateIO(sink_write, sink_none, s, NULL);
}

int xd_sink_close(xd_sink *s, xmlOutputBufferPtr buf) {
  int rc = xmlOutputBufferClose(buf);
  if (rc < 0 || s->failed || sink_write(s, "", 0) < 0) return -1;
  if (!s->p && !(s->p = malloc(1))) return -1;
  s->p[s->n] = 0;
  return 0;
}

int xd_canonical(xmlDocPtr doc, xmlNodePtr target, xmlNodePtr sig, const xd_transforms *t,
                 uint8_t **out, size_t *out_len) {
  node_set s = {target, t->enveloped ? sig : NULL};
  int mode = t->c14n && t->exclusive ? XML_C14N_EXCLUSIVE_1_0 : XML_C14N_1_0;
  int comments = t->c14n ? t->comments : 0;
  xd_sink k;
  xmlOutputBufferPtr buf = xd_sink_open(&k);
  if (!buf) return -1;
  int rc = xmlC14NExecute(doc, visible, &s, mode, mode == XML_C14N_EXCLUSIVE_1_0 ? t->prefixes : NULL,
                          comments, buf);
  if (xd_sink_close(&k, buf) || rc < 0) {
    free(k.p);
    return -1;
  }
  if (t->smev) { /* the SMEV transform over the canonical octets */
    uint8_t *q = NULL;
    rc = xd_smev(k.p, k.n, &q, &k.n);
    free(k.p);
    if (rc) return -1;
    k.p = q;
  }
  *out = k.p;
  *out_len = k.n;
  return 0;
}

void xd_transforms_free(xd_transforms *t) {
  if (t->prefixes) {
    for (size_t i = 0; t->prefixes[i]; i++) xmlFree(t->prefixes[i]);
    free(t->prefixes);
  }
  t->prefixes = NULL;
}
