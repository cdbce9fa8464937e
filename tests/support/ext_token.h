/* A test token for external keys (gostx_gost3410_key_set_external): the
 * callbacks run over a real key, as a PKCS#11 token would, count their
 * calls and fail on demand (test_key_external, tests/xmldsig). */
#ifndef GOSTX_TEST_EXT_TOKEN_H
#define GOSTX_TEST_EXT_TOKEN_H

#include "ike_pki.h"

typedef struct token {
  gostx_gost3410_key real; /* d lives here, never in the external key */
  int signs, vkos;         /* the callbacks' calls */
  int fail;                /* nonzero: the code they return instead (a token pulled out) */
} token;

/* sign and vko over t->real; sign alone (no key agreement) */
extern const gostx_gost3410_key_ops token_ops, token_sign_only_ops;

/* A token with a fresh key on curve, and the external key for it in ext
 * (with its SubjectPublicKeyInfo, for the test PKI of ike_pki.h); checks
 * that the external key holds no d. gostx_gost3410_key_clear(&t->real)
 * when done. */
void token_make(gostx_gost3410_curve curve, token *t, pki_key *ext);

#endif
