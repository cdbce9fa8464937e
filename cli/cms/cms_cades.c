/* gostx cms -verify's CAdES-C / X part (include/gostx/cades.h): every
 * reference against its value and every timestamp (gostx_cades_verify),
 * then the signer's chain and revocation status from the signature's own
 * certificate-values and revocation-values at its signature timestamp's
 * time: offline, with only the trust anchors. The level reached is said. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"
#include "gostx/cades.h"
#include "gostx/ocsp.h"

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  return an == bn && !memcmp(a, b, an);
}

static int is_signer(const gostx_x509_cert *c, const gostx_cms_signer_info *si) {
  if (si->sid_kind == GOSTX_CMS_SID_ISSUER_SERIAL)
    return same(c->issuer, c->issuer_len, si->sid_issuer, si->sid_issuer_len) &&
           same(c->serial, c->serial_len, si->sid_serial, si->sid_serial_len);
  uint8_t id[64];
  size_t id_len;
  return si->sid_kind == GOSTX_CMS_SID_KEY_ID && !gostx_x509_cert_key_id(c, id, sizeof id, &id_len) &&
         same(id, id_len, si->sid_key_id, si->sid_key_id_len);
}

const gostx_x509_cert *cms_signer_cert(const gostx_cms_signed *sd, const gostx_cms_signer_info *si,
                                       const gostx_x509_cert *more, size_t n) {
  for (size_t i = 0; i < sd->n_certs + n; i++) {
    const gostx_x509_cert *c = i < sd->n_certs ? &sd->certs[i] : &more[i - sd->n_certs];
    if (is_signer(c, si)) return c;
  }
  return NULL;
}

void cms_cades_certs(const gostx_cms_signed *sd, cli_cert_list *l) {
  gostx_cades_info *info = malloc(sizeof *info);
  gostx_cades_status st;
  for (size_t s = 0; info && s < sd->n_signers; s++) {
    if (gostx_cades_parse(&sd->signers[s], info, &st)) continue; /* named by cms_cades_check */
    for (size_t i = 0; i < info->n_certs && l->n < CLI_CERTS_MAX; i++)
      if (!gostx_x509_parse(info->certs[i], info->cert_len[i], &l->c[l->n], NULL)) l->der[l->n++] = NULL;
  }
  free(info);
}

/* What a failed gostx_cades_verify found, named. */
static int cades_refuse(size_t s, const gostx_cms_signed *sd, const gostx_cades_verdict *v) {
  char who[32] = "", more[600] = "";
  if (sd->n_signers > 1) snprintf(who, sizeof who, "signer %zu: ", s + 1);
  if (v->status == GOSTX_CADES_SIGNATURE_TIMESTAMP || v->status == GOSTX_CADES_ESC_TIMESTAMP) {
    snprintf(more, sizeof more, " %zu: %s", v->index + 1, gostx_cms_ts_status_name(v->ts.status));
    if (v->ts.status == GOSTX_CMS_TS_TOKEN && v->ts.cms.status == GOSTX_CMS_CHAIN)
      snprintf(more + strlen(more), sizeof more - strlen(more), ": %s: %s",
               gostx_cms_status_name(v->ts.cms.status), gostx_x509_status_name(v->ts.cms.x509));
    else if (v->ts.status == GOSTX_CMS_TS_TOKEN)
      snprintf(more + strlen(more), sizeof more - strlen(more), ": %s", gostx_cms_status_name(v->ts.cms.status));
  } else if (v->status >= GOSTX_CADES_CERT_WITHOUT_VALUE && v->status <= GOSTX_CADES_REV_HASH_MISMATCH) {
    snprintf(more, sizeof more, " (reference %zu)", v->index + 1);
  }
  cli_err("cms: %s%s%s (the level reached: %s)", who, gostx_cades_status_name(v->status), more,
          gostx_cades_level_name(v->level));
  return CMS_EXIT_VERIFY;
}

/* The revocation values parsed: CRLs, BasicOCSPResponses. A value that
 * does not parse is refused by name (a reference met it: it is the
 * signature's, not noise). */
typedef struct rev_values {
  gostx_x509_crl crls[2 * GOSTX_CADES_MAX]; /* room for a TSA's token's own (token_values) */
  gostx_ocsp_response ocsps[2 * GOSTX_CADES_MAX];
  size_t n_crls, n_ocsps;
} rev_values;

