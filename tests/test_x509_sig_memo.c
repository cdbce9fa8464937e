/* The run's memo of valid signatures (gostx_x509_sig_memo, x509.h) on
 * the files of tests/vectors/cades (a GOST root, intermediate and signer,
 * both CAs' CRLs, the intermediate's OCSP response on the signer, a
 * CAdES-BES): a second verification with the same memo does no signature
 * arithmetic; a certificate, CRL, OCSP response or CMS signer whose
 * signature (or signed bytes) changed is verified and refused, named, with
 * the memo holding the good one; a failure is not held; a full memo
 * verifies what it cannot hold; and only exactly equal inputs (curve, key,
 * digest, signature) are answered from it. */
#include <stdlib.h>
#include <time.h>

#include "gostx/ocsp.h"
#include "testutil.h"
#include "x509/x509_internal.h"

static uint8_t *slurp(const char *name, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "cades/%s", name);
  return tv_file(path, len);
}

/* a PEM certificate file's DER, malloc'ed */
static uint8_t *cert_der(const char *name, size_t *der_len) {
  size_t len, pos = 0;
  uint8_t *pem = slurp(name, &len), *der = malloc(4096);
  CHECK(der && gostx_x509_pem_next((const char *)pem, len, &pos, der, 4096, der_len) == 1, "%s: a PEM certificate",
        name);
  free(pem);
  return der;
}

typedef struct files {
  uint8_t *ca, *in, *signer, *ca_crl, *int_crl, *ocsp, *bes, *content;
  size_t ca_len, int_len, signer_len, ca_crl_len, int_crl_len, ocsp_len, bes_len, content_len;
  gostx_x509_store *store;
  int64_t now;
} files;

static void load(files *f) {
  f->ca = cert_der("ca.pem", &f->ca_len);
  f->in = cert_der("int.pem", &f->int_len);
  f->signer = cert_der("signer.pem", &f->signer_len);
  f->ca_crl = slurp("ca.crl", &f->ca_crl_len);
  f->int_crl = slurp("int.crl", &f->int_crl_len);
  f->ocsp = slurp("signer.ocsp", &f->ocsp_len);
  f->bes = slurp("bes.der", &f->bes_len);
  f->content = slurp("content.txt", &f->content_len);
  f->store = gostx_x509_store_new();
  CHECK(f->store && gostx_x509_store_add_der(f->store, f->ca, f->ca_len) == 0, "the root in the store");
  f->now = (int64_t)time(NULL);
}

/* The signer's path with every certificate's status (crl_check ALL): from
 * the CRLs given (int_crl NULL: the OCSP response ocsp for the signer). */
static gostx_x509_status chain(const files *f, const uint8_t *in, const uint8_t *int_crl, const uint8_t *ocsp,
                               const uint8_t *ca_crl, gostx_x509_sig_memo *memo) {
  gostx_x509_cert c[2];
  gostx_x509_crl crls[2];
  gostx_ocsp_response r;
  size_t n_crls = 0;
  CHECK(gostx_x509_parse(f->signer, f->signer_len, &c[0], NULL) == 0 &&
            gostx_x509_parse(in, f->int_len, &c[1], NULL) == 0,
        "the certificates parse");
  CHECK(gostx_x509_crl_parse(ca_crl, f->ca_crl_len, &crls[n_crls++], NULL) == 0, "ca.crl parses");
  if (int_crl) CHECK(gostx_x509_crl_parse(int_crl, f->int_crl_len, &crls[n_crls++], NULL) == 0, "int.crl parses");
  if (ocsp) CHECK(gostx_ocsp_response_parse(ocsp, f->ocsp_len, &r) == 0, "signer.ocsp parses");
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, f->now);
  o.crls = crls, o.n_crls = n_crls;
  o.ocsps = ocsp ? &r : NULL, o.n_ocsps = ocsp ? 1 : 0;
  o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  o.memo = memo;
  return gostx_x509_verify_with(f->store, c, 2, &o, NULL);
}

/* a copy of der[len] with the byte at p (a pointer into der) flipped */
static uint8_t *flipped(const uint8_t *der, size_t len, const uint8_t *p) {
  uint8_t *copy = malloc(len);
  CHECK(copy && p >= der && p < der + len, "a byte to flip");
  memcpy(copy, der, len);
  copy[p - der] ^= 0x01;
  return copy;
}

