/* The certificate-verification options that gostx x509 verify, cms, ts
 * and xml verify share, by openssl's names (-CAfile, -CApath, -untrusted,
 * -attime): where a command keeps them, how each reads, how the anchors
 * become a trust store and -untrusted a certificate list. What differs by
 * command on purpose is a parameter: how many -untrusted files it takes
 * (cms up to 8; x509, ts and xml one, the last given). The rest of each
 * command's verification (x509's -purpose names, cms's -noverify, xml's
 * -attime read only when verifying) stays in the command. */
#ifndef GOSTX_CLI_VERIFY_OPTS_H
#define GOSTX_CLI_VERIFY_OPTS_H

#include "cli.h"

#define CLI_UNTRUSTED_MAX 8

typedef struct cli_verify_args {
  const char *who; /* the command as its messages name it: "cms", "x509 verify" */
  const char *cafile, *capath;
  const char *untrusted[CLI_UNTRUSTED_MAX];
  size_t n_untrusted, untrusted_max;
  int64_t attime; /* seconds since 1970: now (at init) unless -attime */
} cli_verify_args;

/* The ids of these options' rows, above any command's own. */
enum { CLI_V_CAFILE = 0x7f00, CLI_V_CAPATH, CLI_V_UNTRUSTED, CLI_V_ATTIME };
#define CLI_VERIFY_ROWS                                                     \
  {"CAfile", 0, CLI_PATH, CLI_V_CAFILE}, {"untrusted", 0, CLI_PATH, CLI_V_UNTRUSTED}, \
      {"attime", 0, CLI_ARG, CLI_V_ATTIME}
#define CLI_VERIFY_CAPATH_ROW {"CApath", 0, CLI_PATH, CLI_V_CAPATH}
#define CLI_VERIFY_CASES \
  case CLI_V_CAFILE:     \
  case CLI_V_CAPATH:     \
  case CLI_V_UNTRUSTED:  \
  case CLI_V_ATTIME

/* untrusted_max: 1 (one file, the last given) to CLI_UNTRUSTED_MAX. */
void cli_verify_args_init(cli_verify_args *v, const char *who, size_t untrusted_max);
/* One of the CLI_V_* options: 0, or CLI_EXIT_USAGE having said why. */
int cli_verify_opt(cli_verify_args *v, int id, const char *arg);
/* -attime's value: seconds since 1970, up to INT64_MAX / 2. */
int cli_attime(const char *arg, int64_t *out);
/* -CAfile and -CApath (those given) as a new store in *store: 0, or
 * CLI_EXIT_FAIL having said why ("WHO: FILE: certificate N: ..."). */
int cli_verify_store(const cli_verify_args *v, gostx_x509_store **store);
/* The -untrusted files' certificates added to l: 0, or CLI_EXIT_FAIL. */
int cli_verify_untrusted(const cli_verify_args *v, cli_cert_list *l);

#endif
