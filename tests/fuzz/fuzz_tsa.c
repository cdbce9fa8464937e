/* libFuzzer harness: the TSA's side of lib/cms/tsa.c. The input is read
 * as a TimeStampReq: a refused one gets a rejection that reads back as
 * one; an accepted one must point inside the input, and when the TSA
 * grants it the reply (signed with a key and certificate made once)
 * must read back and verify against the query's imprint, nonce and
 * policy. A reply that does not is a bug, as is any crash or read out of
 * bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "gostx/x509_write.h"
#define FUZZ_NAME "fuzz_tsa"
#include "fuzz_check.h"

static gostx_gost3410_key key;
static gostx_x509_cert cert;
static uint8_t cert_der[2048];

/* A TSA: a fixed 256-bit key, a self-signed certificate with critical EKU timeStamping. */
static void tsa_once(void) {
  static int done;
  uint8_t d[32], spki[GOSTX_GOST3410_DER_MAX];
  size_t spki_len = 0, len = 0;
  gostx_x509_name name;
  gostx_x509_exts e;
  char err[128];
  if (done) return;
  done = 1;
  for (int i = 0; i < 32; i++) d[i] = (uint8_t)(i + 1);
  if (gostx_gost3410_key_set_private(&key, GOSTX_GOST3410_256_A, d, 32, NULL) ||
      gostx_gost3410_key_write(&key, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL, spki,
                               sizeof spki, &spki_len) ||
      gostx_x509_name_parse("/CN=fuzz TSA", &name, err, sizeof err))
    bug("the TSA's key");
  gostx_x509_exts_init(&e);
  if (gostx_x509_exts_add_line(&e, "keyUsage=critical,digitalSignature", err, sizeof err) ||
      gostx_x509_exts_add_line(&e, "extendedKeyUsage=critical,timeStamping", err, sizeof err))
    bug("the TSA's extensions");
  gostx_x509_cert_spec s = {(const uint8_t *)"\x01", 1, name.der, name.der, name.len, name.len,
                            1700000000, 2000000000, spki, spki_len, &e, NULL, 0};
  if (gostx_x509_cert_write(&s, &key, cert_der, sizeof cert_der, &len) ||
      gostx_x509_parse(cert_der, len, &cert, NULL))
    bug("the TSA's certificate");
}

static void refuse(uint32_t fail) {
  uint8_t r[256];
  size_t len;
  static gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  if (gostx_tsa_refusal(fail, gostx_tsa_fail_name(fail), r, sizeof r, &len)) bug("refusal");
  if (gostx_cms_ts_parse(r, len, &t, &st) != GOSTX_EFORMAT || st != GOSTX_CMS_TS_REFUSED || t.pki_status != 2)
    bug("the refusal does not read as one");
}

static void grant(const gostx_tsa_query *q) {
  static uint8_t r[8192];
  static gostx_cms_ts_token t;
  static const char *const more[] = {"1.2.643.100.2"};
  gostx_tsa_params p = {&cert, &key, NULL, 0, "1.2.643.100.1", more, 1, 1, 10, 20, 1, 0};
  gostx_cms_ts_verdict v;
  size_t len;
  uint32_t fail = gostx_tsa_check(&p, q);
  if (fail) return refuse(fail);
  if (gostx_tsa_reply(&p, q, (const uint8_t *)"\x7f\xff", 2, 1800000000, 999, r, sizeof r, &len))
    bug("a checked query not answered");
  if (gostx_cms_ts_parse(r, len, &t, NULL)) bug("the reply does not parse");
  gostx_tsa_expect e = {NULL, q->imprint, q->imprint_len, q->nonce, q->nonce_len, q->policy, q->policy_len};
  gostx_cms_verify_params vp = {NULL, &cert, 1, 1800000000, GOSTX_X509_PURPOSE_ANY, NULL};
  if (gostx_tsa_verify(&t, &e, &vp, &v)) bug("the reply does not verify");
  if (t.gen_millis != 999 || t.accuracy_micros != 20) bug("the TSTInfo's fields");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gostx_tsa_query q;
  uint32_t fail;
  tsa_once();
  if (gostx_tsa_query_parse(data, size, &q, &fail)) {
    if (!fail) bug("refused without a failure bit");
    refuse(fail);
    return 0;
  }
  inside(q.message_imprint, q.message_imprint_len, data, size);
  inside(q.imprint, q.imprint_len, data, size);
  inside(q.nonce, q.nonce_len, data, size);
  inside(q.policy, q.policy_len, data, size);
  if (q.imprint_len != q.digest_len) bug("an imprint of another length");
  grant(&q);
  return 0;
}
