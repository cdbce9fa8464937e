/* libFuzzer harness: X.509 (lib/x509) on untrusted bytes: the DER reader,
 * the certificate parser, PEM blocks, names as text, subjectAltName
 * entries, path building and the checks of gostx_x509_verify with the
 * input's last certificate as the trust anchor.
 *
 * Input: byte 0 (bit 0: the body is PEM text, else DER certificates one
 * after another; bits 1-2: the purpose, 0..2), byte 1 a name length n,
 * n bytes of a host name or IP literal to verify for (none when n = 0),
 * then the body. The seeds are gost_pki.sh's chains (leaf, intermediate,
 * root), written by tests/fuzz/make_seeds.py.
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an accepted certificate's views lie inside its DER, its signature is
 *    64 or 128 bytes, its key a valid point of its curve, its names print,
 *    its subjectAltName walks to its end; parsing again gives the same;
 *  - the path built starts at the leaf, each certificate's issuer name is
 *    the next one's subject, a failed check's depth lies inside it; a
 *    verdict OK ends at the anchor, every link's signature verifying again
 *    without lib/x509 (hash, halves swapped, gostx_gost3410_verify) and
 *    every certificate valid at the time checked. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "x509/x509_internal.h"
#define FUZZ_NAME "fuzz_x509"
#include "fuzz_check.h"

#define MAX_CERTS 6

static int in_der(const uint8_t *p, size_t n, const gostx_x509_cert *c) {
  return within(p, n, c->der, c->der_len);
}

static void check_cert(const gostx_x509_cert *c) {
  if (!in_der(c->tbs, c->tbs_len, c) || !in_der(c->issuer, c->issuer_len, c) ||
      !in_der(c->subject, c->subject_len, c) || !in_der(c->sig_value, c->sig_value_len, c) ||
      !in_der(c->serial, c->serial_len, c) || !in_der(c->spki, c->spki_len, c) ||
      (c->san && !in_der(c->san, c->san_len, c)) ||
      (c->name_constraints && !in_der(c->name_constraints, c->name_constraints_len, c)) ||
      (c->policies && !in_der(c->policies, c->policies_len, c)) ||
      (c->policy_mappings && !in_der(c->policy_mappings, c->policy_mappings_len, c)))
    bug("a view outside the DER");
  if (c->sig_value_len != 64 && c->sig_value_len != 128) bug("signature length");
  if (c->pub_len != 2 * gostx_gost3410_size(c->curve) ||
      gostx_gost3410_check_public_key(c->curve, c->pub, c->pub_len))
    bug("accepted an invalid key");
  char text[200];
  if (gostx_x509_name_text(c->subject, c->subject_len, text, sizeof text) ||
      gostx_x509_name_text(c->issuer, c->issuer_len, text, sizeof text) || !memchr(text, 0, sizeof text))
    bug("an accepted name does not print");
  size_t pos = 0, len, steps = 0;
  int type, r;
  const uint8_t *v;
  while ((r = gostx_x509_san_next(c, &pos, &type, &v, &len)) == 1) {
    if (!in_der(v, len, c) || ++steps > c->san_len) bug("subjectAltName walk");
  }
  if (r != 0 || (c->san && pos != c->san_len)) bug("subjectAltName does not end where it should");
  gostx_x509_cert again;
  if (gostx_x509_parse(c->der, c->der_len, &again, NULL) || memcmp(&again, c, sizeof again))
    bug("a second parse differs");
}

/* c's signature checked again without lib/x509: the hash of the TBS, the
 * halves of s || r swapped, gostx_gost3410_verify under issuer's key. */
