/* lib/cms's RFC 3161 time-stamp protocol (gostx/tsa.h), both sides, with a
 * PKI made here (a root, a TSA with critical EKU timeStamping, one
 * without): queries written and read back; the TSA's replies granted
 * (256 and 512 keys, with and without nonce, policy, certReq, accuracy,
 * the tsa name) and each read by gostx_cms_ts_parse and checked by
 * gostx_tsa_verify against the data, another data, another nonce, another
 * policy; refusals with their PKIFailureInfo (badAlg, badRequest,
 * badDataFormat, unacceptedPolicy, unacceptedExtension) read as
 * REFUSED; hostile DER (every cut, every byte changed of a query) never
 * accepted wrongly; a token without signingCertificateV2 refused. */
#include <stdlib.h>

#include "cms/cms_internal.h"
#include "ike_pki.h"
#include "testutil.h"

#define NOW (IKE_PKI_T0 + 1000)

static pki_key root_key, tsa_key, tsa512_key, plain_key;
static pki_cert root, tsa, tsa512, plain;
static gostx_x509_store *store;

static void pki(void) {
  static const char *const ca_ext[] = {"basicConstraints=critical,CA:TRUE",
                                       "keyUsage=critical,keyCertSign,cRLSign", NULL};
  static const char *const tsa_ext[] = {"keyUsage=critical,digitalSignature",
                                        "extendedKeyUsage=critical,timeStamping", NULL};
  static const char *const plain_ext[] = {"keyUsage=critical,digitalSignature", NULL};
  pki_make(&root, &root_key, GOSTX_GOST3410_256_A, "/CN=TSA Test Root/O=gostx", ca_ext, NULL,
           NULL);
  pki_make(&tsa, &tsa_key, GOSTX_GOST3410_256_B, "/CN=gostx TSA/O=gostx", tsa_ext, &root, &root_key);
  pki_make(&tsa512, &tsa512_key, GOSTX_GOST3410_512_A, "/CN=gostx TSA 512/O=gostx", tsa_ext, &root,
           &root_key);
  pki_make(&plain, &plain_key, GOSTX_GOST3410_256_A, "/CN=not a TSA/O=gostx", plain_ext, &root,
           &root_key);
  store = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(store, root.der, root.len), 0, "root in the store");
}

static const uint8_t data[] = "the document stamped";
static const uint8_t nonce[] = {0x8a, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07};

static size_t query(size_t dlen, const uint8_t *n, const char *policy, int cert_req, uint8_t *out,
                    size_t cap) {
  uint8_t h[64];
  size_t len = 0;
  gostx_streebog(dlen, data, sizeof data - 1, h);
  gostx_tsa_query_params qp = {dlen, h, policy, n, n ? sizeof nonce : 0, cert_req};
  CHECK_RC(gostx_tsa_query_write(&qp, out, cap, &len), 0, "query written");
  return len;
}

static gostx_tsa_params tsa_params(const pki_cert *c, const pki_key *k) {
  static const char *const more[] = {"1.2.643.100.2"};
  gostx_tsa_params p = {&c->c, &k->k, &root.c, 1, "1.2.643.100.1", more, 1, 1, 500, 0, 0, 0};
  return p;
}

/* The reply to q as a verdict: 0 verified, the parse's status, or the
 * verification's + 100. */
static int judge(const uint8_t *reply, size_t len, const uint8_t *content, size_t content_len,
                 const gostx_tsa_expect *base, gostx_cms_ts_token *t) {
  gostx_cms_ts_status st;
  gostx_cms_ts_verdict v;
  gostx_cms_hash h;
  gostx_tsa_expect e = *base;
  gostx_cms_verify_params vp = {store, NULL, 0, NOW, GOSTX_X509_PURPOSE_ANY, NULL};
  if (gostx_cms_ts_parse(reply, len, t, &st)) return (int)st;
  CHECK_RC(gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512), 0, "hash");
  CHECK_RC(gostx_cms_hash_update(&h, content, content_len), 0, "hash");
  CHECK_RC(gostx_cms_hash_final(&h), 0, "hash");
  if (!e.digest) e.hash = &h;
  if (gostx_tsa_verify(t, &e, &vp, &v)) return 100 + (int)v.status;
  return 0;
}

