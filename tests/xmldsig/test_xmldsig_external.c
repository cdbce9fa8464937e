/* XMLDSig signed with an external key (gostx_gost3410_key_set_external):
 * the SignatureValue made by the token's callback and verified by
 * gostx_xmldsig_verify against the certificate, in memory and streamed
 * (the streamed signer asks the token once: its placeholder is not a
 * signature); a failing token is GOSTX_XMLDSIG_KEY_FAILED naming its code,
 * and nothing is handed back. The rest of the library's signers:
 * tests/test_key_external.c. */
#include <stdlib.h>
#include <string.h>

#include "ext_token.h"
#include "testutil.h"
#include "xmldsig.h"

static const char doc[] = "<doc Id=\"d1\"><a>signed on a token</a></doc>";

typedef struct membuf {
  uint8_t b[16384];
  size_t n, at;
} membuf;

static long mem_read(void *ctx, uint8_t *buf, size_t cap) {
  membuf *m = ctx;
  size_t k = m->n - m->at < cap ? m->n - m->at : cap;
  memcpy(buf, m->b + m->at, k);
  m->at += k;
  return (long)k;
}
static int mem_write(void *ctx, const uint8_t *p, size_t n) {
  membuf *m = ctx;
  if (n > sizeof m->b - m->n) return 1;
  memcpy(m->b + m->n, p, n);
  m->n += n;
  return 0;
}
static int mem_rewrite(void *ctx, const uint8_t *p, size_t n) {
  membuf *m = ctx;
  if (n > m->n) return 1;
  memcpy(m->b, p, n);
  return 0;
}

/* Verified against cert; what the result hands back (gostx.xmldsig's
 * Signed: each Reference's URI and octets, the signer's certificate) is
 * uri's one Reference, all the signed data, and cert. */
static gostx_xmldsig_status verify(const uint8_t *xml, size_t len, const pki_cert *cert,
                                   const char *uri) {
  gostx_x509_store *store = gostx_x509_store_new();
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, IKE_PKI_T0 + 10);
  gostx_xmldsig_result r;
  CHECK_RC(gostx_x509_store_add_der(store, cert->der, cert->len), 0, "trust the certificate");
  gostx_xmldsig_status st = gostx_xmldsig_verify(xml, len, store, &o, &r);
  if (!st)
    CHECK(r.refs == 1 && r.ref && r.ref[0].signature == 1 && !strcmp(r.ref[0].uri, uri) &&
              r.ref[0].offset == 0 && r.ref[0].len == r.signed_len && r.signed_len &&
              r.sig[0].cert_len == cert->len && !memcmp(r.sig[0].cert, cert->der, cert->len),
          "the Reference \"%s\" and the signer's certificate handed back", uri);
  gostx_xmldsig_result_free(&r);
  CHECK(!r.ref && !r.sig[0].cert && !r.signed_data, "the result freed");
  gostx_x509_store_free(store);
  return st;
}

int main(void) {
  static const char *const ext[] = {"keyUsage = critical,digitalSignature", NULL};
  token t;
  pki_key k;
  pki_cert cert;
  token_make(GOSTX_GOST3410_256_A, &t, &k);
  pki_make_cert(&cert, "/CN=token signer", &k, ext, NULL, NULL);
  gostx_xmldsig_sign_opts o;
  memset(&o, 0, sizeof o);
  o.cert_der = cert.der;
  o.cert_len = cert.len;
  char err[256];
  uint8_t *out = NULL;
  size_t out_len = 0;
  int signs = t.signs;
  gostx_xmldsig_status st = gostx_xmldsig_sign((const uint8_t *)doc, sizeof doc - 1, &o, &k.k,
                                               &out, &out_len, err, sizeof err);
  CHECK(st == GOSTX_XMLDSIG_OK && t.signs == signs + 1, "signed through the token: %s",
        st ? err : "ok");
  CHECK(st == GOSTX_XMLDSIG_OK && verify(out, out_len, &cert, "") == GOSTX_XMLDSIG_OK,
        "the token's XMLDSig verifies");
  free(out);

  /* streamed (enveloping): one signature asked of the token */
  membuf in = {{0}, 0, 0}, res = {{0}, 0, 0};
  memcpy(in.b, doc, sizeof doc - 1);
  in.n = sizeof doc - 1;
  gostx_xmldsig_io io = {mem_read, &in, mem_write, mem_rewrite, &res};
  o.form = GOSTX_XMLDSIG_ENVELOPING;
  o.ref = "obj";
  signs = t.signs;
  st = gostx_xmldsig_sign_stream(&io, &o, &k.k, err, sizeof err);
  CHECK(st == GOSTX_XMLDSIG_OK && t.signs == signs + 1, "streamed: one signature by the token: %s",
        st ? err : "ok");
  CHECK(st == GOSTX_XMLDSIG_OK && verify(res.b, res.n, &cert, "#obj") == GOSTX_XMLDSIG_OK,
        "the streamed signature verifies");

  /* a token that fails */
  t.fail = GOSTX_EIO;
  o.form = GOSTX_XMLDSIG_ENVELOPED;
  o.ref = NULL;
  out = NULL;
  out_len = 0;
  st = gostx_xmldsig_sign((const uint8_t *)doc, sizeof doc - 1, &o, &k.k, &out, &out_len, err,
                          sizeof err);
  CHECK(st == GOSTX_XMLDSIG_KEY_FAILED && !out && !out_len &&
            strstr(err, gostx_strerror(GOSTX_EIO)),
        "a failing token: its own status and code (%d: %s)", (int)st, err);
  in.at = 0;
  res.n = 0;
  o.form = GOSTX_XMLDSIG_ENVELOPING;
  st = gostx_xmldsig_sign_stream(&io, &o, &k.k, err, sizeof err);
  CHECK(st == GOSTX_XMLDSIG_KEY_FAILED, "streamed, a failing token: its own status (%d: %s)",
        (int)st, err);
  gostx_gost3410_key_clear(&t.real);
  return t_done();
}