static int signed_by(const gostx_x509_cert *c, const gostx_x509_cert *issuer) {
  size_t len = c->sig_value_len / 2;
  uint8_t digest[64], rs[128];
  if (issuer->pub_len != 2 * len) return 0;
  if (c->sig_alg == GOSTX_X509_SIG_2001 ? gostx_gost94(GOSTX_SBOX_CRYPTOPRO_3411_94, c->tbs,
                                                      c->tbs_len, digest)
                                        : gostx_streebog(len, c->tbs, c->tbs_len, digest))
    return 0;
  memcpy(rs, c->sig_value + len, len);
  memcpy(rs + len, c->sig_value, len);
  return gostx_gost3410_verify(issuer->curve, issuer->pub, issuer->pub_len, digest, len, rs,
                               2 * len) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2 || (size_t)data[1] + 2 > size) return 0;
  int pem = data[0] & 1, purpose = (data[0] >> 1) & 3;
  if (purpose > 2) purpose = 0;
  size_t name_len = data[1];
  char name[256];
  memcpy(name, data + 2, name_len);
  name[name_len] = 0;
  const uint8_t *body = data + 2 + name_len;
  size_t body_len = size - 2 - name_len;

  gostx_x509_cert certs[MAX_CERTS];
  uint8_t *ders[MAX_CERTS];
  size_t n = 0;
  if (pem) {
    /* an exact-size copy: ASan sees any read past the end */
    char *text = malloc(body_len ? body_len : 1);
    uint8_t der[4096];
    size_t pos = 0, der_len;
    memcpy(text, body, body_len);
    while (n < MAX_CERTS) {
      int r = gostx_x509_pem_next(text, body_len, &pos, der, sizeof der, &der_len);
      if (r != 1) break;
      if (pos > body_len || der_len > sizeof der) bug("PEM block bounds");
      ders[n] = malloc(der_len ? der_len : 1);
      memcpy(ders[n], der, der_len);
      if (gostx_x509_parse(ders[n], der_len, &certs[n], NULL)) {
        free(ders[n]);
        continue;
      }
      n++;
    }
    free(text);
  } else {
    gostx__der r = {body, body_len}, whole;
    uint8_t tag;
    while (n < MAX_CERTS && r.n && !gostx__der_next(&r, &tag, NULL, &whole)) {
      ders[n] = malloc(whole.n);
      memcpy(ders[n], whole.p, whole.n);
      if (gostx_x509_parse(ders[n], whole.n, &certs[n], NULL)) {
        free(ders[n]);
        continue;
      }
      n++;
    }
  }
  for (size_t i = 0; i < n; i++) check_cert(&certs[i]);
  if (n) {
    gostx_x509_store *store = gostx_x509_store_new();
    if (!store || gostx_x509_store_add_der(store, ders[n - 1], certs[n - 1].der_len)) bug("store");
    int64_t at = certs[0].not_before + 1;
    gostx_x509_verify_opts o;
    gostx_x509_verify_opts_init(&o, at);
    o.purpose = (gostx_x509_purpose)purpose;
    o.name = name_len ? name : NULL;
    gostx_x509_verify_result r;
    gostx_x509_status st = gostx_x509_verify_with(store, certs, n, &o, &r);
    const gostx_x509_cert *const *path = r.path;
    size_t depth = r.depth, plen = r.path_len;
    if (st != r.status) bug("result status");
    if (plen < 1 || plen > GOSTX_X509_MAX_DEPTH || path[0] != &certs[0]) bug("path");
    if (st != GOSTX_X509_OK && st != GOSTX_X509_NAME_MISMATCH && depth >= plen)
      bug("depth outside the path");
    for (size_t i = 0; i + 1 < plen; i++)
      if (!gostx__x509_name_equal(path[i]->issuer, path[i]->issuer_len, path[i + 1]->subject,
                                  path[i + 1]->subject_len) ||
          !gostx__x509_name_equal(path[i + 1]->subject, path[i + 1]->subject_len, path[i]->issuer,
                                  path[i]->issuer_len))
        bug("a path link whose names do not chain (or compare one way only)");
    if (st == GOSTX_X509_OK) {
      const gostx_x509_cert *a = &certs[n - 1], *top = path[plen - 1];
      if (top->der_len != a->der_len || memcmp(top->der, a->der, a->der_len))
        bug("verified without reaching the anchor");
      for (size_t i = 0; i + 1 < plen; i++) {
        if (!signed_by(path[i], path[i + 1])) bug("verified a link whose signature fails");
        if (at < path[i]->not_before || at > path[i]->not_after) bug("verified outside validity");
      }
    }
    /* the profile (profile.c) is checked last: the lax reading differs
     * only where it alone refused */
    gostx_x509_verify_opts lax;
    gostx_x509_verify_opts_init(&lax, at);
    lax.purpose = (gostx_x509_purpose)purpose;
    lax.name = name_len ? name : NULL;
    lax.flags = GOSTX_X509_VERIFY_LAX;
    gostx_x509_status lst = gostx_x509_verify_with(store, certs, n, &lax, NULL);
    if (st == GOSTX_X509_PROFILE ? lst != GOSTX_X509_OK : lst != st) bug("lax differs beyond the profile");
    /* the leaf options: the name as an email address, keyUsage bits from the purpose byte */
    gostx_x509_verify_opts leaf;
    gostx_x509_verify_opts_init(&leaf, at);
    leaf.key_usage = (unsigned)purpose * 0x35u & 0x1ffu;
    leaf.email = name_len ? name : "a@b";
    (void)gostx_x509_verify_with(store, certs, n, &leaf, &r);
    if (!memchr(r.why, 0, sizeof r.why)) bug("why not terminated");
    (void)gostx_x509_verify(NULL, certs, n, at, (gostx_x509_purpose)purpose, NULL, &depth);
    gostx_x509_store_free(store);
  }
  for (size_t i = 0; i < n; i++) free(ders[i]);
  return 0;
}
