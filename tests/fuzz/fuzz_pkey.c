/* libFuzzer harness: the GOST R 34.10-2012 key readers (lib/gost3410/keys.c,
 * keys_pem.c) through the key object's reader, which parses untrusted files
 * (DER or PEM, told apart by the input), and an encrypted key's scheme. It must never crash or read out of bounds; a key that is accepted
 * must be valid (d gives the Q it reported; Q on the curve) and must survive
 * a round trip through the writers (write, read back: the same numbers and
 * the same parameter set OID). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#define FUZZ_NAME "fuzz_pkey"
#include "fuzz_check.h"

/* b read back is a: the same numbers and the same parameter set OID. */
static int same_key(const gostx_gost3410_key *a, const gostx_gost3410_key *b) {
  return a->curve == b->curve && a->len == b->len && a->has_private == b->has_private &&
         !memcmp(a->q, b->q, 2 * a->len) && (!a->has_private || !memcmp(a->d, b->d, a->len)) &&
         !strcmp(a->oid, b->oid);
}

static void check_accepted(const gostx_gost3410_key *k) {
  uint8_t der[GOSTX_GOST3410_DER_MAX], qq[128];
  char pem[GOSTX_GOST3410_PEM_MAX];
  size_t n = 0, len = k->len;
  gostx_gost3410_key k2;
  if (len != gostx_gost3410_size(k->curve)) bug("length does not match the curve");
  if (gostx_gost3410_check_public_key(k->curve, k->q, 2 * len)) bug("accepted a point off the curve");
  if (k->has_private && (gostx_gost3410_public_key(k->curve, k->d, len, qq, 2 * len) ||
                         memcmp(qq, k->q, 2 * len)))
    bug("accepted private key does not give its Q");
  gostx_gost3410_key_kind part = k->has_private ? GOSTX_GOST3410_KEY_PRIVATE
                                                : GOSTX_GOST3410_KEY_PUBLIC;
  /* back the same, under the parameter set OID the input named */
  if (gostx_gost3410_key_write(k, part, GOSTX_GOST3410_DER, NULL, der, sizeof der, &n))
    bug("DER write");
  if (gostx_gost3410_key_read(&k2, der, n, NULL, 0) || !same_key(k, &k2)) bug("DER round trip");
  if (gostx_gost3410_key_write(k, part, GOSTX_GOST3410_PEM, NULL, pem, sizeof pem, &n) ||
      gostx_gost3410_key_read(&k2, pem, n, NULL, 0) || !same_key(k, &k2))
    bug("PEM round trip");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gostx_gost3410_key k;
  /* exact-size copies, so ASan sees any read past the end */
  uint8_t *buf = malloc(size ? size : 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  /* no password: an encrypted key is refused before PBKDF2, whose
   * iteration count comes from the input (up to 10^7: too slow here) */
  if (!gostx_gost3410_key_read(&k, buf, size, NULL, 0)) check_accepted(&k);
  /* The EncryptedPrivateKeyInfo parser (PBES2), DER or PEM: what the
   * reader parses before PBKDF2; what it parses after it is the plain
   * reader above. The scheme text must be a NUL-terminated string in its
   * buffer. */
  char text[48];
  int rc = gostx_gost3410_key_encryption(buf, size, text, sizeof text);
  if (rc != GOSTX_EFORMAT && !memchr(text, 0, sizeof text)) bug("scheme text not terminated");
  free(buf);
  return 0;
}
