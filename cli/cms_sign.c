/* gostx cms -sign: the signers' certificates and keys loaded, the content
 * digested (in chunks when detached), the SignedData written atomically. */
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
  if (!s->keys[i].has_private) return cli_usage("cms: %s: not a private key", a->inkey[i]);
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

/* The SignedData into a buffer of the size the library asks for. */
static int make_message(unsigned flags, const sign_state *s, const gostx_cms_hash *h,
                        const uint8_t *content, size_t content_len, uint8_t **der, size_t *len) {
  gostx_cms_sign_params params = {flags, (int64_t)time(NULL), s->chain->c, s->chain->n};
  int rc = gostx_cms_sign(s->signers, s->n, &params, h, content, content_len, NULL, 0, len);
  if (rc == 0 && !(*der = malloc(*len))) rc = GOSTX_ENOMEM;
  if (rc == 0) rc = gostx_cms_sign(s->signers, s->n, &params, h, content, content_len, *der, *len, len);
  if (rc) {
    cli_err("cms: sign: %s", gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

static unsigned hashes_wanted(const sign_state *s) {
  unsigned want = 0;
  for (size_t i = 0; i < s->n; i++) want |= s->keys[i].len == 32 ? GOSTX_CMS_HASH_256 : GOSTX_CMS_HASH_512;
  return want;
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

/* cms_sign_fn: a detached message over h, for cms_write_attached_pipe */
typedef struct detached_signing {
  unsigned flags;
  const sign_state *s;
} detached_signing;

static int sign_detached(void *ctx, const gostx_cms_hash *h, uint8_t **der, size_t *len) {
  const detached_signing *d = ctx;
  return make_message(d->flags & ~GOSTX_CMS_ATTACHED, d->s, h, NULL, 0, der, len);
}

int cms_sign(const cms_args *a) {
  sign_state s;
  memset(&s, 0, sizeof s);
  s.signer_certs = calloc(1, sizeof *s.signer_certs);
  s.chain = calloc(1, sizeof *s.chain);
  uint8_t *der = NULL;
  size_t content_len = 0, der_len = 0;
  gostx_cms_hash h;
  int rc = s.signer_certs && s.chain ? load_all(a, &s) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  int attached = (a->flags & GOSTX_CMS_ATTACHED) != 0;
  /* an attached regular file: streamed (read twice), not held whole */
  struct stat sb;
  int streamed = attached && a->in && strcmp(a->in, "-") && stat(a->in, &sb) == 0 && S_ISREG(sb.st_mode);
  detached_signing piped = {a->flags, &s};
  if (!rc && attached && !streamed) { /* a pipe: read once, written as BER */
    rc = cms_write_attached_pipe(a, hashes_wanted(&s), sign_detached, &piped, &der, &der_len);
  } else if (!rc) {
    rc = cms_hash_file(a->in, hashes_wanted(&s), &h, NULL, &content_len);
    /* signed as a detached message, an attached file's content spliced in after */
    if (!rc) rc = make_message(a->flags & ~GOSTX_CMS_ATTACHED, &s, &h, NULL, 0, &der, &der_len);
    if (!rc && streamed) rc = cms_write_attached(a, der, der_len, &h, (uint64_t)sb.st_size);
    else if (!rc) rc = cms_write_message(a->out, a->outform, der, der_len);
  }
  if (!rc && a->tsa_query) rc = write_query(a, der, der_len);
  for (size_t i = 0; i < GOSTX_CMS_MAX_SIGNERS; i++) gostx_gost3410_key_clear(&s.keys[i]);
  if (s.signer_certs) cli_cert_list_free(s.signer_certs);
  if (s.chain) cli_cert_list_free(s.chain);
  free(s.signer_certs);
  free(s.chain);
  free(der);
  return rc;
}
