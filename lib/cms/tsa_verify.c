/* The one check of an RFC 3161 token (gostx/tsa.h's gostx_tsa_verify;
 * a signature's timestamp is the same check over the signature value):
 * what the token stamps (the imprint against the data's digest), that it
 * answers the query (nonce, policy), then the token itself (its
 * signature, signingCertificateV2, the TSA's EKU and chain). */
#include "cms/cms_internal.h"
#include "gostx/tsa.h"

#define OID_EXT_EKU "\x55\x1d\x25"                              /* 2.5.29.37 */
#define OID_KP_TIME_STAMPING "\x2b\x06\x01\x05\x05\x07\x03\x08" /* 1.3.6.1.5.5.7.3.8 */

/* RFC 3161 section 2.3: the TSA's certificate MUST have extendedKeyUsage,
 * critical, with id-kp-timeStamping as its only KeyPurposeId. */
static int eku_ext_is_tsa(gostx__der ext, int *seen) {
  gostx__der oid, value, seq, purpose;
  int crit = 0;
  if (gostx__der_oid(&ext, &oid) || !GOSTX__DER_OID_IS(oid, OID_EXT_EKU)) return 1;
  if (*seen) return 0; /* a second extendedKeyUsage: RFC 5280 4.2 forbids it */
  *seen = 1;
  if (gostx__der_peek(&ext, GOSTX__DER_BOOL) && gostx__der_bool(&ext, &crit)) return 0;
  if (!crit || gostx__der_get(&ext, GOSTX__DER_OCTETS, &value, NULL) ||
      gostx__der_get(&value, GOSTX__DER_SEQ, &seq, NULL) || value.n ||
      gostx__der_oid(&seq, &purpose) || seq.n)
    return 0;
  return GOSTX__DER_OID_IS(purpose, OID_KP_TIME_STAMPING);
}

static int cert_is_tsa(const gostx_x509_cert *cert) {
  gostx__der r = {cert->tbs, cert->tbs_len}, tbs, exts, ext;
  uint8_t tag;
  int seen = 0;
  if (gostx__der_get(&r, GOSTX__DER_SEQ, &tbs, NULL)) return 0;
  while (tbs.n) { /* the fields before extensions [3] are passed over */
    if (gostx__der_next(&tbs, &tag, &exts, NULL)) return 0;
    if (tag != GOSTX__DER_CTXC(3)) continue;
    if (gostx__der_get(&exts, GOSTX__DER_SEQ, &r, NULL)) return 0;
    while (r.n)
      if (gostx__der_get(&r, GOSTX__DER_SEQ, &ext, NULL) || !eku_ext_is_tsa(ext, &seen)) return 0;
  }
  return seen;
}

static gostx_cms_ts_status check_imprint(const gostx_cms_ts_token *t, const gostx_tsa_expect *e,
                                         gostx_cms_ts_verdict *v) {
  gostx__der oid = {t->imprint_oid, t->imprint_oid_len};
  size_t len = gostx__cms_digest_size(oid);
  const uint8_t *want = NULL;
  if (!len) {
    gostx__der_oid_text(oid, v->oid, sizeof v->oid);
    return GOSTX_CMS_TS_UNKNOWN_ALGORITHM;
  }
  if (e->hash && e->hash->done)
    want = len == 32 ? ((e->hash->want & GOSTX_CMS_HASH_256) ? e->hash->d256 : NULL)
                     : ((e->hash->want & GOSTX_CMS_HASH_512) ? e->hash->d512 : NULL);
  else if (e->digest && e->digest_len == len)
    want = e->digest; /* a digest of the other size: another algorithm, a mismatch */
  if (!want || t->imprint_len != len || memcmp(t->imprint, want, len) != 0)
    return GOSTX_CMS_TS_IMPRINT_MISMATCH;
  return GOSTX_CMS_TS_OK;
}

/* The token's SignedData, its ESSCertID(v2) and its signer as a TSA. */
static gostx_cms_ts_status check_token(const gostx_cms_ts_token *t, const gostx_cms_verify_params *params,
                                       gostx_cms_ts_verdict *v) {
  /* the signers' purpose is not the TSA's (cert_is_tsa checks that) */
  gostx_cms_verify_params tsa = params ? *params : (gostx_cms_verify_params){0};
  tsa.purpose = GOSTX_X509_PURPOSE_ANY;
  if (gostx_cms_signed_verify(&t->sd, NULL, &tsa, &v->cms)) return GOSTX_CMS_TS_TOKEN;
  /* RFC 3161 2.4.1 / RFC 5816: the signer's ESSCertID(v2) must be there;
   * signed_verify checked that it names the signer's certificate */
  if (!t->sd.signers[0].ess_hash) return GOSTX_CMS_TS_NO_SIGNING_CERT;
  return cert_is_tsa(v->cms.signer_cert) ? GOSTX_CMS_TS_OK : GOSTX_CMS_TS_NOT_TSA;
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
  if (!v->status) v->status = check_token(t, params, v);
  return v->status ? GOSTX_EAUTH : 0;
}