static int read_values(const gostx_cades_info *info, rev_values *r) {
  gostx_x509_status st;
  for (r->n_crls = 0; r->n_crls < info->n_crls; r->n_crls++)
    if (gostx_x509_crl_parse(info->crls[r->n_crls], info->crl_len[r->n_crls], &r->crls[r->n_crls], &st)) {
      cli_err("cms: CAdES: revocation-values: CRL %zu: %s", r->n_crls + 1, gostx_x509_status_name(st));
      return CMS_EXIT_VERIFY;
    }
  for (r->n_ocsps = 0; r->n_ocsps < info->n_ocsps; r->n_ocsps++)
    if (gostx_ocsp_response_parse(info->ocsps[r->n_ocsps], info->ocsp_len[r->n_ocsps], &r->ocsps[r->n_ocsps])) {
      cli_err("cms: CAdES: revocation-values: OCSP response %zu: %s", r->n_ocsps + 1,
              gostx_ocsp_status_name(GOSTX_OCSP_MALFORMED));
      return CMS_EXIT_VERIFY;
    }
  return 0;
}

/* The earliest signature timestamp's time: when the signature is known
 * to have existed, the time its chain and revocation data are judged at. */
static int64_t signature_time(const gostx_cades_info *info) {
  int64_t t = info->sig_ts_time[0];
  for (size_t i = 1; i < info->n_sig_ts && i < GOSTX_CADES_MAX; i++)
    if (info->sig_ts_time[i] < t) t = info->sig_ts_time[i];
  return t;
}

/* The signer's path at the signature's time with the revocation values:
 * every certificate but the anchor must have a status, OK. */
static int path_at_time(size_t s, const gostx_cms_signed *sd, const gostx_cades_info *info,
                        const gostx_cms_verify_params *params) {
  const gostx_cms_signer_info *si = &sd->signers[s];
  rev_values *r = malloc(sizeof *r);
  gostx_x509_cert *chain = malloc((1 + GOSTX_CMS_MAX_CERTS + GOSTX_CADES_MAX) * sizeof *chain);
  gostx_x509_verify_result *res = malloc(sizeof *res);
  int rc = r && chain && res ? read_values(info, r) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  size_t n = 0;
  const gostx_x509_cert *signer = cms_signer_cert(sd, si, params->untrusted, params->n_untrusted);
  if (!rc && !signer) {
    cli_err("cms: CAdES: the signer's certificate is not in the message (nor -certfile/-untrusted)");
    rc = CMS_EXIT_VERIFY;
  }
  if (!rc) {
    chain[n++] = *signer;
    for (size_t i = 0; i < info->n_certs; i++)
      if (!gostx_x509_parse(info->certs[i], info->cert_len[i], &chain[n], NULL)) n++;
    for (size_t i = 0; i < sd->n_certs; i++) chain[n++] = sd->certs[i];
    gostx_x509_verify_opts o;
    int64_t when = signature_time(info);
    gostx_x509_verify_opts_init(&o, when);
    o.purpose = params->purpose;
    o.crls = r->crls, o.n_crls = r->n_crls;
    o.ocsps = r->ocsps, o.n_ocsps = r->n_ocsps;
    o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
    o.memo = params->memo;
    char at[64];
    cms_time_text(when, at, sizeof at);
    if (gostx_x509_verify_with(params->store, chain, n, &o, res) != GOSTX_X509_OK) {
      char who[32] = "";
      if (sd->n_signers > 1) snprintf(who, sizeof who, "signer %zu: ", s + 1);
      cli_err("cms: %sCAdES: at the signature timestamp's time (%s): depth %zu: %s", who, at, res->depth,
              res->why);
      rc = CMS_EXIT_VERIFY;
    } else {
      fprintf(stderr, "Chain and revocation values: OK at the signature timestamp's time (%s)\n", at);
    }
  }
  free(res);
  free(chain);
  free(r);
  return rc;
}

/* The time a TSA's certificate is judged at: a signature timestamp's TSA
 * at the earliest CAdES-C timestamp's time (that timestamp proves the
 * token existed then), a CAdES-C timestamp's TSA at params->now
 * (-attime, or now): nothing later vouches for it. */
