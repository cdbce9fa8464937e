#define _GNU_SOURCE /* memmem */
/* OCSP (include/gostx/ocsp.h): requests written and read back (SHA-1 and
 * Streebog CertIDs, the nonce); responses signed by the CA and by a
 * delegated responder, read and checked; each refusal by its name: a
 * response for another certificate, unsigned, a bad signature, a
 * responder without id-kp-OCSPSigning or not issued by the CA, stale or
 * not yet valid, the nonce missing or another; error statuses; every
 * truncation and many byte flips of a response and a request refused
 * without a crash. The interop with openssl ocsp is test_ocsp_cli.sh's. */
#include <stdlib.h>

#include "testutil.h"

static char err[256];
static const int64_t now = 1800000000; /* 2027 */

typedef t_sign_key key;

typedef struct cert {
  key k;
  uint8_t der[4096];
  size_t len;
  gostx_x509_cert c;
} cert;

/* subject's certificate with exts (one openssl line each, NULL-ended),
 * issued by issuer (NULL: self-signed), valid nb..na. */
static void make_cert(cert *out, const char *subj, cert *issuer, uint8_t serial,
                      const char *const *exts, int64_t nb, int64_t na) {
  gostx_x509_name name;
  gostx_x509_exts e;
  t_make_sign_key(issuer ? GOSTX_GOST3410_256_A : GOSTX_GOST3410_512_A, &out->k);
  CHECK_RC(gostx_x509_name_parse(subj, &name, err, sizeof err), 0, "name");
  gostx_x509_exts_init(&e);
  for (size_t i = 0; exts && exts[i]; i++)
    CHECK_RC(gostx_x509_exts_add_line(&e, exts[i], err, sizeof err), 0, exts[i]);
  const uint8_t sn[1] = {serial};
  gostx_x509_cert_spec s = {sn, 1, issuer ? issuer->c.subject : name.der, name.der,
                            issuer ? issuer->c.subject_len : name.len, name.len, nb, na,
                            out->k.spki, out->k.spki_len, &e, NULL, 0};
  CHECK_RC(gostx_x509_cert_write(&s, issuer ? &issuer->k.xk : &out->k.xk, out->der, sizeof out->der,
                                 &out->len),
           0, subj);
  CHECK_RC(gostx_x509_parse(out->der, out->len, &out->c, NULL), 0, "parsed");
}

static cert ca, rogue, leaf1, leaf2, resp_ok, resp_noeku, resp_rogue, resp_old;
static const char *const ca_ext[] = {"basicConstraints=critical,CA:TRUE", "keyUsage=keyCertSign,cRLSign", NULL};
static const char *const ocsp_ext[] = {"extendedKeyUsage=OCSPSigning", NULL};
static const char *const leaf_ext[] = {"keyUsage=digitalSignature", NULL};

static void pki(void) {
  make_cert(&ca, "/CN=OCSP CA", NULL, 1, ca_ext, now - 86400, now + 86400 * 365);
  make_cert(&rogue, "/CN=OCSP CA", NULL, 1, ca_ext, now - 86400, now + 86400 * 365);
  make_cert(&leaf1, "/CN=leaf one", &ca, 0x11, leaf_ext, now - 86400, now + 86400 * 30);
  make_cert(&leaf2, "/CN=leaf two", &ca, 0x12, leaf_ext, now - 86400, now + 86400 * 30);
  make_cert(&resp_ok, "/CN=responder", &ca, 0x21, ocsp_ext, now - 86400, now + 86400 * 30);
  make_cert(&resp_noeku, "/CN=responder", &ca, 0x22, leaf_ext, now - 86400, now + 86400 * 30);
  make_cert(&resp_rogue, "/CN=responder", &rogue, 0x23, ocsp_ext, now - 86400, now + 86400 * 30);
  make_cert(&resp_old, "/CN=responder", &ca, 0x24, ocsp_ext, now - 86400 * 60, now - 86400 * 31);
}