/* Refused with want while the memo holds the good signatures, by a
 * verification (checked grows), and again (a failure is not held). */
static void refused(const char *what, const files *f, const uint8_t *in, const uint8_t *int_crl,
                    const uint8_t *ocsp, gostx_x509_sig_memo *m, gostx_x509_status want) {
  for (int again = 0; again < 2; again++) {
    size_t checked = m->checked, held = m->n;
    gostx_x509_status st = chain(f, in, int_crl, ocsp, f->ca_crl, m);
    CHECK(st == want, "%s: refused: %s (want %s)", what, gostx_x509_status_name(st), gostx_x509_status_name(want));
    CHECK(m->checked > checked, "%s: verified, not answered from the memo", what);
    CHECK(m->n == held, "%s: nothing held", what);
  }
}

static void paths(const files *f) {
  gostx_x509_sig_memo m = {0};
  CHECK(chain(f, f->in, f->int_crl, NULL, f->ca_crl, &m) == GOSTX_X509_OK, "the path with the CRLs");
  /* the signer's and int's certificates, int.crl, ca.crl */
  CHECK(m.checked == 4 && m.n == 4 && m.answered == 0, "four signatures verified and held (%zu, %zu, %zu)",
        m.checked, m.n, m.answered);
  CHECK(chain(f, f->in, f->int_crl, NULL, f->ca_crl, &m) == GOSTX_X509_OK, "the path again");
  CHECK(m.checked == 4 && m.answered == 4, "again: all four answered from the memo (%zu, %zu)", m.checked,
        m.answered);
  CHECK(chain(f, f->in, NULL, f->ocsp, f->ca_crl, &m) == GOSTX_X509_OK, "the path with the OCSP response");
  CHECK(m.checked == 5 && m.n == 5, "only the OCSP response's signature verified (%zu)", m.checked);

  gostx_x509_cert in;
  gostx_x509_crl crl;
  gostx_ocsp_response r;
  CHECK(gostx_x509_parse(f->in, f->int_len, &in, NULL) == 0 &&
            gostx_x509_crl_parse(f->int_crl, f->int_crl_len, &crl, NULL) == 0 &&
            gostx_ocsp_response_parse(f->ocsp, f->ocsp_len, &r) == 0,
        "int, int.crl, signer.ocsp parse");
  uint8_t *bad_sig = flipped(f->in, f->int_len, in.sig_value + in.sig_value_len - 1);
  uint8_t *bad_tbs = flipped(f->in, f->int_len, in.serial + in.serial_len - 1);
  uint8_t *bad_crl = flipped(f->int_crl, f->int_crl_len, crl.sig_value + 3);
  uint8_t *bad_ocsp = flipped(f->ocsp, f->ocsp_len, r.sig + 5);
  refused("int's signature changed", f, bad_sig, f->int_crl, NULL, &m, GOSTX_X509_BAD_SIGNATURE);
  refused("int's serial changed", f, bad_tbs, f->int_crl, NULL, &m, GOSTX_X509_BAD_SIGNATURE);
  refused("int.crl's signature changed", f, f->in, bad_crl, NULL, &m, GOSTX_X509_CRL_BAD_SIGNATURE);
  refused("signer.ocsp's signature changed", f, f->in, NULL, bad_ocsp, &m, GOSTX_X509_OCSP_INVALID);
  free(bad_sig), free(bad_tbs), free(bad_crl), free(bad_ocsp);
}

