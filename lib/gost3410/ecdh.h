/* The raw ECDH of RFC 9367 section 6.1.1 (TLS 1.3 key exchange), for lib/tls.
 * Internal. */
#ifndef GOSTX_GOST3410_ECDH_H
#define GOSTX_GOST3410_ECDH_H

#include <stddef.h>
#include <stdint.h>

#include "gostx/gost3410.h"

/* out = str_l(x of (h d) Q_peer), little-endian, l = gostx_gost3410_size
 * (out_len must be l): d big-endian (0 < d < q), Q_peer x || y big-endian,
 * checked as gostx_gost3410_check_public_key checks (on the curve, in the
 * order-q subgroup). GOSTX_EINVAL for a bad key or a result at infinity,
 * GOSTX_ELEN for a wrong length. Constant time in d. */
int gostx__gost3410_ecdh(gostx_gost3410_curve curve, const uint8_t *priv, size_t priv_len,
                         const uint8_t *peer_pub, size_t pub_len, uint8_t *out, size_t out_len);

#endif
