/* What fuzz_keycont and fuzz_vipnet share: a short DER walker for their
 * check-value fix-ups, and what they ask of a key a container reader
 * accepted (check_accepted): valid, its Q its d's, the key of the
 * certificate the container carries (when it carries one), written and
 * read back as PKCS#8. */
#ifndef GOSTX_FUZZ_KEYCONT_H
#define GOSTX_FUZZ_KEYCONT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME: the harness's name, for its messages"
#endif

/* The content of the DER element at p (tag checked), its end in *end; NULL
 * when it is no such element. Short lengths and the 0x81/0x82 forms only. */
static uint8_t *elem(uint8_t *p, uint8_t *lim, uint8_t tag, uint8_t **end) {
  size_t n;
  if (lim - p < 2 || p[0] != tag) return NULL;
  if (p[1] < 0x80) n = p[1], p += 2;
  else if (p[1] == 0x81 && lim - p >= 3) n = p[2], p += 3;
  else if (p[1] == 0x82 && lim - p >= 4) n = (size_t)p[2] << 8 | p[3], p += 4;
  else return NULL;
  if ((size_t)(lim - p) < n) return NULL;
  *end = p + n;
  return p;
}

static void bug(const char *what) {
  fprintf(stderr, FUZZ_NAME ": %s\n", what);
  abort();
}

static void check_accepted(const gostx_keycont *c) {
  const gostx_gost3410_key *k = &c->key;
  uint8_t q[128], der[GOSTX_GOST3410_DER_MAX];
  size_t n;
  gostx_gost3410_key k2;
  if (!k->has_private || k->len != gostx_gost3410_size(k->curve)) bug("accepted a key without d");
  if (gostx_gost3410_public_key(k->curve, k->d, k->len, q, 2 * k->len) || memcmp(q, k->q, 2 * k->len))
    bug("accepted a key whose d does not give its Q");
  if (c->cert) {
    gostx_x509_cert x;
    if (gostx_x509_parse(c->cert, c->cert_len, &x, NULL) || x.pub_len != 2 * k->len ||
        memcmp(x.pub, k->q, x.pub_len))
      bug("accepted a key that is not its certificate's");
  }
  if (gostx_gost3410_key_write(k, GOSTX_GOST3410_KEY_PRIVATE, GOSTX_GOST3410_DER, NULL, der,
                               sizeof der, &n) ||
      gostx_gost3410_key_read(&k2, der, n, NULL, 0) || memcmp(k2.d, k->d, k->len))
    bug("PKCS#8 round trip");
  gostx_gost3410_key_clear(&k2);
}

#endif
