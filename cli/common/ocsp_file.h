/* OCSP response files (DER, as `openssl ocsp -respout` and `gostx ocsp`
 * write them) read for path validation: `gostx x509 verify -ocsp_resp`,
 * `gostx cms -enhance -ocsp-resp`. Each parsed over its own copy. */
#ifndef GOSTX_CLI_OCSP_FILE_H
#define GOSTX_CLI_OCSP_FILE_H

#include "cli.h"
#include "gostx/ocsp.h"

#define CLI_OCSPS_MAX 16
typedef struct cli_ocsp_list {
  size_t n;
  gostx_ocsp_response r[CLI_OCSPS_MAX];
  uint8_t *der[CLI_OCSPS_MAX];
  size_t len[CLI_OCSPS_MAX];
} cli_ocsp_list;

/* Adds the response of path (DER; "-": stdin) to l: 0, or CLI_EXIT_FAIL
 * having said why (not an OCSPResponse, not successful, too many). */
int cli_load_ocsp(const char *path, cli_ocsp_list *l);
/* Adds a response already in memory (der malloc'ed: l owns it after, also
 * on failure); what names it in a refusal. */
int cli_add_ocsp(const char *what, cli_ocsp_list *l, uint8_t *der, size_t len);
void cli_ocsp_list_free(cli_ocsp_list *l);

#endif
