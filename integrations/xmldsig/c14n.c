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

int xd_canonical(xmlDocPtr doc, xmlNodePtr target, xmlNodePtr sig, const xd_transforms *t,
                 xmlChar **out, size_t *out_len) {
  node_set s = {target, t->enveloped ? sig : NULL};
  int mode = t->c14n && t->exclusive ? XML_C14N_EXCLUSIVE_1_0 : XML_C14N_1_0;
  int comments = t->c14n ? t->comments : 0;
  xmlOutputBufferPtr buf = xmlAllocOutputBuffer(NULL);
  if (!buf) return -1;
  int rc = xmlC14NExecute(doc, visible, &s, mode, mode == XML_C14N_EXCLUSIVE_1_0 ? t->prefixes : NULL,
                          comments, buf);
  if (rc < 0) {
    xmlOutputBufferClose(buf);
    return -1;
  }
  size_t n = xmlOutputBufferGetSize(buf);
  xmlChar *p = xmlMalloc(n + 1);
  if (!p) {
    xmlOutputBufferClose(buf);
    return -1;
  }
  memcpy(p, xmlOutputBufferGetContent(buf), n);
  p[n] = 0;
  xmlOutputBufferClose(buf);
  if (t->smev) { /* the SMEV transform over the canonical octets */
    xmlChar *q = NULL;
    rc = xd_smev(p, n, &q, &n);
    xmlFree(p);
    if (rc) return -1;
    p = q;
  }
  *out = p;
  *out_len = n;
  return 0;
}

void xd_transforms_free(xd_transforms *t) {
  if (t->prefixes) {
    for (size_t i = 0; t->prefixes[i]; i++) xmlFree(t->prefixes[i]);
    free(t->prefixes);
  }
  t->prefixes = NULL;
}
