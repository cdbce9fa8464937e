/* gostx cms -enhance: a timestamp's TSA's own validation data, where RFC
 * 5126 puts it (Annex B.2; the TSU notes of 6.2.1, 6.2.2, 6.3.3, 6.3.4):
 * complete references and values for the TSA's certificate in the
 * token's SignerInfo (gostx_cades_add_tsa_validation), the token put back
 * (gostx_cades_replace_timestamp): a signature-time-stamp's before the
 * CAdES-C-time-stamp covers it, a CAdES-C-time-stamp's once it is there.
 * The data: of -CRLfile, -ocsp-resp and -ocsp URL (asked about the TSA's
 * certificate), those for the TSA's path; the path judged with them now. */
#include <stdlib.h>
#include <string.h>

#include "cms_enhance.h"

/* 1 when crl is by the issuer of one of the path's certificates but the anchor */
static int crl_for(const gostx_x509_crl *crl, const gostx_x509_verify_result *res) {
  for (size_t i = 0; i + 1 < res->path_len; i++)
    if (crl->issuer_len == res->path[i]->issuer_len &&
        !memcmp(crl->issuer, res->path[i]->issuer, crl->issuer_len))
      return 1;
  return 0;
}

/* 1 when a SingleResponse of r names one of the path's certificates (its
 * CertID remade under the response's hash with the next one as issuer) */
static int ocsp_for(const gostx_ocsp_response *r, const gostx_x509_verify_result *res) {
  gostx_ocsp_single s;
  gostx_ocsp_certid id;
  size_t pos = 0;
  while (gostx_ocsp_single_next(r, &pos, &s))
    for (size_t i = 0; i + 1 < res->path_len; i++)
      if (s.id.hash != GOSTX_OCSP_HASH_OTHER &&
          !gostx_ocsp_certid_make(res->path[i + 1], res->path[i]->serial, res->path[i]->serial_len, s.id.hash,
                                  &id) &&
          gostx_ocsp_certid_equal(&id, &s.id))
        return 1;
  return 0;
}

void enhance_values_for(const enhance *e, const gostx_x509_verify_result *res, enhance_values *ev) {
  size_t k = 0, nc = 0, no = 0;
  for (size_t i = 1; i < res->path_len; i++, k++)
    ev->certs[k] = res->path[i]->der, ev->cert_len[k] = res->path[i]->der_len;
  for (size_t i = 0; i < e->crls->n; i++)
    if (crl_for(&e->crls->c[i], res)) ev->crls[nc] = e->crls->c[i].der, ev->crl_len[nc++] = e->crls->c[i].der_len;
  for (size_t i = 0; i < e->ocsps->n; i++)
    if (ocsp_for(&e->ocsps->r[i], res)) ev->ocsps[no] = e->ocsps->der[i], ev->ocsp_len[no++] = e->ocsps->len[i];
  gostx_cades_validation v = {ev->certs, ev->crls, ev->ocsps, ev->cert_len, ev->crl_len, ev->ocsp_len, k, nc, no};
  ev->v = v;
}

/* ---- the token made again, then put back ---- */

typedef struct tsa_ctx {
  int kind;
  size_t index;
  const gostx_x509_cert *tsa;
  const gostx_cades_validation *v;
  const uint8_t *token; /* the token made */
  size_t token_len;
} tsa_ctx;

static int token_again(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                       gostx_cades_status *st) {
  const tsa_ctx *c = ctx;
  return gostx_cades_add_tsa_validation(e->t, c->tsa, c->v, out, cap, len, st);
}

static int put_back(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                    gostx_cades_status *st) {
  const tsa_ctx *c = ctx;
  const gostx_cades_ts_at at = {0, c->kind, c->index};
  return gostx_cades_replace_timestamp(e->sd, &at, c->token, c->token_len, out, cap, len, st);
}

/* The TSA's path at now with the revocation data: OK; no data for it
 * said (a warning, what there is still carried); a refusal named (with
 * -noverify a warning, the data added anyway). */
static int judge(const enhance *e, const char *what, const gostx_x509_cert *chain, size_t n,
                 gostx_x509_verify_result *res) {
  gostx_x509_verify_opts o;
  char at[64];
  gostx_x509_verify_opts_init(&o, e->a->attime);
  o.crls = e->crls->c, o.n_crls = e->crls->n;
  o.ocsps = e->ocsps->r, o.n_ocsps = e->ocsps->n;
  o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  gostx_x509_status xs = gostx_x509_verify_with(e->store, chain, n, &o, res);
  cms_time_text(e->a->attime, at, sizeof at);
  if (xs == GOSTX_X509_OK) return 0;
  if (xs == GOSTX_X509_NO_REVOCATION_DATA || xs == GOSTX_X509_CRL_UNAVAILABLE) {
    cli_err("warning: cms: -enhance: %s: no revocation data for the TSA's certificate (depth %zu) in "
            "-CRLfile, -ocsp-resp or -ocsp: its token carries none for it", what, res->depth);
    return 0;
  }
  if (e->a->noverify) {
    cli_err("warning: cms: -enhance: %s: the TSA's certificate at %s: depth %zu: %s (-noverify: added "
            "anyway)", what, at, res->depth, res->why);
    return 0;
  }
  cli_err("cms: -enhance: %s: the TSA's certificate at %s: depth %zu: %s", what, at, res->depth, res->why);
  return CMS_EXIT_VERIFY;
}

