/* gostx cms -verify: the message parsed, the content digested (a detached
 * one in chunks), every signer verified by lib/cms with chains through
 * lib/x509; the content written to -out only after all of it passed. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"
#include "gostx/cades.h"

/* What failed, then openssl's "Verification failure" line. */
static int refuse(const char *path, const gostx_cms_verdict *v, const gostx_cms_signed *sd) {
  char what[768] = "";
  if (v->status == GOSTX_CMS_UNKNOWN_ALGORITHM || v->status == GOSTX_CMS_BAD_DIGEST_ALGORITHMS)
    snprintf(what, sizeof what, " (OID %s)", v->oid);
  if (v->status == GOSTX_CMS_CHAIN)
    snprintf(what, sizeof what, ": depth %zu: %s", v->depth, gostx_x509_status_name(v->x509));
  if (sd && sd->n_signers > 1 && v->status != GOSTX_CMS_BAD_DIGEST_ALGORITHMS) /* not a signer's */
    cli_err("cms: %s: signer %zu: %s%s", path, v->signer + 1, gostx_cms_status_name(v->status), what);
  else
    cli_err("cms: %s: %s%s", path, gostx_cms_status_name(v->status), what);
  fprintf(stderr, "CMS Verification failure\n");
  return CMS_EXIT_VERIFY;
}

/* The detached content to out, digested again on the way: a file that
 * changed since it was verified is not passed on. */
static int copy_verified(const char *in_path, const char *out_path, const gostx_cms_hash *first) {
  gostx_cms_hash again;
  cli_in in;
  cli_out out;
  uint8_t *buf = malloc(CLI_CHUNK);
  size_t got;
  int rc = buf ? cli_in_open(&in, in_path) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (rc) return free(buf), rc;
  if ((rc = cli_out_open(&out, out_path, 0))) {
    cli_in_close(&in);
    return free(buf), rc;
  }
  (void)gostx_cms_hash_init(&again, first->want);
  while (!(rc = cli_in_read(&in, buf, CLI_CHUNK, &got)) && got && !(rc = cli_out_write(&out, buf, got)))
    (void)gostx_cms_hash_update(&again, buf, got);
  cli_in_close(&in);
  free(buf);
  (void)gostx_cms_hash_final(&again);
  if (!rc && (memcmp(again.d256, first->d256, 32) || memcmp(again.d512, first->d512, 64))) {
    cli_err("cms: %s changed while it was verified: not written", in_path);
    rc = CMS_EXIT_VERIFY;
  }
  if (!rc) rc = cli_out_commit(&out);
  cli_out_abort(&out);
  return rc;
}

/* The content's digests: a detached content read in chunks (hash set),
 * an attached one left to the library (*use_hash 0). */
static int content_hash(const cms_args *a, const gostx_cms_signed *sd, gostx_cms_hash *h, int *use_hash) {
  *use_hash = 0;
  if (sd->content && a->content)
    return cli_usage("cms: %s has its content attached: -content is for detached signatures", a->in);
  if (sd->content) return 0;
  if (!a->content) return cli_usage("cms: %s is a detached signature: -content FILE is needed", a->in);
  unsigned want = gostx_cms_signed_hashes(sd);
  if (!want) return 0; /* no signer's digest is known: the verdict names its OID */
  *use_hash = 1;
  return cms_hash_file(a->content, want, h, NULL, NULL);
}

/* sd verified with the content's digests: a streamed content's (s, its
 * hash NULL when no digest was known), or the detached content's
 * (computed here), or the attached one's; -out written after. */
typedef struct streamed {
  const gostx_cms_hash *hash;
  cli_out *out; /* -out's temporary file, or NULL */
} streamed;

/* gostx_cms_signed_verify, every signer's chain at params->now but an X
 * Long signer's: that one is judged at its signature timestamp's time
 * with its values (cms_cades_check; RFC 5126 6.3.2 note 2), so its
 * certificate may have expired since. Its signature, signingCertificateV2
 * and keyUsage are checked here all the same. */
static int verify_signers(const gostx_cms_signed *sd, const gostx_cms_hash *h, const gostx_cms_verify_params *params,
                          gostx_cms_verdict *v) {
  size_t later = 0;
  for (size_t s = 0; s < sd->n_signers; s++) later += gostx_cades_judged_at_timestamp(&sd->signers[s]) != 0;
  if (!later || !params->store) return gostx_cms_signed_verify(sd, h, params, v);
  gostx_cms_verify_params no_chain = *params;
  no_chain.store = NULL;
  if (gostx_cms_signed_verify(sd, h, &no_chain, v)) return GOSTX_EAUTH;
  if (later == sd->n_signers) return 0;
  gostx_cms_signed *one = malloc(sizeof *one); /* each other signer alone, its chain now */
  if (!one) return GOSTX_ENOMEM;
  int rc = 0;
  *one = *sd;
  one->n_signers = 1;
  for (size_t s = 0; !rc && s < sd->n_signers; s++) {
    if (gostx_cades_judged_at_timestamp(&sd->signers[s])) continue;
    one->signers[0] = sd->signers[s];
    if ((rc = gostx_cms_signed_verify(one, h, params, v))) v->signer = s;
  }
  free(one);
  return rc;
}

