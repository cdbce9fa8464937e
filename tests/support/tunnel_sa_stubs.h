/* What cli/tunnel/tunnel_sa.c calls outside itself, for the tests that
 * include it (test_tunnel_sa, test_tunnel_ike): cli_err to stderr, and the
 * static keys' state file, which no SA of theirs is (reaching it aborts).
 * Include once, after tunnel_sa.c. */
#ifndef GOSTX_TEST_TUNNEL_SA_STUBS_H
#define GOSTX_TEST_TUNNEL_SA_STUBS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void t_vsay(const char *fmt, va_list ap) {
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_vsay(fmt, ap);
  va_end(ap);
}

int tunnel_out_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t last) {
  (void)sf, (void)sa, (void)last;
  abort();
}

int tunnel_in_reserve(struct tunnel_state *sf, struct tunnel_sa *sa, uint64_t top) {
  (void)sf, (void)sa, (void)top;
  abort();
}

#endif
