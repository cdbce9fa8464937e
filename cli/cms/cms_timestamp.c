/* gostx cms's CAdES-T (RFC 3161 over a signature value, gostx/tsa.h; the
 * token added by gostx/cades.h): the TimeStampReq for a
 * signature (-tsa-query, after -sign or for an existing signature), the
 * TSA's reply checked and embedded (-tsa-reply), and the embedded tokens
 * checked by -verify. Files or "-" (stdout, stdin), so a TSA client can
 * sit in a pipe: gostx cms -tsa-query - | TSA | gostx cms -tsa-reply -. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cms_cli.h"
#include "gostx/cades.h"

/* Timestamps are for one signer's signature: the only one. */
static int one_signer(const cms_args *a, const gostx_cms_signed *sd) {
  if (sd->n_signers == 1) return 0;
  cli_err("cms: %s has %zu signers: timestamps are made for a single signer's signature", a->in,
          sd->n_signers);
  return CLI_EXIT_USAGE;
}

void cms_time_text(int64_t t, char *text, size_t cap) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (!gmtime_r(&tt, &tm) || !strftime(text, cap, "%Y-%m-%d %H:%M:%S UTC", &tm))
    snprintf(text, cap, "%lld", (long long)t);
}

int cms_ts_write_query(const char *path, const gostx_cms_signer_info *si) {
  uint8_t req[128], digest[64];
  size_t len;
  /* the imprint: the signature value hashed as the signer hashed the content */
  gostx_tsa_query_params q = {si->digest_len == 64 ? 64 : 32, digest, NULL, NULL, 0, 1};
  if (gostx_streebog(q.digest_len, si->signature, si->signature_len, digest) ||
      gostx_tsa_query_write(&q, req, sizeof req, &len)) {
    cli_err("cms: timestamp request: %s", gostx_strerror(GOSTX_ELEN));
    return CLI_EXIT_FAIL;
  }
  return cli_write_file(path, req, len, 0);
}

int cms_ts_refuse(const char *what, const gostx_cms_ts_verdict *v, int pki_status) {
  char more[700] = "";
  if (v->status == GOSTX_CMS_TS_REFUSED) snprintf(more, sizeof more, ": status %d", pki_status);
  if (v->status == GOSTX_CMS_TS_UNKNOWN_ALGORITHM) snprintf(more, sizeof more, " (OID %s)", v->oid);
  if (v->status == GOSTX_CMS_TS_TOKEN) {
    const gostx_cms_verdict *c = &v->cms;
    if (c->status == GOSTX_CMS_CHAIN)
      snprintf(more, sizeof more, ": %s: depth %zu: %s", gostx_cms_status_name(c->status), c->depth,
               gostx_x509_status_name(c->x509));
    else if (c->status == GOSTX_CMS_UNKNOWN_ALGORITHM)
      snprintf(more, sizeof more, ": %s (OID %s)", gostx_cms_status_name(c->status), c->oid);
    else
      snprintf(more, sizeof more, ": %s", gostx_cms_status_name(c->status));
  }
  cli_err("cms: %s: %s%s", what, gostx_cms_ts_status_name(v->status), more);
  return CMS_EXIT_VERIFY;
}

void cms_ts_said(const char *label, int64_t gen_time, const uint8_t *serial, size_t serial_len) {
  char when[64], text[48] = "";
  cms_time_text(gen_time, when, sizeof when);
  for (size_t i = 0; i < serial_len && i < 20; i++) snprintf(text + 2 * i, sizeof text - 2 * i, "%02x", serial[i]);
  fprintf(stderr, "%s: %s (TSA serial %s)\n", label, when, text);
}

int cms_ts_check_token(const char *what, const char *label, const uint8_t *der, size_t len,
                       const uint8_t *data, size_t data_len, const gostx_cms_verify_params *params,
                       gostx_cms_ts_token *t) {
  gostx_cms_ts_verdict v;
  gostx_cms_hash h; /* the data's digests of both sizes: the token names which it stamps */
  gostx_tsa_expect e = {&h, NULL, 0, NULL, 0, NULL, 0};
  memset(&v, 0, sizeof v);
  if (gostx_cms_ts_parse(der, len, t, &v.status)) return cms_ts_refuse(what, &v, t->pki_status);
  if (gostx_cms_hash_init(&h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512) ||
      gostx_cms_hash_update(&h, data, data_len) || gostx_cms_hash_final(&h))
    return cli_err("cms: %s: the data could not be hashed", what), CLI_EXIT_FAIL;
  if (gostx_tsa_verify(t, &e, params, &v)) return cms_ts_refuse(what, &v, 0);
  cms_ts_said(label, t->gen_time, t->serial, t->serial_len);
  return 0;
}

/* More timestamps than this on one signer are refused, not passed over. */
#define TOKENS_MAX 8

