/* CAdES-C / X verified offline (RFC 5126 6.2, 6.3; Annex B's forms): the
 * signature-time-stamps, every reference against a value, the
 * CAdES-C-time-stamps over RFC 5126 6.3.5's bytes; the level reached. The
 * chain's and revocation data's judgement at the timestamp's time is path
 * validation's, over the values handed out in gostx_cades_info. */
#include "cms/cades_internal.h"

/* A certificate reference met: a value (certificate-values or the
 * SignedData's certificates) with its hash; or, failing that, one of the
 * same issuer and serial whose hash differs. */
static gostx_cades_status cert_met(const gostx_cades_cert_ref *ref, const gostx_cades_info *info,
                                   const gostx_cms_signed *sd) {
  gostx_x509_cert c;
  int same_id = 0;
  if (!ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < info->n_certs + sd->n_certs; i++) {
    const uint8_t *der = i < info->n_certs ? info->certs[i] : sd->certs[i - info->n_certs].der;
    size_t len = i < info->n_certs ? info->cert_len[i] : sd->certs[i - info->n_certs].der_len;
    if (gostx__cades_hash_is(&ref->hash, der, len)) return GOSTX_CADES_OK;
    if (ref->serial && !gostx_x509_parse(der, len, &c, NULL) && c.serial_len == ref->serial_len &&
        memcmp(c.serial, ref->serial, c.serial_len) == 0 &&
        (!ref->issuer || gostx__x509_name_equal(c.issuer, c.issuer_len, ref->issuer, ref->issuer_len)))
      same_id = 1;
  }
  return same_id ? GOSTX_CADES_CERT_HASH_MISMATCH : GOSTX_CADES_CERT_WITHOUT_VALUE;
}

/* the revocation value the reference names without its hash: the CRL of
 * that issuer and thisUpdate, the response of that responder and producedAt */
static int same_crl(const gostx_cades_rev_ref *ref, const uint8_t *der, size_t len) {
  gostx__cades_crl crl;
  return ref->name && !gostx__cades_read_crl(der, len, &crl) && crl.this_update == ref->time &&
         gostx__x509_name_equal(crl.issuer.p, crl.issuer.n, ref->name, ref->name_len);
}

static int same_ocsp(const gostx_cades_rev_ref *ref, const uint8_t *der, size_t len) {
  gostx__cades_ocsp o;
  return !gostx__cades_read_ocsp(der, len, &o) && o.produced_at == ref->time && o.responder.n == ref->name_len &&
         memcmp(o.responder.p, ref->name, ref->name_len) == 0;
}

static gostx_cades_status rev_met(const gostx_cades_rev_ref *ref, const gostx_cades_info *info) {
  int crl = ref->kind == GOSTX_CADES_REF_CRL, same_id = 0;
  size_t n = crl ? info->n_crls : info->n_ocsps;
  if (ref->has_hash && !ref->hash.alg) return GOSTX_CADES_UNKNOWN_HASH;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *der = crl ? info->crls[i] : info->ocsps[i];
    size_t len = crl ? info->crl_len[i] : info->ocsp_len[i];
    int id = crl ? same_crl(ref, der, len) : same_ocsp(ref, der, len);
    if (ref->has_hash ? gostx__cades_hash_is(&ref->hash, der, len) : id) return GOSTX_CADES_OK;
    same_id |= id;
  }
  return same_id ? GOSTX_CADES_REV_HASH_MISMATCH : GOSTX_CADES_REV_WITHOUT_VALUE;
}

gostx_cades_status gostx__cades_refs_met(const gostx_cades_info *info, const gostx_cms_signed *sd,
                                         size_t *index) {
  gostx_cades_status st;
  for (*index = 0; *index < info->n_cert_refs; (*index)++)
    if ((st = cert_met(&info->cert_refs[*index], info, sd))) return st;
  for (*index = 0; *index < info->n_rev_refs; (*index)++)
    if ((st = rev_met(&info->rev_refs[*index], info))) return st;
  return GOSTX_CADES_OK;
}

/* a token checked over data[len]: its genTime into *t */
static int token_ok(const uint8_t *tok, size_t tok_len, const uint8_t *data, size_t len,
                    const gostx_cms_verify_params *params, gostx_cms_ts_verdict *tv, int64_t *t) {
  gostx_cms_ts_token token;
  gostx_cms_ts_status st;
  memset(tv, 0, sizeof *tv);
  if (gostx_cms_ts_parse(tok, tok_len, &token, &st)) {
    tv->status = st;
    return GOSTX_EFORMAT;
  }
  *t = token.gen_time;
  return gostx_cms_ts_verify(&token, data, len, params, tv);
}

