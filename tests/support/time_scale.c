/* How long a test may wait, scaled to the machine (tests/README.md,
 * "Waiting on a busy or slow machine"): the C side of
 * tests/support/time_factor.sh, with the same rule, so a C test under a
 * shell test (or ctest directly) waits as the shell tests do. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "testutil.h"

static unsigned up(double v) { /* v rounded up (no libm) */
  unsigned u = (unsigned)v;
  return u + ((double)u < v);
}

/* A positive decimal number, or 0. */
static double positive(const char *s) {
  char *end;
  if (!s || !*s) return 0;
  double v = strtod(s, &end);
  return *end == 0 && v > 0 && v < 1e6 ? v : 0;
}

unsigned t_time_scale(void) {
  static unsigned scale;
  if (scale) return scale;
  double s = positive(getenv("GOSTX_TEST_TIME_SCALE")); /* a shell test's, as it computed it */
  if (s == 0) {
    const char *f = getenv("GOSTX_TEST_TIME_FACTOR");
    s = f ? positive(f) : 1;
    if (s == 0) {
      fprintf(stderr, "GOSTX_TEST_TIME_FACTOR='%s': not a positive number\n", f);
      exit(2);
    }
    double load = 0;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
      if (fscanf(la, "%lf", &load) != 1) load = 0;
      fclose(la);
    }
    unsigned per_core = up(load / (double)(n > 0 ? n : 1));
    s *= per_core < 1 ? 1 : per_core > 8 ? 8 : per_core;
  }
  scale = up(s);
  return scale;
}
