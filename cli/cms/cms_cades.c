/* gostx cms -verify's CAdES-C / X part (include/gostx/cades.h): every
 * reference against its value, every timestamp and each timestamp's TSA
 * with its token's own data at the token's time (gostx_cades_verify), the
 * signer's chain and revocation status from the signature's own
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

/* "signature timestamp 1": the token a verdict or a line is about */
static void token_name(int kind, size_t index, char *what, size_t cap) {
  snprintf(what, cap, "%s %zu", kind == GOSTX_CADES_TS_ESC ? "CAdES-C timestamp" : "signature timestamp", index + 1);
}

/* A revocation value lib/x509 does not read (BAD_CRL, BAD_OCSP), named. */
static void bad_value(const gostx_cades_verdict *v) {
  if (v->status == GOSTX_CADES_BAD_CRL)
    cli_err("cms: CAdES: revocation-values: CRL %zu: %s", v->index + 1, gostx_x509_status_name(v->x509));
  else
    cli_err("cms: CAdES: revocation-values: OCSP response %zu: %s", v->index + 1,
            gostx_ocsp_status_name(GOSTX_OCSP_MALFORMED));
}

/* What a failed gostx_cades_verify found in a timestamp token's own
 * validation data, named. */
static int token_refuse(const gostx_cades_verdict *v) {
  char what[64];
  token_name(v->ts_kind, v->ts_index, what, sizeof what);
  if (v->status == GOSTX_CADES_BAD_CRL || v->status == GOSTX_CADES_BAD_OCSP) {
    bad_value(v);
    cli_err("cms: CAdES: %s: in the TSA's token", what);
  } else {
    cli_err("cms: CAdES: %s: the TSA's validation data in its token: %s (reference %zu)", what,
            gostx_cades_status_name(v->status), v->index + 1);
  }
  return CMS_EXIT_VERIFY;
}

/* What a failed gostx_cades_verify found, named. */
static int cades_refuse(size_t s, const gostx_cms_signed *sd, const gostx_cades_verdict *v) {
  char who[32] = "", more[600] = "";
  if (v->ts_kind) return token_refuse(v);
  if (v->status == GOSTX_CADES_BAD_CRL || v->status == GOSTX_CADES_BAD_OCSP) return bad_value(v), CMS_EXIT_VERIFY;
  if (sd->n_signers > 1) snprintf(who, sizeof who, "signer %zu: ", s + 1);
  if (v->status == GOSTX_CADES_SIGNATURE_TIMESTAMP || v->status == GOSTX_CADES_ESC_TIMESTAMP) {
    snprintf(more, sizeof more, " %zu: %s", v->index + 1, gostx_cms_ts_status_name(v->ts.status));
    if (v->ts.status == GOSTX_CMS_TS_TOKEN && v->ts.cms.status == GOSTX_CMS_CHAIN)
      snprintf(more + strlen(more), sizeof more - strlen(more), ": %s: %s",
               gostx_cms_status_name(v->ts.cms.status), gostx_x509_status_name(v->ts.cms.x509));
    else if (v->ts.status == GOSTX_CMS_TS_TOKEN)
      snprintf(more + strlen(more), sizeof more - strlen(more), ": %s", gostx_cms_status_name(v->ts.cms.status));
  } else if ((v->status >= GOSTX_CADES_CERT_WITHOUT_VALUE && v->status <= GOSTX_CADES_REV_HASH_MISMATCH) ||
             v->status == GOSTX_CADES_CERT_REF_MISMATCH || v->status == GOSTX_CADES_REV_REF_MISMATCH) {
    snprintf(more, sizeof more, " (reference %zu)", v->index + 1);
  }
  cli_err("cms: %s%s%s (the level reached: %s)", who, gostx_cades_status_name(v->status), more,
          gostx_cades_level_name(v->level));
  if (v->status == GOSTX_CADES_ESC_TIMESTAMP && v->ts.status == GOSTX_CMS_TS_TOKEN &&
      v->ts.cms.status == GOSTX_CMS_CHAIN && v->ts.cms.x509 == GOSTX_X509_EXPIRED)
    cli_err("cms: the CAdES-C timestamp is the signature's latest proof of time: its TSA's certificate must be "
            "valid at -attime or now (an archive timestamp, CAdES-A, would renew it; gostx makes none)");
  return CMS_EXIT_VERIFY;
}

/* The revocation values parsed: CRLs, BasicOCSPResponses
 * (gostx_cades_verify has refused any lib/x509 does not read). */
typedef struct rev_values {
  gostx_x509_crl crls[GOSTX_CADES_MAX];
  gostx_ocsp_response ocsps[GOSTX_CADES_MAX];
  size_t n_crls, n_ocsps;
} rev_values;

