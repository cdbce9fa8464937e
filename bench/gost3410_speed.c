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
#include "harness.h"

static int runs = 5;

struct op {
  gostx_gost3410_curve curve;
  size_t len;
  uint8_t priv[64], pub[128], peer[128], digest[64], sig[128], ukm[8], out[64];
};

static int do_keygen(void *a) {
  struct op *o = a;
  uint8_t d[64], q[128];
  return gostx_gost3410_keygen(o->curve, d, o->len, q, 2 * o->len);
}
static int do_sign(void *a) {
  struct op *o = a;
  return gostx_gost3410_sign(o->curve, o->priv, o->len, o->digest, o->len, o->sig, 2 * o->len);
}
static int do_verify(void *a) {
  struct op *o = a;
  return gostx_gost3410_verify(o->curve, o->pub, 2 * o->len, o->digest, o->len, o->sig,
                               2 * o->len);
}
static int do_vko(void *a) {
  struct op *o = a;
  return gostx_gost3410_vko(o->curve, o->priv, o->len, o->peer, 2 * o->len, o->ukm,
                            sizeof o->ukm, o->out, o->len);
}

/* Median operations per second of job over `runs` runs; 0 on an error. */
static double ops_per_s(gostx_bench_job job, struct op *o) {
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
    struct op o;
    memset(&o, 0, sizeof o);
    o.curve = curves[i];
    o.len = gostx_gost3410_size(o.curve);
    uint8_t peer_priv[64];
    if (gostx_gost3410_keygen(o.curve, o.priv, o.len, o.pub, 2 * o.len) ||
        gostx_gost3410_keygen(o.curve, peer_priv, o.len, o.peer, 2 * o.len) ||
        gostx_random_bytes(o.digest, o.len) || gostx_random_bytes(o.ukm, sizeof o.ukm) ||
        do_sign(&o) || do_verify(&o)) {
      fprintf(stderr, "gost3410_speed: %s: setup failed\n",
              gostx_gost3410_curve_name(o.curve));
      return 1;
    }
    printf("%-40s %9.0f %9.0f %9.0f %9.0f\n", gostx_gost3410_curve_name(o.curve),
           ops_per_s(do_keygen, &o), ops_per_s(do_sign, &o), ops_per_s(do_verify, &o),
           ops_per_s(do_vko, &o));
  }
  return 0;
}
