/* gostx ts -verify: a reply or token checked against the data (read in
 * chunks, both Streebog sizes at once), a digest, or the query it answers
 * (its imprint, nonce and policy), with the TSA's chain to -CAfile.
 * "Verification: OK" or "Verification: FAILED" on stdout as openssl ts
 * prints them, why on stderr. */
#include <stdlib.h>
#include <string.h>

#include "ts_cli.h"

static int hash_data(const char *path, gostx_cms_hash *h) {
  cli_in in;
  uint8_t *buf = malloc(CLI_CHUNK);
  size_t got;
  int rc = buf ? cli_in_open(&in, path) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (rc) return free(buf), rc;
  (void)gostx_cms_hash_init(h, GOSTX_CMS_HASH_256 | GOSTX_CMS_HASH_512);
  while (!(rc = cli_in_read(&in, buf, CLI_CHUNK, &got)) && got) (void)gostx_cms_hash_update(h, buf, got);
  cli_in_close(&in);
  free(buf);
  if (!rc) (void)gostx_cms_hash_final(h);
  return rc;
}

/* What the token must stamp: e filled, its bytes kept in *keep/h/d. */
static int expectation(const ts_args *a, gostx_tsa_expect *e, gostx_cms_hash *h, uint8_t **keep,
                       gostx_tsa_query *q) {
  size_t len;
  uint32_t fail;
  memset(e, 0, sizeof *e);
  *keep = NULL;
  if (a->data) {
    int rc = hash_data(a->data, h);
    e->hash = h;
    return rc;
  }
  if (a->digest) {
    if (cli_hex("-digest", a->digest, keep, &len)) return CLI_EXIT_USAGE;
    if (len != 32 && len != 64) return cli_usage("ts: -digest: %zu bytes: 32 or 64 are a Streebog digest", len);
    e->digest = *keep, e->digest_len = len;
    return 0;
  }
  int rc = cli_read_file(a->queryfile, &(cli_file){NULL, TS_QUERY_MAX, 0}, keep, &len);
  if (rc) return rc;
  if (gostx_tsa_query_parse(*keep, len, q, &fail)) {
    cli_err("ts: -queryfile %s: not a TimeStampReq: %s", a->queryfile, gostx_tsa_fail_name(fail));
    return CLI_EXIT_FAIL;
  }
  e->digest = q->imprint, e->digest_len = q->imprint_len;
  e->nonce = q->nonce, e->nonce_len = q->nonce_len;
  e->policy = q->policy, e->policy_len = q->policy_len;
  return 0;
}

static int failed(const char *fmt, const char *what, int detail) {
  printf("Verification: FAILED\n");
  fflush(stdout);
  if (detail >= 0) cli_err(fmt, what, detail);
  else cli_err(fmt, what);
  return CLI_EXIT_FAIL;
}

/* The verdict said as cms_timestamp.c says it: the token's own failure too. */
static int verdict_failed(const gostx_cms_ts_verdict *v) {
  char more[600] = "";
  const gostx_cms_verdict *c = &v->cms;
  if (v->status == GOSTX_CMS_TS_UNKNOWN_ALGORITHM) snprintf(more, sizeof more, " (OID %s)", v->oid);
  if (v->status == GOSTX_CMS_TS_TOKEN && c->status == GOSTX_CMS_CHAIN)
    snprintf(more, sizeof more, ": %s: depth %zu: %s", gostx_cms_status_name(c->status), c->depth,
             gostx_x509_status_name(c->x509));
  else if (v->status == GOSTX_CMS_TS_TOKEN)
    snprintf(more, sizeof more, ": %s", gostx_cms_status_name(c->status));
  char line[800];
  snprintf(line, sizeof line, "%s%s", gostx_cms_ts_status_name(v->status), more);
  return failed("ts: -verify: %s", line, -1);
}

static int check(const ts_args *a, const uint8_t *der, size_t len, gostx_x509_store *store,
                 cli_cert_list *untrusted) {
  static gostx_cms_ts_token t;
  static gostx_tsa_query q;
  gostx_cms_ts_status st;
  gostx_cms_ts_verdict v;
  gostx_tsa_expect e;
  gostx_cms_hash h;
  uint8_t *keep;
  if (gostx_cms_ts_parse(der, len, &t, &st)) {
    if (st == GOSTX_CMS_TS_REFUSED)
      return failed("ts: -verify: %s: status %d", gostx_cms_ts_status_name(st), t.pki_status);
    return failed("ts: -verify: %s", gostx_cms_ts_status_name(st), -1);
  }
  int rc = expectation(a, &e, &h, &keep, &q);
  if (rc) return free(keep), rc;
  gostx_cms_verify_params vp = {store, untrusted->c, untrusted->n, a->v.attime, GOSTX_X509_PURPOSE_ANY, NULL};
  rc = gostx_tsa_verify(&t, &e, &vp, &v);
  free(keep);
  if (rc) return verdict_failed(&v);
  printf("Verification: OK\n");
  /* which of RFC 5816's two forms named the TSA's certificate */
  size_t alg = t.sd.signers[0].ess_hash_alg;
  printf("TSA certificate named by: %s\n",
         alg == GOSTX_CMS_ESS_SHA1_V1 ? "signingCertificate (ESSCertID, SHA-1)"
         : alg == GOSTX_CMS_ESS_SHA256 ? "signingCertificateV2 (ESSCertIDv2, SHA-256)"
         : alg == GOSTX_CMS_ESS_STREEBOG512 ? "signingCertificateV2 (ESSCertIDv2, Streebog-512)"
                                            : "signingCertificateV2 (ESSCertIDv2, Streebog-256)");
  return 0;
}

int ts_verify(const ts_args *a) {
  uint8_t *der = NULL;
  size_t len;
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  gostx_x509_store *store = NULL;
  int rc = untrusted ? cli_verify_store(&a->v, &store) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cli_verify_untrusted(&a->v, untrusted);
  if (!rc) rc = cli_read_file(a->in, &(cli_file){NULL, TS_REPLY_MAX, 0}, &der, &len);
  if (!rc) rc = check(a, der, len, store, untrusted);
  free(der);
  if (untrusted) cli_cert_list_free(untrusted);
  free(untrusted);
  gostx_x509_store_free(store);
  return rc;
}
