/* PEM (RFC 7468, through lib/asn1/pem.c) around the DER keys: the labels
 * "PRIVATE KEY", "PUBLIC KEY" and "ENCRYPTED PRIVATE KEY". */
#include <string.h>

#include "asn1/pem.h"
#include "gost3410/keys_der.h"

/* The labels by kind (gostx_gost3410_key_kind, then GOSTX__KEY_PEM_ENCRYPTED). */
static const char *const label_of[] = {NULL, "PRIVATE KEY", "PUBLIC KEY", "ENCRYPTED PRIVATE KEY"};

int gostx__key_pem_der(const char *pem, size_t pem_len, int *kind, uint8_t *der, size_t cap,
                       size_t *der_len) {
  size_t i = 0;
  int which = 0;
  int rc = gostx__pem_find(pem, pem_len, &i, label_of + 1, GOSTX__KEY_PEM_ENCRYPTED, &which);
  if (rc) return rc;
  *kind = which + 1;
  return gostx__pem_body(pem, pem_len, &i, label_of[*kind], der, cap, der_len);
}

int gostx__key_pem_write(int kind, const uint8_t *der, size_t der_len, char *out, size_t cap,
                         size_t *out_len) {
  return gostx__pem_write(label_of[kind], der, der_len, out, cap, out_len);
}
