/* libFuzzer harness: the XML door of libgostx-xmldsig (integrations/
 * xmldsig, over libxml2): the safe parse, the Id index, SignedInfo's
 * reading, the transforms (C14N, the SMEV transform) of each Reference, KeyInfo's
 * certificates, the signature check. The trust store is empty, so no input
 * can verify: every input must be refused by a named status.
 *
 * Input: the bytes of an XML document. The seeds are signed documents
 * `gostx xml sign` wrote (the whole document, an element by Id, c14n 1.0,
 * the SMEV transform, -enveloping, -detached, -wsse with its
 * BinarySecurityToken) and a DOCTYPE.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gostx_x509_store *store;
  if (!store && !(store = gostx_x509_store_new())) abort();
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, 1700000000);
  gostx_xmldsig_result r;
  gostx_xmldsig_status st = gostx_xmldsig_verify(data, size, store, &o, &r);
  if (st == GOSTX_XMLDSIG_OK || !strcmp(gostx_xmldsig_status_name(st), "unknown")) {
    fprintf(stderr, "fuzz_xmldsig: status %d accepted or unnamed\n", (int)st);
    abort();
  }
  if (r.signed_data || r.signed_len || !memchr(r.why, 0, sizeof r.why) || strchr(r.why, '\n')) {
    fprintf(stderr, "fuzz_xmldsig: a refusal handed data back or a bad reason\n");
    abort();
  }
  return 0;
}
