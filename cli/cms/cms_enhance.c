/* gostx cms -enhance: the I/O around lib/cms's gostx_cades_enhance
 * (include/gostx/cades.h), which holds the policy: the timestamps from
 * -tsa URL (RFC 3161 over HTTP) or, in file mode, -tsa-reply (one reply a
 * run) with -tsa-query writing the request of the next one needed; the
 * OCSP responder at -ocsp URL; -CRLfile and -ocsp-resp read here; what
 * the library reports said on stderr. -out is written only with what the
 * library handed back (atomically, so -out may be -in). */
#include <stdlib.h>
#include <string.h>

#include "crl_file.h"
#include "cms_cli.h"
#include "gostx/cades.h"
#include "http.h"
#include "ocsp_file.h"

#define NET_TIMEOUT 20 /* seconds for each connect, read and write */

typedef struct io {
  const cms_args *a;
  int reply_used, rc;      /* -tsa-reply taken; a callback's exit status */
  uint8_t *got;            /* the last reply or response (the library copies it) */
  uint8_t *der;            /* what the library handed back */
  size_t len;
} io;

static const char *stamp_name(int kind) {
  return kind == GOSTX_CADES_TS_ESC ? "CAdES-C timestamp" : "Signature timestamp";
}

/* "signature timestamp 1": the token a line is about */
static void token_name(const gostx_cades_report *r, char *what, size_t cap) {
  snprintf(what, cap, "%s %zu", r->ts_kind == GOSTX_CADES_TS_ESC ? "CAdES-C timestamp" : "signature timestamp",
           r->ts_index + 1);
}

/* A callback's failure: the exit status kept (the cause said), the library stopped. */
static int failed(io *x, int rc) {
  x->rc = rc;
  return GOSTX_EIO;
}

static int tsa(void *ctx, int kind, const uint8_t *q, size_t qn, const uint8_t **out, size_t *out_len) {
  io *x = ctx;
  const cms_args *a = x->a;
  free(x->got);
  x->got = NULL;
  if (a->tsa_reply && !x->reply_used) {
    x->reply_used = 1;
    int rc = cli_read_file(a->tsa_reply, NULL, &x->got, out_len);
    return *out = x->got, rc ? failed(x, rc) : 0;
  }
  if (a->tsa_url) {
    int rc = http_post("cms: -enhance: -tsa", a->tsa_url, "application/timestamp-query", q, qn, NET_TIMEOUT,
                       &x->got, out_len);
    return *out = x->got, rc ? failed(x, rc) : 0;
  }
  if (a->tsa_query) {
    int rc = cli_write_file(a->tsa_query, q, qn, 0);
    if (rc) return failed(x, rc);
    fprintf(stderr, "%s: its request written to %s: run -enhance again on -out with its reply (-tsa-reply)\n",
            stamp_name(kind), a->tsa_query);
    return GOSTX_CADES_LATER;
  }
  return failed(x, cli_usage("cms: -enhance: %s is needed: -tsa URL, or -tsa-reply FILE (its reply; -tsa-query "
                             "FILE writes its request)", stamp_name(kind)));
}

static int ocsp(void *ctx, const uint8_t *req, size_t len, const uint8_t **out, size_t *out_len) {
  io *x = ctx;
  free(x->got);
  x->got = NULL;
  int rc = http_post("cms: -enhance: -ocsp", x->a->ocsp_url, "application/ocsp-request", req, len, NET_TIMEOUT,
                     &x->got, out_len);
  return *out = x->got, rc ? failed(x, rc) : 0;
}

static void said(void *ctx, const gostx_cades_report *r) {
  char what[64], at[64];
  token_name(r, what, sizeof what);
  cms_time_text(r->v.at, at, sizeof at);
  if (r->what == GOSTX_CADES_R_STAMPED)
    cms_ts_said(stamp_name(r->ts_kind), r->gen_time, r->serial, r->serial_len);
  else if (r->what == GOSTX_CADES_R_TSA_DATA)
    fprintf(stderr, "%s: the TSA's validation data added to its token\n", what);
  else if (r->what == GOSTX_CADES_R_NO_DATA)
    cli_err("warning: cms: -enhance: %s: no revocation data for the TSA's certificate (depth %zu) in -CRLfile, "
            "-ocsp-resp or -ocsp: its token carries none for it", what, r->v.depth);
  else if (r->what == GOSTX_CADES_R_CHAIN && !r->ts_kind)
    cli_err("warning: cms: -enhance: at the signature timestamp's time (%s): depth %zu: %s (-noverify: added "
            "anyway)", at, r->v.depth, r->v.why);
  else if (r->what == GOSTX_CADES_R_CHAIN)
    cli_err("warning: cms: -enhance: %s: the TSA's certificate at %s: depth %zu: %s (-noverify: added anyway)",
            what, at, r->v.depth, r->v.why);
  (void)ctx;
}