static void round_trip(void) {
  static uint8_t q[256], r[8192];
  static gostx_cms_ts_token t;
  gostx_tsa_query pq;
  uint32_t fail;
  size_t qlen = query(32, nonce, "1.2.643.100.2", 1, q, sizeof q), rlen, need;
  CHECK(gostx_tsa_query_parse(q, qlen, &pq, &fail) == 0 && fail == 0 && pq.digest_len == 32 &&
            pq.cert_req && pq.nonce_len == sizeof nonce + 1 && pq.nonce[0] == 0 && pq.policy_len == 5,
        "query read back: Streebog-256, certReq, the nonce (a 0 before 0x8a), the policy");
  gostx_tsa_params p = tsa_params(&tsa, &tsa_key);
  CHECK(gostx_tsa_check(&p, &pq) == 0, "the TSA grants it");
  const uint8_t serial[] = {0x01, 0x00};
  CHECK_RC(gostx_tsa_reply(&p, &pq, serial, 2, NOW, 120, NULL, 0, &need), 0, "reply: size");
  CHECK_RC(gostx_tsa_reply(&p, &pq, serial, 2, NOW, 120, r, need - 1, &rlen), GOSTX_ELEN, "reply: short");
  CHECK_RC(gostx_tsa_reply(&p, &pq, serial, 2, NOW, 120, r, sizeof r, &rlen), 0, "reply");
  CHECK(rlen == need, "reply: the size counted (%zu, %zu)", rlen, need);
  gostx_tsa_expect e = {NULL, NULL, 0, pq.nonce, pq.nonce_len, pq.policy, pq.policy_len};
  CHECK(judge(r, rlen, data, sizeof data - 1, &e, &t) == 0, "granted reply verifies");
  CHECK(t.pki_status == 0 && t.gen_time == NOW && t.gen_millis == 120 && t.has_accuracy &&
            t.accuracy_secs == 1 && t.accuracy_millis == 500 && !t.ordering && t.serial_len == 2 &&
            t.sd.version == 3 && t.sd.n_certs == 2 && !t.tsa,
        "the TSTInfo's fields: genTime .12, accuracy 1 s 500 ms, serial 0x0100, v3, two certs");
  CHECK(t.sd.signers[0].ess_hash_alg == GOSTX_CMS_ESS_STREEBOG256, "ESSCertIDv2: Streebog-256");
  CHECK(judge(r, rlen, data, sizeof data - 2, &e, &t) == 100 + GOSTX_CMS_TS_IMPRINT_MISMATCH,
        "other data: imprint mismatch");
  uint8_t other_nonce[9] = {0};
  memcpy(other_nonce, pq.nonce, 9);
  other_nonce[8] ^= 1;
  gostx_tsa_expect e2 = e;
  e2.nonce = other_nonce;
  CHECK(judge(r, rlen, data, sizeof data - 1, &e2, &t) == 100 + GOSTX_CMS_TS_NONCE_MISMATCH,
        "another nonce: nonce mismatch");
  e2 = e;
  e2.policy = (const uint8_t *)"\x2a\x85\x03\x64\x01";
  e2.policy_len = 5;
  CHECK(judge(r, rlen, data, sizeof data - 1, &e2, &t) == 100 + GOSTX_CMS_TS_POLICY_MISMATCH,
        "another policy: policy mismatch");
  uint8_t h[64];
  gostx_streebog(32, data, sizeof data - 1, h);
  e2 = e;
  e2.digest = h, e2.digest_len = 32;
  CHECK(judge(r, rlen, data, 0, &e2, &t) == 0, "the digest alone verifies");
  e2.digest_len = 31;
  CHECK(judge(r, rlen, data, 0, &e2, &t) == 100 + GOSTX_CMS_TS_IMPRINT_MISMATCH,
        "a digest of another size: mismatch");
  gostx_cms_verify_params vp = {store, NULL, 0, IKE_PKI_T1 + 10, GOSTX_X509_PURPOSE_ANY, NULL};
  gostx_cms_ts_verdict v;
  e2.digest_len = 32;
  CHECK(gostx_tsa_verify(&t, &e2, &vp, &v) == GOSTX_EAUTH && v.status == GOSTX_CMS_TS_TOKEN &&
            v.cms.status == GOSTX_CMS_CHAIN,
        "after the TSA certificate expired: the chain");
  /* every byte of the reply changed, but those of the root's copy in the
   * token (the store's root is the anchor): never verified */
  CHECK(judge(r, rlen, data, sizeof data - 1, &e, &t) == 0 && t.sd.n_certs == 2, "again");
  const gostx_x509_cert *copy = t.sd.certs[0].der_len == root.len ? &t.sd.certs[0] : &t.sd.certs[1];
  size_t from = (size_t)(copy->der - r), to = from + copy->der_len, accepted = 0, tried = 0;
  CHECK(copy->der_len == root.len && !memcmp(copy->der, root.der, root.len), "the root's copy found");
  for (size_t i = 0; i < rlen; i++) {
    if (i >= from && i < to) continue;
    r[i] ^= 0x04;
    accepted += judge(r, rlen, data, sizeof data - 1, &e, &t) == 0;
    r[i] ^= 0x04;
    tried++;
  }
  CHECK(accepted == 0 && tried > 900, "%zu of %zu changed bytes verified", accepted, tried);
}

