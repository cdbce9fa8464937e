/* A timestamp token's own validation data (RFC 5126 Annex B.2: its TSA's
 * complete references and values in the token's SignerInfo) checked as a
 * signer's are, and the TSA's path judged at the token's time with the
 * revocation values: the token's own, the signature's, the caller's
 * (gostx_cades_verify's last step; gostx_cades_tsa_values alone). */
#include "cms/cades_internal.h"

/* t's own data into *own, its revocation values appended to *r, checked:
 * OK, or the failure (*index the reference or value; *xs for BAD_CRL). */
static gostx_cades_status token_data(const gostx_cms_ts_token *t, gostx_cades_info *own, gostx__cades_revs *r,
                                     size_t *index, gostx_x509_status *xs) {
  gostx_cades_status st;
  size_t base_crls = r->n_crls, base_ocsps = r->n_ocsps;
  *index = 0;
  if (t->sd.n_signers != 1) return GOSTX_CADES_MALFORMED;
  if (gostx_cades_parse(&t->sd.signers[0], own, &st)) return st;
  int refs = own->has_cert_refs || own->has_rev_refs, vals = own->has_cert_values || own->has_rev_values;
  if (!refs && !vals) return GOSTX_CADES_OK;
  if (!own->has_cert_refs || !own->has_rev_refs) return GOSTX_CADES_NO_REFERENCES;
  if (own->n_crl_ocsp_refs != own->n_cert_refs + 1) return GOSTX_CADES_REFS_COUNT;
  if (!vals) return GOSTX_CADES_OK;
  if ((st = gostx__cades_read_revs(own, r, index, xs))) return st;
  return gostx__cades_refs_met(own, &t->sd, &r->crls[base_crls], &r->ocsps[base_ocsps], index);
}

static int format_status(gostx_cades_status st) {
  return st == GOSTX_CADES_MALFORMED || st == GOSTX_CADES_DUPLICATE || st == GOSTX_CADES_TOO_MANY ||
         st == GOSTX_CADES_BAD_CRL || st == GOSTX_CADES_BAD_OCSP;
}

int gostx_cades_tsa_values(const gostx_cms_ts_token *t, gostx_cades_info *info, gostx_cades_status *st,
                           size_t *index) {
  gostx_cades_status dummy;
  gostx_x509_status xs;
  gostx__cades_revs revs;
  size_t at;
  if (!st) st = &dummy;
  if (!index) index = &at;
  *st = GOSTX_CADES_MALFORMED, *index = 0;
  if (!t || !info) return GOSTX_EINVAL;
  revs.n_crls = revs.n_ocsps = 0;
  *st = token_data(t, info, &revs, index, &xs);
  return !*st ? 0 : format_status(*st) ? GOSTX_EFORMAT : GOSTX_EAUTH;
}

/* ---- the TSA's path ---- */

/* The TSA certificate and the certificates its path is built from: the
 * token's, its certificate-values, the signature's certificate-values and
 * certificates. */
#define CHAIN_MAX (1 + 2 * GOSTX_CMS_MAX_CERTS + 2 * GOSTX_CADES_MAX)

/* One token's work space, kept out of gostx_cades_verify's frame. */
typedef struct judging {
  gostx_cms_ts_token t;
  gostx_cades_info own;
  gostx_x509_cert chain[CHAIN_MAX];
  gostx_x509_verify_result res;
} judging;

/* the token's signer's certificate: the token's, or params->untrusted's */
static const gostx_x509_cert *tsa_cert(const gostx_cms_ts_token *t, const gostx_cms_verify_params *params) {
  const gostx_cms_signer_info *si = &t->sd.signers[0];
  gostx__cms_id id = {si->sid_kind,
                      {si->sid_issuer, si->sid_issuer_len},
                      {si->sid_serial, si->sid_serial_len},
                      {si->sid_key_id, si->sid_key_id_len}};
  for (size_t i = 0; i < t->sd.n_certs + params->n_untrusted; i++) {
    const gostx_x509_cert *c = i < t->sd.n_certs ? &t->sd.certs[i] : &params->untrusted[i - t->sd.n_certs];
    if (gostx__cms_cert_is(c, &id)) return c;
  }
  return NULL;
}

/* chain[] from the TSA's certificate: its count */
static size_t build_chain(judging *j, const gostx_x509_cert *tsa, const gostx_cms_signed *sd,
                          const gostx_cades_info *info) {
  size_t n = 0;
  j->chain[n++] = *tsa;
  for (size_t i = 0; i < j->t.sd.n_certs; i++) j->chain[n++] = j->t.sd.certs[i];
  for (size_t i = 0; i < j->own.n_certs; i++)
    if (!gostx_x509_parse(j->own.certs[i], j->own.cert_len[i], &j->chain[n], NULL)) n++;
  for (size_t i = 0; i < info->n_certs; i++)
    if (!gostx_x509_parse(info->certs[i], info->cert_len[i], &j->chain[n], NULL)) n++;
  for (size_t i = 0; i < sd->n_certs; i++) j->chain[n++] = sd->certs[i];
  return n;
}

