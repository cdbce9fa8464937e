/* CAdES-C / X verified offline (RFC 5126 6.2, 6.3; Annex B's forms): the
 * signature-time-stamps, every revocation value read by lib/x509, every
 * reference against a value (cades_refs.c), the CAdES-C-time-stamps over RFC 5126 6.3.5's
 * bytes; the level reached; then each token's own data and TSA's path
 * (cades_tsa_verify.c). The signer's chain at the timestamp's time is the
 * caller's path validation, over the values handed out in gostx_cades_info. */
#include "cms/cades_internal.h"

gostx_tsa_expect gostx__cades_digests(const uint8_t *data, size_t len, gostx_cms_hash *h) {
  (void)gostx_cms_hash_init(h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512); /* fails on misuse alone */
  (void)gostx_cms_hash_update(h, data, len);
  (void)gostx_cms_hash_final(h);
  return (gostx_tsa_expect){h, NULL, 0, NULL, 0, NULL, 0};
}

/* a token checked as a timestamp of e's data: its genTime into *t */
static int token_ok(const uint8_t *tok, size_t tok_len, const gostx_tsa_expect *e,
                    const gostx_cms_verify_params *params, gostx_cms_ts_verdict *tv, int64_t *t) {
  gostx_cms_ts_token token;
  gostx_cms_ts_status st;
  memset(tv, 0, sizeof *tv);
  if (gostx_cms_ts_parse(tok, tok_len, &token, &st)) {
    tv->status = st;
    return GOSTX_EFORMAT;
  }
  *t = token.gen_time;
  return gostx_tsa_verify(&token, e, params, tv);
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
  gostx_cms_hash h;
  gostx_tsa_expect e = gostx__cades_digests(data, len, &h);
  for (size_t i = 0; i < info->n_esc_ts; i++) {
    if (token_ok(info->esc_ts[i], info->esc_ts_len[i], &e, params, &v->ts, &info->esc_ts_time[i]))
      return fail(v, GOSTX_CADES_ESC_TIMESTAMP, i, GOSTX_EAUTH);
    if (info->esc_ts_time[i] < sig_time) return fail(v, GOSTX_CADES_TIME_ORDER, i, GOSTX_EAUTH);
  }
  return 0;
}

/* When a signature-time-stamp's TSA is judged: at the earliest
 * CAdES-C-time-stamp's genTime, read here before those tokens are verified
 * (each is below; any that fails refuses the whole), or at now. */
static int64_t sig_ts_judged_at(const gostx_cades_info *info, int64_t now) {
  gostx_cms_ts_token t;
  for (size_t i = 0; i < info->n_esc_ts; i++)
    if (!gostx_cms_ts_parse(info->esc_ts[i], info->esc_ts_len[i], &t, NULL) && t.gen_time < now) now = t.gen_time;
  return now;
}

int gostx_cades_judged_at_timestamp(const gostx_cms_signer_info *si) {
  gostx_cades_info info;
  return si && !gostx_cades_parse(si, &info, NULL) && info.n_sig_ts &&
         (info.has_cert_values || info.has_rev_values);
}

int gostx_cades_verify_with(const gostx_cms_signed *sd, size_t signer, const gostx_cms_verify_params *params,
                            const gostx_cades_revocation *more, gostx_cades_info *info, gostx_cades_verdict *v) {
  gostx_cades_info own;
  gostx__cades_revs revs;
  gostx_cades_status st;
  size_t index;
  if (!sd || !v || signer >= sd->n_signers) return GOSTX_EINVAL;
  if (more && (more->n_crls > GOSTX_CADES_MAX || more->n_ocsps > GOSTX_CADES_MAX ||
               (more->n_crls && !more->crls) || (more->n_ocsps && !more->ocsps)))
    return GOSTX_EINVAL;
  if (!info) info = &own;
  memset(v, 0, sizeof *v);
  const gostx_cms_signer_info *si = &sd->signers[signer];
  if (gostx_cades_parse(si, info, &st)) return fail(v, st, 0, GOSTX_EFORMAT);
  /* T: every signature-time-stamp over the signature value */
  int64_t sig_time = INT64_MIN;
  gostx_cms_verify_params at_esc;
  if (params) at_esc = *params, at_esc.now = sig_ts_judged_at(info, params->now);
  gostx_cms_hash h;
  gostx_tsa_expect e = gostx__cades_digests(si->signature, si->signature_len, &h);
  for (size_t i = 0; i < info->n_sig_ts; i++) {
    if (token_ok(info->sig_ts[i], info->sig_ts_len[i], &e, params ? &at_esc : NULL, &v->ts, &info->sig_ts_time[i]))
      return fail(v, GOSTX_CADES_SIGNATURE_TIMESTAMP, i, GOSTX_EAUTH);
    if (info->sig_ts_time[i] > sig_time) sig_time = info->sig_ts_time[i];
  }
  int refs = info->has_cert_refs || info->has_rev_refs, vals = info->has_cert_values || info->has_rev_values;
  revs.n_crls = revs.n_ocsps = 0;
  if (info->n_sig_ts) v->level = GOSTX_CADES_T;
  if (!refs && !vals && !info->n_esc_ts && !info->n_certs_crls_ts)
    return gostx__cades_judge_tsas(sd, info, &revs, params, more, v);
  if (!info->n_sig_ts) return fail(v, GOSTX_CADES_NO_SIGNATURE_TIMESTAMP, 0, GOSTX_EAUTH);
  if (!info->has_cert_refs || !info->has_rev_refs) return fail(v, GOSTX_CADES_NO_REFERENCES, 0, GOSTX_EAUTH);
  /* C: the revocation refs' shape; X Long: every value read, every reference met */
  if (info->n_crl_ocsp_refs != info->n_cert_refs + 1) return fail(v, GOSTX_CADES_REFS_COUNT, 0, GOSTX_EAUTH);
  v->level = GOSTX_CADES_C;
  int long_ok = 0;
  if (vals) {
    if ((st = gostx__cades_read_revs(info, &revs, &index, &v->x509))) return fail(v, st, index, GOSTX_EFORMAT);
    if ((st = gostx__cades_refs_met(info, sd, revs.crls, revs.ocsps, &index))) return fail(v, st, index, GOSTX_EAUTH);
    long_ok = 1;
    v->level = GOSTX_CADES_X_LONG;
  }
  int rc = esc_stamps(si, info, params, sig_time, v);
  if (rc) return rc;
  if (info->n_esc_ts) v->level = long_ok ? GOSTX_CADES_X_LONG_TYPE1 : GOSTX_CADES_X_TYPE1;
  return gostx__cades_judge_tsas(sd, info, &revs, params, more, v);
}

int gostx_cades_verify(const gostx_cms_signed *sd, size_t signer, const gostx_cms_verify_params *params,
                       gostx_cades_info *info, gostx_cades_verdict *v) {
  return gostx_cades_verify_with(sd, signer, params, NULL, info, v);
}
