/* gostx cms -enhance: a CAdES-BES signature made CAdES-T (a signature
 * timestamp) and then CAdES-X Long Type 1 (complete references, the
 * chain's certificates and revocation data as values, a CAdES-C
 * timestamp over them), with lib/cms's calls (include/gostx/cades.h). The
 * chain is built to -CAfile at the signature timestamp's time and judged
 * there with the revocation data found (-ocsp URL, -ocsp-resp, -CRLfile);
 * -out is written only when everything passed (atomically, so -out may be
 * -in). Timestamps come from -tsa URL (RFC 3161 over HTTP), or in file
 * mode from -tsa-reply (one reply a run) with -tsa-query writing the
 * request of the next one needed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cms_enhance.h"
#include "http.h"

#define NET_TIMEOUT 20 /* seconds for each connect, read and write */

static gostx_cms_verify_params params_of(const enhance *e, int64_t now) {
  gostx_cms_verify_params p = {e->store, e->untrusted->c, e->untrusted->n, now, GOSTX_X509_PURPOSE_ANY, NULL};
  return p;
}

/* der (malloc'ed, e takes it) as the message from now on. */
static int take(enhance *e, uint8_t *der, size_t len) {
  gostx_cms_status st;
  free(e->der);
  e->der = der, e->len = len;
  if (gostx_cms_signed_parse(der, len, e->sd, &st)) {
    cli_err("cms: -enhance: the message made does not parse: %s", gostx_cms_status_name(st));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

int enhance_made(const enhance *e, make_fn make, const void *ctx, const char *what, uint8_t **out,
                 size_t *len) {
  gostx_cades_status st = GOSTX_CADES_OK;
  *out = NULL, *len = 0;
  int rc = make(e, ctx, NULL, 0, len, &st);
  if (!rc && !(*out = malloc(*len ? *len : 1))) rc = GOSTX_ENOMEM;
  if (!rc) rc = make(e, ctx, *out, *len, len, &st);
  if (!rc) return 0;
  free(*out);
  *out = NULL;
  cli_err("cms: -enhance: %s: %s", what, st != GOSTX_CADES_OK ? gostx_cades_status_name(st) : gostx_strerror(rc));
  return rc == GOSTX_EFORMAT ? CMS_EXIT_VERIFY : CLI_EXIT_FAIL;
}

int enhance_remake(enhance *e, make_fn make, const void *ctx, const char *what) {
  uint8_t *out;
  size_t len;
  int rc = enhance_made(e, make, ctx, what, &out, &len);
  return rc ? rc : take(e, out, len);
}

/* ---- timestamps ---- */

/* The TimeStampResp for data[len] (what the token's imprint covers): from
 * -tsa, or -tsa-reply once; or its request written to -tsa-query (then
 * e->pending, *reply NULL). what names the timestamp. */
static int fetch_reply(enhance *e, const uint8_t *data, size_t len, const char *what, uint8_t **reply,
                       size_t *reply_len) {
  const cms_args *a = e->a;
  uint8_t req[128];
  size_t req_len;
  *reply = NULL;
  if (a->tsa_reply && !e->reply_used) {
    e->reply_used = 1;
    return cli_read_file(a->tsa_reply, NULL, reply, reply_len);
  }
  if (gostx_cms_ts_request(data, len, 32, req, sizeof req, &req_len)) {
    cli_err("cms: -enhance: %s: the request: %s", what, gostx_strerror(GOSTX_ELEN));
    return CLI_EXIT_FAIL;
  }
  if (a->tsa_url) return http_post("cms: -enhance: -tsa", a->tsa_url, "application/timestamp-query", req, req_len, NET_TIMEOUT,
                                    reply, reply_len);
  if (a->tsa_query) {
    int rc = cli_write_file(a->tsa_query, req, req_len, 0);
    if (!rc) {
      e->pending = 1;
      fprintf(stderr, "%s: its request written to %s: run -enhance again on -out with its reply (-tsa-reply)\n",
              what, a->tsa_query);
    }
    return rc;
  }
  return cli_usage("cms: -enhance: %s is needed: -tsa URL, or -tsa-reply FILE (its reply; -tsa-query FILE "
                   "writes its request)", what);
}

/* A timestamp of data made, checked (imprint, TSA signature, EKU, chain to
 * -CAfile at now) and embedded by embed. */
typedef struct stamp_ctx {
  const uint8_t *token;
  size_t token_len;
  int kind; /* 0: signature-time-stamp; GOSTX_CADES_TS_ESC */
} stamp_ctx;

static int embed_stamp(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                       gostx_cades_status *st) {
  const stamp_ctx *c = ctx;
  if (!c->kind) return gostx_cms_ts_embed(e->sd, 0, c->token, c->token_len, out, cap, len);
  return gostx_cades_add_timestamp(e->sd, 0, c->kind, c->token, c->token_len, out, cap, len, st);
}

static int stamp(enhance *e, const uint8_t *data, size_t len, int kind, const char *what) {
  uint8_t *reply = NULL;
  size_t reply_len = 0;
  int rc = fetch_reply(e, data, len, what, &reply, &reply_len);
  if (!rc && reply) {
    gostx_cms_verify_params p = params_of(e, e->a->attime);
    rc = cms_ts_check_token(what, what, reply, reply_len, data, len, &p, e->t);
  }
  if (!rc && reply) {
    stamp_ctx c = {e->t->token, e->t->token_len, kind};
    rc = enhance_remake(e, embed_stamp, &c, what);
  }
  free(reply);
  return rc;
}

/* ---- the validation data ---- */

/* -ocsp URL: a status asked of the responder (a SHA-1 CertID, a nonce),
 * the response checked now against the issuer and kept. */
int enhance_ask_ocsp(enhance *e, const gostx_x509_cert *cert, const gostx_x509_cert *issuer) {
  gostx_ocsp_request req;
  uint8_t der[512], *resp = NULL;
  size_t len, resp_len;
  memset(&req, 0, sizeof req);
  req.n = 1, req.nonce_len = 16;
  if (gostx_ocsp_certid_make(issuer, cert->serial, cert->serial_len, GOSTX_OCSP_SHA1, &req.id[0]) ||
      gostx_random_bytes(req.nonce, req.nonce_len) || gostx_ocsp_request_write(&req, der, sizeof der, &len)) {
    cli_err("cms: -enhance: -ocsp: the request could not be made");
    return CLI_EXIT_FAIL;
  }
  int rc = http_post("cms: -enhance: -ocsp", e->a->ocsp_url, "application/ocsp-request", der, len, NET_TIMEOUT,
                     &resp, &resp_len);
  if (rc) return rc;
  if ((rc = cli_add_ocsp(e->a->ocsp_url, e->ocsps, resp, resp_len))) return rc;
  gostx_ocsp_check_opts o;
  gostx_ocsp_check_opts_init(&o, (int64_t)time(NULL));
  o.issuer = issuer, o.nonce = req.nonce, o.nonce_len = req.nonce_len;
  gostx_ocsp_status st = gostx_ocsp_check(&e->ocsps->r[e->ocsps->n - 1], &o, req.id, 1, NULL, NULL, NULL);
  if (st != GOSTX_OCSP_OK) {
    cli_err("cms: -enhance: -ocsp %s: %s", e->a->ocsp_url, gostx_ocsp_status_name(st));
    return CMS_EXIT_VERIFY;
  }
  return 0;
}

static int64_t signature_time(const enhance *e) {
  int64_t t = e->info->sig_ts_time[0];
  for (size_t i = 1; i < e->info->n_sig_ts && i < GOSTX_CADES_MAX; i++)
    if (e->info->sig_ts_time[i] < t) t = e->info->sig_ts_time[i];
  return t;
}

/* The signer's path at time when, with the revocation data (revocation
 * set) or without: into *res; a refusal said. */
static int path_at(enhance *e, const gostx_x509_cert *chain, size_t n, int64_t when, int revocation,
                   gostx_x509_verify_result *res) {
  gostx_x509_verify_opts o;
  char at[64];
  gostx_x509_verify_opts_init(&o, when);
  if (revocation) {
    o.crls = e->crls->c, o.n_crls = e->crls->n;
    o.ocsps = e->ocsps->r, o.n_ocsps = e->ocsps->n;
    o.crl_check = GOSTX_X509_CRL_CHECK_ALL;
  }
  if (gostx_x509_verify_with(e->store, chain, n, &o, res) == GOSTX_X509_OK) return 0;
  cms_time_text(when, at, sizeof at);
  if (revocation && e->a->noverify) {
    cli_err("warning: cms: -enhance: at the signature timestamp's time (%s): depth %zu: %s (-noverify: "
            "added anyway)", at, res->depth, res->why);
    return 0;
  }
  cli_err("cms: -enhance: the signer's chain at the signature timestamp's time (%s): depth %zu: %s", at,
          res->depth, res->why);
  return CMS_EXIT_VERIFY;
}

typedef struct validation_ctx {
  const gostx_x509_cert *signer;
  const gostx_cades_validation *v;
} validation_ctx;

static int add_values(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                      gostx_cades_status *st) {
  const validation_ctx *c = ctx;
  return gostx_cades_add_validation(e->sd, 0, c->signer, c->v, GOSTX_CADES_REFS | GOSTX_CADES_VALUES, out,
                                    cap, len, st);
}

/* X Long: the chain (built at the signature's time, judged with the
 * revocation data there) referenced and carried, with the CRLs and OCSP
 * responses for it (a TSA's go in its token: enhance_tsa_values). */
static int add_validation(enhance *e) {
  const gostx_cms_signer_info *si = &e->sd->signers[0];
  gostx_x509_cert *chain = malloc((1 + GOSTX_CMS_MAX_CERTS + CLI_CERTS_MAX) * sizeof *chain);
  gostx_x509_verify_result *res = malloc(sizeof *res);
  int rc = chain && res ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  const gostx_x509_cert *signer = cms_signer_cert(e->sd, si, e->untrusted->c, e->untrusted->n);
  if (!rc && !signer) {
    cli_err("cms: -enhance: the signer's certificate is in neither the message nor -untrusted");
    rc = CMS_EXIT_VERIFY;
  }
  size_t n = 0;
  if (!rc) {
    chain[n++] = *signer;
    for (size_t i = 0; i < e->sd->n_certs; i++) chain[n++] = e->sd->certs[i];
    for (size_t i = 0; i < e->untrusted->n; i++) chain[n++] = e->untrusted->c[i];
    rc = path_at(e, chain, n, signature_time(e), 0, res);
  }
  if (!rc && e->a->ocsp_url && res->path_len > 1) rc = enhance_ask_ocsp(e, res->path[0], res->path[1]);
  if (!rc) rc = path_at(e, chain, n, signature_time(e), 1, res);
  enhance_values *ev = rc ? NULL : malloc(sizeof *ev);
  if (!rc && !ev) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) {
    enhance_values_for(e, res, ev);
    validation_ctx c = {signer, &ev->v};
    gostx_x509_cert keep = *signer; /* signer points into the message remake replaces */
    c.signer = &keep;
    rc = enhance_remake(e, add_values, &c, "the validation data");
  }
  free(ev);
  free(res);
  free(chain);
  return rc;
}

/* ---- the steps ---- */

/* The signer's CAdES attributes now, its timestamps checked (their times
 * for the path). A TSA's path is judged here only for the tokens this run
 * gives data (enhance_tsa_values; -noverify lets that pass): one already
 * there is -verify's to judge, so TSA_PATH stops nothing. */
static int read_level(enhance *e, gostx_cades_verdict *v) {
  gostx_cms_verify_params p = params_of(e, e->a->attime);
  if (!gostx_cades_verify(e->sd, 0, &p, e->info, v) || v->status == GOSTX_CADES_TSA_PATH) return 0;
  cli_err("cms: -enhance: %s: %s (the level reached: %s)", e->a->in, gostx_cades_status_name(v->status),
          gostx_cades_level_name(v->level));
  return CMS_EXIT_VERIFY;
}

static int esc_data(const enhance *e, const void *ctx, uint8_t *out, size_t cap, size_t *len,
                    gostx_cades_status *st) {
  (void)ctx;
  return gostx_cades_ts_data(&e->sd->signers[0], GOSTX_CADES_TS_ESC, out, cap, len, st);
}

static int add_esc_stamp(enhance *e) {
  uint8_t *data;
  size_t len;
  int rc = enhance_made(e, esc_data, NULL, "the CAdES-C-time-stamp's data", &data, &len);
  if (!rc) rc = stamp(e, data, len, GOSTX_CADES_TS_ESC, "CAdES-C timestamp");
  free(data);
  return rc;
}

static int run(enhance *e) {
  const cms_args *a = e->a;
  gostx_cms_status cst;
  gostx_cades_verdict v;
  int rc = cms_read_message(a->in, a->inform, &e->der, &e->len);
  if (rc) return rc;
  if (gostx_cms_signed_parse(e->der, e->len, e->sd, &cst)) {
    cli_err("cms: %s: %s", a->in, gostx_cms_status_name(cst));
    return CMS_EXIT_VERIFY;
  }
  if (e->sd->n_signers != 1) {
    cli_err("cms: -enhance: %s has %zu signers: one signer's signature is enhanced", a->in, e->sd->n_signers);
    return CLI_EXIT_USAGE;
  }
  if ((rc = read_level(e, &v))) return rc;
  if (!e->info->n_sig_ts) {
    const gostx_cms_signer_info *si = &e->sd->signers[0];
    if ((rc = stamp(e, si->signature, si->signature_len, 0, "Signature timestamp")) || e->pending) return rc;
    if ((rc = read_level(e, &v))) return rc;
  }
  if (a->enhance_to == ENHANCE_XL1) {
    /* with the signer's, the signature-time-stamp's TSA's data: its token
     * changes now or never (a CAdES-C-time-stamp's query may be out) */
    if (!e->info->has_cert_refs && !e->info->has_rev_refs &&
        ((rc = add_validation(e)) || (rc = enhance_tsa_values(e, GOSTX_CADES_TS_SIGNATURE)) ||
         (rc = read_level(e, &v))))
      return rc;
    if (!e->info->n_esc_ts && ((rc = add_esc_stamp(e)) || e->pending)) return rc;
    if ((rc = enhance_tsa_values(e, GOSTX_CADES_TS_ESC)) || (rc = read_level(e, &v))) return rc;
    if (v.level != GOSTX_CADES_X_LONG_TYPE1) {
      cli_err("cms: -enhance: %s reached %s, not CAdES-X Long Type 1 (validation data it had already "
              "is not all met)", a->in, gostx_cades_level_name(v.level));
      return CMS_EXIT_VERIFY;
    }
  }
  fprintf(stderr, "level: %s\n", gostx_cades_level_name(v.level));
  return 0;
}

int cms_enhance(const cms_args *a) {
  enhance e;
  memset(&e, 0, sizeof e);
  e.a = a;
  e.untrusted = calloc(1, sizeof *e.untrusted);
  e.crls = calloc(1, sizeof *e.crls);
  e.ocsps = calloc(1, sizeof *e.ocsps);
  e.sd = calloc(1, sizeof *e.sd);
  e.info = calloc(1, sizeof *e.info);
  e.t = calloc(1, sizeof *e.t);
  cms_args anchors = *a;
  anchors.noverify = 0; /* -noverify here lets a revocation pass, never a chain without anchors */
  int rc = e.untrusted && e.crls && e.ocsps && e.sd && e.info && e.t ? cms_load_store(&anchors, &e.store)
                                                                     : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_load_untrusted(a, e.untrusted);
  for (size_t i = 0; !rc && i < a->n_crlfile; i++) rc = cli_load_crls(a->crlfile[i], e.crls);
  for (size_t i = 0; !rc && i < a->n_ocsp_resp; i++) rc = cli_load_ocsp(a->ocsp_resp[i], e.ocsps);
  if (!rc) rc = run(&e);
  if (!rc) rc = cms_write_message(a->out, a->outform, e.der, e.len);
  if (!rc && e.pending) fprintf(stderr, "%s written, not yet at the level asked\n", a->out);
  if (e.untrusted) cli_cert_list_free(e.untrusted);
  if (e.crls) cli_crl_list_free(e.crls);
  if (e.ocsps) cli_ocsp_list_free(e.ocsps);
  free(e.untrusted), free(e.crls), free(e.ocsps), free(e.sd), free(e.info), free(e.t), free(e.der);
  gostx_x509_store_free(e.store);
  return rc;
}