static int read_values(const gostx_cades_info *info, rev_values *r) {
  gostx_cades_verdict v = {.status = GOSTX_CADES_BAD_CRL};
  for (r->n_crls = 0; r->n_crls < info->n_crls; r->n_crls++)
    if (gostx_x509_crl_parse(info->crls[r->n_crls], info->crl_len[r->n_crls], &r->crls[r->n_crls], &v.x509))
      return v.index = r->n_crls, bad_value(&v), CMS_EXIT_VERIFY;
  v.status = GOSTX_CADES_BAD_OCSP;
  for (r->n_ocsps = 0; r->n_ocsps < info->n_ocsps; r->n_ocsps++)
    if (gostx_ocsp_response_parse(info->ocsps[r->n_ocsps], info->ocsp_len[r->n_ocsps], &r->ocsps[r->n_ocsps]))
      return v.index = r->n_ocsps, bad_value(&v), CMS_EXIT_VERIFY;
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

/* How gostx_cades_verify judged each timestamp's TSA certificate, said in
 * order up to the one it refused (failed: v names it): OK; no data for it
 * (said, not refused: docs/ESIGN.md); values stale at the time judged at
 * (a CAdES-C timestamp's TSA at -attime or now, past a CRL's nextUpdate)
 * said, the path judged at the token's time. */
static int tsas_said(const gostx_cades_info *info, const gostx_cades_verdict *v, int failed) {
  for (int esc = 0; esc < 2; esc++) {
    size_t n = esc ? info->n_esc_ts : info->n_sig_ts;
    for (size_t i = 0; i < n && i < GOSTX_CADES_MAX; i++) {
      const gostx_cades_tsa_judged *j = esc ? &info->esc_ts_tsa[i] : &info->sig_ts_tsa[i];
      int kind = esc ? GOSTX_CADES_TS_ESC : GOSTX_CADES_TS_SIGNATURE;
      char what[64], at[64];
      token_name(kind, i, what, sizeof what);
      if (j->stale) {
        cms_time_text(j->stale_at, at, sizeof at);
        fprintf(stderr, "%s: TSA certificate: revocation values stale at %s (depth %zu): judged at its token's "
                "time\n", what, at, j->depth);
      }
      cms_time_text(failed && v->ts_kind == kind && v->ts_index == i ? v->at : j->at, at, sizeof at);
      if (failed && v->ts_kind == kind && v->ts_index == i) {
        cli_err("cms: CAdES: %s: the TSA's certificate at %s: depth %zu: %s", what, at, v->depth, v->why);
        return CMS_EXIT_VERIFY;
      }
      if (j->outcome == GOSTX_CADES_TSA_OK)
        fprintf(stderr, "%s: TSA certificate and revocation values: OK at %s\n", what, at);
      else if (j->outcome == GOSTX_CADES_TSA_NO_DATA)
        fprintf(stderr, "%s: TSA certificate: no revocation values for it (depth %zu): its status at %s not "
                "judged\n", what, j->depth, at);
    }
  }
  return 0;
}

int cms_cades_check(const gostx_cms_signed *sd, const gostx_cms_verify_params *params) {
  gostx_cades_info *info = malloc(sizeof *info);
  gostx_cades_verdict *v = malloc(sizeof *v);
  int rc = info && v ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  for (size_t s = 0; !rc && s < sd->n_signers; s++) {
    /* a TSA's path refused is said after the signer's own path, as read */
    int failed = gostx_cades_verify(sd, s, params, info, v) != 0;
    if (failed && v->status != GOSTX_CADES_TSA_PATH) {
      rc = cades_refuse(s, sd, v);
      break;
    }
    /* a plain CMS signer (no signingCertificateV2, no timestamp) has no CAdES level to say */
    if (!sd->signers[s].ess_hash && v->level == GOSTX_CADES_BES) continue;
    /* an X Long signer's path, deferred by cms -verify's first check (gostx_cades_judged_at_timestamp) */
    int later = v->level >= GOSTX_CADES_X_LONG || gostx_cades_judged_at_timestamp(&sd->signers[s]);
    if (later && params->store) rc = path_at_time(s, sd, info, params);
    if (!rc) rc = tsas_said(info, v, failed);
    if (rc) break;
    if (sd->n_signers > 1)
      fprintf(stderr, "signer %zu: level: %s\n", s + 1, gostx_cades_level_name(v->level));
    else
      fprintf(stderr, "level: %s\n", gostx_cades_level_name(v->level));
  }
  free(v);
  free(info);
  return rc;
}
