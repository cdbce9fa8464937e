/* The 0.x names of RFC 3161 steps (gostx/cms_ts.h), each one call to the
 * one API: gostx/tsa.h's query and check, gostx/cades.h's
 * signature-time-stamp. Only the argument shapes differ; the code that
 * writes, checks and embeds is tsa.c's, tsa_verify.c's and
 * cades_write.c's. */
#include "cms/cms_internal.h"
#include "gostx/cades.h"

int gostx_cms_ts_request(const uint8_t *sig, size_t sig_len, size_t digest_len, uint8_t *out,
                         size_t cap, size_t *out_len) {
  uint8_t h[64];
  if ((!sig && sig_len) || (digest_len != 32 && digest_len != 64)) return GOSTX_EINVAL;
  gostx_streebog(digest_len, sig ? sig : (const uint8_t *)"", sig_len, h);
  gostx_tsa_query_params p = {digest_len, h, NULL, NULL, 0, 1}; /* certReq, no nonce or policy */
  return gostx_tsa_query_write(&p, out, cap, out_len);
}

int gostx_cms_ts_verify(const gostx_cms_ts_token *t, const uint8_t *sig, size_t sig_len,
                        const gostx_cms_verify_params *params, gostx_cms_ts_verdict *v) {
  gostx_cms_hash h;
  if (!t || !v || (!sig && sig_len)) return GOSTX_EINVAL;
  if (gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512) ||
      gostx_cms_hash_update(&h, sig ? sig : (const uint8_t *)"", sig_len) || gostx_cms_hash_final(&h))
    return GOSTX_EINVAL;
  gostx_tsa_expect e = {&h, NULL, 0, NULL, 0, NULL, 0}; /* no nonce asked, any policy */
  return gostx_tsa_verify(t, &e, params, v);
}

int gostx_cms_ts_embed(const gostx_cms_signed *sd, size_t signer, const uint8_t *token,
                       size_t token_len, uint8_t *out, size_t cap, size_t *out_len) {
  return gostx_cades_add_timestamp(sd, signer, GOSTX_CADES_TS_SIGNATURE, token, token_len, out, cap,
                                   out_len, NULL);
}
