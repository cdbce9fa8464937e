/* PBKDF2 (RFC 8018 section 5.2) with PRF = HMAC_GOSTR3411_2012_512, as
 * R 50.1.111-2016 / RFC 9337 specify. The HMAC states after absorbing
 * K ^ ipad and K ^ opad are computed once per call and copied for every
 * iteration, so each iteration costs only the message compressions. */
#include "internal.h"

#define PRF_LEN GOSTX_STREEBOG512_LEN

int gostx_pbkdf2_streebog512(const uint8_t *pass, size_t pass_len, const uint8_t *salt,
                             size_t salt_len, uint32_t iterations, uint8_t *out, size_t out_len) {
  if ((!pass && pass_len) || (!salt && salt_len) || !out) return GOSTX_EINVAL;
  if (iterations < 1) return GOSTX_EINVAL;
  if (out_len == 0) return GOSTX_ELEN;
  /* dkLen <= (2^32 - 1) * hLen */
  if ((uint64_t)out_len > (uint64_t)0xffffffffu * PRF_LEN) return GOSTX_ELEN;

  gostx_hmac_ctx keyed, h;
  uint8_t u[PRF_LEN], t[PRF_LEN], ibuf[4];
  int rc = gostx_hmac_init(&keyed, PRF_LEN, pass, pass_len);
  size_t done = 0;
  for (uint32_t block = 1; rc == GOSTX_OK && done < out_len; block++) {
    /* U_1 = PRF(P, S || INT(block)) */
    gostx_store32_be(ibuf, block);
    h = keyed;
    rc = gostx_hmac_update(&h, salt, salt_len);
    if (rc == GOSTX_OK) rc = gostx_hmac_update(&h, ibuf, 4);
    if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, u);
    memcpy(t, u, PRF_LEN);
    /* U_j = PRF(P, U_{j-1}); T = U_1 ^ ... ^ U_c */
    for (uint32_t j = 1; rc == GOSTX_OK && j < iterations; j++) {
      h = keyed;
      rc = gostx_hmac_update(&h, u, PRF_LEN);
      if (rc == GOSTX_OK) rc = gostx_hmac_final(&h, u);
      gostx_xor(t, t, u, PRF_LEN);
    }
    size_t take = out_len - done < PRF_LEN ? out_len - done : PRF_LEN;
    if (rc == GOSTX_OK) memcpy(out + done, t, take);
    done += take;
  }
  gostx_hmac_clear(&keyed);
  gostx_hmac_clear(&h);
  gostx_memzero(u, sizeof u);
  gostx_memzero(t, sizeof t);
  if (rc != GOSTX_OK) gostx_memzero(out, out_len);
  return rc;
}