int cms_ts_check_all(const gostx_cms_signed *sd, const gostx_cms_verify_params *params) {
  const uint8_t *tokens[TOKENS_MAX];
  size_t lens[TOKENS_MAX], n;
  gostx_cms_ts_token *t = malloc(sizeof *t);
  int rc = t ? 0 : (cli_err("out of memory"), CLI_EXIT_FAIL);
  for (size_t s = 0; !rc && s < sd->n_signers; s++) {
    if (gostx_cms_ts_tokens(&sd->signers[s], tokens, lens, TOKENS_MAX, &n)) {
      cli_err("cms: signer %zu: malformed unsigned attributes", s + 1);
      rc = CMS_EXIT_VERIFY;
    } else if (n > TOKENS_MAX) {
      cli_err("cms: signer %zu: %zu signature timestamps, more than the %d checked", s + 1, n, TOKENS_MAX);
      rc = CMS_EXIT_VERIFY;
    }
    /* an X Long signer's tokens: gostx_cades_verify's, each at the time that proves it */
    if (gostx_cades_judged_at_timestamp(&sd->signers[s])) continue;
    for (size_t i = 0; !rc && i < n; i++) {
      char what[64];
      snprintf(what, sizeof what, "signer %zu", s + 1);
      rc = cms_ts_check_token(what, "Signature timestamp", tokens[i], lens[i], sd->signers[s].signature,
                              sd->signers[s].signature_len, params, t);
    }
  }
  free(t);
  return rc;
}

void cms_ts_print(FILE *f, const gostx_cms_signer_info *si) {
  const uint8_t *tokens[TOKENS_MAX];
  size_t lens[TOKENS_MAX], n = 0;
  gostx_cms_ts_token *t = malloc(sizeof *t);
  gostx_cms_ts_status st;
  if (!t || gostx_cms_ts_tokens(si, tokens, lens, TOKENS_MAX, &n)) n = 0;
  for (size_t i = 0; i < n && i < TOKENS_MAX; i++) {
    char when[64], oid[64] = "?";
    if (gostx_cms_ts_parse(tokens[i], lens[i], t, &st)) {
      fprintf(f, "        signatureTimeStampToken: %s\n", gostx_cms_ts_status_name(st));
      continue;
    }
    cms_time_text(t->gen_time, when, sizeof when);
    (void)gostx_cms_oid_text(t->policy, t->policy_len, oid, sizeof oid);
    fprintf(f, "        signatureTimeStampToken: genTime %s, policy %s, serial ", when, oid);
    for (size_t k = 0; k < t->serial_len; k++) fprintf(f, "%02x", t->serial[k]);
    fprintf(f, " (not verified here: -verify checks it)\n");
  }
  free(t);
}

/* -tsa-query for -in's signature. */
static int query_for_message(const cms_args *a) {
  uint8_t *der = NULL;
  gostx_cms_signed *sd = NULL;
  int rc = cms_load_signed(a, &der, &sd);
  if (!rc) rc = one_signer(a, sd);
  if (!rc) rc = cms_ts_write_query(a->tsa_query, &sd->signers[0]);
  free(sd);
  free(der);
  return rc;
}

/* The reply checked against -in's signature, its token embedded, -out. */
static int embed_reply(const cms_args *a, const gostx_cms_signed *sd, gostx_cms_ts_token *t,
                       const gostx_cms_verify_params *params) {
  uint8_t *reply = NULL, *out = NULL;
  size_t reply_len, out_len;
  const char *what = strcmp(a->tsa_reply, "-") ? a->tsa_reply : "-tsa-reply (stdin)";
  int rc = cli_read_file(a->tsa_reply, NULL, &reply, &reply_len);
  if (!rc)
    rc = cms_ts_check_token(what, "Signature timestamp embedded", reply, reply_len, sd->signers[0].signature,
                            sd->signers[0].signature_len, params, t);
  int sig_ts = GOSTX_CADES_TS_SIGNATURE;
  gostx_cades_status st = GOSTX_CADES_OK;
  if (!rc && (gostx_cades_add_timestamp(sd, 0, sig_ts, t->token, t->token_len, NULL, 0, &out_len, &st) ||
              !(out = malloc(out_len)) ||
              gostx_cades_add_timestamp(sd, 0, sig_ts, t->token, t->token_len, out, out_len, &out_len, &st))) {
    if (st != GOSTX_CADES_OK) cli_err("cms: timestamp: %s", gostx_cades_status_name(st));
    else cli_err("cms: timestamp: the token could not be embedded");
    rc = CLI_EXIT_FAIL;
  }
  if (!rc) rc = cms_write_message(a->out, a->outform, out, out_len);
  free(out);
  free(reply);
  return rc;
}

static int reply_for_message(const cms_args *a) {
  uint8_t *der = NULL;
  gostx_cms_signed *sd = NULL;
  gostx_x509_store *store = NULL;
  gostx_cms_ts_token *t = malloc(sizeof *t);
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  int rc = t && untrusted ? cms_load_signed(a, &der, &sd) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = one_signer(a, sd);
  if (!rc) rc = cms_load_store(a, &store);
  if (!rc) rc = cms_load_untrusted(a, untrusted);
  if (!rc) {
    gostx_cms_verify_params params = {store, untrusted->c, untrusted->n, a->v.attime, GOSTX_X509_PURPOSE_ANY, NULL};
    rc = embed_reply(a, sd, t, &params);
  }
  if (untrusted) cli_cert_list_free(untrusted);
  free(untrusted);
  gostx_x509_store_free(store);
  free(t);
  free(sd);
  free(der);
  return rc;
}

int cms_timestamp(const cms_args *a) {
  return a->tsa_reply ? reply_for_message(a) : query_for_message(a);
}
