/* libFuzzer harness: CRLs (lib/x509/crl.c, crl_status.c) on untrusted
 * bytes: the CRL parser, PEM blocks, the entries, the status of a
 * certificate against the CRL with an issuer of the CRL's name.
 *
 * Input: byte 0 (bit 0: the body is PEM text, else one DER CRL), then the
 * body. Seeds: tests/fuzz/corpus/fuzz_crl/ (gostx's CRLs and crafted ones
 * with every extension the parser reads).
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an accepted CRL's views lie inside its DER, its signature is 64 or
 *    128 bytes, its issuer prints, its entries walk to the count the parse
 *    gave, each found again by its serial; parsing again gives the same;
 *  - the status against an issuer whose key did not sign it is never
 *    OK nor REVOKED (the signature is checked before any entry is used). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_crl"
#include "fuzz_check.h"

static int in_der(const uint8_t *p, size_t n, const gostx_x509_crl *c) {
  return within(p, n, c->der, c->der_len);
}

static void check_crl(const gostx_x509_crl *c) {
  if (!in_der(c->tbs, c->tbs_len, c) || !in_der(c->issuer, c->issuer_len, c) ||
      !in_der(c->sig_value, c->sig_value_len, c) ||
      (c->revoked && !in_der(c->revoked, c->revoked_len, c)) ||
      (c->crl_number && !in_der(c->crl_number, c->crl_number_len, c)) ||
      (c->aki_key_id && !in_der(c->aki_key_id, c->aki_key_id_len, c)) ||
      (c->idp_dp && !in_der(c->idp_dp, c->idp_dp_len, c)))
    bug("a view outside the DER");
  if (c->sig_value_len != 64 && c->sig_value_len != 128) bug("signature length");
  char text[200];
  if (gostx_x509_name_text(c->issuer, c->issuer_len, text, sizeof text)) bug("the issuer does not print");
  gostx_x509_crl_entry e, again;
  size_t pos = 0, n = 0;
  int r;
  while ((r = gostx_x509_crl_next(c, &pos, &e)) == 1) {
    n++;
    if (!in_der(e.serial, e.serial_len, c)) bug("an entry's serial outside the DER");
    if (!gostx_x509_crl_find(c, e.serial, e.serial_len, &again)) bug("an entry not found by its serial");
    if (n > c->n_revoked) break;
  }
  if (r < 0 || n != c->n_revoked) bug("the entries do not walk to their count");
  gostx_x509_crl second;
  if (gostx_x509_crl_parse(c->der, c->der_len, &second, NULL) || memcmp(&second, c, sizeof second))
    bug("a second parse differs");
  /* an issuer of the CRL's name whose key (the curve's base point's
   * multiple 1: not the signer) is a valid point */
  static gostx_x509_cert issuer, cert;
  static int ready;
  if (!ready) {
    uint8_t d[32] = {0};
    d[31] = 7;
    issuer.curve = GOSTX_GOST3410_256_A;
    if (gostx_gost3410_public_key(issuer.curve, d, 32, issuer.pub, 64)) bug("public key");
    issuer.pub_len = 64;
    issuer.key_alg = GOSTX_X509_KEY_2012_256;
    issuer.key_usage = ~0u;
    issuer.ext_key_usage = ~0u;
    ready = 1;
  }
  issuer.subject = c->issuer, issuer.subject_len = c->issuer_len;
  cert.issuer = c->issuer, cert.issuer_len = c->issuer_len;
  pos = 0;
  if (gostx_x509_crl_next(c, &pos, &e) == 1) cert.serial = e.serial, cert.serial_len = e.serial_len;
  else cert.serial = (const uint8_t *)"\x01", cert.serial_len = 1;
  gostx_x509_status st = gostx_x509_crl_status(c, 1, &cert, &issuer, c->this_update, NULL);
  if (st == GOSTX_X509_OK || st == GOSTX_X509_REVOKED) bug("a CRL used under a key that did not sign it");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int pem = data[0] & 1;
  data++, size--;
  gostx_x509_crl crl;
  if (!pem) {
    if (!gostx_x509_crl_parse(data, size, &crl, NULL)) check_crl(&crl);
    return 0;
  }
  static uint8_t der[65536];
  size_t pos = 0, len;
  while (gostx_x509_crl_pem_next((const char *)data, size, &pos, der, sizeof der, &len) == 1)
    if (!gostx_x509_crl_parse(der, len, &crl, NULL)) check_crl(&crl);
  return 0;
}