static int64_t esc_time(const gostx_cades_info *info, int64_t now) {
  int64_t t = now;
  for (size_t i = 0; i < info->n_esc_ts && i < GOSTX_CADES_MAX; i++)
    if (info->esc_ts_time[i] < t) t = info->esc_ts_time[i];
  return t;
}

/* The TSA's own validation data in its token (RFC 5126 Annex B.2, what
 * -enhance writes there): its references checked against its values, its
 * certificate values appended to chain[*n], *all the signature's
 * revocation values r and then the token's. */
static int token_values(const char *what, const gostx_cms_ts_token *t, const rev_values *r, rev_values *all,
                        gostx_x509_cert *chain, size_t *n) {
  gostx_cades_info *tinfo = malloc(sizeof *tinfo);
  gostx_cades_status st;
  size_t index;
  if (!tinfo) return cli_err("out of memory"), CLI_EXIT_FAIL;
  *all = *r;
  int rc = 0;
  if (gostx_cades_tsa_values(t, tinfo, &st, &index)) {
    cli_err("cms: CAdES: %s: the TSA's validation data in its token: %s (reference %zu)", what,
            gostx_cades_status_name(st), index + 1);
    rc = CMS_EXIT_VERIFY;
  }
  for (size_t i = 0; !rc && i < tinfo->n_certs; i++)
    if (!gostx_x509_parse(tinfo->certs[i], tinfo->cert_len[i], &chain[*n], NULL)) ++*n;
  rev_values *own = rc ? NULL : malloc(sizeof *own);
  if (!rc && !own) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && (rc = read_values(tinfo, own))) cli_err("cms: CAdES: %s: in the TSA's token", what);
  for (size_t i = 0; !rc && i < own->n_crls; i++) all->crls[all->n_crls++] = own->crls[i];
  for (size_t i = 0; !rc && i < own->n_ocsps; i++) all->ocsps[all->n_ocsps++] = own->ocsps[i];
  free(own);
  free(tinfo);
  return rc;
}

/* The TSA's path (chain[n]) at when with the revocation values: OK said;
 * no data for it said, not refused (docs/ESIGN.md); values stale at when
 * (a CAdES-C timestamp's TSA judged at now, past a CRL's nextUpdate) said,
 * and the path judged at the token's time made instead, when they were
 * current; any other failure refused, named. */
static int judge_tsa(const char *what, int64_t when, int64_t made, const gostx_cms_verify_params *params,
                     const gostx_x509_cert *chain, size_t n, const rev_values *all, gostx_x509_verify_result *res) {
  gostx_x509_verify_opts o;
  char at[64];
  gostx_x509_verify_opts_init(&o, when);
  o.crls = all->crls, o.n_crls = all->n_crls, o.ocsps = all->ocsps, o.n_ocsps = all->n_ocsps;
  o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  o.memo = params->memo;
  gostx_x509_status xs = gostx_x509_verify_with(params->store, chain, n, &o, res);
  cms_time_text(when, at, sizeof at);
  if ((xs == GOSTX_X509_CRL_EXPIRED || xs == GOSTX_X509_OCSP_STALE) && made < when) {
    fprintf(stderr, "%s: TSA certificate: revocation values stale at %s (depth %zu): judged at its token's "
            "time\n", what, at, res->depth);
    return judge_tsa(what, made, made, params, chain, n, all, res);
  }
  if (xs == GOSTX_X509_OK) {
    fprintf(stderr, "%s: TSA certificate and revocation values: OK at %s\n", what, at);
    return 0;
  }
  if (xs == GOSTX_X509_NO_REVOCATION_DATA || xs == GOSTX_X509_CRL_UNAVAILABLE) {
    fprintf(stderr, "%s: TSA certificate: no revocation values for it (depth %zu): its status at %s not "
            "judged\n", what, res->depth, at);
    return 0;
  }
  cli_err("cms: CAdES: %s: the TSA's certificate at %s: depth %zu: %s", what, at, res->depth, res->why);
  return CMS_EXIT_VERIFY;
}

/* One token's TSA certificate and its path at when with the revocation
 * values (the signature's and its token's own): revoked (or any other
 * failure) refuses, named; no revocation data for it is said, not refused
 * (docs/ESIGN.md). */
