/* The test PKI of ike_pki.h. */
#include "ike_pki.h"

#include "testutil.h"

static char err[256];

void pki_make_key(gostx_gost3410_curve curve, pki_key *k) {
  uint8_t d[64], q[128];
  const size_t n = gostx_gost3410_size(curve);
  CHECK_RC(gostx_gost3410_keygen(curve, d, n, q, 2 * n), GOSTX_OK, "keygen");
  CHECK_RC(gostx_gost3410_key_set_private(&k->k, curve, d, n, NULL), GOSTX_OK, "key");
  CHECK_RC(gostx_gost3410_key_write(&k->k, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                                    k->spki, sizeof k->spki, &k->spki_len),
           GOSTX_OK, "SPKI");
  gostx_memzero(d, sizeof d);
}

void pki_make_cert(pki_cert *out, const char *subj, const pki_key *key, const char *const *ext,
                   const pki_cert *issuer, const pki_key *issuer_key) {
  static uint8_t serial = 1;
  gostx_x509_exts e;
  uint8_t aki[64];
  size_t aki_len = 0;
  CHECK(gostx_x509_name_parse(subj, &out->name, err, sizeof err) == GOSTX_OK, "%s: %s", subj,
        err);
  gostx_x509_exts_init(&e);
  for (; ext && *ext; ext++)
    CHECK(gostx_x509_exts_add_line(&e, *ext, err, sizeof err) == GOSTX_OK, "%s: %s", *ext, err);
  if (issuer) CHECK_RC(gostx_x509_cert_key_id(&issuer->c, aki, sizeof aki, &aki_len), 0, "AKI");
  const uint8_t sn[1] = {serial++};
  gostx_x509_cert_spec s = {sn, 1, issuer ? issuer->name.der : out->name.der,
                            out->name.der, issuer ? issuer->name.len : out->name.len,
                            out->name.len, IKE_PKI_T0, IKE_PKI_T1, key->spki, key->spki_len, &e,
                            issuer ? aki : NULL, aki_len};
  CHECK(gostx_x509_cert_write(&s, issuer ? &issuer_key->k : &key->k, out->der, sizeof out->der,
                              &out->len) == GOSTX_OK,
        "%s written", subj);
  CHECK(gostx_x509_parse(out->der, out->len, &out->c, NULL) == GOSTX_OK, "%s parsed", subj);
}

void pki_make(pki_cert *out, pki_key *key, gostx_gost3410_curve curve, const char *subj,
              const char *const *ext, const pki_cert *issuer, const pki_key *issuer_key) {
  pki_make_key(curve, key);
  pki_make_cert(out, subj, key, ext, issuer, issuer_key);
}

void pki_make_crl(const pki_cert *issuer, const pki_key *issuer_key,
                  const pki_cert *const *revoked, size_t n, int64_t next_update, uint8_t *der,
                  size_t cap, gostx_x509_crl *crl) {
  static const uint8_t number[] = {0x07};
  gostx_x509_crl_revoked e[2];
  CHECK(n <= 2, "at most two entries");
  for (size_t k = 0; k < n && k < 2; k++)
    e[k] = (gostx_x509_crl_revoked){revoked[k]->c.serial, revoked[k]->c.serial_len, IKE_PKI_T0,
                                    GOSTX_X509_REASON_KEY_COMPROMISE, -1};
  gostx_x509_crl_spec s = {issuer->name.der, issuer->name.len, IKE_PKI_T0, next_update, number, 1,
                           NULL, 0, e, n <= 2 ? n : 2};
  size_t len = 0;
  CHECK_RC(gostx_x509_crl_write(&s, &issuer_key->k, der, cap, &len), GOSTX_OK, "CRL written");
  CHECK_RC(gostx_x509_crl_parse(der, len, crl, NULL), GOSTX_OK, "CRL read");
}
