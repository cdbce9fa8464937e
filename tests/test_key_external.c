/* External private keys (gostx_gost3410_key_set_external): a key made of Q
 * and callbacks, d never in the key, used end to end by every signer and
 * key agreement of the library: certificates and CRLs written, CMS signed
 * and decrypted (KEG recipients, both KTRI and KARI), TLS 1.3 (server and
 * client certificate keys) and TLS 1.2 (the server key's KEG / VKO), IKEv2
 * AUTH. The callbacks here hold a real key (as a token would) and count
 * their calls; each result is checked with the library's verifiers, never
 * with the callbacks. A failing callback's code reaches the caller. The
 * token: tests/support/ext_token.c; XMLDSig's twin:
 * tests/xmldsig/test_xmldsig_external.c. */
#include <string.h>

#include "gostx/cms.h"
#include "gostx/cms_ts.h"
#include "gostx/ocsp.h"
#include "gostx/pkcs12.h"
#include "gostx/tsa.h"
#include "ike/ike.h"
#include "ext_token.h"
#include "ike_pki.h"
#include "tls_pair.h"

static void test_api(void) {
  token t;
  pki_key ext;
  token_make(GOSTX_GOST3410_256_A, &t, &ext);
  uint8_t digest[32] = {1, 2, 3}, sig[64], peer_d[32], peer_q[64], ukm[8] = {9}, a[32], b[32];
  CHECK_RC(gostx_gost3410_key_sign(&ext.k, digest, 32, sig, 64), 0, "key_sign");
  CHECK_RC(gostx_gost3410_verify(ext.k.curve, ext.k.q, 64, digest, 32, sig, 64), 0,
           "the callback's signature verifies under Q");
  CHECK_RC(gostx_gost3410_keygen(ext.k.curve, peer_d, 32, peer_q, 64), 0, "peer");
  CHECK_RC(gostx_gost3410_key_vko(&ext.k, peer_q, 64, ukm, 8, a, 32), 0, "key_vko");
  CHECK_RC(gostx_gost3410_vko(ext.k.curve, peer_d, 32, ext.k.q, 64, ukm, 8, b, 32), 0, "peer's");
  CHECK(!memcmp(a, b, 32) && t.vkos == 1, "VKO through the callback is the peer's");
  uint8_t h[32] = {7}, k1[64], k2[64];
  CHECK_RC(gostx_gost3410_key_keg(&ext.k, peer_q, 64, h, 32, k1, 64), 0, "key_keg");
  CHECK_RC(gostx_gost3410_keg(ext.k.curve, peer_d, 32, ext.k.q, 64, h, 32, k2, 64), 0, "peer's");
  CHECK(!memcmp(k1, k2, 64) && t.vkos == 2, "KEG on the callback is the peer's");
  /* the public inputs are checked before the token is asked */
  uint8_t off[64];
  memcpy(off, peer_q, 64);
  off[63] ^= 1;
  CHECK_RC(gostx_gost3410_key_vko(&ext.k, off, 64, ukm, 8, a, 32), GOSTX_EINVAL, "off the curve");
  CHECK_RC(gostx_gost3410_key_sign(&ext.k, digest, 31, sig, 64), GOSTX_ELEN, "short digest");
  CHECK(t.vkos == 2 && t.signs == 1, "refused inputs never reach the callbacks");
  /* a failing callback: its code, and nothing released */
  t.fail = GOSTX_EIO;
  memset(sig, 0xa5, sizeof sig);
  memset(k1, 0xa5, sizeof k1);
  CHECK_RC(gostx_gost3410_key_sign(&ext.k, digest, 32, sig, 64), GOSTX_EIO, "sign fails");
  CHECK_RC(gostx_gost3410_key_keg(&ext.k, peer_q, 64, h, 32, k1, 64), GOSTX_EIO, "keg fails");
  int untouched = 1;
  for (size_t i = 0; i < 64; i++) untouched &= sig[i] == 0xa5 && k1[i] == 0xa5;
  CHECK(untouched, "a failed callback releases nothing");
  /* no vko callback: key agreement is unsupported */
  gostx_gost3410_key so;
  CHECK_RC(gostx_gost3410_key_set_external(&so, ext.k.curve, ext.k.q, 64, NULL, &token_sign_only_ops, &t),
           0, "sign-only key");
  CHECK_RC(gostx_gost3410_key_vko(&so, peer_q, 64, ukm, 8, a, 32), GOSTX_EUNSUP, "no vko");
  CHECK_RC(gostx_gost3410_key_keg(&so, peer_q, 64, h, 32, k1, 64), GOSTX_EUNSUP, "no keg");
  /* Q is checked as key_set_public checks it; sign is required */
  CHECK_RC(gostx_gost3410_key_set_external(&so, ext.k.curve, off, 64, NULL, &token_ops, &t),
           GOSTX_EINVAL, "Q off the curve");
  CHECK_RC(gostx_gost3410_key_set_external(&so, ext.k.curve, ext.k.q, 64, NULL, NULL, &t),
           GOSTX_EINVAL, "no ops");
  /* a GOST R 34.10-2001 key: no 2012 signature with it, no TLS identity */
  t.fail = 0;
  gostx_gost3410_key old = ext.k;
  old.gost2001 = 1;
  int signs = t.signs;
  CHECK_RC(gostx_gost3410_key_sign(&old, digest, 32, sig, 64), GOSTX_EUNSUP, "2001: key_sign");
  CHECK(t.signs == signs, "2001: the callback not reached");
  gostx_tls_config *cfg = gostx_tls_config_new(GOSTX_TLS_SERVER);
  CHECK(cfg && gostx_tls_config_set_key(cfg, &old) == GOSTX_EUNSUP &&
            strstr(gostx_tls_config_error(cfg), "GOST R 34.10-2001"),
        "2001: TLS refuses the key, and says why");
  gostx_tls_config_free(cfg);
  /* the private part stays on the token */
  uint8_t out[GOSTX_GOST3410_PEM_MAX];
  size_t n = 0;
  CHECK_RC(gostx_gost3410_key_write(&ext.k, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_PEM, NULL,
                                    out, sizeof out, &n),
           GOSTX_EUNSUP, "private part not written");
  CHECK(n == 0, "nothing written");
  CHECK_RC(gostx_gost3410_key_write(&ext.k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                                    out, sizeof out, &n),
           0, "public part written");
  CHECK(n == ext.spki_len && !memcmp(out, ext.spki, n), "the public part is Q's");
  gostx_gost3410_key_clear(&t.real);
}

