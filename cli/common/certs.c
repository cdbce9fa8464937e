/* Certificate files for every command that reads them (x509, cms, pkcs12,
 * tls): PEM blocks or one DER certificate, each parsed over its own copy. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_cert_list_free(cli_cert_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
  l->n = 0;
}

static int add_der(cli_cert_list *l, const char *path, size_t block, const uint8_t *der, size_t len) {
  if (l->n == CLI_CERTS_MAX) {
    cli_err("%s: more than %d certificates (the limit for the files of one command: for gostx "
            "x509 verify a CERT file and -untrusted together)", path, CLI_CERTS_MAX);
    return CLI_EXIT_FAIL;
  }
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  memcpy(copy, der, len);
  gostx_x509_status st;
  if (gostx_x509_parse(copy, len, &l->c[l->n], &st)) {
    cli_err("%s: certificate %zu: %s", path, block, gostx_x509_status_name(st));
    free(copy);
    return CLI_EXIT_FAIL;
  }
  l->der[l->n++] = copy;
  return 0;
}

int cli_load_certs(const char *path, cli_cert_list *l) {
  cli_in in;
  uint8_t *buf = NULL;
  size_t len = 0;
  int rc = cli_in_open(&in, path);
  if (rc) return rc;
  rc = cli_in_read_all(&in, &buf, &len);
  cli_in_close(&in);
  if (rc) return rc;
  size_t before = l->n, pos = 0, der_len, block = 0;
  uint8_t *der = malloc(GOSTX_X509_CERT_MAX);
  int r = 0;
  if (!der) {
    free(buf);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  while (!rc && (r = gostx_x509_pem_next((const char *)buf, len, &pos, der, GOSTX_X509_CERT_MAX,
                                          &der_len)) == 1)
    rc = add_der(l, path, ++block, der, der_len);
  if (!rc && r == GOSTX_ELEN) {
    cli_err("%s: certificate %zu: larger than %d bytes (DER), gostx's limit for one certificate",
            path, block + 1, GOSTX_X509_CERT_MAX);
    rc = CLI_EXIT_FAIL;
  } else if (!rc && r < 0) {
    cli_err("%s: certificate %zu: malformed PEM block", path, block + 1);
    rc = CLI_EXIT_FAIL;
  }
  if (!rc && block == 0) rc = add_der(l, path, 1, buf, len); /* DER */
  if (!rc && l->n == before) rc = CLI_EXIT_FAIL;
  free(der);
  free(buf);
  return rc;
}