static void requests(void) {
  static gostx_ocsp_request req, back;
  uint8_t der[8192];
  size_t len;
  memset(&req, 0, sizeof req);
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf1.c.serial, leaf1.c.serial_len, GOSTX_OCSP_SHA1,
                                  &req.id[0]), 0, "SHA-1 CertID");
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf2.c.serial, leaf2.c.serial_len,
                                  GOSTX_OCSP_STREEBOG256, &req.id[1]), 0, "Streebog-256 CertID");
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf2.c.serial, leaf2.c.serial_len,
                                  GOSTX_OCSP_STREEBOG512, &req.id[2]), 0, "Streebog-512 CertID");
  CHECK(req.id[0].hash_len == 20 && req.id[1].hash_len == 32 && req.id[2].hash_len == 64, "hash sizes");
  req.n = 3;
  memcpy(req.nonce, "0123456789abcdef", 16);
  req.nonce_len = 16;
  CHECK_RC(gostx_ocsp_request_write(&req, der, sizeof der, &len), 0, "request written");
  CHECK_RC(gostx_ocsp_request_parse(der, len, &back), 0, "request read");
  CHECK(back.n == 3 && back.nonce_len == 16 && !memcmp(back.nonce, req.nonce, 16), "nonce back");
  for (size_t i = 0; i < 3; i++)
    CHECK(gostx_ocsp_certid_equal(&req.id[i], &back.id[i]), "CertID %zu back", i);
  CHECK(!gostx_ocsp_certid_equal(&req.id[1], &req.id[2]), "256 and 512 differ");
  /* the nonce as openssl writes it: extnValue OCTET STRING { OCTET STRING } */
  CHECK(memmem(der, len, "\x04\x12\x04\x10" "0123456789abcdef", 20) != NULL, "nonce DER");
  req.nonce_len = 0;
  CHECK_RC(gostx_ocsp_request_write(&req, der, sizeof der, &len), 0, "no nonce");
  CHECK_RC(gostx_ocsp_request_parse(der, len, &back), 0, "read");
  CHECK(back.nonce_len == 0, "no nonce back");
  /* every truncation and a trailing byte refused */
  int refused = 1;
  for (size_t cut = 0; cut < len; cut++) refused &= gostx_ocsp_request_parse(der, cut, &back) != 0;
  CHECK(refused, "every truncated request refused");
  der[len] = 0;
  CHECK(gostx_ocsp_request_parse(der, len + 1, &back) != 0, "trailing byte refused");
  CHECK_RC(gostx_ocsp_request_parse((const uint8_t *)"\x30\x00", 2, &back), GOSTX_EFORMAT, "empty");
}

/* A response of one good (leaf1) and one revoked (leaf2) by signer. */
static size_t respond(uint8_t *out, size_t cap, const cert *signer, const gostx_ocsp_certid *ids,
                      const uint8_t *nonce, int64_t this_update, int64_t next_update, int by_key) {
  gostx_ocsp_single s[2] = {{ids[0], GOSTX_OCSP_GOOD, 0, -1, this_update, next_update},
                            {ids[1], GOSTX_OCSP_REVOKED, now - 3600, 1, this_update, next_update}};
  gostx_ocsp_response_spec spec = {&signer->c, by_key, this_update, s, 2, nonce, nonce ? 16 : 0, 0};
  size_t len = 0;
  CHECK_RC(gostx_ocsp_response_write(&spec, &signer->k.xk, out, cap, &len), 0, "response written");
  return len;
}

static gostx_ocsp_status judge(const uint8_t *der, size_t len, const gostx_ocsp_certid *ids,
                               size_t n, const uint8_t *nonce, gostx_ocsp_single *out,
                               gostx_ocsp_signer_info *info) {
  gostx_ocsp_response r;
  gostx_ocsp_check_opts o;
  if (gostx_ocsp_response_parse(der, len, &r)) return GOSTX_OCSP_MALFORMED;
  gostx_ocsp_check_opts_init(&o, now);
  o.issuer = &ca.c;
  o.nonce = nonce, o.nonce_len = nonce ? 16 : 0;
  return gostx_ocsp_check(&r, &o, ids, n, out, NULL, info);
}