static gostx_x509_status path_at(judging *j, size_t n, int64_t when, const gostx__cades_revs *r,
                                 const gostx_cms_verify_params *params) {
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, when);
  o.crls = r->crls, o.n_crls = r->n_crls, o.ocsps = r->ocsps, o.n_ocsps = r->n_ocsps;
  o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  o.memo = params->memo;
  return gostx_x509_verify_with(params->store, j->chain, n, &o, &j->res);
}

/* The TSA's path at when with r's values: OK or no data recorded in *out;
 * values stale at when (past nextUpdate) and the token older: judged at
 * its genTime instead, when they were current; any other failure: TSA_PATH
 * in v. */
static int judge_path(judging *j, size_t n, int64_t when, const gostx__cades_revs *r,
                      const gostx_cms_verify_params *params, gostx_cades_tsa_judged *out, gostx_cades_verdict *v) {
  gostx_x509_status xs = path_at(j, n, when, r, params);
  if ((xs == GOSTX_X509_CRL_EXPIRED || xs == GOSTX_X509_OCSP_STALE) && j->t.gen_time < when) {
    out->stale = 1, out->stale_at = when, out->depth = j->res.depth;
    when = j->t.gen_time;
    xs = path_at(j, n, when, r, params);
  }
  out->at = when;
  if (xs == GOSTX_X509_OK) {
    out->outcome = GOSTX_CADES_TSA_OK;
    return 0;
  }
  if (xs == GOSTX_X509_NO_REVOCATION_DATA || xs == GOSTX_X509_CRL_UNAVAILABLE) {
    out->outcome = GOSTX_CADES_TSA_NO_DATA, out->depth = j->res.depth;
    return 0;
  }
  v->status = GOSTX_CADES_TSA_PATH, v->x509 = xs, v->depth = j->res.depth, v->at = when;
  memcpy(v->why, j->res.why, sizeof v->why);
  return GOSTX_EAUTH;
}

/* Token der (kind's index-th of info) at when: its own data, then its
 * TSA's path with r's values (the signature's first, then appended the
 * token's and the caller's; cut back after). */
static int judge_one(judging *j, const gostx_cms_signed *sd, const gostx_cades_info *info, gostx__cades_revs *r,
                     const gostx_cms_verify_params *params, const gostx_cades_revocation *more, int64_t when,
                     gostx_cades_tsa_judged *out, gostx_cades_verdict *v) {
  size_t crls = r->n_crls, ocsps = r->n_ocsps;
  int rc = 0;
  memset(out, 0, sizeof *out);
  gostx_cades_status st = token_data(&j->t, &j->own, r, &v->index, &v->x509);
  if (st) {
    v->status = st;
    rc = format_status(st) ? GOSTX_EFORMAT : GOSTX_EAUTH;
  }
  int vals = info->has_cert_values || info->has_rev_values || j->own.has_cert_values || j->own.has_rev_values;
  if (!rc && params && params->store && vals) {
    const gostx_x509_cert *tsa = tsa_cert(&j->t, params);
    for (size_t i = 0; more && i < more->n_crls; i++) r->crls[r->n_crls++] = more->crls[i];
    for (size_t i = 0; more && i < more->n_ocsps; i++) r->ocsps[r->n_ocsps++] = more->ocsps[i];
    if (tsa) rc = judge_path(j, build_chain(j, tsa, sd, info), when, r, params, out, v);
  }
  r->n_crls = crls, r->n_ocsps = ocsps;
  return rc;
}

int gostx__cades_judge_tsas(const gostx_cms_signed *sd, gostx_cades_info *info, gostx__cades_revs *r,
                            const gostx_cms_verify_params *params, const gostx_cades_revocation *more,
                            gostx_cades_verdict *v) {
  judging j; /* about 42 KiB, on the stack while the tokens are judged */
  int64_t now = params ? params->now : 0, at_esc = now;
  for (size_t i = 0; i < info->n_esc_ts; i++)
    if (info->esc_ts_time[i] < at_esc) at_esc = info->esc_ts_time[i];
  for (int k = 0; k < 2; k++) {
    int esc = k == 1;
    size_t n = esc ? info->n_esc_ts : info->n_sig_ts;
    for (size_t i = 0; i < n; i++) {
      v->ts_kind = esc ? GOSTX_CADES_TS_ESC : GOSTX_CADES_TS_SIGNATURE;
      if (gostx_cms_ts_parse(esc ? info->esc_ts[i] : info->sig_ts[i], esc ? info->esc_ts_len[i] : info->sig_ts_len[i],
                             &j.t, NULL)) {
        v->status = GOSTX_CADES_MALFORMED, v->ts_index = i;
        return GOSTX_EFORMAT;
      }
      int rc = judge_one(&j, sd, info, r, params, more, esc ? now : at_esc,
                         esc ? &info->esc_ts_tsa[i] : &info->sig_ts_tsa[i], v);
      v->ts_index = i;
      if (rc) return rc;
    }
  }
  v->ts_kind = 0;
  return 0;
}
