/* GOST R 34.10-2012 speed: operations per second of key generation, signing,
 * verification and VKO on every standard curve (lib/gost3410). Each figure is
 * the median of RUNS runs of about 0.2 s of this thread's CPU time, which a
 * shared, noisy machine disturbs less than the wall clock. Not a test; no
 * peer yet (issue 28 asks for gost-engine in the same run).
 *
 * Usage: gost3410_speed [runs] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "bench_ec.h"
#include "harness.h"

static int runs = 5;

/* VKO_GOSTR3410_2012_256 on 256-bit curves, _512 on 512-bit ones */
static int do_vko(void *a) {
  gostx_bench_ec *e = a;
  return gostx_gost3410_vko(e->curve, e->priv, e->len, e->peer, 2 * e->len, e->ukm,
                            sizeof e->ukm, e->out, e->len);
}

/* Median operations per second of job over `runs` runs; 0 on an error. */
static double ops_per_s(gostx_bench_job job, gostx_bench_ec *o) {
  double v[64];
  for (int r = 0; r < runs; r++) {
    uint64_t calls;
    double s;
    if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, 0.2, job, o, &calls, &s)) return 0;
    v[r] = (double)calls / s;
  }
  return gostx_bench_median(v, runs);
}

int main(int argc, char **argv) {
  if (argc > 1) runs = atoi(argv[1]);
  if (runs < 1 || runs > 64) {
    fprintf(stderr, "usage: gost3410_speed [runs: 1..64]\n");
    return 2;
  }
  static const gostx_gost3410_curve curves[] = {
      GOSTX_GOST3410_256_A, GOSTX_GOST3410_256_B, GOSTX_GOST3410_256_C, GOSTX_GOST3410_256_D,
      GOSTX_GOST3410_512_A, GOSTX_GOST3410_512_B, GOSTX_GOST3410_512_C};
  printf("GOST R 34.10-2012, one thread, ops/s (median of %d runs, thread CPU time)\n", runs);
  printf("%-40s %9s %9s %9s %9s\n", "curve", "keygen", "sign", "verify", "vko");
  for (size_t i = 0; i < sizeof curves / sizeof curves[0]; i++) {
    gostx_bench_ec o;
    if (gostx_bench_ec_setup(&o, curves[i]) || gostx_bench_ec_verify(&o)) {
      fprintf(stderr, "gost3410_speed: %s: setup failed\n", gostx_gost3410_curve_name(curves[i]));
      return 1;
    }
    printf("%-40s %9.0f %9.0f %9.0f %9.0f\n", gostx_gost3410_curve_name(o.curve),
           ops_per_s(gostx_bench_ec_keygen, &o), ops_per_s(gostx_bench_ec_sign, &o),
           ops_per_s(gostx_bench_ec_verify, &o),
           ops_per_s(do_vko, &o));
  }
  return 0;
}
