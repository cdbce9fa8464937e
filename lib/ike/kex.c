/* The key exchange of RFC 9385 section 6: ECDH on the twisted Edwards
 * curves (method 33: 256 paramSetA, 34: 512 paramSetC), Key Exchange Data
 * x | y each little-endian, the shared secret the x of ((m / q) d) Q_peer
 * little-endian. The arithmetic and the recipient's checks are
 * lib/gost3410's raw ECDH (the one RFC 9367's TLS uses); here the byte order. */
#include <string.h>

#include "gost3410/ecdh.h"
#include "ike.h"

int gostx__ike_ke_curve(uint16_t group) {
  return group == GOSTX_IKE_KE_GOST3410_2012_256   ? GOSTX_GOST3410_256_A
         : group == GOSTX_IKE_KE_GOST3410_2012_512 ? GOSTX_GOST3410_512_C
                                                    : 0;
}

/* Each of the two coordinates reversed in place of its byte order (l octets each). */
static void swap_coords(uint8_t *p, size_t l) {
  for (size_t c = 0; c < 2; c++)
    for (size_t i = 0; i < l / 2; i++) {
      uint8_t t = p[c * l + i];
      p[c * l + i] = p[c * l + l - 1 - i];
      p[c * l + l - 1 - i] = t;
    }
}

int gostx__ike_ke_public(uint16_t group, const uint8_t *priv, size_t priv_len, uint8_t *out,
                         size_t out_len) {
  const int curve = gostx__ike_ke_curve(group);
  if (!curve || !priv || !out) return GOSTX_EINVAL;
  const size_t l = gostx_gost3410_size((gostx_gost3410_curve)curve);
  if (priv_len != l || out_len != 2 * l) return GOSTX_ELEN;
  int rc = gostx_gost3410_public_key((gostx_gost3410_curve)curve, priv, priv_len, out, out_len);
  if (rc == GOSTX_OK) swap_coords(out, l);
  return rc;
}

int gostx__ike_ke_shared(uint16_t group, const uint8_t *priv, size_t priv_len,
                         const uint8_t *peer, size_t peer_len, uint8_t *out, size_t out_len) {
  const int curve = gostx__ike_ke_curve(group);
  if (!curve || !priv || !peer || !out) return GOSTX_EINVAL;
  const size_t l = gostx_gost3410_size((gostx_gost3410_curve)curve);
  if (priv_len != l || peer_len != 2 * l || out_len != l) return GOSTX_ELEN;
  uint8_t q[128]; /* the peer's point big-endian, as lib/gost3410 takes it: public */
  memcpy(q, peer, peer_len);
  swap_coords(q, l);
  /* on the curve, in the order-q subgroup, (m / q) d Q not the identity (6.1) */
  return gostx__gost3410_ecdh((gostx_gost3410_curve)curve, priv, priv_len, q, peer_len, out,
                              out_len);
}
