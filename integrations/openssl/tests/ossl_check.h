/* The pass/fail counter the provider's C tests share. */
#ifndef GOSTX_OSSL_CHECK_H
#define GOSTX_OSSL_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include <openssl/err.h>
#include <openssl/provider.h>

static unsigned long pass, fail;

/* Counts one check; a failure is printed with OpenSSL's error queue, which
 * the check leaves empty. */
static void check(int ok, const char *fmt, ...) {
  if (ok) {
    pass++;
    return;
  }
  fail++;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  ERR_print_errors_fp(stderr);
}

/* gostx from dir (the tests' argv[1]) and OpenSSL's default provider, in the
 * default library context; 0, with the reason printed, when either fails. */
static inline int load_gostx_and_default(const char *dir, OSSL_PROVIDER **gx,
                                         OSSL_PROVIDER **def) {
  if (OSSL_PROVIDER_set_default_search_path(NULL, dir) &&
      (*gx = OSSL_PROVIDER_load(NULL, "gostx")) && (*def = OSSL_PROVIDER_load(NULL, "default")))
    return 1;
  fprintf(stderr, "cannot load gostx from %s\n", dir);
  ERR_print_errors_fp(stderr);
  return 0;
}

#endif