static int put(void *ctx, const uint8_t *der, size_t len) {
  io *x = ctx;
  if (!(x->der = malloc(len ? len : 1))) return GOSTX_ENOMEM;
  memcpy(x->der, der, len);
  x->len = len;
  return 0;
}

/* Why the library stopped, said: the exit status. */
static int refuse(const io *x, const gostx_cades_report *r, int rc) {
  const cms_args *a = x->a;
  char what[64], at[64];
  token_name(r, what, sizeof what);
  cms_time_text(r->v.at, at, sizeof at);
  if (r->what == GOSTX_CADES_R_INPUT && r->cms != GOSTX_CMS_OK)
    return cli_err("cms: %s: %s", a->in, gostx_cms_status_name(r->cms)), CMS_EXIT_VERIFY;
  switch (r->what) {
  case GOSTX_CADES_R_FETCH: return x->rc ? x->rc : (cli_err("cms: -enhance: %s", gostx_strerror(r->rc)), CLI_EXIT_FAIL);
  case GOSTX_CADES_R_INPUT: /* its attributes */
  case GOSTX_CADES_R_JUDGED:
    cli_err("cms: -enhance: %s: %s (the level reached: %s)", a->in, gostx_cades_status_name(r->v.status),
            gostx_cades_level_name(r->level));
    return CMS_EXIT_VERIFY;
  case GOSTX_CADES_R_STAMP: return cms_ts_refuse(stamp_name(r->ts_kind), &r->v.ts, r->pki_status);
  case GOSTX_CADES_R_OCSP: /* no response read is a failure to fetch (1), one refused a verdict (4) */
    cli_err("cms: -enhance: -ocsp %s: %s", a->ocsp_url, gostx_ocsp_status_name(r->ocsp));
    return r->ocsp == GOSTX_OCSP_MALFORMED || r->ocsp == GOSTX_OCSP_NOT_SUCCESSFUL ? CLI_EXIT_FAIL : CMS_EXIT_VERIFY;
  case GOSTX_CADES_R_NO_CERT:
    if (!r->ts_kind) cli_err("cms: -enhance: the signer's certificate is in neither the message nor -untrusted");
    else cli_err("cms: -enhance: %s: the TSA's certificate is not in the token (nor -untrusted)", what);
    return CMS_EXIT_VERIFY;
  case GOSTX_CADES_R_CHAIN:
    if (!r->ts_kind)
      cli_err("cms: -enhance: the signer's chain at the signature timestamp's time (%s): depth %zu: %s", at,
              r->v.depth, r->v.why);
    else if (!r->revocation) cli_err("cms: -enhance: %s: the TSA's chain: depth %zu: %s", what, r->v.depth, r->v.why);
    else cli_err("cms: -enhance: %s: the TSA's certificate at %s: depth %zu: %s", what, at, r->v.depth, r->v.why);
    return CMS_EXIT_VERIFY;
  case GOSTX_CADES_R_LEVEL:
    cli_err("cms: -enhance: %s reached %s, not %s (validation data it had already is not all met)", a->in,
            gostx_cades_level_name(r->level),
            gostx_cades_level_name(a->enhance_to == ENHANCE_XL1 ? GOSTX_CADES_X_LONG_TYPE1 : GOSTX_CADES_T));
    return CMS_EXIT_VERIFY;
  default: /* R_BUILD */
    cli_err("cms: -enhance: %s: %s", r->ts_kind ? what : "the validation data",
            r->v.status != GOSTX_CADES_OK ? gostx_cades_status_name(r->v.status) : gostx_strerror(rc));
    return rc == GOSTX_EFORMAT ? CMS_EXIT_VERIFY : CLI_EXIT_FAIL;
  }
}

