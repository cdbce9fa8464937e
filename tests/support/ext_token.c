/* The test token of ext_token.h. */
#include "ext_token.h"

#include <string.h>

#include "testutil.h"

static int tok_sign(void *ctx, const uint8_t *digest, size_t digest_len, uint8_t *sig,
                    size_t sig_len) {
  token *t = ctx;
  t->signs++;
  if (t->fail) return t->fail;
  return gostx_gost3410_key_sign(&t->real, digest, digest_len, sig, sig_len);
}

static int tok_vko(void *ctx, const uint8_t *peer, size_t pub_len, const uint8_t *ukm,
                   size_t ukm_len, uint8_t *out, size_t out_len) {
  token *t = ctx;
  t->vkos++;
  if (t->fail) return t->fail;
  return gostx_gost3410_key_vko(&t->real, peer, pub_len, ukm, ukm_len, out, out_len);
}

const gostx_gost3410_key_ops token_ops = {tok_sign, tok_vko};
const gostx_gost3410_key_ops token_sign_only_ops = {tok_sign, NULL};

void token_make(gostx_gost3410_curve curve, token *t, pki_key *ext) {
  pki_key real;
  memset(t, 0, sizeof *t);
  pki_make_key(curve, &real);
  t->real = real.k;
  CHECK_RC(gostx_gost3410_key_set_external(&ext->k, curve, real.k.q, 2 * real.k.len, NULL,
                                           &token_ops, t),
           GOSTX_OK, "set_external");
  memcpy(ext->spki, real.spki, real.spki_len);
  ext->spki_len = real.spki_len;
  static const uint8_t zero[64];
  CHECK(!ext->k.has_private && !memcmp(ext->k.d, zero, sizeof zero) &&
            gostx_gost3410_key_is_private(&ext->k),
        "an external key holds no d and signs");
  gostx_gost3410_key_clear(&real.k);
}