static int verify_parsed(const cms_args *a, const gostx_cms_signed *sd, const streamed *s) {
  gostx_x509_store *store = NULL;
  cli_cert_list *untrusted = calloc(1, sizeof *untrusted);
  /* the run's valid signatures: each one met again (a CAdES-X Long's
   * chain now and at its timestamp's time, a token checked twice) is
   * answered from it, every other verified (x509.h) */
  gostx_x509_sig_memo *memo = calloc(1, sizeof *memo);
  gostx_cms_hash h;
  gostx_cms_verdict v;
  int use_hash = s && s->hash;
  int rc = untrusted && memo ? cms_load_store(a, &store) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = cms_load_untrusted(a, untrusted);
  if (!rc) cms_cades_certs(sd, untrusted); /* CAdES-X Long's chain, carried in the signature */
  if (use_hash) h = *s->hash;
  else if (!rc && !s) rc = content_hash(a, sd, &h, &use_hash);
  if (!rc) {
    gostx_cms_verify_params params = {store, untrusted->c, untrusted->n, a->v.attime, a->purpose, memo};
    int vrc = verify_signers(sd, use_hash ? &h : NULL, &params, &v);
    if (vrc == GOSTX_ENOMEM) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
    else if (vrc)
      rc = refuse(a->in, &v, sd);
    else if ((rc = cms_ts_check_all(sd, &params)) == CMS_EXIT_VERIFY ||
             (!rc && (rc = cms_cades_check(sd, &params)) == CMS_EXIT_VERIFY))
      fprintf(stderr, "CMS Verification failure\n");
  }
  if (!rc) {
    fprintf(stderr, "CMS Verification successful\n");
    if (s) rc = s->out ? cli_out_commit(s->out) : 0;
    else if (a->out && sd->content) rc = cli_write_file(a->out, sd->content, sd->content_len, 0);
    else if (a->out) rc = copy_verified(a->content, a->out, &h);
  }
  if (untrusted) cli_cert_list_free(untrusted);
  free(untrusted);
  free(memo);
  gostx_x509_store_free(store);
  return rc;
}

static int out_write(void *ctx, const uint8_t *p, size_t len) { return cli_out_write(ctx, p, len); }

/* Without -content: the message streamed (gostx_cms_signed_stream), its
 * attached content digested on the way into -out's temporary file, which
 * is put in place only after every check passed. */
static int verify_streamed(const cms_args *a, uint8_t *work, gostx_cms_signed *sd) {
  cms_stream_in in;
  cli_out out;
  gostx_cms_signed_stream_result res;
  gostx_cms_status st;
  int rc = cms_stream_open(&in, a->in, a->inform);
  if (rc) return rc;
  if (a->out && (rc = cli_out_open(&out, a->out, 0))) return cms_stream_close(&in), rc;
  int lrc = gostx_cms_signed_stream(work, GOSTX_CMS_STREAM_WORK, cms_stream_read, &in,
                                    a->out ? out_write : NULL, &out, &res);
  if (lrc && in.failed) rc = lrc; /* said already */
  else if (lrc > 0) rc = lrc;
  else if (lrc) /* TOO_LARGE names the element */
    rc = (cli_err("cms: %s: %s%s%s", a->in, gostx_cms_status_name(res.status), res.too_large ? ": " : "",
                  res.too_large ? res.too_large : ""),
          CMS_EXIT_VERIFY);
  else if (!res.attached)
    rc = cli_usage("cms: %s is a detached signature: -content FILE is needed", a->in);
  else if (gostx_cms_signed_parse(res.der, res.der_len, sd, &st))
    rc = (cli_err("cms: %s: %s", a->in, gostx_cms_status_name(st)), CMS_EXIT_VERIFY);
  if (rc == CMS_EXIT_VERIFY) fprintf(stderr, "CMS Verification failure\n");
  streamed s = {res.hashed ? &res.hash : NULL, a->out ? &out : NULL};
  if (!rc) rc = verify_parsed(a, sd, &s);
  if (a->out) cli_out_abort(&out);
  cms_stream_close(&in);
  return rc;
}

int cms_verify(const cms_args *a) {
  uint8_t *der = NULL;
  gostx_cms_signed *sd = NULL;
  int rc;
  if (!a->content) { /* attached: any size, streamed */
    uint8_t *work = malloc(GOSTX_CMS_STREAM_WORK);
    rc = work && (sd = calloc(1, sizeof *sd)) ? verify_streamed(a, work, sd)
                                              : (cli_err("out of memory"), CLI_EXIT_FAIL);
    free(work);
    free(sd);
    return rc;
  }
  rc = cms_load_signed(a, &der, &sd);
  if (rc == CMS_EXIT_VERIFY) fprintf(stderr, "CMS Verification failure\n");
  if (!rc) rc = verify_parsed(a, sd, NULL);
  free(sd);
  free(der);
  return rc;
}
