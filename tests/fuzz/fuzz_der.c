/* libFuzzer harness: lib/asn1, the DER reader and writer under every file
 * format of lib/ (keys, certificates, TLS 1.2's key exchange). The input is
 * read as a tree of elements by the strict reader; what it accepts is
 * canonical, so the writer, fed the tree, must give back the input byte for
 * byte, through a buffer of room and through one a byte short (GOSTX_ELEN
 * with the full length). Every OID the reader accepts must survive text and
 * back. The input is also read as PEM, whose bodies must read as what the
 * PEM writer makes of them. Nothing may crash or read out of bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "asn1/der.h"
#include "asn1/pem.h"
#define FUZZ_NAME "fuzz_der"
#include "fuzz_check.h"

/* An OID element (whole): when the reader takes it as an OID, its text
 * must encode back to it. */
static void check_oid(gostx__der whole) {
  char text[256];
  uint8_t enc[128];
  size_t n = 0;
  gostx__der content;
  if (gostx__der_oid(&whole, &content) || content.n > sizeof enc) return;
  if (gostx__der_oid_text(content, text, sizeof text)) return; /* cut: too long to compare */
  /* text to bytes takes arcs below 2^32 only */
  int rc = gostx__der_oid_encode(text, enc, sizeof enc, &n);
  if (rc == 0 && (n != content.n || memcmp(enc, content.p, n))) bug("OID text did not round-trip");
}

/* Writes what r holds, element by element, into w: 0 when the reader took
 * it all (depth-limited), -1 when it refused something. */
static int rewrite(gostx__der r, gostx__der_w *w, int depth) {
  while (!gostx__der_done(&r)) {
    uint8_t tag;
    gostx__der c, whole;
    if (gostx__der_next(&r, &tag, &c, &whole)) return -1;
    if ((tag & 0x20) && depth < GOSTX__DER_W_DEPTH) {
      gostx__der_w_begin(w, tag);
      if (rewrite(c, w, depth + 1)) return -1;
      gostx__der_w_end(w);
      continue;
    }
    if (tag == GOSTX__DER_OID) check_oid(whole);
    gostx__der_w_tlv(w, tag, c.p, c.n);
  }
  return 0;
}

static void der(const uint8_t *data, size_t size) {
  uint8_t *out = malloc(size + 1);
  gostx__der_w w;
  gostx__der_w_init(&w, out, size);
  if (rewrite((gostx__der){data, size}, &w, 0) == 0) {
    size_t n = 0;
    if (gostx__der_w_finish(&w, &n)) bug("the writer refused what the reader took");
    if (n != size || memcmp(out, data, size)) bug("accepted DER did not write back byte for byte");
    if (size) { /* a byte short: the length it needs, and the error */
      gostx__der_w_init(&w, out, size - 1);
      rewrite((gostx__der){data, size}, &w, 0);
      if (gostx__der_w_finish(&w, &n) != GOSTX_ELEN || n != size) bug("short buffer not said");
    }
  }
  free(out);
}

static void pem(const uint8_t *data, size_t size) {
  static const char *const labels[] = {"CERTIFICATE", "PRIVATE KEY", "PUBLIC KEY"};
  uint8_t body[4096];
  char text[8192];
  size_t pos = 0, n = 0, tn = 0;
  int which;
  if (gostx__pem_find((const char *)data, size, &pos, labels, 3, &which)) return;
  if (gostx__pem_body((const char *)data, size, &pos, labels[which], body, sizeof body, &n)) return;
  if (gostx__pem_write(labels[which], body, n, text, sizeof text, &tn)) bug("PEM writer refused");
  uint8_t back[4096];
  size_t p2 = 0, bn = 0;
  if (gostx__pem_block(text, tn, &p2, labels[which], back, sizeof back, &bn) != 1 || bn != n ||
      memcmp(back, body, n))
    bug("PEM did not round-trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  der(data, size);
  pem(data, size);
  return 0;
}
