/* GOST R 34.10-2012 keys in DER (include/gostx/gost3410.h,
 * docs/GOST3410.md): the plain DER reader, which tells a PrivateKeyInfo
 * (pkcs8.c) from a SubjectPublicKeyInfo (spki.c). Both parse untrusted input through
 * lib/asn1's strict DER reader (tests/fuzz/fuzz_pkey.c). */
#include <string.h>

#include "gost3410/keys_der.h"

int gostx__key_from_der(gostx_gost3410_key *key, const uint8_t *der, size_t der_len) {
  if (der_len > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  gostx__der all = {der, der_len}, body;
  gostx_gost3410_key k;
  char ps[GOSTX__KEY_OID_TEXT_MAX] = "";
  int rc = GOSTX_EFORMAT;
  memset(&k, 0, sizeof k);
  if (!gostx__der_get(&all, GOSTX__DER_SEQ, &body, NULL) && gostx__der_done(&all)) {
    /* a PrivateKeyInfo starts with its version, an INTEGER */
    k.has_private = gostx__der_peek(&body, GOSTX__DER_INT);
    rc = k.has_private ? gostx__pkcs8_parse(body, &k.curve, &k.len, k.d, k.q, ps)
                       : gostx__spki_parse(body, &k.curve, &k.len, k.q, ps);
  }
  /* a parameter set that names a curve is one of ours, shorter than this */
  if (!rc && strlen(ps) >= sizeof k.oid) rc = GOSTX_EUNSUP;
  if (!rc) {
    memcpy(k.oid, ps, strlen(ps) + 1);
    *key = k;
  }
  gostx_memzero(&k, sizeof k);
  return rc;
}

int gostx_gost3410_sig_swap(const uint8_t *sig, size_t sig_len, uint8_t *out, size_t out_len) {
  if (!sig || !out) return GOSTX_EINVAL;
  if ((sig_len != 64 && sig_len != 128) || out_len != sig_len) return GOSTX_ELEN;
  size_t h = sig_len / 2;
  for (size_t i = 0; i < h; i++) {
    uint8_t t = sig[i];
    out[i] = sig[h + i];
    out[h + i] = t;
  }
  return 0;
}
