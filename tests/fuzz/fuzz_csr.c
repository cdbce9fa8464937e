/* libFuzzer harness: the request reader and the text parsers of
 * include/gostx/x509_write.h on untrusted bytes.
 *
 * Input: byte 0 picks (mod 4): 0 the body is a DER request, 1 PEM text
 * holding requests, 2 -subj text, 3 extension lines ("NAME = VALUE", one a
 * line, at most 8). The seeds (tests/fuzz/make_seeds.py) are requests and
 * texts that gostx req takes.
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - an accepted request's views lie inside its DER, its subject prints,
 *    its extensions walk to their end inside it, its signature verifies
 *    again without lib/x509 (hash, halves swapped, gostx_gost3410_verify),
 *    and parsing again gives the same;
 *  - accepted texts round-trip: a request written with them (a fixed key)
 *    is accepted, with the subject's bytes and each extension as written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_csr"
#include "fuzz_check.h"

static void check_csr(const uint8_t *der, size_t len) {
  gostx_x509_csr c, again;
  if (gostx_x509_csr_parse(der, len, &c)) return;
  if (!within(c.info, c.info_len, der, len) || !within(c.subject, c.subject_len, der, len) ||
      !within(c.spki, c.spki_len, der, len) || !within(c.sig_value, c.sig_value_len, der, len) ||
      (c.exts && !within(c.exts, c.exts_len, der, len)) || c.sig_value_len != 2 * c.len)
    bug("a view outside the request");
  char text[256];
  if (gostx_x509_name_text(c.subject, c.subject_len, text, sizeof text)) bug("the subject does not print");
  size_t pos = 0, oid_len, value_len, count = 0;
  const uint8_t *oid, *value;
  int critical, r;
  while ((r = gostx_x509_csr_ext_next(&c, &pos, &oid, &oid_len, &critical, &value, &value_len)) == 1) {
    if (!within(oid, oid_len, der, len) || !within(value, value_len, der, len)) bug("an extension outside");
    if (++count > len) bug("the extension walk does not end");
  }
  if (r) bug("the extension walk failed on an accepted request");
  uint8_t digest[64], sig[128];
  if (gostx_streebog(c.len, c.info, c.info_len, digest) ||
      gostx_gost3410_sig_swap(c.sig_value, 2 * c.len, sig, 2 * c.len) ||
      gostx_gost3410_verify(c.curve, c.pub, 2 * c.len, digest, c.len, sig, 2 * c.len))
    bug("an accepted signature does not verify");
  if (gostx_x509_csr_parse(der, len, &again) || memcmp(&c, &again, sizeof c)) bug("parsed twice, differently");
}

/* A request signed with a fixed key (256 paramSetA, d = 0x0101...). */
static void round_trip(const gostx_x509_name *name, const gostx_x509_exts *e) {
  static uint8_t priv[32], pub[64], der[16384];
  static int have_key;
  if (!have_key) {
    memset(priv, 1, sizeof priv);
    if (gostx_gost3410_public_key(GOSTX_GOST3410_256_A, priv, 32, pub, 64)) bug("the fixed key");
    have_key = 1;
  }
  gostx_gost3410_key k;
  if (gostx_gost3410_key_set_private(&k, GOSTX_GOST3410_256_A, priv, 32, NULL)) bug("the key object");
  gostx_x509_csr c;
  size_t len;
  if (gostx_x509_csr_write(name, e, &k, der, sizeof der, &len)) bug("accepted texts, no request");
  if (gostx_x509_csr_parse(der, len, &c)) bug("a request written is not read back");
  if (c.subject_len != name->len || memcmp(c.subject, name->der, name->len)) bug("the subject changed");
  size_t pos = 0, oid_len, value_len, i = 0;
  const uint8_t *oid, *value;
  int critical;
  while (gostx_x509_csr_ext_next(&c, &pos, &oid, &oid_len, &critical, &value, &value_len) == 1) {
    const gostx_x509_ext *x = &e->ext[i++];
    if (i > e->n || oid_len != x->oid_len || memcmp(oid, x->oid, oid_len) || critical != x->critical ||
        value_len != x->len || memcmp(value, e->data + x->off, value_len))
      bug("an extension changed");
  }
  if (i != e->n) bug("extensions lost");
}

static void texts(const uint8_t *data, size_t size, int subj) {
  static gostx_x509_exts e;
  gostx_x509_name name;
  char text[4096];
  if (size >= sizeof text) return;
  memcpy(text, data, size);
  text[size] = 0;
  gostx_x509_exts_init(&e);
  if (subj) {
    if (gostx_x509_name_parse(text, &name, NULL, 0)) return;
    char shown[512];
    if (gostx_x509_name_text(name.der, name.len, shown, sizeof shown)) bug("a parsed name does not print");
  } else {
    (void)gostx_x509_name_parse("/CN=fuzz", &name, NULL, 0);
    char *save = NULL;
    int lines = 0;
    for (char *l = strtok_r(text, "\n", &save); l && lines < 8; l = strtok_r(NULL, "\n", &save), lines++)
      if (gostx_x509_exts_add_line(&e, l, NULL, 0)) return;
  }
  round_trip(&name, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int mode = data[0] % 4;
  data++, size--;
  if (mode == 0) check_csr(data, size);
  if (mode == 1) {
    static uint8_t der[16384];
    size_t pos = 0, len;
    for (int n = 0; n < 4 && gostx_x509_csr_pem_next((const char *)data, size, &pos, der, sizeof der, &len) == 1; n++)
      check_csr(der, len);
  }
  if (mode >= 2) texts(data, size, mode == 2);
  return 0;
}