/* the failure, v's level left where the checks so far put it */
static int fail(gostx_cades_verdict *v, gostx_cades_status st, size_t index, int rc) {
  v->status = st, v->index = index;
  return rc;
}

/* The CAdES-C-time-stamps over the signer's ESC data, on the stack: the
 * signature, its tokens and the references, a few KiB (bounded: a hostile
 * message must not grow the stack without end) */
#define ESC_DATA_MAX (64 * 1024)
static int esc_stamps(const gostx_cms_signer_info *si, gostx_cades_info *info,
                      const gostx_cms_verify_params *params, int64_t sig_time, gostx_cades_verdict *v) {
  size_t len;
  gostx_cades_status st;
  if (gostx_cades_ts_data(si, GOSTX_CADES_TS_ESC, NULL, 0, &len, &st)) return fail(v, st, 0, GOSTX_EFORMAT);
  if (!info->n_esc_ts) return 0;
  if (len > ESC_DATA_MAX) return fail(v, GOSTX_CADES_TOO_MANY, 0, GOSTX_EFORMAT);
  uint8_t data[len];
  if (gostx_cades_ts_data(si, GOSTX_CADES_TS_ESC, data, len, &len, &st)) return fail(v, st, 0, GOSTX_EFORMAT);
  for (size_t i = 0; i < info->n_esc_ts; i++) {
    if (token_ok(info->esc_ts[i], info->esc_ts_len[i], data, len, params, &v->ts, &info->esc_ts_time[i]))
      return fail(v, GOSTX_CADES_ESC_TIMESTAMP, i, GOSTX_EAUTH);
    if (info->esc_ts_time[i] < sig_time) return fail(v, GOSTX_CADES_TIME_ORDER, i, GOSTX_EAUTH);
  }
  return 0;
}

int gostx_cades_verify(const gostx_cms_signed *sd, size_t signer, const gostx_cms_verify_params *params,
                       gostx_cades_info *info, gostx_cades_verdict *v) {
  gostx_cades_info own;
  gostx_cades_status st;
  size_t index;
  if (!sd || !v || signer >= sd->n_signers) return GOSTX_EINVAL;
  if (!info) info = &own;
  memset(v, 0, sizeof *v);
  const gostx_cms_signer_info *si = &sd->signers[signer];
  if (gostx_cades_parse(si, info, &st)) return fail(v, st, 0, GOSTX_EFORMAT);
  /* T: every signature-time-stamp over the signature value */
  int64_t sig_time = INT64_MIN;
  for (size_t i = 0; i < info->n_sig_ts; i++) {
    if (token_ok(info->sig_ts[i], info->sig_ts_len[i], si->signature, si->signature_len, params, &v->ts,
                 &info->sig_ts_time[i]))
      return fail(v, GOSTX_CADES_SIGNATURE_TIMESTAMP, i, GOSTX_EAUTH);
    if (info->sig_ts_time[i] > sig_time) sig_time = info->sig_ts_time[i];
  }
  int refs = info->has_cert_refs || info->has_rev_refs, vals = info->has_cert_values || info->has_rev_values;
  if (info->n_sig_ts) v->level = GOSTX_CADES_T;
  if (!refs && !vals && !info->n_esc_ts && !info->n_certs_crls_ts) return 0;
  if (!info->n_sig_ts) return fail(v, GOSTX_CADES_NO_SIGNATURE_TIMESTAMP, 0, GOSTX_EAUTH);
  if (!info->has_cert_refs || !info->has_rev_refs) return fail(v, GOSTX_CADES_NO_REFERENCES, 0, GOSTX_EAUTH);
  /* C: the revocation refs' shape; X Long: every reference met */
  if (info->n_crl_ocsp_refs != info->n_cert_refs + 1) return fail(v, GOSTX_CADES_REFS_COUNT, 0, GOSTX_EAUTH);
  v->level = GOSTX_CADES_C;
  int long_ok = 0;
  if (vals) {
    if ((st = gostx__cades_refs_met(info, sd, &index))) return fail(v, st, index, GOSTX_EAUTH);
    long_ok = 1;
    v->level = GOSTX_CADES_X_LONG;
  }
  int rc = esc_stamps(si, info, params, sig_time, v);
  if (rc) return rc;
  if (info->n_esc_ts) v->level = long_ok ? GOSTX_CADES_X_LONG_TYPE1 : GOSTX_CADES_X_TYPE1;
  return 0;
}
