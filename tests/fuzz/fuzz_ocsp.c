/* libFuzzer harness: the OCSP readers of include/gostx/ocsp.h on
 * untrusted bytes.
 *
 * Input: byte 0 picks (mod 2): 0 the body is an OCSPResponse, read, its
 * SingleResponses and certificates walked, and checked for its own
 * CertIDs with its first certificate as the CA (and as a trusted
 * responder); 1 the body is an OCSPRequest, read and written again. The
 * seeds are responses and requests of gostx ocsp and openssl ocsp.
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - a read response's views lie inside it, its SingleResponses walk to
 *    the count the reader found, a check's verdict is a named one;
 *  - a read request written again reads again to the same CertIDs and
 *    nonce. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_ocsp"
#include "fuzz_check.h"

static void response(const uint8_t *der, size_t len) {
  gostx_ocsp_response r;
  if (gostx_ocsp_response_parse(der, len, &r)) return;
  if (r.status) return;
  if (!within(r.tbs, r.tbs_len, der, len) || !within(r.sig, r.sig_len, der, len) ||
      !within(r.responder, r.responder_len, der, len) ||
      (r.nonce && !within(r.nonce, r.nonce_len, der, len)) ||
      (r.certs && !within(r.certs, r.certs_len, der, len)))
    bug("a view outside the response");
  static gostx_ocsp_certid ids[64];
  gostx_ocsp_single s;
  size_t pos = 0, n = 0;
  while (gostx_ocsp_single_next(&r, &pos, &s)) {
    if (n < 64) ids[n] = s.id;
    n++;
  }
  if (n != r.n_single) bug("SingleResponses walked differ from those read");
  const uint8_t *c;
  size_t clen;
  gostx_x509_cert ca;
  int have_ca = 0;
  pos = 0;
  while (gostx_ocsp_cert_next(&r, &pos, &c, &clen)) {
    if (!within(c, clen, der, len)) bug("a certificate outside the response");
    if (!have_ca) have_ca = !gostx_x509_parse(c, clen, &ca, NULL);
  }
  gostx_ocsp_check_opts o;
  gostx_ocsp_check_opts_init(&o, 1800000000);
  o.issuer = have_ca ? &ca : NULL;
  gostx_ocsp_status st = gostx_ocsp_check(&r, &o, ids, n < 64 ? n : 64, NULL, NULL, NULL);
  if (!strcmp(gostx_ocsp_status_name(st), "unknown status")) bug("an unnamed verdict");
  if (have_ca) {
    o.trusted = &ca, o.n_trusted = 1, o.nonce = (const uint8_t *)"0123456789abcdef", o.nonce_len = 16;
    st = gostx_ocsp_check(&r, &o, ids, n < 64 ? n : 64, NULL, NULL, NULL);
    if (!strcmp(gostx_ocsp_status_name(st), "unknown status")) bug("an unnamed verdict");
  }
}

static void request(const uint8_t *der, size_t len) {
  static gostx_ocsp_request req, again;
  static uint8_t out[65536];
  size_t n;
  if (gostx_ocsp_request_parse(der, len, &req)) return;
  for (size_t i = 0; i < req.n; i++) req.id[i].der = NULL; /* written from its fields */
  int known = 1;
  for (size_t i = 0; i < req.n; i++) known &= req.id[i].hash != GOSTX_OCSP_HASH_OTHER;
  if (!known) return; /* an unknown hash is echoed, never written from fields */
  if (gostx_ocsp_request_write(&req, out, sizeof out, &n)) bug("a read request does not write");
  if (gostx_ocsp_request_parse(out, n, &again)) bug("a written request does not read");
  if (again.n != req.n || again.nonce_len != req.nonce_len ||
      memcmp(again.nonce, req.nonce, req.nonce_len))
    bug("the request changed");
  for (size_t i = 0; i < req.n; i++)
    if (!gostx_ocsp_certid_equal(&again.id[i], &req.id[i])) bug("a CertID changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  if (data[0] % 2 == 0) response(data + 1, size - 1);
  else request(data + 1, size - 1);
  return 0;
}