/* ---- certificates, CRLs, CMS, IKE: a CA whose key is on the token ---- */

/* The certificate's signature under the issuer's key, checked here. */
static int cert_verifies(const pki_cert *c, const gostx_x509_cert *issuer) {
  size_t n = gostx_gost3410_size(issuer->curve);
  uint8_t digest[64], rs[128];
  if (gostx_streebog(n, c->c.tbs, c->c.tbs_len, digest) ||
      gostx_gost3410_sig_swap(c->c.sig_value, 2 * n, rs, 2 * n))
    return 0;
  return gostx_gost3410_verify(issuer->curve, issuer->pub, issuer->pub_len, digest, n, rs,
                               2 * n) == 0;
}

static void test_pki(gostx_gost3410_curve curve) {
  static const char *const ca_ext[] = {"basicConstraints = critical,CA:TRUE",
                                       "keyUsage = critical,keyCertSign,cRLSign,digitalSignature,"
                                       "keyEncipherment,keyAgreement",
                                       "subjectKeyIdentifier = hash", NULL};
  token t;
  pki_key ext, leaf_key;
  pki_cert ca, leaf;
  token_make(curve, &t, &ext);
  pki_make_cert(&ca, "/CN=token CA", &ext, ca_ext, NULL, NULL);
  pki_make_key(curve, &leaf_key);
  pki_make_cert(&leaf, "/CN=leaf", &leaf_key, NULL, &ca, &ext);
  CHECK(t.signs == 2 && cert_verifies(&ca, &ca.c) && cert_verifies(&leaf, &ca.c),
        "%s: certificates signed by the token verify", gostx_gost3410_curve_name(curve));
  uint8_t crl_der[2048];
  gostx_x509_crl crl;
  const pki_cert *rev[1] = {&leaf};
  pki_make_crl(&ca, &ext, rev, 1, IKE_PKI_T1, crl_der, sizeof crl_der, &crl);
  CHECK(t.signs == 3 && gostx_x509_crl_verify(&crl, &ca.c) == GOSTX_X509_OK,
        "the token's CRL verifies");

  /* CMS SignedData by the token's key, verified by the library */
  static const uint8_t content[] = "signed on a token";
  gostx_cms_signer s = {&ca.c, &ext.k};
  gostx_cms_sign_params sp = {GOSTX_CMS_ATTACHED | GOSTX_CMS_CADES, IKE_PKI_T0, NULL, 0};
  uint8_t msg[8192];
  size_t len = 0;
  int signs = t.signs;
  CHECK_RC(gostx_cms_sign(&s, 1, &sp, NULL, content, sizeof content, msg, sizeof msg, &len), 0,
           "cms sign");
  gostx_cms_signed sd;
  gostx_cms_verdict v;
  CHECK(gostx_cms_signed_parse(msg, len, &sd, NULL) == 0 &&
            gostx_cms_signed_verify(&sd, NULL, NULL, &v) == 0 && t.signs == signs + 1,
        "CMS SignedData from the token verifies");

  /* EnvelopedData to the token's certificate, decrypted through its KEG */
  for (int kari = 0; kari < 2; kari++) {
    gostx_cms_encrypt_params ep = {GOSTX_CMS_KUZNYECHIK, kari, 0, NULL, NULL};
    uint8_t out[64];
    size_t out_len = 0;
    CHECK_RC(gostx_cms_encrypt_with(&ca.c, 1, &ep, content, sizeof content, msg, sizeof msg, &len),
             0, "cms encrypt");
    gostx_cms_enveloped env;
    CHECK_RC(gostx_cms_enveloped_parse(msg, len, &env, NULL), 0, "enveloped parse");
    for (int by_key = 0; by_key < 2; by_key++) {
      int vkos = t.vkos;
      CHECK_RC(gostx_cms_enveloped_decrypt(&env, by_key ? NULL : &ca.c, &ext.k, NULL, out,
                                           sizeof out, &out_len, NULL),
               0, "decrypt");
      CHECK(out_len == sizeof content && !memcmp(out, content, out_len) && t.vkos == vkos + 1,
            "%s recipient %s: decrypted through the token's VKO", kari ? "KARI" : "KTRI",
            by_key ? "by key" : "by certificate");
      t.fail = GOSTX_EIO;
      out_len = 0;
      CHECK_RC(gostx_cms_enveloped_decrypt(&env, by_key ? NULL : &ca.c, &ext.k, NULL, out,
                                           sizeof out, &out_len, NULL),
               GOSTX_EIO, "decrypt with the token failing: its error");
      CHECK(out_len == 0, "nothing decrypted");
      t.fail = 0;
    }
  }

  /* A static originator on the token (R 1323565.1.025-2019 A.2.2): the
   * sender's KEG through its callback, the leaf decrypting with its d */
  {
    gostx_cms_encrypt_params ep = {GOSTX_CMS_KUZNYECHIK, 1, 0, &ca.c, &ext.k};
    uint8_t out[64];
    size_t out_len = 0;
    int vkos = t.vkos;
    CHECK_RC(gostx_cms_encrypt_with(&leaf.c, 1, &ep, content, sizeof content, msg, sizeof msg,
                                    &len),
             0, "cms encrypt from the token's static key");
    gostx_cms_enveloped env;
    CHECK(t.vkos == vkos + 1 && gostx_cms_enveloped_parse(msg, len, &env, NULL) == 0 &&
              gostx_cms_enveloped_decrypt(&env, &leaf.c, &leaf_key.k, &ca.c, out, sizeof out,
                                          &out_len, NULL) == 0 &&
              out_len == sizeof content && !memcmp(out, content, out_len),
          "a static originator on the token: the recipient opens it");
  }

  /* An OCSP response by the CA on the token, checked by the client's check */
  gostx_ocsp_single one;
  memset(&one, 0, sizeof one);
  CHECK_RC(gostx_ocsp_certid_make(&ca.c, leaf.c.serial, leaf.c.serial_len, GOSTX_OCSP_STREEBOG256,
                                  &one.id),
           0, "certid");
  one.status = GOSTX_OCSP_GOOD;
  one.reason = -1;
  one.this_update = IKE_PKI_T0;
  gostx_ocsp_response_spec rs = {&ca.c, 0, IKE_PKI_T0, &one, 1, NULL, 0, 0};
  signs = t.signs;
  CHECK_RC(gostx_ocsp_response_write(&rs, &ext.k, msg, sizeof msg, &len), 0, "OCSP response");
  gostx_ocsp_response r;
  gostx_ocsp_check_opts oo;
  gostx_ocsp_check_opts_init(&oo, IKE_PKI_T0 + 10);
  oo.issuer = &ca.c;
  gostx_ocsp_single got;
  size_t which = 0;
  CHECK(gostx_ocsp_response_parse(msg, len, &r) == 0 &&
            gostx_ocsp_check(&r, &oo, &one.id, 1, &got, &which, NULL) == GOSTX_OCSP_OK &&
            t.signs == signs + 1,
        "the token's OCSP response checks");

  /* A TSA whose key is on the token: its reply verified as a client does */
  static const char *const tsa_ext[] = {"extendedKeyUsage = critical,timeStamping", NULL};
  pki_cert tsa;
  pki_make_cert(&tsa, "/CN=token TSA", &ext, tsa_ext, NULL, NULL);
  uint8_t imprint[32] = {3, 1, 4}, query[256];
  size_t qlen = 0;
  gostx_tsa_query_params qp = {32, imprint, NULL, NULL, 0, 1};
  gostx_tsa_query q;
  CHECK(gostx_tsa_query_write(&qp, query, sizeof query, &qlen) == 0 &&
            gostx_tsa_query_parse(query, qlen, &q, NULL) == 0,
        "TSA query");
  gostx_tsa_params tp;
  memset(&tp, 0, sizeof tp);
  tp.cert = &tsa.c;
  tp.key = &ext.k;
  tp.policy = "1.2.3.4";
  signs = t.signs;
  CHECK_RC(gostx_tsa_reply(&tp, &q, (const uint8_t *)"\x09", 1, IKE_PKI_T0, 0, msg, sizeof msg,
                           &len),
           0, "TSA reply");
  gostx_cms_ts_token tok;
  gostx_tsa_expect te = {NULL, imprint, 32, NULL, 0, NULL, 0};
  gostx_cms_ts_verdict tv;
  CHECK(gostx_cms_ts_parse(msg, len, &tok, NULL) == 0 && gostx_tsa_verify(&tok, &te, NULL, &tv) == 0 &&
            t.signs == signs + 1,
        "the token's timestamp verifies");

  /* IKEv2 AUTH (RFC 7427 / RFC 9385) by the token's key */
  uint8_t id_mac[GOSTX_IKE_PRF_LEN] = {5}, nonce[32] = {6}, auth[200];
  size_t auth_len = 0;
  CHECK_RC(gostx__ike_auth_sig_sign(&ext.k, content, sizeof content, nonce, sizeof nonce, id_mac,
                                    auth, sizeof auth, &auth_len),
           0, "IKE AUTH");
  CHECK(gostx__ike_auth_sig_verify(&ca.c, content, sizeof content, nonce, sizeof nonce, id_mac,
                                   auth, auth_len) == 0,
        "IKE AUTH by the token verifies");

  /* a token that fails: every signer says so, none writes */
  t.fail = GOSTX_EIO;
  pki_cert c2;
  memset(&c2, 0, sizeof c2);
  gostx_x509_cert_spec spec = {(const uint8_t *)"\x05", 1, ca.name.der, ca.name.der, ca.name.len,
                               ca.name.len, IKE_PKI_T0, IKE_PKI_T1, ext.spki, ext.spki_len, NULL,
                               NULL, 0};
  len = 0;
  CHECK_RC(gostx_x509_cert_write(&spec, &ext.k, c2.der, sizeof c2.der, &len), GOSTX_EIO,
           "certificate: the token's error");
  CHECK(len == 0, "no certificate length given");
  CHECK_RC(gostx_cms_sign(&s, 1, &sp, NULL, content, sizeof content, msg, sizeof msg, &len),
           GOSTX_EIO, "cms sign: the token's error");
  CHECK(len == 0, "no SignedData length given");
  CHECK_RC(gostx__ike_auth_sig_sign(&ext.k, content, sizeof content, nonce, sizeof nonce, id_mac,
                                    auth, sizeof auth, &auth_len),
           GOSTX_EIO, "IKE AUTH: the token's error");
  len = 0;
  CHECK_RC(gostx_ocsp_response_write(&rs, &ext.k, msg, sizeof msg, &len), GOSTX_EIO,
           "OCSP: the token's error");
  CHECK_RC(gostx_tsa_reply(&tp, &q, (const uint8_t *)"\x09", 1, IKE_PKI_T0, 0, msg, sizeof msg,
                           &len),
           GOSTX_EIO, "TSA: the token's error");
  CHECK(len == 0, "no OCSP or TSA length given");
  uint8_t crl2[2048];
  gostx_x509_crl_spec cs = {ca.name.der, ca.name.len, IKE_PKI_T0, IKE_PKI_T1, (const uint8_t *)"\x08",
                            1, NULL, 0, NULL, 0};
  CHECK_RC(gostx_x509_crl_write(&cs, &ext.k, crl2, sizeof crl2, &len), GOSTX_EIO,
           "CRL: the token's error");
  CHECK(len == 0, "no length given");
  t.fail = 0;

  /* a GOST R 34.10-2001 key (its token's hash parameters are GOST R
   * 34.11-94's): every signer here writes a 2012 algorithm OID, so each
   * refuses it before the token is asked, rather than mislabel */
  gostx_gost3410_key old = ext.k;
  old.gost2001 = 1;
  gostx_cms_signer s01 = {&ca.c, &old};
  signs = t.signs;
  len = 0;
  CHECK_RC(gostx_x509_cert_write(&spec, &old, c2.der, sizeof c2.der, &len), GOSTX_EUNSUP,
           "certificate: a 2001 key refused");
  CHECK_RC(gostx_x509_crl_write(&cs, &old, crl2, sizeof crl2, &len), GOSTX_EUNSUP,
           "CRL: a 2001 key refused");
  CHECK_RC(gostx_cms_sign(&s01, 1, &sp, NULL, content, sizeof content, msg, sizeof msg, &len),
           GOSTX_EUNSUP, "cms sign: a 2001 key refused");
  CHECK_RC(gostx__ike_auth_sig_sign(&old, content, sizeof content, nonce, sizeof nonce, id_mac,
                                    auth, sizeof auth, &auth_len),
           GOSTX_EUNSUP, "IKE AUTH: a 2001 key refused");
  CHECK_RC(gostx_ocsp_response_write(&rs, &old, msg, sizeof msg, &len), GOSTX_EUNSUP,
           "OCSP: a 2001 key refused");
  tp.key = &old;
  CHECK_RC(gostx_tsa_reply(&tp, &q, (const uint8_t *)"\x09", 1, IKE_PKI_T0, 0, msg, sizeof msg,
                           &len),
           GOSTX_EUNSUP, "TSA: a 2001 key refused");
  tp.key = &ext.k;
  CHECK(len == 0 && t.signs == signs, "nothing written, the token never asked");

  /* PKCS#12 export of the token's key: refused, distinctly */
  const uint8_t *certs[1] = {ca.der};
  size_t lens[1] = {ca.len};
  gostx_pkcs12_params pp;
  memset(&pp, 0, sizeof pp);
  pp.key_pbe = GOSTX_PKCS12_PBE_KUZNYECHIK;
  pp.cert_pbe = GOSTX_PKCS12_PBE_KUZNYECHIK;
  pp.iterations = 1;
  len = 0;
  CHECK_RC(gostx_pkcs12_write(&ext.k, certs, lens, 1, &pp, msg, sizeof msg, &len), GOSTX_EUNSUP,
           "pkcs12_write refuses the token's key");
  gostx_gost3410_key_clear(&t.real);
}

