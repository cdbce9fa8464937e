/* The pass/fail counter the provider's C tests share. */
#ifndef GOSTX_OSSL_CHECK_H
#define GOSTX_OSSL_CHECK_H

#include <stdarg.h>
#include <stdio.h>

#include <openssl/err.h>

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

#endif
