/* GOST R 34.10-2012 public keys as SubjectPublicKeyInfo (RFC 5280 4.1.2.7,
 * the GOST profile of RFC 9215): a BIT STRING holding an OCTET STRING of
 * x || y, each little-endian. */
#include <string.h>

#include "gost3410/keys_der.h"

int gostx__spki_write(const gostx_gost3410_key *k, uint8_t *out, size_t cap, size_t *out_len) {
  const char *ps;
  if (gostx__key_paramset_oid(k->curve, k->oid, &ps) ||
      gostx__key_alg_check(k, ps)) return GOSTX_EINVAL;
  int rc = gostx_gost3410_check_public_key(k->curve, k->q, 2 * k->len);
  if (rc) return rc;
  uint8_t xy[128], der[GOSTX_GOST3410_DER_MAX];
  gostx__key_reverse(xy, k->q, k->len);
  gostx__key_reverse(xy + k->len, k->q + k->len, k->len);
  gostx__der_w w;
  gostx__der_w_init(&w, der, sizeof der);
  gostx__der_w_begin(&w, GOSTX__DER_SEQ);
  gostx__key_put_algorithm(&w, ps, k->len, k->gost2001);
  gostx__der_w_begin(&w, GOSTX__DER_BITS);
  gostx__der_w_raw(&w, "", 1); /* no unused bits */
  gostx__der_w_tlv(&w, GOSTX__DER_OCTETS, xy, 2 * k->len);
  gostx__der_w_end(&w);
  gostx__der_w_end(&w);
  return gostx__key_emit(&w, der, out, cap, out_len);
}

/* Public key: BIT STRING (no unused bits) of OCTET STRING x || y, each
 * little-endian; q big-endian. */
static int get_public_value(gostx__der bits, size_t len, uint8_t *q) {
  gostx__der point;
  if (bits.n < 1 || bits.p[0] != 0) return GOSTX_EFORMAT;
  bits.p++, bits.n--;
  if (gostx__der_get(&bits, GOSTX__DER_OCTETS, &point, NULL) || !gostx__der_done(&bits) ||
      point.n != 2 * len)
    return GOSTX_EFORMAT;
  gostx__key_reverse(q, point.p, len);
  gostx__key_reverse(q + len, point.p + len, len);
  return 0;
}

int gostx__spki_parse(gostx__der body, gostx_gost3410_curve *curve, size_t *len, uint8_t *q,
                      char *ps_oid) {
  gostx__der bits;
  int rc = gostx__key_get_algorithm(&body, curve, len, ps_oid);
  if (rc) return rc;
  if (gostx__der_get(&body, GOSTX__DER_BITS, &bits, NULL) || !gostx__der_done(&body))
    return GOSTX_EFORMAT;
  if ((rc = get_public_value(bits, *len, q))) return rc;
  return gostx_gost3410_check_public_key(*curve, q, 2 * *len);
}