static int tsa_at_time(const char *what, const uint8_t *der, size_t len, int64_t when,
                       const gostx_cms_signed *sd, const gostx_cades_info *info, const rev_values *r,
                       const gostx_cms_verify_params *params, gostx_cms_ts_token *t, gostx_x509_cert *chain,
                       gostx_x509_verify_result *res) {
  gostx_cms_ts_status st;
  if (gostx_cms_ts_parse(der, len, t, &st) || t->sd.n_signers != 1) return 0; /* named by gostx_cades_verify */
  const gostx_x509_cert *tsa = cms_signer_cert(&t->sd, &t->sd.signers[0], params->untrusted, params->n_untrusted);
  if (!tsa) {
    cli_err("cms: CAdES: %s: the TSA's certificate is not in the token (nor -untrusted)", what);
    return CMS_EXIT_VERIFY;
  }
  size_t n = 0;
  chain[n++] = *tsa;
  for (size_t i = 0; i < t->sd.n_certs; i++) chain[n++] = t->sd.certs[i];
  for (size_t i = 0; i < info->n_certs; i++)
    if (!gostx_x509_parse(info->certs[i], info->cert_len[i], &chain[n], NULL)) n++;
  for (size_t i = 0; i < sd->n_certs; i++) chain[n++] = sd->certs[i];
  rev_values *all = malloc(sizeof *all);
  int rc = all ? token_values(what, t, r, all, chain, &n) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = judge_tsa(what, when, t->gen_time, params, chain, n, all, res);
  free(all);
  return rc;
}

/* Every timestamp's TSA judged with the signature's revocation values. */
static int tsas_at_time(const gostx_cms_signed *sd, const gostx_cades_info *info,
                        const gostx_cms_verify_params *params) {
  rev_values *r = malloc(sizeof *r);
  gostx_cms_ts_token *t = malloc(sizeof *t);
  gostx_x509_cert *chain = malloc((1 + 2 * GOSTX_CMS_MAX_CERTS + 2 * GOSTX_CADES_MAX) * sizeof *chain);
  gostx_x509_verify_result *res = malloc(sizeof *res);
  int rc = r && t && chain && res ? read_values(info, r) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  int64_t at_esc = esc_time(info, params->now);
  for (size_t i = 0; !rc && i < info->n_sig_ts && i < GOSTX_CADES_MAX; i++) {
    char what[64];
    snprintf(what, sizeof what, "signature timestamp %zu", i + 1);
    rc = tsa_at_time(what, info->sig_ts[i], info->sig_ts_len[i], at_esc, sd, info, r, params, t, chain, res);
  }
  for (size_t i = 0; !rc && i < info->n_esc_ts && i < GOSTX_CADES_MAX; i++) {
    char what[64];
    snprintf(what, sizeof what, "CAdES-C timestamp %zu", i + 1);
    rc = tsa_at_time(what, info->esc_ts[i], info->esc_ts_len[i], params->now, sd, info, r, params, t, chain,
                     res);
  }
  free(res), free(chain), free(t), free(r);
  return rc;
}

int cms_cades_check(const gostx_cms_signed *sd, const gostx_cms_verify_params *params) {
  gostx_cades_info *info = malloc(sizeof *info);
  int rc = info ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  for (size_t s = 0; !rc && s < sd->n_signers; s++) {
    gostx_cades_verdict v;
    if (gostx_cades_verify(sd, s, params, info, &v)) {
      rc = cades_refuse(s, sd, &v);
      break;
    }
    /* a plain CMS signer (no signingCertificateV2, no timestamp) has no CAdES level to say */
    if (!sd->signers[s].ess_hash && v.level == GOSTX_CADES_BES) continue;
    if (v.level >= GOSTX_CADES_X_LONG && params->store) rc = path_at_time(s, sd, info, params);
    if (!rc && v.level >= GOSTX_CADES_X_LONG && params->store) rc = tsas_at_time(sd, info, params);
    if (rc) break;
    if (sd->n_signers > 1)
      fprintf(stderr, "signer %zu: level: %s\n", s + 1, gostx_cades_level_name(v.level));
    else
      fprintf(stderr, "level: %s\n", gostx_cades_level_name(v.level));
  }
  free(info);
  return rc;
}