static void responses(void) {
  static uint8_t der[16384];
  gostx_ocsp_certid ids[3];
  gostx_ocsp_single out[2];
  gostx_ocsp_signer_info info;
  const uint8_t *nonce = (const uint8_t *)"nonce-nonce-1234", *other = (const uint8_t *)"nonce-nonce-9999";
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf1.c.serial, leaf1.c.serial_len, GOSTX_OCSP_SHA1, &ids[0]), 0, "id");
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf2.c.serial, leaf2.c.serial_len, GOSTX_OCSP_STREEBOG256, &ids[1]), 0, "id");
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, resp_ok.c.serial, resp_ok.c.serial_len, GOSTX_OCSP_SHA1, &ids[2]), 0, "id");

  /* by the CA, byName */
  size_t len = respond(der, sizeof der, &ca, ids, nonce, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, out, &info) == GOSTX_OCSP_OK, "CA-signed response checks");
  CHECK(!info.delegated && out[0].status == GOSTX_OCSP_GOOD && out[1].status == GOSTX_OCSP_REVOKED &&
            out[1].reason == 1 && out[1].revocation_time == now - 3600 &&
            out[0].this_update == now - 60 && out[0].next_update == now + 3600,
        "statuses read back");
  gostx_ocsp_response r;
  CHECK_RC(gostx_ocsp_response_parse(der, len, &r), 0, "parsed");
  CHECK(r.n_single == 2 && r.nonce_len == 16 && !r.by_key && r.produced_at == now - 60, "fields");
  CHECK(!strcmp(gostx_ocsp_reason_name(out[1].reason), "keyCompromise"), "reason name");
  /* the signature covers the data: one bit of a serial flipped */
  uint8_t *sn = memmem(der, len, "\x02\x01\x11", 3);
  CHECK(sn != NULL, "serial found");
  sn[2] ^= 0x40;
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_BAD_SIGNATURE, "altered: bad signature");
  sn[2] ^= 0x40;
  /* unsigned: the signature zeroed */
  CHECK_RC(gostx_ocsp_response_parse(der, len, &r), 0, "parsed");
  uint8_t keep[128];
  memcpy(keep, r.sig, r.sig_len);
  memset((uint8_t *)r.sig, 0, r.sig_len);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_UNSIGNED, "unsigned");
  memcpy((uint8_t *)r.sig, keep, r.sig_len);
  ((uint8_t *)r.sig)[5] ^= 1;
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_BAD_SIGNATURE, "bad signature");
  ((uint8_t *)r.sig)[5] ^= 1;
  /* another certificate asked, the nonce */
  CHECK(judge(der, len, ids + 2, 1, nonce, NULL, NULL) == GOSTX_OCSP_CERT_MISSING, "another certificate");
  gostx_ocsp_certid sha_of_leaf2;
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf2.c.serial, leaf2.c.serial_len, GOSTX_OCSP_SHA1, &sha_of_leaf2), 0, "id");
  CHECK(judge(der, len, &sha_of_leaf2, 1, nonce, NULL, NULL) == GOSTX_OCSP_CERT_MISSING, "another hash");
  CHECK(judge(der, len, ids, 2, other, NULL, NULL) == GOSTX_OCSP_NONCE_MISMATCH, "nonce mismatch");
  CHECK(judge(der, len, ids, 2, NULL, NULL, NULL) == GOSTX_OCSP_OK, "no nonce sent: not checked");
  len = respond(der, sizeof der, &ca, ids, NULL, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_NONCE_MISSING, "nonce missing");

  /* times: stale, not yet valid, within the skew */
  len = respond(der, sizeof der, &ca, ids, nonce, now - 7200, now - 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_STALE, "stale");
  len = respond(der, sizeof der, &ca, ids, nonce, now - 7200, now - GOSTX_OCSP_SKEW_DEFAULT + 10, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_OK, "within the skew");
  len = respond(der, sizeof der, &ca, ids, nonce, now + 3600, now + 7200, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_NOT_YET_VALID, "not yet valid");
  len = respond(der, sizeof der, &ca, ids, nonce, now - 60, 0, 0);
  CHECK(judge(der, len, ids, 2, nonce, out, NULL) == GOSTX_OCSP_OK && out[0].next_update == 0,
        "no nextUpdate");

  /* delegated responders, byKey */
  len = respond(der, sizeof der, &resp_ok, ids, nonce, now - 60, now + 3600, 1);
  CHECK(judge(der, len, ids, 2, nonce, NULL, &info) == GOSTX_OCSP_OK && info.delegated &&
            !info.nocheck,
        "delegated responder checks");
  CHECK_RC(gostx_ocsp_response_parse(der, len, &r), 0, "parsed");
  CHECK(r.by_key && r.responder_len == 20, "byKey");
  len = respond(der, sizeof der, &resp_noeku, ids, nonce, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_NOT_AUTHORIZED, "responder without the EKU");
  len = respond(der, sizeof der, &resp_rogue, ids, nonce, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_RESPONDER_NOT_ISSUED, "responder of another CA");
  len = respond(der, sizeof der, &resp_old, ids, nonce, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_RESPONDER_EXPIRED, "expired responder");
  len = respond(der, sizeof der, &rogue, ids, nonce, now - 60, now + 3600, 0);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_RESPONDER_NOT_ISSUED, "the CA's name, another key");
  len = respond(der, sizeof der, &leaf1, ids, nonce, now - 60, now + 3600, 1);
  CHECK(judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_NOT_AUTHORIZED, "a leaf as responder");
  /* a trusted responder (-VAfile): the rogue's own */
  len = respond(der, sizeof der, &resp_rogue, ids, nonce, now - 60, now + 3600, 0);
  CHECK_RC(gostx_ocsp_response_parse(der, len, &r), 0, "parsed");
  gostx_ocsp_check_opts o;
  gostx_ocsp_check_opts_init(&o, now);
  o.issuer = &ca.c, o.trusted = &resp_rogue.c, o.n_trusted = 1;
  CHECK(gostx_ocsp_check(&r, &o, ids, 2, NULL, NULL, NULL) == GOSTX_OCSP_OK, "-VAfile trusts it");

  /* error statuses */
  CHECK_RC(gostx_ocsp_response_error(GOSTX_OCSP_RESP_MALFORMED_REQUEST, der, sizeof der, &len), 0, "error");
  CHECK(len == 5 && !memcmp(der, "\x30\x03\x0a\x01\x01", 5), "malformedRequest DER");
  CHECK(judge(der, len, ids, 2, NULL, NULL, NULL) == GOSTX_OCSP_NOT_SUCCESSFUL, "not successful");

  /* hostile DER: every truncation, flips, junk */
  len = respond(der, sizeof der, &resp_ok, ids, nonce, now - 60, now + 3600, 1);
  int refused = 1;
  for (size_t cut = 0; cut < len; cut++) refused &= gostx_ocsp_response_parse(der, cut, &r) != 0;
  CHECK(refused, "every truncated response refused");
  t_rand_init();
  size_t accepted = 0;
  for (int i = 0; i < 3000; i++) {
    size_t at = t_rand_below(len);
    uint8_t was = der[at];
    der[at] ^= (uint8_t)(1 + t_rand_below(255));
    accepted += judge(der, len, ids, 2, nonce, NULL, NULL) == GOSTX_OCSP_OK;
    der[at] = was;
  }
  CHECK(accepted == 0, "no altered response accepted (%zu were)", accepted);
  CHECK(gostx_ocsp_response_parse((const uint8_t *)"\x30\x03\x0a\x01\x00", 5, &r) != 0,
        "successful without responseBytes refused");
}

int main(void) {
  pki();
  requests();
  responses();
  (void)leaf_ext;
  return t_done();
}