/* The library called on the message with the data given and the anchors. */
static int run(io *x, const uint8_t *der, size_t len, gostx_x509_store *store, const cli_cert_list *untrusted,
               const cli_crl_list *crls, const cli_ocsp_list *ocsps, gostx_cades_report *r) {
  const cms_args *a = x->a;
  const uint8_t **crl = malloc((crls->n + 1) * sizeof *crl);
  size_t *crl_len = malloc((crls->n + 1) * sizeof *crl_len);
  if (!crl || !crl_len) return free(crl), free(crl_len), cli_err("out of memory"), CLI_EXIT_FAIL;
  for (size_t i = 0; i < crls->n; i++) crl[i] = crls->c[i].der, crl_len[i] = crls->c[i].der_len;
  gostx_cades_validation have = {NULL, crl, (const uint8_t *const *)ocsps->der, NULL, crl_len, ocsps->len,
                                 0, crls->n, ocsps->n};
  gostx_cms_verify_params p = {store, untrusted->c, untrusted->n, a->v.attime, GOSTX_X509_PURPOSE_ANY, NULL};
  gostx_cades_enhance_opts o = {0, a->enhance_to == ENHANCE_XL1 ? GOSTX_CADES_X_LONG_TYPE1 : GOSTX_CADES_T, &p,
                                &have, a->noverify};
  gostx_cades_fetch f = {x, tsa, a->ocsp_url ? ocsp : NULL, NULL, said, put};
  int rc = gostx_cades_enhance(der, len, &o, &f, r);
  free(crl), free(crl_len);
  if (rc) return refuse(x, r, rc);
  if (r->what == GOSTX_CADES_R_OK) fprintf(stderr, "level: %s\n", gostx_cades_level_name(r->level));
  return 0;
}

/* The message read and checked for one signer. */
static int message(const cms_args *a, uint8_t **der, size_t *len) {
  gostx_cms_status st;
  gostx_cms_signed *sd = malloc(sizeof *sd);
  int rc = sd ? cms_read_message(a->in, a->inform, der, len) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc && gostx_cms_signed_parse(*der, *len, sd, &st))
    rc = (cli_err("cms: %s: %s", a->in, gostx_cms_status_name(st)), CMS_EXIT_VERIFY);
  if (!rc && sd->n_signers != 1)
    rc = (cli_err("cms: -enhance: %s has %zu signers: one signer's signature is enhanced", a->in, sd->n_signers),
          CLI_EXIT_USAGE);
  free(sd);
  return rc;
}

int cms_enhance(const cms_args *a) {
  io x = {a, 0, 0, NULL, NULL, 0};
  gostx_x509_store *store = NULL;
  uint8_t *der = NULL;
  size_t len = 0;
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  cli_crl_list *crls = calloc(1, sizeof *crls);
  cli_ocsp_list *ocsps = calloc(1, sizeof *ocsps);
  gostx_cades_report *r = malloc(sizeof *r);
  cms_args anchors = *a;
  anchors.noverify = 0; /* -noverify here lets a revocation pass, never a chain without anchors */
  int rc = untrusted && crls && ocsps && r ? cms_load_store(&anchors, &store) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_load_untrusted(a, untrusted);
  for (size_t i = 0; !rc && i < a->n_crlfile; i++) rc = cli_load_crls(a->crlfile[i], crls);
  for (size_t i = 0; !rc && i < a->n_ocsp_resp; i++) rc = cli_load_ocsp(a->ocsp_resp[i], ocsps);
  if (!rc) rc = message(a, &der, &len);
  if (!rc) rc = run(&x, der, len, store, untrusted, crls, ocsps, r);
  if (!rc) rc = cms_write_message(a->out, a->outform, x.der, x.len);
  if (!rc && r->what == GOSTX_CADES_R_PENDING) fprintf(stderr, "%s written, not yet at the level asked\n", a->out);
  if (untrusted) cli_cert_list_free(untrusted);
  if (crls) cli_crl_list_free(crls);
  if (ocsps) cli_ocsp_list_free(ocsps);
  free(untrusted), free(crls), free(ocsps), free(r), free(der), free(x.got), free(x.der);
  gostx_x509_store_free(store);
  return rc;
}
