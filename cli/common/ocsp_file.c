/* OCSP response files read (ocsp_file.h). */
#include <stdlib.h>

#include "ocsp_file.h"

void cli_ocsp_list_free(cli_ocsp_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->der[i]);
  l->n = 0;
}

int cli_add_ocsp(const char *what, cli_ocsp_list *l, uint8_t *der, size_t len) {
  if (l->n == CLI_OCSPS_MAX) {
    free(der);
    cli_err("%s: more than %d OCSP responses (gostx's limit for one command)", what, CLI_OCSPS_MAX);
    return CLI_EXIT_FAIL;
  }
  gostx_ocsp_response *r = &l->r[l->n];
  if (gostx_ocsp_response_parse(der, len, r)) {
    free(der);
    cli_err("%s: %s", what, gostx_ocsp_status_name(GOSTX_OCSP_MALFORMED));
    return CLI_EXIT_FAIL;
  }
  if (r->status != GOSTX_OCSP_RESP_SUCCESSFUL) {
    free(der);
    cli_err("%s: %s (responseStatus %d)", what, gostx_ocsp_status_name(GOSTX_OCSP_NOT_SUCCESSFUL),
            r->status);
    return CLI_EXIT_FAIL;
  }
  l->der[l->n] = der;
  l->len[l->n++] = len;
  return 0;
}

int cli_load_ocsp(const char *path, cli_ocsp_list *l) {
  uint8_t *der = NULL;
  size_t len = 0;
  int rc = cli_read_file(path, NULL, &der, &len);
  if (rc) return rc;
  return cli_add_ocsp(path, l, der, len);
}