static void variants(void) {
  static uint8_t q[256], r[8192];
  static gostx_cms_ts_token t;
  gostx_tsa_query pq;
  size_t qlen = query(64, NULL, NULL, 0, q, sizeof q), rlen;
  CHECK(gostx_tsa_query_parse(q, qlen, &pq, NULL) == 0 && pq.digest_len == 64 && !pq.cert_req &&
            !pq.nonce && !pq.policy,
        "query: Streebog-512, no nonce, no policy, no certReq");
  gostx_tsa_params p = tsa_params(&tsa512, &tsa512_key);
  p.accuracy_secs = 0, p.accuracy_millis = 0, p.tsa_name = 1;
  CHECK_RC(gostx_tsa_reply(&p, &pq, (const uint8_t *)"\x07", 1, NOW, 0, r, sizeof r, &rlen), 0, "reply 512");
  gostx_tsa_expect e = {0};
  gostx_cms_verify_params vp = {store, &tsa512.c, 1, NOW, GOSTX_X509_PURPOSE_ANY, NULL};
  gostx_cms_ts_verdict v;
  CHECK(judge(r, rlen, data, sizeof data - 1, &e, &t) == 100 + GOSTX_CMS_TS_TOKEN,
        "no certReq: no certificate in the token, not found");
  CHECK(t.sd.n_certs == 0 && !t.has_accuracy && t.gen_millis == 0 && t.tsa && t.policy_len == 5,
        "no certs, no accuracy, whole seconds, the tsa name, the TSA's policy");
  gostx_cms_hash h;
  CHECK_RC(gostx_cms_hash_init(&h, GOSTX_CMS_HASH_512), 0, "hash");
  CHECK_RC(gostx_cms_hash_update(&h, data, sizeof data - 1), 0, "hash");
  CHECK_RC(gostx_cms_hash_final(&h), 0, "hash");
  e.hash = &h;
  CHECK(gostx_tsa_verify(&t, &e, &vp, &v) == 0, "the TSA certificate given apart: verifies (%d)", v.status);
  CHECK(t.sd.signers[0].ess_hash_alg == GOSTX_CMS_ESS_STREEBOG512, "ESSCertIDv2: Streebog-512");
  /* a certificate without timeStamping cannot make a verifying token */
  gostx_tsa_params bad = tsa_params(&plain, &plain_key);
  qlen = query(32, nonce, NULL, 1, q, sizeof q);
  CHECK(gostx_tsa_query_parse(q, qlen, &pq, NULL) == 0, "query");
  CHECK_RC(gostx_tsa_reply(&bad, &pq, (const uint8_t *)"\x01", 1, NOW, 0, r, sizeof r, &rlen), 0, "reply");
  gostx_tsa_expect e3 = {NULL, NULL, 0, pq.nonce, pq.nonce_len, NULL, 0};
  CHECK(judge(r, rlen, data, sizeof data - 1, &e3, &t) == 100 + GOSTX_CMS_TS_NOT_TSA, "no EKU: NOT_TSA");
  /* the TSA's TSTInfo signed without signingCertificateV2, then as id-data */
  gostx_cms_signer s = {&tsa.c, &tsa_key.k};
  gostx_cms_sign_params sp = {GOSTX_CMS_ATTACHED | GOSTX_CMS_NO_SIGNING_TIME, 0, NULL, 0};
  static uint8_t cms[8192], info[1024];
  size_t clen, ilen;
  CHECK_RC(gostx_cms_ts_parse(r, rlen, &t, NULL), 0, "parse");
  memcpy(info, t.sd.content, ilen = t.sd.content_len);
  CHECK_RC(gostx__cms_sign_typed(&s, 1, &sp, "1.2.840.113549.1.9.16.1.4", NULL, info, ilen, cms,
                                 sizeof cms, &clen), 0, "sign a TSTInfo without the attribute");
  CHECK(judge(cms, clen, data, sizeof data - 1, &e3, &t) == 100 + GOSTX_CMS_TS_NO_SIGNING_CERT,
        "no signingCertificateV2: NO_SIGNING_CERT");
  CHECK_RC(gostx_cms_sign(&s, 1, &sp, NULL, info, ilen, cms, sizeof cms, &clen), 0, "sign");
  CHECK(judge(cms, clen, data, sizeof data - 1, &e3, &t) == GOSTX_CMS_TS_NOT_TSTINFO, "id-data: NOT_TSTINFO");
  CHECK_RC(gostx_tsa_verify(&t, &(gostx_tsa_expect){0}, &vp, &v), GOSTX_EINVAL, "no data: EINVAL");
}

