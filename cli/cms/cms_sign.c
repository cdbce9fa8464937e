/* gostx cms -sign: the signers' certificates and keys loaded, -in read
 * once through lib/cms's streaming signer, the message written atomically
 * (a temporary file renamed at the end). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cms_cli.h"

typedef struct sign_state {
  cli_cert_list *signer_certs, *chain;
  gostx_gost3410_key keys[GOSTX_CMS_MAX_SIGNERS];
  gostx_cms_signer signers[GOSTX_CMS_MAX_SIGNERS];
  size_t n;
} sign_state;

/* Signer i: the first certificate of its -signer file and its -inkey's
 * private key, which must be that certificate's. */
static int load_signer(const cms_args *a, sign_state *s, size_t i) {
  size_t first = s->signer_certs->n;
  int rc = cli_load_certs(a->signer[i], s->signer_certs);
  if (rc) return rc;
  const gostx_x509_cert *cert = &s->signer_certs->c[first];
  rc = cli_load_key_pass(a->inkey[i], &s->keys[i], "-passin", a->passin);
  if (rc) return rc;
  if (!gostx_gost3410_key_is_private(&s->keys[i])) return cli_usage("cms: %s: not a private key", a->inkey[i]);
  if ((rc = cli_key_2012("cms -sign", a->inkey[i], &s->keys[i]))) return rc;
  if (cert->key_alg == GOSTX_X509_KEY_2001 || cert->curve != s->keys[i].curve ||
      cert->pub_len != 2 * s->keys[i].len || memcmp(cert->pub, s->keys[i].q, cert->pub_len))
    return cli_usage("cms: %s is not the private key of %s", a->inkey[i], a->signer[i]);
  s->signers[i].cert = cert;
  s->signers[i].key = &s->keys[i];
  return 0;
}

static int load_all(const cms_args *a, sign_state *s) {
  int rc = 0;
  for (size_t i = 0; !rc && i < a->n_certfile; i++) rc = cli_load_certs(a->certfile[i], s->chain);
  for (s->n = 0; !rc && s->n < a->n_signer; s->n++) rc = load_signer(a, s, s->n);
  return rc;
}

/* -tsa-query: the TimeStampReq for the signature just made (CAdES-T's
 * first half; the reply is embedded later by -tsa-reply). */
static int write_query(const cms_args *a, const uint8_t *der, size_t len) {
  gostx_cms_signed *sd = calloc(1, sizeof *sd);
  int rc = sd && !gostx_cms_signed_parse(der, len, sd, NULL) ? 0 : CLI_EXIT_FAIL;
  if (!rc) rc = cms_ts_write_query(a->tsa_query, &sd->signers[0]);
  else cli_err("cms: -tsa-query: the signature could not be read back");
  free(sd);
  return rc;
}

/* -in for gostx_cms_sign_stream; its errors printed, then the exit status. */
static int read_in(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  return cli_in_read(ctx, buf, cap, got);
}

/* -in read once and signed as it goes by (lib/cms streams it): an
 * attached regular file as DER (its size known), a pipe as BER. */
static int sign_stream(const cms_args *a, const sign_state *s, uint8_t **work, gostx_cms_sign_stream_result *res) {
  gostx_cms_sign_params sp = {a->flags, (int64_t)time(NULL), s->chain->c, s->chain->n};
  gostx_cms_sign_stream_params p = {s->signers, s->n, &sp, GOSTX_CMS_LEN_UNKNOWN, NULL, 0};
  struct stat sb;
  cli_in in;
  cms_stream_out out;
  int rc = cli_in_open(&in, a->in);
  if (rc) return rc;
  if (!in.is_stdin && fstat(fileno(in.f), &sb) == 0 && S_ISREG(sb.st_mode)) p.content_len = (uint64_t)sb.st_size;
  if ((rc = cms_stream_out_open(&out, a->out, a->outform))) return cli_in_close(&in), rc;
  for (size_t room = GOSTX_CMS_STREAM_WORK;;) { /* the room the library asks for, before it reads */
    free(*work);
    p.work = *work = malloc(p.work_len = room);
    rc = p.work ? gostx_cms_sign_stream(&p, read_in, &in, cms_stream_write, &out, res) : GOSTX_ENOMEM;
    if (rc != GOSTX_ELEN || !res->work_needed || room >= res->work_needed) break;
    room = res->work_needed;
  }
  if (rc == GOSTX_ELEN && p.content_len != GOSTX_CMS_LEN_UNKNOWN)
    rc = (cli_err("cms: %s changed while it was signed: nothing written", a->in), CLI_EXIT_FAIL);
  else if (rc && rc != CLI_EXIT_FAIL)
    rc = (cli_err("cms: sign: %s", gostx_strerror(rc)), CLI_EXIT_FAIL);
  if (!rc) rc = cms_stream_out_commit(&out);
  cms_stream_out_close(&out);
  cli_in_close(&in);
  return rc;
}

int cms_sign(const cms_args *a) {
  sign_state s;
  memset(&s, 0, sizeof s);
  s.signer_certs = calloc(1, sizeof *s.signer_certs);
  s.chain = calloc(1, sizeof *s.chain);
  uint8_t *work = NULL;
  gostx_cms_sign_stream_result res;
  int rc = s.signer_certs && s.chain ? load_all(a, &s) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (!rc) rc = sign_stream(a, &s, &work, &res);
  if (!rc && a->tsa_query) rc = write_query(a, res.der, res.der_len);
  for (size_t i = 0; i < GOSTX_CMS_MAX_SIGNERS; i++) gostx_gost3410_key_clear(&s.keys[i]);
  if (s.signer_certs) cli_cert_list_free(s.signer_certs);
  if (s.chain) cli_cert_list_free(s.chain);
  free(s.signer_certs);
  free(s.chain);
  free(work);
  return rc;
}
