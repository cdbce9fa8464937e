/* The client's check of a TSA's token (gostx/tsa.h): what the token
 * stamps (the imprint against the data's digest), that it answers the
 * query (nonce, policy), then the token itself as timestamp.c checks
 * every token (its signature, signingCertificateV2, the TSA's EKU and
 * chain). */
#include "cms/cms_internal.h"
#include "gostx/tsa.h"

static gostx_cms_ts_status check_imprint(const gostx_cms_ts_token *t, const gostx_tsa_expect *e,
                                         gostx_cms_ts_verdict *v) {
  size_t len = gostx__cms_ts_imprint_size(t, v);
  const uint8_t *want = NULL;
  if (!len) return v->status;
  if (e->hash && e->hash->done)
    want = len == 32 ? ((e->hash->want & GOSTX_CMS_HASH_256) ? e->hash->d256 : NULL)
                     : ((e->hash->want & GOSTX_CMS_HASH_512) ? e->hash->d512 : NULL);
  else if (e->digest && e->digest_len == len)
    want = e->digest; /* a digest of the other size: another algorithm, a mismatch */
  if (!want || t->imprint_len != len || memcmp(t->imprint, want, len) != 0)
    return GOSTX_CMS_TS_IMPRINT_MISMATCH;
  return GOSTX_CMS_TS_OK;
}

int gostx_tsa_verify(const gostx_cms_ts_token *t, const gostx_tsa_expect *e,
                     const gostx_cms_verify_params *params, gostx_cms_ts_verdict *v) {
  if (!t || !e || !v || !t->token || (!e->hash && !e->digest) || (e->hash && !e->hash->done))
    return GOSTX_EINVAL;
  memset(v, 0, sizeof *v);
  v->status = check_imprint(t, e, v);
  /* RFC 3161 2.4.2: the nonce MUST be the request's when it had one */
  if (!v->status && e->nonce &&
      (!t->nonce || t->nonce_len != e->nonce_len || memcmp(t->nonce, e->nonce, e->nonce_len) != 0))
    v->status = GOSTX_CMS_TS_NONCE_MISMATCH;
  if (!v->status && e->policy &&
      (t->policy_len != e->policy_len || memcmp(t->policy, e->policy, e->policy_len) != 0))
    v->status = GOSTX_CMS_TS_POLICY_MISMATCH;
  if (v->status) return GOSTX_EAUTH;
  return gostx__cms_ts_check_token(t, params, v);
}
