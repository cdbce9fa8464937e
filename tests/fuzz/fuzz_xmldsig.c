/* libFuzzer harness: the XML door of libgostx-xmldsig (integrations/
 * xmldsig, over libxml2): the scan ahead of the parse (limits, encodings),
 * the safe parse, the Id index, SignedInfo's
 * reading, the transforms (C14N, the SMEV transform) of each Reference, KeyInfo's
 * certificates, the signature check. The trust store is empty, so no input
 * can verify: every input must be refused by a named status.
 *
 * Input: the bytes of an XML document. The seeds are signed documents
 * `gostx xml sign` wrote (the whole document, an element by Id, c14n 1.0,
 * the SMEV transform, -enveloping, -detached, -wsse with its
 * BinarySecurityToken, -enveloping -stream), a DOCTYPE, and a declared
 * encoding whose name holds a newline (once a two-line reason).
 *
 * The same bytes go through the streaming verifier too
 * (gostx_xmldsig_verify_stream: the prolog's DOCTYPE scan, the small tree of
 * SignedInfo and KeyInfo, the Objects streamed), read in pieces of a few
 * bytes so the scan meets markup split across reads.
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan), no leak;
 *  - the verdict is never OK (no anchors), its status has a name, the
 *    reason is one NUL-terminated line, and nothing is handed back as
 *    signed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmldsig.h"

typedef struct {
  const uint8_t *p;
  size_t n, off, piece;
} input;

static long piece_read(void *ctx, uint8_t *buf, size_t cap) {
  input *in = ctx;
  size_t n = in->n - in->off;
  if (n > in->piece) n = in->piece;
  if (n > cap) n = cap;
  memcpy(buf, in->p + in->off, n);
  in->off += n;
  return (long)n;
}

static int drop(void *ctx, const uint8_t *p, size_t n) { return (void)ctx, (void)p, (void)n, 0; }

static void check(const char *path, gostx_xmldsig_status st, const gostx_xmldsig_result *r) {
  if (st == GOSTX_XMLDSIG_OK || !strcmp(gostx_xmldsig_status_name(st), "unknown")) {
    fprintf(stderr, "fuzz_xmldsig: %s: status %d accepted or unnamed\n", path, (int)st);
    abort();
  }
  if (r->signed_data || !memchr(r->why, 0, sizeof r->why) || strchr(r->why, '\n') ||
      r->nsig > GOSTX_XMLDSIG_MAX_SIGNATURES || r->failed > r->nsig ||
      (r->failed && !memchr(r->sig[r->failed - 1].where, 0, sizeof r->sig[0].where))) {
    fprintf(stderr, "fuzz_xmldsig: %s: a refusal handed data back, a bad reason or number\n",
            path);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gostx_x509_store *store;
  if (!store && !(store = gostx_x509_store_new())) abort();
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, 1700000000);
  gostx_xmldsig_result r;
  gostx_xmldsig_status st = gostx_xmldsig_verify(data, size, store, &o, &r);
  check("in memory", st, &r);
  if (r.signed_len) abort();
  input in = {data, size, 0, 1 + size % 7};
  gostx_xmldsig_io io = {piece_read, &in, drop, NULL, NULL};
  st = gostx_xmldsig_verify_stream(&io, store, &o, NULL, 0, &r);
  check("streamed", st, &r);
  return 0;
}
