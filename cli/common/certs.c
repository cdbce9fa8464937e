/* Certificate files, the one loader for every command that reads them
 * (x509, cms, pkcs12, req -CA, tls, the tunnel's IKE): PEM CERTIFICATE
 * blocks (other blocks, a key say, passed over) or one DER certificate,
 * each parsed over its own copy; or, for a pkcs11: URI, the certificate
 * stored on the token with the key (cli/common/p11.c). What differs between the commands (how a
 * file is named in messages, its size, how many certificates, whether a
 * refusal is a usage error, DER or not) is the caller's cli_certs_how. */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const cli_certs_how defaults = {{NULL, 0, 0}, 0, 0, 0};

void cli_cert_list_free(cli_cert_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
  l->n = 0;
}

/* "[OPT ]PATH: what": a usage error (2) or a failure (1) as how says. */
static int refuse(const cli_certs_how *h, const char *path, const char *fmt, ...) {
  char what[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  cli_err("%s%s%s: %s", h->file.opt ? h->file.opt : "", h->file.opt ? " " : "", path, what);
  return h->file.usage ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
}

static int add_der(cli_cert_list *l, const cli_certs_how *h, const char *path, size_t block,
                   const uint8_t *der, size_t len) {
  size_t most = h->most ? h->most : CLI_CERTS_MAX;
  if (h->held + l->n >= most || l->n == CLI_CERTS_MAX)
    return refuse(h, path, "more than %zu certificates%s", most,
                  h->most ? "" : " (the limit for the files of one command: for gostx x509 verify "
                                 "a CERT file and -untrusted together)");
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  memcpy(copy, der, len);
  gostx_x509_status st = GOSTX_X509_MALFORMED;
  if (gostx_x509_parse(copy, len, &l->c[l->n], &st)) {
    free(copy);
    return refuse(h, path, "certificate %zu: %s", block, gostx_x509_status_name(st));
  }
  l->der[l->n++] = copy;
  return 0;
}

int cli_certs_parse(const char *path, const cli_certs_how *how, const uint8_t *buf, size_t len,
                    cli_cert_list *l) {
  const cli_certs_how *h = how ? how : &defaults;
  size_t pos = 0, der_len, block = 0;
  uint8_t *der = malloc(GOSTX_X509_CERT_MAX);
  int rc = 0, r = 0;
  if (!der) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  while (!rc && (r = gostx_x509_pem_next((const char *)buf, len, &pos, der, GOSTX_X509_CERT_MAX,
                                          &der_len)) == 1)
    rc = add_der(l, h, path, ++block, der, der_len);
  free(der);
  if (!rc && r == GOSTX_ELEN)
    return refuse(h, path, "certificate %zu: larger than %d bytes (DER), gostx's limit for one certificate",
                  block + 1, GOSTX_X509_CERT_MAX);
  if (!rc && r < 0) return refuse(h, path, "certificate %zu: malformed PEM block", block + 1);
  if (rc || block || h->pem_only) return rc;
  /* no CERTIFICATE block: the file is one DER certificate, unless it is
   * empty or PEM of another kind (a key) */
  if (!len || memmem(buf, len, "-----BEGIN ", 11)) return refuse(h, path, "no certificate in it");
  return add_der(l, h, path, 1, buf, len);
}

int cli_certs_read(const char *path, const cli_certs_how *how, cli_cert_list *l) {
  uint8_t *buf;
  size_t len;
  if (gostx_p11_is_uri(path)) { /* a certificate on a token: the one beside a key */
    int rc = cli_p11_cert(path, &buf, &len);
    if (!rc) rc = add_der(l, how ? how : &defaults, path, 1, buf, len);
    free(buf);
    return rc;
  }
  int rc = cli_read_file(path, how ? &how->file : NULL, &buf, &len);
  if (!rc) rc = cli_certs_parse(path, how, buf, len, l);
  free(buf);
  return rc;
}

int cli_certs_read_der(const char *path, const cli_certs_how *how, uint8_t **der, size_t *len,
                       size_t *n) {
  cli_certs_how h = *how;
  h.held = *n;
  cli_cert_list *l = calloc(1, sizeof *l);
  int rc = l ? cli_certs_read(path, &h, l) : (cli_err("out of memory"), CLI_EXIT_FAIL);
  for (size_t i = 0; !rc && i < l->n; i++) {
    der[*n] = l->der[i], len[(*n)++] = l->c[i].der_len;
    l->der[i] = NULL; /* the caller's now */
  }
  if (l) cli_cert_list_free(l);
  free(l);
  return rc;
}

int cli_load_certs(const char *path, cli_cert_list *l) { return cli_certs_read(path, NULL, l); }
