/* The streaming signer: an enveloping signature of a document of any size
 * in bounded memory, in one pass over it. The Signature's head (SignedInfo,
 * SignatureValue, KeyInfo and the Object's start tag) is a small DOM made
 * by sign.c's code; its length does not depend on the digest or the
 * signature, so it is written first with placeholder values, the document's
 * element streams after it (written again from the parser's events, and
 * canonicalized into the digest as it will lie inside the Object), and the
 * real head is written over the placeholder at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlreader.h>

#include "internal.h"

/* What follows the head: the placeholder text that the Object holds when
 * the head is serialized, and the document's end. */
#define MARK "X"
#define TAIL "</ds:Object></ds:Signature>\n"

/* The serialized Signature document less MARK TAIL: *out (free), *len. */
static int head(xmlDocPtr doc, uint8_t **out, size_t *len) {
  xd_sink k;
  xmlOutputBufferPtr buf = xd_sink_open(&k);
  int bad = !buf || xmlSaveFormatFileTo(buf, doc, "UTF-8", 0) < 0; /* it closes buf */
  const size_t t = strlen(MARK TAIL);
  if (bad || k.failed || !k.p || k.n < t || memcmp(k.p + k.n - t, MARK TAIL, t)) {
    free(k.p);
    return -1;
  }
  *out = k.p, *len = k.n - t;
  return 0;
}

static int hash_write(void *ctx, const uint8_t *p, size_t n) {
  return xd_hash_update(ctx, p, n);
}

static int io_write(void *ctx, const uint8_t *p, size_t n) {
  const gostx_xmldsig_io *io = ctx;
  return io->write(io->write_ctx, p, n);
}

typedef struct {
  xd_stream in;
  xd_hash h;
  xd_obuf hb, ob;   /* in front of the digest and of the output */
  xd_c14s canon, copy;
} signer;

/* The document's element through both walkers: *digest of the Object
 * canonicalized (its start tag, as exclusive c14n writes it, first). */