/* The CMS signer's signature: held, answered; changed, refused by name. */
static void cms_signer(const files *f) {
  gostx_x509_sig_memo m = {0};
  gostx_cms_signed *sd = malloc(sizeof *sd);
  gostx_cms_hash h;
  gostx_cms_verdict v;
  uint8_t *bes = malloc(f->bes_len);
  CHECK(sd && bes, "memory");
  memcpy(bes, f->bes, f->bes_len);
  CHECK(gostx_cms_signed_parse(bes, f->bes_len, sd, NULL) == 0, "bes.der parses");
  CHECK(gostx_cms_hash_init(&h, gostx_cms_signed_hashes(sd)) == 0 &&
            gostx_cms_hash_update(&h, f->content, f->content_len) == 0 && gostx_cms_hash_final(&h) == 0,
        "content digested");
  gostx_cms_verify_params p = {f->store, NULL, 0, f->now, GOSTX_X509_PURPOSE_ANY, &m};
  CHECK(gostx_cms_signed_verify(sd, &h, &p, &v) == 0, "the BES verifies: %s", gostx_cms_status_name(v.status));
  size_t first = m.checked;
  CHECK(first == 3, "the signer's, its certificate's, int's signatures (%zu)", first);
  CHECK(gostx_cms_signed_verify(sd, &h, &p, &v) == 0 && m.checked == first && m.answered == first,
        "again: answered from the memo");
  bes[sd->signers[0].signature - bes + 7] ^= 0x01;
  CHECK(gostx_cms_signed_parse(bes, f->bes_len, sd, NULL) == 0, "the changed BES parses");
  CHECK(gostx_cms_signed_verify(sd, &h, &p, &v) == GOSTX_EAUTH && v.status == GOSTX_CMS_BAD_SIGNATURE &&
            m.checked == first + 1,
        "the signer's signature changed: verified and refused: %s", gostx_cms_status_name(v.status));
  free(bes);
  free(sd);
}

/* Only exactly equal inputs are answered; a full memo verifies and does
 * not hold. Keys and signatures made here (256A). */
static void exact_and_full(void) {
  gostx_x509_sig_memo m = {0};
  gostx_x509_cert key = {0}, other = {0};
  uint8_t priv[32], digest[GOSTX_X509_SIG_MEMO_MAX + 1][32], sig[GOSTX_X509_SIG_MEMO_MAX + 1][64], x[64];
  key.curve = other.curve = GOSTX_GOST3410_256_A;
  key.pub_len = other.pub_len = 64;
  CHECK(gostx_gost3410_keygen(key.curve, priv, 32, key.pub, 64) == 0, "a key");
  CHECK(gostx_gost3410_keygen(other.curve, x, 32, other.pub, 64) == 0, "another key");
  for (int i = 0; i <= GOSTX_X509_SIG_MEMO_MAX; i++) {
    t_rand_bytes(digest[i], 32);
    CHECK(gostx_gost3410_sign(key.curve, priv, 32, digest[i], 32, sig[i], 64) == 0, "signed");
    CHECK(gostx__x509_verify_digest(&m, &key, digest[i], 32, sig[i], 64) == 0, "valid %d", i);
  }
  CHECK(m.n == GOSTX_X509_SIG_MEMO_MAX && m.checked == GOSTX_X509_SIG_MEMO_MAX + 1u, "full: %zu held", m.n);
  CHECK(gostx__x509_verify_digest(&m, &key, digest[GOSTX_X509_SIG_MEMO_MAX], 32, sig[GOSTX_X509_SIG_MEMO_MAX], 64) ==
                0 &&
            m.checked == GOSTX_X509_SIG_MEMO_MAX + 2u,
        "the one not held: verified again");
  CHECK(gostx__x509_verify_digest(&m, &key, digest[0], 32, sig[0], 64) == 0 && m.answered == 1, "a held one answered");
  memcpy(x, digest[0], 32), x[31] ^= 1;
  CHECK(gostx__x509_verify_digest(&m, &key, x, 32, sig[0], 64) != 0, "another digest: refused");
  memcpy(x, sig[0], 64), x[63] ^= 1;
  CHECK(gostx__x509_verify_digest(&m, &key, digest[0], 32, x, 64) != 0, "another signature: refused");
  CHECK(gostx__x509_verify_digest(&m, &other, digest[0], 32, sig[0], 64) != 0, "another key: refused");
  key.curve = GOSTX_GOST3410_256_B;
  CHECK(gostx__x509_verify_digest(&m, &key, digest[0], 32, sig[0], 64) != 0, "another curve: refused");
  CHECK(m.answered == 1 && m.checked == GOSTX_X509_SIG_MEMO_MAX + 6u, "each of those verified");
}

int main(void) {
  files f;
  load(&f);
  paths(&f);
  cms_signer(&f);
  exact_and_full();
  gostx_x509_store_free(f.store);
  free(f.ca), free(f.in), free(f.signer), free(f.ca_crl), free(f.int_crl), free(f.ocsp), free(f.bes),
      free(f.content);
  return t_done();
}
