/* One-shot EVP digest-sign and digest-verify (md by name, e.g.
 * "md_gost12_256"), shared by the provider's GOST R 34.10-2012 tests. */
#ifndef GOSTX_OSSL_DIGEST_SIGN_H
#define GOSTX_OSSL_DIGEST_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

static inline int digest_sign(EVP_PKEY *k, const char *md, const uint8_t *m, size_t ml,
                              uint8_t *sig, size_t *sl) {
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  int ok = c && EVP_DigestSignInit_ex(c, NULL, md, NULL, NULL, k, NULL) > 0 &&
           EVP_DigestSign(c, sig, sl, m, ml) > 0;
  EVP_MD_CTX_free(c);
  return ok;
}

static inline int digest_verify(EVP_PKEY *k, const char *md, const uint8_t *m, size_t ml,
                                const uint8_t *sig, size_t sl) {
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  int ok = c && EVP_DigestVerifyInit_ex(c, NULL, md, NULL, NULL, k, NULL) > 0 &&
           EVP_DigestVerify(c, sig, sl, m, ml) > 0;
  EVP_MD_CTX_free(c);
  return ok;
}

#endif
