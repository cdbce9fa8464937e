/* What bench/cades's two verifiers (xl1_gostx.c, xl1_openssl.c) share: the
 * command line, SIG.der DOC CAFILE [SECONDS] [ROUNDS], and the timed loop. */
#ifndef XL1_RUN_H
#define XL1_RUN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

typedef struct xl1_args {
  const char *sig, *doc, *cafile;
  double seconds; /* CPU seconds in all (default 3); <= 0: no timing */
  int rounds;     /* 1 to 100 (default 5) */
} xl1_args;

/* argv into a; 0 (the usage said on stderr) when it is too short. */
static int xl1_args_read(int argc, char **argv, const char *name, xl1_args *a) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s SIG.der DOC CAFILE [SECONDS] [ROUNDS]\n", name);
    return 0;
  }
  a->sig = argv[1], a->doc = argv[2], a->cafile = argv[3];
  a->seconds = argc > 4 ? atof(argv[4]) : 3;
  a->rounds = argc > 5 ? atoi(argv[5]) : 5;
  if (a->rounds < 1 || a->rounds > 100) a->rounds = 5;
  return 1;
}

/* verify(arg) in a loop for a's CPU seconds, in its rounds; prints "who: N
 * ops/CPU-s (median of ...)". 1 when a verification failed in the loop. */
static int xl1_time(const xl1_args *a, const char *who, int (*verify)(void *), void *arg) {
  double rate[100];
  for (int r = 0; r < a->rounds; r++) {
    uint64_t calls;
    double t;
    if (gostx_bench_run_for(GOSTX_BENCH_PROCESS_CPU, a->seconds / a->rounds, verify, arg, &calls, &t))
      return 1;
    rate[r] = (double)calls / t;
  }
  printf("%s: %.1f ops/CPU-s (median of %d rounds of %.2f CPU-s)\n", who,
         gostx_bench_median(rate, a->rounds), a->rounds, a->seconds / a->rounds);
  return 0;
}

#endif
