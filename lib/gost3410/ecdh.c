/* The ECDHE shared secret of GOST TLS 1.3 (RFC 9367 section 6.1.1): the
 * x coordinate of (h d) Q, little-endian, without VKO's UKM and hash. The
 * peer's point is validated by the public check first (every received key
 * is), then multiplied by the front's constant-time k P. */
#include "gost3410/ecdh.h"

#include "gost3410/ec.h"
#include "internal.h"

int gostx__gost3410_ecdh(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                         const uint8_t *peer_pub, size_t pub_len, uint8_t *out, size_t out_len) {
  gx_curve C;
  gx_fe d = {0}, x = {0}, y = {0};
  gx_point Q, K;
  int rc = gostx__ec_curve_load(&C, curve);
  if (rc) return rc;
  if (!priv || !peer_pub || !out) return GOSTX_EINVAL;
  if (priv_len != (size_t)C.len || pub_len != 2 * (size_t)C.len || out_len != (size_t)C.len)
    return GOSTX_ELEN;
  if ((rc = gostx_gost3410_check_public_key(curve, peer_pub, pub_len))) return GOSTX_EINVAL;
  gostx__fe_load_be(d, priv, C.n);
  /* Whether 0 < d < q is the caller's error code, as gost3410.c decides it. */
  if (!(~gostx__fe_is_zero(d, C.n) & gostx__fe_lt(d, C.q, C.n))) {
    gostx_memzero(d, sizeof d);
    return GOSTX_EINVAL;
  }
  gostx__fe_load_be(x, peer_pub, C.n);
  gostx__fe_load_be(y, peer_pub + C.len, C.n);
  gostx__ec_point_from_affine(&C, &Q, x, y);
  /* (h d) Q = d (h Q) for Q of order q, as VKO does it: the cofactor on the
   * public point keeps the scalar below q for the complete formulas. */
  for (int h = C.def->cofactor; h > 1; h >>= 1) gostx__ec_point_add(&C, &Q, &Q, &Q);
  gostx__ec_mul(&C, &K, d, &Q);
  if (gostx__ec_point_to_affine(&C, x, y, &K)) {
    rc = GOSTX_EINVAL; /* infinity: public once d Q is (RFC 9367 step 7) */
  } else {
    for (int i = 0; i < C.n; i++) gostx_store64_le(out + 8 * i, x[i]);
  }
  gostx_memzero(d, sizeof d);
  gostx_memzero(x, sizeof x);
  gostx_memzero(y, sizeof y);
  gostx_memzero(&K, sizeof K);
  return rc;
}
