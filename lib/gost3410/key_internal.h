/* The key object's private operations as the rest of the library reaches
 * them (lib/gost3410/key.c): beside the public gostx_gost3410_key_sign,
 * _vko and _keg, for callers that hold a bare d or pass a test nonce. */
#ifndef GOSTX_GOST3410_KEY_INTERNAL_H
#define GOSTX_GOST3410_KEY_INTERNAL_H

#include "gostx/gost3410.h"

/* d (the curve's size, else GOSTX_ELEN) as a key for the private
 * operations (gostx_gost3410_key_vko, _keg, _sign), Q not computed: for
 * callers that hold a bare d (an ephemeral key drawn for one agreement).
 * The caller wipes the key. */
int gostx__key_from_d(gostx_gost3410_key *key, gostx_gost3410_curve curve, const uint8_t *d,
                      size_t d_len);
/* gostx_gost3410_key_sign with sign_with_k's explicit nonce for a key that
 * holds d (k NULL: the hedged nonce); an external key's callback ignores
 * k. For the protocols' known-answer test hooks (TLS, IKE). */
int gostx__key_sign_k(const gostx_gost3410_key *key, const uint8_t *digest, size_t digest_len,
                      const uint8_t *k, size_t k_len, uint8_t *sig, size_t sig_len);
#endif
