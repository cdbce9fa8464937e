/* The streaming verifier of an enveloping signature: the document read
 * once; the root ds:Signature's children but its Objects (SignedInfo,
 * SignatureValue, KeyInfo) copied into a small tree that verify.c's checks
 * then judge as they judge a parsed document; the Objects streamed through
 * exclusive c14n into each Reference's digest and out to the caller as
 * what was signed. Memory: the small tree, the depth, the largest node. */
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "internal.h"
#include "refs.h"

/* The most bytes of one of the Signature's children read into the tree. */
#define PART_MAX (1u << 20)

typedef struct {
  xd_stream in;
  const gostx_xmldsig_io *io;
  gostx_xmldsig_result *res;
  xmlDocPtr doc;  /* the small tree: the Signature and its children but Objects */
  xmlNodePtr sig;
  xd_signed s;
  int have_si;
  int found[GOSTX_XMLDSIG_MAX_REFS]; /* 1 streamed, 2 inside the small tree */
  uint8_t got[GOSTX_XMLDSIG_MAX_REFS][64];
  size_t next;    /* the Reference whose element comes next */
  int active;     /* the Reference being digested, -1 none */
  int base;       /* its element's depth */
  xd_hash h;
  xd_c14s c;
  xd_obuf ob;
} vs;

/* The canonical octets: into the digest and out as what was signed. */
static int signed_write(void *ctx, const uint8_t *p, size_t n) {
  vs *v = ctx;
  v->res->signed_len += n;
  return xd_hash_update(&v->h, p, n) || v->io->write(v->io->write_ctx, p, n) ? -1 : 0;
}

/* Each Reference streamable, and none naming the element of another. */
static gostx_xmldsig_status streamable(const xd_signed *s, char *err, size_t cap) {
  for (size_t i = 0; i < s->nrefs; i++) {
    const xd_transforms *t = &s->refs[i].t;
    if (t->smev || !t->c14n || !t->exclusive || t->prefixes) { /* comments: none by Id */
      xd_err(err, cap, "Reference \"%.200s\": streamed verification takes exclusive c14n "
             "without PrefixList, no SMEV transform", s->refs[i].uri);
      return GOSTX_XMLDSIG_UNSUPPORTED;
    }
    for (size_t j = 0; j < i; j++)
      if (!strcmp(s->refs[j].uri, s->refs[i].uri)) {
        xd_err(err, cap, "two References to \"%.200s\" (not streamed)", s->refs[i].uri);
        return GOSTX_XMLDSIG_UNSUPPORTED;
      }
  }
  return GOSTX_XMLDSIG_OK;
}

/* An element with Ids ids[k] met (how: 1 streamed, 2 in the small tree):
 * a second Signature, a duplicated Id a Reference names, or the start of a
 * Reference's element. */
static gostx_xmldsig_status met(vs *v, int how, int is_sig, const xmlChar **ids, int k) {
  char *why = v->res->why;
  const size_t cap = sizeof v->res->why;
  if (is_sig) {
    xd_err(why, cap, "a second Signature element (one is taken)");
    return GOSTX_XMLDSIG_SECOND_SIGNATURE;
  }
  for (int i = 0; i < k; i++)
    for (size_t j = 0; j < v->s.nrefs; j++) {
      if (strcmp((const char *)ids[i], v->s.refs[j].uri + 1)) continue;
      if (v->found[j]) {
        xd_err(why, cap, "the Id \"%.100s\" is on two elements (signature wrapping?)",
               (const char *)ids[i]);
        return GOSTX_XMLDSIG_DUPLICATE_ID;
      }
      v->found[j] = how;
      if (how == 2) continue; /* refused at the end, should no duplicate come */
      if (v->active >= 0 || j != v->next) {
        xd_err(why, cap, "Reference \"%.200s\": its element %s (not streamed)", v->s.refs[j].uri,
               v->active >= 0 ? "inside another's" : "before an earlier Reference's");
        return GOSTX_XMLDSIG_UNSUPPORTED;
      }
      v->active = (int)j;
      v->base = xmlTextReaderDepth(v->in.r);
      if (xd_hash_init(&v->h, v->s.refs[j].alg)) return GOSTX_XMLDSIG_MALFORMED;
      xd_c14s_init(&v->c, 0, xd_obuf_write, &v->ob);
    }
  return GOSTX_XMLDSIG_OK;
}

