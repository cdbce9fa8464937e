/* gostx cms's shared reading and writing (cli/cms/cms_cli.h): whole files,
 * messages as PEM or DER, a content digested in chunks, a SignedData
 * loaded, the verifiers' store and certificates. Called by the
 * operations' files, never by cmd_cms.c's parser. */
#include <stdlib.h>
#include <string.h>

#include "cms_cli.h"

/* The message of path as DER into *der (malloc'ed): PEM or DER as form
 * says, or told apart (DER starts with a SEQUENCE's tag). On failure *der
 * is NULL: the caller's one free is always right. */
int cms_read_message(const char *path, int form, uint8_t **der, size_t *der_len) {
  uint8_t *buf;
  size_t len;
  *der = NULL, *der_len = 0;
  int rc = cli_read_file(path, NULL, &buf, &len);
  if (rc) return rc;
  if (form == FORM_DER || (form == FORM_AUTO && len && buf[0] == 0x30)) {
    *der = buf, *der_len = len;
    return 0;
  }
  uint8_t *out = malloc(len ? len : 1);
  if (!out) rc = (cli_err("out of memory"), CLI_EXIT_FAIL);
  else if (gostx_cms_pem_read((const char *)buf, len, out, len, der_len))
    rc = (cli_err("cms: %s: no CMS or PKCS7 PEM block (or a malformed one)", path), CMS_EXIT_VERIFY);
  free(buf);
  if (rc) return free(out), *der_len = 0, rc;
  *der = out;
  return 0;
}

/* DER as the -outform asks (PEM unless DER), to path, atomically. */
int cms_write_message(const char *path, int form, const uint8_t *der, size_t len) {
  if (form == FORM_DER) return cli_write_file(path, der, len, 0);
  size_t pem_len;
  gostx_cms_pem_write(der, len, NULL, 0, &pem_len);
  char *pem = malloc(pem_len + 1);
  if (!pem) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = gostx_cms_pem_write(der, len, pem, pem_len + 1, &pem_len) ? CLI_EXIT_FAIL
                                                                    : cli_write_file(path, pem, pem_len, 0);
  free(pem);
  return rc;
}

/* The content of path (or stdin) digested in chunks; the copy of an
 * attached content kept in *keep (malloc'ed) when keep is not NULL. */
int cms_hash_file(const char *path, unsigned want, gostx_cms_hash *h, uint8_t **keep, size_t *kept) {
  if (keep) {
    int rc = cli_read_file(path, NULL, keep, kept);
    if (!rc && (gostx_cms_hash_init(h, want) || gostx_cms_hash_update(h, *keep, *kept) ||
                gostx_cms_hash_final(h)))
      rc = CLI_EXIT_FAIL;
    return rc;
  }
  cli_in in;
  uint8_t *buf = malloc(CLI_CHUNK);
  size_t got;
  int rc = buf ? cli_in_open(&in, path) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  if (rc) {
    free(buf);
    return rc;
  }
  (void)gostx_cms_hash_init(h, want);
  while (!(rc = cli_in_read(&in, buf, CLI_CHUNK, &got)) && got) (void)gostx_cms_hash_update(h, buf, got);
  cli_in_close(&in);
  free(buf);
  if (!rc) (void)gostx_cms_hash_final(h);
  return rc;
}


typedef struct mem_in {
  const uint8_t *p;
  size_t n;
} mem_in;

static int mem_read(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  mem_in *m = ctx;
  *got = m->n < cap ? m->n : cap;
  memcpy(buf, m->p, *got);
  m->p += *got, m->n -= *got;
  return 0;
}

/* A detached SignedData in BER (indefinite lengths around it, as
 * BouncyCastle's CMSSignedData.getEncoded() writes: RFC 5652 allows BER
 * outside the signed attributes) rebuilt as DER by the streaming reader
 * into *der; 0 when it was one, else *der is left as it was. */
static int detached_ber(uint8_t **der, size_t *len) {
  uint8_t *work = malloc(GOSTX_CMS_STREAM_WORK), *out = NULL;
  mem_in in = {*der, *len};
  gostx_cms_signed_stream_result res;
  if (work && !gostx_cms_signed_stream(work, GOSTX_CMS_STREAM_WORK, mem_read, &in, NULL, NULL, &res) &&
      !res.attached && (out = malloc(res.der_len)))
    memcpy(out, res.der, res.der_len);
  if (out) free(*der), *der = out, *len = res.der_len;
  free(work);
  return out ? 0 : -1;
}

int cms_load_signed(const cms_args *a, uint8_t **der, gostx_cms_signed **sd) {
  size_t der_len;
  gostx_cms_status st;
  *der = NULL;
  if (!(*sd = calloc(1, sizeof **sd))) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  int rc = cms_read_message(a->in, a->inform, der, &der_len);
  if (!rc && gostx_cms_signed_parse(*der, der_len, *sd, &st) &&
      (detached_ber(der, &der_len) || gostx_cms_signed_parse(*der, der_len, *sd, NULL))) {
    cli_err("cms: %s: %s", a->in, gostx_cms_status_name(st));
    rc = CMS_EXIT_VERIFY;
  }
  return rc;
}

/* The verifiers' inputs (-verify, -tsa-reply's check, -enhance):
 * the trust store and the untrusted certificates. */
int cms_load_store(const cms_args *a, gostx_x509_store **store) {
  *store = NULL;
  return a->noverify ? 0 : cli_verify_store(&a->v, store);
}

int cms_load_untrusted(const cms_args *a, cli_cert_list *l) {
  int rc = cli_verify_untrusted(&a->v, l);
  for (size_t i = 0; !rc && i < a->n_certfile; i++) rc = cli_load_certs(a->certfile[i], l);
  return rc;
}