/* refused: the reply parses as REFUSED with pki_status 2 */
static void refused(uint32_t fail, const char *what) {
  uint8_t r[256];
  size_t rlen;
  gostx_cms_ts_token t;
  gostx_cms_ts_status st;
  CHECK_RC(gostx_tsa_refusal(fail, gostx_tsa_fail_name(fail), r, sizeof r, &rlen), 0, what);
  CHECK(gostx_cms_ts_parse(r, rlen, &t, &st) == GOSTX_EFORMAT && st == GOSTX_CMS_TS_REFUSED &&
            t.pki_status == 2,
        "%s: read as a rejection", what);
}

static void refusals(void) {
  uint8_t q[256], bad[300];
  gostx_tsa_query pq;
  uint32_t fail;
  gostx_tsa_params p = tsa_params(&tsa, &tsa_key);
  size_t qlen = query(32, nonce, "1.2.643.100.9", 1, q, sizeof q);
  CHECK(gostx_tsa_query_parse(q, qlen, &pq, &fail) == 0 &&
            gostx_tsa_check(&p, &pq) == GOSTX_TSA_FAIL_UNACCEPTED_POLICY,
        "another policy: unacceptedPolicy");
  p.digests = GOSTX_CMS_HASH_512;
  qlen = query(32, NULL, NULL, 1, q, sizeof q);
  CHECK(gostx_tsa_query_parse(q, qlen, &pq, &fail) == 0 && gostx_tsa_check(&p, &pq) == GOSTX_TSA_FAIL_BAD_ALG,
        "Streebog-256 to a TSA of Streebog-512 only: badAlg");
  size_t rl;
  CHECK_RC(gostx_tsa_reply(&p, &pq, (const uint8_t *)"\x01", 1, NOW, 0, NULL, 0, &rl), GOSTX_EINVAL,
           "a reply to a refused query: EINVAL");
  /* the query's own refusals: version 2, SHA-256, a short hash, extensions, a negative nonce */
  memcpy(bad, q, qlen);
  bad[4] = 2;
  CHECK(gostx_tsa_query_parse(bad, qlen, &pq, &fail) && fail == GOSTX_TSA_FAIL_BAD_REQUEST, "version 2: badRequest");
  memcpy(bad, q, qlen);
  memcpy(bad + 11, "\x60\x86\x48\x01\x65\x03\x04\x02\x01", 8); /* 8 bytes of SHA-256's OID: another OID */
  CHECK(gostx_tsa_query_parse(bad, qlen, &pq, &fail) && fail == GOSTX_TSA_FAIL_BAD_ALG, "another hash: badAlg");
  memcpy(bad, q, qlen);
  bad[22] = 31; /* the OCTET STRING says 31: a byte left over in the imprint */
  CHECK(gostx_tsa_query_parse(bad, qlen, &pq, &fail) && fail == GOSTX_TSA_FAIL_BAD_DATA_FORMAT,
        "a malformed imprint: badDataFormat");
  memcpy(bad, q, qlen);
  memcpy(bad + qlen, "\xa0\x00", 2);
  bad[1] += 2;
  CHECK(gostx_tsa_query_parse(bad, qlen + 2, &pq, &fail) && fail == GOSTX_TSA_FAIL_UNACCEPTED_EXTENSION,
        "extensions: unacceptedExtension");
  memcpy(bad, q, qlen - 3); /* certReq replaced by a negative nonce */
  memcpy(bad + qlen - 3, "\x02\x01\x80", 3);
  CHECK(gostx_tsa_query_parse(bad, qlen, &pq, &fail) && fail == GOSTX_TSA_FAIL_BAD_REQUEST, "negative nonce: badRequest");
  refused(GOSTX_TSA_FAIL_BAD_ALG, "badAlg");
  refused(GOSTX_TSA_FAIL_UNACCEPTED_POLICY, "unacceptedPolicy");
  refused(GOSTX_TSA_FAIL_SYSTEM_FAILURE, "systemFailure");
  uint8_t r[64];
  size_t rlen;
  CHECK_RC(gostx_tsa_refusal(GOSTX_TSA_FAIL_BAD_DATA_FORMAT, NULL, r, sizeof r, &rlen), 0, "refusal");
  static const uint8_t want[] = {0x30, 0x09, 0x30, 0x07, 0x02, 0x01, 0x02, 0x03, 0x02, 0x02, 0x04};
  CHECK(rlen == sizeof want, "badDataFormat: %zu bytes", rlen);
  CHECK_BYTES(r, want, sizeof want, "badDataFormat: status 2, BIT STRING 02 04 (bit 5)");
  CHECK_RC(gostx_tsa_refusal(0, NULL, r, sizeof r, &rlen), GOSTX_EINVAL, "no failure bit: EINVAL");
}

