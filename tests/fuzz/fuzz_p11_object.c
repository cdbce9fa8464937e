/* libFuzzer harness: the body of an object file of gostx's PKCS#11 token
 * (integrations/pkcs11/p11_store.c, p11_attrs_decode): the attributes an
 * object is read back with, after its checksum or MGM tag. Must never
 * crash or read out of bounds; what it accepts must encode back to exactly
 * the input (the form is strict: nothing left over, nothing skipped). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../integrations/pkcs11/p11.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  p11_attr *a;
  size_t n;
  if (p11_attrs_decode(data, size, &a, &n) != CKR_OK)
    return 0;
  size_t len = p11_attrs_encode(a, n, NULL);
  uint8_t *back = malloc(len ? len : 1);
  if (!back)
    abort();
  p11_attrs_encode(a, n, back);
  if (len != size || memcmp(back, data, size) != 0) {
    fprintf(stderr, "fuzz_p11_object: an accepted body does not encode back to itself\n");
    abort();
  }
  free(back);
  p11_attrs_free(a, n);
  return 0;
}
