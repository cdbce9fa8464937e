/* CRL files for `gostx x509 verify -CRLfile` (and whatever reads CRLs):
 * PEM "X509 CRL" blocks, several to a file, or one DER CRL, each parsed
 * over its own copy. */
#ifndef GOSTX_CLI_CRL_FILE_H
#define GOSTX_CLI_CRL_FILE_H

#include "cli.h"

#define CLI_CRLS_MAX 256
typedef struct cli_crl_list {
  size_t n;
  gostx_x509_crl c[CLI_CRLS_MAX];
  uint8_t *der[CLI_CRLS_MAX];
} cli_crl_list;

/* Adds path's CRLs to l: 0, or CLI_EXIT_FAIL having said why (the file
 * and block, the parser's named status: "crl: delta CRLs are not
 * supported", ...). */
int cli_load_crls(const char *path, cli_crl_list *l);
void cli_crl_list_free(cli_crl_list *l);

#endif