/* Hostile DER: every cut and every changed byte of a query is read as a
 * query only when it is one; nothing crashes (ASan) */
static void hostile(void) {
  uint8_t q[256], c[256];
  gostx_tsa_query pq;
  uint32_t fail;
  size_t qlen = query(64, nonce, "1.2.643.100.1", 1, q, sizeof q), wrong = 0;
  for (size_t n = 0; n < qlen; n++) {
    memcpy(c, q, n);
    wrong += gostx_tsa_query_parse(c, n, &pq, &fail) == 0 || fail != GOSTX_TSA_FAIL_BAD_DATA_FORMAT;
  }
  CHECK(wrong == 0, "every cut: badDataFormat (%zu not)", wrong);
  CHECK(gostx_tsa_query_parse(NULL, 0, &pq, &fail) == GOSTX_EFORMAT && fail == GOSTX_TSA_FAIL_BAD_DATA_FORMAT,
        "nothing: badDataFormat");
  size_t accepted = 0;
  for (size_t i = 0; i < qlen; i++)
    for (int bit = 0; bit < 8; bit++) {
      memcpy(c, q, qlen);
      c[i] ^= (uint8_t)(1u << bit);
      if (gostx_tsa_query_parse(c, qlen, &pq, &fail) == 0) {
        accepted++; /* only the hash, nonce and policy values may change and still parse */
        CHECK(pq.imprint_len == 64 && fail == 0, "byte %zu bit %d: a query with a 64-byte imprint", i, bit);
      }
    }
  CHECK(accepted > 0 && accepted < qlen * 8, "%zu changed queries still parse", accepted);
}

int main(void) {
  t_rand_init();
  pki();
  round_trip();
  variants();
  refusals();
  hostile();
  gostx_x509_store_free(store);
  return t_done();
}