/* A child of the Signature other than an Object: copied into the small
 * tree; the first must be SignedInfo. */
static gostx_xmldsig_status part(vs *v) {
  char *why = v->res->why;
  const size_t cap = sizeof v->res->why;
  xmlTextReaderPtr r = v->in.r;
  if (!v->have_si && !xd_stream_is(r, XD_NS, "SignedInfo")) {
    xd_err(why, cap, "Signature's first element is not SignedInfo");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  long before = xmlTextReaderByteConsumed(r);
  xmlNodePtr n = xmlTextReaderExpand(r);
  if (!n) return xd_stream_status(&v->in, why, cap);
  if (xmlTextReaderByteConsumed(r) - before > (long)PART_MAX) {
    xd_err(why, cap, "<%.100s> of the Signature over %u bytes", (const char *)n->name, PART_MAX);
    return GOSTX_XMLDSIG_TOO_LARGE;
  }
  xmlNodePtr c = xmlDocCopyNode(n, v->doc, 1);
  if (!c || !xmlAddChild(v->sig, c)) {
    xmlFreeNode(c);
    xd_err(why, cap, "out of memory");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  if (!v->have_si) {
    v->have_si = 1;
    st = xd_signed_info(NULL, v->sig, &v->s, why, cap);
    if (!st) st = streamable(&v->s, why, cap);
    const xmlChar *ids[4]; /* the Signature's own */
    if (!st) st = met(v, 2, 0, ids, xd_ids_of(v->sig, ids));
  }
  for (xmlNodePtr e = c; e && !st; e = xd_next(e, c)) {
    const xmlChar *ids[4];
    if (e->type == XML_ELEMENT_NODE)
      st = met(v, 2, xd_is(e, XD_NS, "Signature"), ids, xd_ids_of(e, ids));
  }
  return st;
}

/* A node inside an Object: its Ids, then into the digest of the
 * Reference whose element it is in. */
static gostx_xmldsig_status streamed(vs *v) {
  xmlTextReaderPtr r = v->in.r;
  int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  if (type == XML_READER_TYPE_ELEMENT) {
    const xmlChar *ids[4];
    xmlNodePtr e = xmlTextReaderCurrentNode(r);
    st = met(v, 1, xd_stream_is(r, XD_NS, "Signature"), ids, xd_ids_of(e, ids));
  }
  if (st || v->active < 0) return st;
  if (xd_c14s_node(&v->c, r)) {
    xd_err(v->res->why, sizeof v->res->why, "writing what was signed failed");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  if (depth == v->base &&
      (type == XML_READER_TYPE_END_ELEMENT || xmlTextReaderIsEmptyElement(r))) {
    int j = v->active;
    v->active = -1, v->next++;
    xd_c14s_free(&v->c);
    if (xd_obuf_flush(&v->ob) || xd_hash_final(&v->h, v->got[j]) == 0) {
      xd_err(v->res->why, sizeof v->res->why, "writing what was signed failed");
      return GOSTX_XMLDSIG_MALFORMED;
    }
  }
  return GOSTX_XMLDSIG_OK;
}

/* The document read through: the small tree built, the Objects digested. */
static gostx_xmldsig_status read_all(vs *v) {
  char *why = v->res->why;
  const size_t cap = sizeof v->res->why;
  xmlTextReaderPtr r = v->in.r;
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  int rc, skip = 0;
  while (!st && (rc = xd_stream_next(&v->in, skip)) == 1) {
    int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
    skip = 0;
    if (depth == 0 && type == XML_READER_TYPE_ELEMENT) {
      if (!xd_stream_is(r, XD_NS, "Signature")) {
        xd_err(why, cap, "the root is not a ds:Signature (only an enveloping signature streams)");
        return GOSTX_XMLDSIG_UNSUPPORTED;
      }
      v->sig = xmlDocCopyNode(xmlTextReaderCurrentNode(r), v->doc, 2); /* attributes, namespaces */
      if (!v->sig) return GOSTX_XMLDSIG_MALFORMED;
      xmlDocSetRootElement(v->doc, v->sig);
    } else if (depth == 1 && type == XML_READER_TYPE_ELEMENT && !xd_stream_is(r, XD_NS, "Object")) {
      st = part(v);
      skip = 1;
    } else if (depth >= 1 && v->have_si) {
      st = streamed(v);
    } else if (depth >= 1 && type == XML_READER_TYPE_ELEMENT) {
      xd_err(why, cap, "Signature's first element is not SignedInfo");
      st = GOSTX_XMLDSIG_MALFORMED;
    }
  }
  if (st) return st;
  if (rc < 0) return xd_stream_status(&v->in, why, cap);
  if (!v->have_si) {
    xd_err(why, cap, v->sig ? "Signature without SignedInfo" : "no Signature");
    return v->sig ? GOSTX_XMLDSIG_MALFORMED : GOSTX_XMLDSIG_NO_SIGNATURE;
  }
  for (size_t j = 0; j < v->s.nrefs; j++)
    if (v->found[j] != 1) {
      xd_err(why, cap, v->found[j] ? "Reference URI=\"%.200s\": not inside an Object (not streamed)"
                                   : "Reference URI=\"%.200s\" names no element",
             v->s.refs[j].uri);
      return v->found[j] ? GOSTX_XMLDSIG_UNSUPPORTED : GOSTX_XMLDSIG_BAD_REFERENCE;
    }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status gostx_xmldsig_verify_stream(const gostx_xmldsig_io *io,
                                                 const gostx_x509_store *store,
                                                 const gostx_x509_verify_opts *opts,
                                                 const gostx_x509_cert *untrusted,
                                                 size_t n_untrusted, gostx_xmldsig_result *res) {
  memset(res, 0, sizeof *res);
  vs *v = calloc(1, sizeof *v);
  xd_certs l = {0};
  gostx_xmldsig_status st = GOSTX_XMLDSIG_OK;
  if (!v || !(v->doc = xmlNewDoc(BAD_CAST "1.0")) || xd_stream_open(&v->in, io)) {
    xd_err(res->why, sizeof res->why, "out of memory");
    st = GOSTX_XMLDSIG_MALFORMED;
  } else {
    v->io = io, v->res = res, v->active = -1;
    v->ob.flush = signed_write, v->ob.ctx = v;
    st = read_all(v);
  }
  if (!st) st = xd_key_info(v->sig, v->sig, &l, res->why, sizeof res->why);
  for (size_t j = 0; !st && j < v->s.nrefs; j++) { /* as check_refs of verify.c */
    const xd_ref *r = &v->s.refs[j];
    if (memcmp(v->got[j], r->digest, r->alg == 64 ? 64 : 32)) {
      xd_err(res->why, sizeof res->why, "Reference \"%s\": the digest differs (content changed)",
             r->uri);
      st = GOSTX_XMLDSIG_DIGEST_MISMATCH;
    }
  }
  if (!st) st = xd_check_value(v->doc, v->sig, &v->s, &l.c[0], res->why, sizeof res->why);
  if (!st) st = xd_check_chain(&l, store, opts, untrusted, n_untrusted, res);
  if (!st) res->refs = v->s.nrefs;
  xd_certs_free(&l);
  if (v) {
    xd_stream_close(&v->in);
    if (v->active >= 0) xd_c14s_free(&v->c);
    xd_signed_free(&v->s);
    if (v->doc) xmlFreeDoc(v->doc);
    free(v);
  }
  return st;
}