/* ---- TLS: the server's and the client's certificate keys on the token ---- */

/* set_identity (tls_pair.h) with an external key */
static void set_ext_identity(gostx_tls_config *cfg, const gostx_gost3410_key *k) {
  const uint8_t *der[1] = {fake_der};
  size_t len[1] = {sizeof fake_der};
  gostx__tls_config_test(cfg)->raw_chain = 1;
  CHECK_RC(gostx_tls_config_set_chain(cfg, der, len, 1), 0, "set_chain");
  CHECK_RC(gostx_tls_config_set_key(cfg, k), 0, "set_key (external)");
}

static void test_tls(void) {
  static const char *const suites12[2] = {"KUZNYECHIK_CTR_OMAC", "28147_CNT_IMIT"};
  make_keys();
  /* role 0: the server's key external; 1: the client's; versions 1.3, then
   * TLS 1.2 with each suite (the server's key agrees there too) */
  for (int v = 0; v < 3; v++)
    for (int role = 0; role < 2; role++)
      for (int fail = 0; fail < 2; fail++) {
        token t;
        pki_key ext;
        token_make(GOSTX_GOST3410_256_A, &t, &ext);
        keypair kp = {ext.k.curve, {0}, {0}};
        memcpy(kp.pub, ext.k.q, 2 * ext.k.len);
        pair p;
        pair_init(&p, &keys[1], 0); /* then the token's key in its place */
        if (v) {
          CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
          CHECK_RC(gostx_tls_config_set_versions(p.scfg, 0x0303, 0x0303), 0, "1.2 only");
          CHECK_RC(gostx_tls_config_set_suites(p.ccfg, suites12[v - 1]), 0, "suite");
        }
        if (role) { /* the client presents the token's key */
          set_ext_identity(p.ccfg, &ext.k);
          pin(p.scfg, &kp);
          gostx_tls_config_set_verify(p.scfg, GOSTX_TLS_VERIFY_REQUIRE);
        } else {
          set_ext_identity(p.scfg, &ext.k);
          pin(p.ccfg, &kp);
        }
        t.fail = fail ? GOSTX_EIO : 0;
        pair_start(&p);
        int rc = pair_handshake(&p);
        const char *what = v == 0 ? "TLS 1.3" : suites12[v - 1];
        const char *who = role ? "client" : "server";
        if (!fail) {
          /* TLS 1.2's server key agrees (KEG / VKO) and signs only for a
           * client that signs too: here it takes the ClientKeyExchange */
          int used = v && !role ? t.vkos == 1 : t.signs == 1;
          CHECK(rc == 0 && used, "%s, the %s key on the token: handshake (%s / %s), callback used",
                what, who, gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-",
                gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
          static const uint8_t data[] = "over a token's handshake";
          CHECK(rc == 0 && transfer(&p, p.c, p.s, data, sizeof data) == 0, "%s %s: data", what, who);
        } else {
          CHECK(rc != 0 && (role ? p.crc : p.src) == GOSTX_EIO,
                "%s, the %s's token failing: the handshake fails with its error (%d)", what, who,
                role ? p.crc : p.src);
        }
        pair_free(&p);
        gostx_gost3410_key_clear(&t.real);
      }
}

int main(void) {
  test_api();
  test_pki(GOSTX_GOST3410_256_A);
  test_pki(GOSTX_GOST3410_512_C);
  test_tls();
  return t_done();
}