static gostx_xmldsig_status stream(signer *g, const char *id, size_t n, uint8_t *digest,
                                   char *err, size_t cap) {
  xd_c14s *c = &g->canon;
  xd_c14s_put(c, "<ds:Object xmlns:ds=\"" XD_NS "\" Id=\"");
  xd_c14s_escaped(c, id, 1);
  xd_c14s_put(c, "\">");
  int in_root = 0, rc;
  xmlTextReaderPtr r = g->in.r;
  while ((rc = xd_stream_next(&g->in, 0)) == 1) {
    int type = xmlTextReaderNodeType(r), depth = xmlTextReaderDepth(r);
    if (depth == 0 && type == XML_READER_TYPE_ELEMENT) in_root = 1;
    if (!in_root) continue; /* outside the document's element: left out */
    if (type == XML_READER_TYPE_ELEMENT) {
      const xmlChar *ids[4];
      int k = xd_ids_of(xmlTextReaderCurrentNode(r), ids);
      for (int i = 0; i < k; i++)
        if (!strcmp((const char *)ids[i], id)) {
          xd_err(err, cap, "the Id \"%.200s\" is not the Object's", id);
          return GOSTX_XMLDSIG_DUPLICATE_ID;
        }
    }
    if (xd_c14s_node(c, r) || xd_c14s_node(&g->copy, r)) {
      xd_err(err, cap, "writing the output failed");
      return GOSTX_XMLDSIG_MALFORMED;
    }
    if (depth == 0 && (type == XML_READER_TYPE_END_ELEMENT || xmlTextReaderIsEmptyElement(r)))
      in_root = 0;
  }
  if (rc < 0) return xd_stream_status(&g->in, err, cap);
  xd_c14s_put(c, "</ds:Object>");
  if (c->failed || xd_obuf_flush(&g->hb) || xd_hash_final(&g->h, digest) != n ||
      xd_obuf_write(&g->ob, (const uint8_t *)TAIL, strlen(TAIL)) || xd_obuf_flush(&g->ob)) {
    xd_err(err, cap, "writing the output failed");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  return GOSTX_XMLDSIG_OK;
}

gostx_xmldsig_status gostx_xmldsig_sign_stream(const gostx_xmldsig_io *io,
                                               const gostx_xmldsig_sign_opts *opts,
                                               const gostx_gost3410_key *key, char *err,
                                               size_t err_cap) {
  gostx_xmldsig_status st = xd_check_key(opts, key, err, err_cap);
  if (st) return st;
  const char *ref = opts->ref ? opts->ref : "";
  if (opts->form != GOSTX_XMLDSIG_ENVELOPING || opts->inclusive || opts->smev || opts->wsse) {
    xd_err(err, err_cap, "streamed signing is enveloping, exclusive c14n, no SMEV transform");
    return GOSTX_XMLDSIG_UNSUPPORTED;
  }
  if (strlen(ref) > 200) {
    xd_err(err, err_cap, "an Id over 200 bytes");
    return GOSTX_XMLDSIG_BAD_REFERENCE;
  }
  const char *id = *ref ? ref : "object";
  char uri[208];
  snprintf(uri, sizeof uri, "#%s", id);
  const size_t n = key->len;
  uint8_t digest[64], *h0 = NULL, *h1 = NULL;
  size_t l0 = 0, l1 = 0;
  xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
  xd_parts p = {0};
  xmlNodePtr obj = NULL;
  int bad = !doc || xd_skeleton(doc, uri, opts, n, &p);
  if (!bad) xmlDocSetRootElement(doc, p.sig);
  else if (p.sig) xmlFreeNode(p.sig);
  if (!bad && !xd_x509_data(&p, opts) && (obj = xd_add(p.sig, p.ns, "Object", NULL)) &&
      xmlNewProp(obj, BAD_CAST "Id", BAD_CAST id)) {
    xmlNodeAddContent(obj, BAD_CAST MARK);
    bad = xd_sign_info(doc, &p, opts, key, NULL) || head(doc, &h0, &l0); /* the placeholder */
  } else {
    bad = 1;
  }
  signer *g = bad ? NULL : calloc(1, sizeof *g);
  if (!g) {
    xmlFreeDoc(doc);
    free(h0);
    xd_err(err, err_cap, "out of memory");
    return GOSTX_XMLDSIG_MALFORMED;
  }
  g->hb.flush = hash_write, g->hb.ctx = &g->h;
  g->ob.flush = io_write, g->ob.ctx = (void *)io;
  xd_c14s_init(&g->canon, 0, xd_obuf_write, &g->hb);
  xd_c14s_init(&g->copy, 1, xd_obuf_write, &g->ob);
  if (xd_hash_init(&g->h, (int)n) || xd_c14s_rendered(&g->canon, "ds", XD_NS) ||
      xd_stream_open(&g->in, io)) {
    st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "out of memory");
  } else if (io->write(io->write_ctx, h0, l0)) {
    st = GOSTX_XMLDSIG_MALFORMED, xd_err(err, err_cap, "writing the output failed");
  } else {
    st = stream(g, id, n, digest, err, err_cap);
  }
  /* the real head, of the placeholder's length (base64 of as many bytes) */
  int rc = st ? 0 : xd_sign_info(doc, &p, opts, key, digest);
  if (!st && !rc && (head(doc, &h1, &l1) || l1 != l0 || io->rewrite(io->write_ctx, h1, l1))) rc = 1;
  if (rc) st = xd_sign_failed(rc, "signing failed", err, err_cap);
  xd_stream_close(&g->in);
  xd_c14s_free(&g->canon);
  xd_c14s_free(&g->copy);
  memset(&g->h, 0, sizeof g->h);
  free(g);
  free(h0);
  free(h1);
  xmlFreeDoc(doc);
  return st;
}
