/* GOST R 34.10-2012 keys in DER (include/gostx/gost3410.h,
 * docs/GOST3410.md): the reader that tells a PrivateKeyInfo (pkcs8.c) from a
 * SubjectPublicKeyInfo (spki.c). Both parse untrusted input through
 * lib/asn1's strict DER reader (tests/fuzz/fuzz_pkey.c). */
#include <string.h>

#include "gost3410/keys_der.h"

int gostx_gost3410_key_from_der_oid(const uint8_t *der, size_t der_len,
                                    gostx_gost3410_key_kind *kind, gostx_gost3410_curve *curve,
                                    size_t *len, uint8_t *priv, size_t priv_cap, uint8_t *pub,
                                    size_t pub_cap, char *oid, size_t oid_cap) {
  if (!der || !kind || !curve || !len) return GOSTX_EINVAL;
  if (der_len > GOSTX_GOST3410_DER_MAX) return GOSTX_EFORMAT;
  gostx__der all = {der, der_len}, body;
  gostx_gost3410_key_kind k = 0;
  gostx_gost3410_curve c = 0;
  size_t l = 0;
  uint8_t d[64], q[128];
  char ps[GOSTX__KEY_OID_TEXT_MAX] = "";
  int rc = GOSTX_EFORMAT;
  if (!gostx__der_get(&all, GOSTX__DER_SEQ, &body, NULL) && gostx__der_done(&all)) {
    /* a PrivateKeyInfo starts with its version, an INTEGER */
    k = gostx__der_peek(&body, GOSTX__DER_INT) ? GOSTX_GOST3410_KEY_PRIVATE : GOSTX_GOST3410_KEY_PUBLIC;
    rc = k == GOSTX_GOST3410_KEY_PRIVATE ? gostx__pkcs8_parse(body, &c, &l, d, q, ps)
                                         : gostx__spki_parse(body, &c, &l, q, ps);
  }
  if (!rc && ((priv && k == GOSTX_GOST3410_KEY_PRIVATE && priv_cap < l) || (pub && pub_cap < 2 * l) ||
              (oid && oid_cap <= strlen(ps))))
    rc = GOSTX_ELEN;
  if (!rc) {
    *kind = k;
    *curve = c;
    *len = l;
    if (priv && k == GOSTX_GOST3410_KEY_PRIVATE) memcpy(priv, d, l);
    if (pub) memcpy(pub, q, 2 * l);
    if (oid) memcpy(oid, ps, strlen(ps) + 1);
  }
  gostx_memzero(d, sizeof d);
  return rc;
}

int gostx_gost3410_key_from_der(const uint8_t *der, size_t der_len, gostx_gost3410_key_kind *kind,
                                gostx_gost3410_curve *curve, size_t *len, uint8_t *priv,
                                size_t priv_cap, uint8_t *pub, size_t pub_cap) {
  return gostx_gost3410_key_from_der_oid(der, der_len, kind, curve, len, priv, priv_cap, pub,
                                         pub_cap, NULL, 0);
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
