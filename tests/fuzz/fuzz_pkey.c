/* libFuzzer harness: the GOST R 34.10-2012 key readers (lib/gost3410/keys.c,
 * keys_pem.c), which parse untrusted files. The input is tried as DER and as
 * PEM, and as an encrypted key's scheme. It must never crash or read out of bounds; a key that is accepted
 * must be valid (d gives the Q it reported; Q on the curve) and must survive
 * a round trip through the writers (write, read back: the same numbers and
 * the same parameter set OID). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

static void bug(const char *what) {
  fprintf(stderr, "fuzz_pkey: %s\n", what);
  abort();
}

static void check_accepted(gostx_gost3410_key_kind kind, gostx_gost3410_curve curve, size_t len,
                           const uint8_t *d, const uint8_t *q, const char *oid) {
  uint8_t der[GOSTX_GOST3410_DER_MAX], d2[64], q2[128], qq[128];
  char pem[GOSTX_GOST3410_PEM_MAX], oid2[GOSTX_GOST3410_OID_MAX];
  size_t n = 0, l2;
  gostx_gost3410_key_kind k2;
  gostx_gost3410_curve c2;
  if (len != gostx_gost3410_size(curve)) bug("length does not match the curve");
  if (gostx_gost3410_check_public_key(curve, q, 2 * len)) bug("accepted a point off the curve");
  int priv = kind == GOSTX_GOST3410_KEY_PRIVATE;
  if (priv) {
    if (gostx_gost3410_public_key(curve, d, len, qq, 2 * len) || memcmp(qq, q, 2 * len))
      bug("accepted private key does not give its Q");
    if (gostx_gost3410_priv_to_der_oid(curve, oid, d, len, der, sizeof der, &n)) bug("priv_to_der");
  } else if (kind != GOSTX_GOST3410_KEY_PUBLIC) {
    bug("kind");
  } else if (gostx_gost3410_pub_to_der_oid(curve, oid, q, 2 * len, der, sizeof der, &n)) {
    bug("pub_to_der");
  }
  /* back the same, under the parameter set OID the input named */
  if (gostx_gost3410_key_from_der_oid(der, n, &k2, &c2, &l2, d2, sizeof d2, q2, sizeof q2, oid2,
                                      sizeof oid2) ||
      k2 != kind || c2 != curve || l2 != len || memcmp(q2, q, 2 * len) ||
      (priv && memcmp(d2, d, len)) || strcmp(oid2, oid))
    bug("DER round trip");
  int rc = priv ? gostx_gost3410_priv_to_pem_oid(curve, oid, d, len, pem, sizeof pem, &n)
                : gostx_gost3410_pub_to_pem_oid(curve, oid, q, 2 * len, pem, sizeof pem, &n);
  if (rc ||
      gostx_gost3410_key_from_pem_oid(pem, n, &k2, &c2, &l2, d2, sizeof d2, q2, sizeof q2, oid2,
                                      sizeof oid2) ||
      k2 != kind || c2 != curve || memcmp(q2, q, 2 * len) || (priv && memcmp(d2, d, len)) ||
      strcmp(oid2, oid))
    bug("PEM round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gostx_gost3410_key_kind kind;
  gostx_gost3410_curve curve;
  size_t len;
  uint8_t d[64], q[128];
  char oid[GOSTX_GOST3410_OID_MAX];
  /* exact-size copies, so ASan sees any read past the end */
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  if (!gostx_gost3410_key_from_der_oid(buf, size, &kind, &curve, &len, d, sizeof d, q, sizeof q,
                                       oid, sizeof oid))
    check_accepted(kind, curve, len, d, q, oid);
  if (!gostx_gost3410_key_from_pem_oid((const char *)buf, size, &kind, &curve, &len, d, sizeof d, q,
                                       sizeof q, oid, sizeof oid))
    check_accepted(kind, curve, len, d, q, oid);
  /* The EncryptedPrivateKeyInfo parser (PBES2), DER and PEM: what
   * gostx_gost3410_key_from_encrypted_* parse before PBKDF2, whose iteration
   * count comes from the input (up to 10^7: too slow to run here); what they
   * parse after it is the plain reader above. The scheme text must be a
   * NUL-terminated string in its buffer. */
  char text[48];
  int rc = gostx_gost3410_encrypted_scheme(buf, size, text, sizeof text);
  if (rc != GOSTX_EFORMAT && !memchr(text, 0, sizeof text)) bug("scheme text not terminated");
  rc = gostx_gost3410_encrypted_scheme_pem((const char *)buf, size, text, sizeof text);
  if (rc != GOSTX_EFORMAT && !memchr(text, 0, sizeof text)) bug("scheme text not terminated (PEM)");
  free(buf);
  return 0;
}