/* token (one of the signer's, kind and index) with its TSA's data. */
static int one_token(enhance *e, int kind, size_t index, const uint8_t *token, size_t token_len,
                     gostx_cades_info *tinfo, gostx_x509_cert *chain, gostx_x509_verify_result *res,
                     enhance_values *ev) {
  char what[64];
  snprintf(what, sizeof what, "%s %zu", kind == GOSTX_CADES_TS_ESC ? "CAdES-C timestamp" : "signature timestamp",
           index + 1);
  if (gostx_cms_ts_parse(token, token_len, e->t, NULL) || e->t->sd.n_signers != 1 ||
      gostx_cades_parse(&e->t->sd.signers[0], tinfo, NULL))
    return 0; /* gostx_cades_verify has named it */
  if (tinfo->has_cert_refs || tinfo->has_rev_refs || tinfo->has_cert_values || tinfo->has_rev_values)
    return 0; /* its data is there */
  const gostx_x509_cert *tsa = cms_signer_cert(&e->t->sd, &e->t->sd.signers[0], e->untrusted->c, e->untrusted->n);
  if (!tsa) {
    cli_err("cms: -enhance: %s: the TSA's certificate is not in the token (nor -untrusted)", what);
    return CMS_EXIT_VERIFY;
  }
  size_t n = 0;
  chain[n++] = *tsa;
  for (size_t i = 0; i < e->t->sd.n_certs; i++) chain[n++] = e->t->sd.certs[i];
  for (size_t i = 0; i < e->untrusted->n; i++) chain[n++] = e->untrusted->c[i];
  gostx_x509_verify_opts o;
  gostx_x509_verify_opts_init(&o, e->a->attime);
  if (gostx_x509_verify_with(e->store, chain, n, &o, res) != GOSTX_X509_OK) {
    cli_err("cms: -enhance: %s: the TSA's chain: depth %zu: %s", what, res->depth, res->why);
    return CMS_EXIT_VERIFY;
  }
  int rc = 0;
  if (e->a->ocsp_url && res->path_len > 1 && (rc = enhance_ask_ocsp(e, res->path[0], res->path[1]))) return rc;
  if ((rc = judge(e, what, chain, n, res))) return rc;
  enhance_values_for(e, res, ev);
  if (!ev->v.n_crls && !ev->v.n_ocsps) return 0; /* nothing to carry: said by judge */
  gostx_x509_cert keep = *tsa; /* into the message remake replaces */
  tsa_ctx c = {kind, index, &keep, &ev->v, NULL, 0};
  uint8_t *again;
  if ((rc = enhance_made(e, token_again, &c, what, &again, &c.token_len))) return rc;
  c.token = again;
  rc = enhance_remake(e, put_back, &c, what);
  free(again);
  if (!rc) fprintf(stderr, "%s: the TSA's validation data added to its token\n", what);
  return rc;
}

int enhance_tsa_values(enhance *e, int kind) {
  gostx_cades_info *info = malloc(sizeof *info), *tinfo = malloc(sizeof *tinfo);
  gostx_x509_cert *chain = malloc((1 + GOSTX_CMS_MAX_CERTS + CLI_CERTS_MAX) * sizeof *chain);
  gostx_x509_verify_result *res = malloc(sizeof *res);
  enhance_values *ev = malloc(sizeof *ev);
  int rc = info && tinfo && chain && res && ev ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  for (size_t i = 0; !rc; i++) {
    /* the message is made again after each token: read afresh */
    if (gostx_cades_parse(&e->sd->signers[0], info, NULL)) break; /* named by gostx_cades_verify */
    size_t n = kind == GOSTX_CADES_TS_ESC ? info->n_esc_ts : info->n_sig_ts;
    if (i >= n || i >= GOSTX_CADES_MAX) break;
    if (kind == GOSTX_CADES_TS_ESC)
      rc = one_token(e, kind, i, info->esc_ts[i], info->esc_ts_len[i], tinfo, chain, res, ev);
    else rc = one_token(e, kind, i, info->sig_ts[i], info->sig_ts_len[i], tinfo, chain, res, ev);
  }
  free(ev), free(res), free(chain), free(tinfo), free(info);
  return rc;
}
