/* CRL files read (crl_file.h): PEM blocks or one DER CRL. */
#include <stdlib.h>
#include <string.h>

#include "crl_file.h"

void cli_crl_list_free(cli_crl_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
  l->n = 0;
}

static int add_der(cli_crl_list *l, const char *path, size_t block, const uint8_t *der, size_t len) {
  if (l->n == CLI_CRLS_MAX) {
    cli_err("%s: more than %d CRLs (gostx's limit for one command)", path, CLI_CRLS_MAX);
    return CLI_EXIT_FAIL;
  }
  uint8_t *copy = malloc(len ? len : 1);
  if (!copy) {
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  memcpy(copy, der, len);
  gostx_x509_status st;
  if (gostx_x509_crl_parse(copy, len, &l->c[l->n], &st)) {
    cli_err("%s: CRL %zu: %s", path, block, gostx_x509_status_name(st));
    free(copy);
    return CLI_EXIT_FAIL;
  }
  l->der[l->n++] = copy;
  return 0;
}

int cli_load_crls(const char *path, cli_crl_list *l) {
  cli_in in;
  uint8_t *buf = NULL, *der = NULL;
  size_t len = 0, pos = 0, der_len, block = 0;
  int rc = cli_in_open(&in, path), r = 0;
  if (rc) return rc;
  rc = cli_in_read_all(&in, &buf, &len);
  cli_in_close(&in);
  if (rc) return rc;
  if (!(der = malloc(len ? len : 1))) {
    free(buf);
    cli_err("out of memory");
    return CLI_EXIT_FAIL;
  }
  while (!rc && (r = gostx_x509_crl_pem_next((const char *)buf, len, &pos, der, len, &der_len)) == 1)
    rc = add_der(l, path, ++block, der, der_len);
  if (!rc && r < 0) {
    cli_err("%s: CRL %zu: malformed PEM block", path, block + 1);
    rc = CLI_EXIT_FAIL;
  }
  if (!rc && block == 0) rc = add_der(l, path, 1, buf, len); /* DER */
  free(der);
  free(buf);
  return rc;
}
