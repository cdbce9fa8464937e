/* Microbenchmarks of the hot loops behind the dispatcher, every
 * implementation this CPU runs, in one process so ratios come from the same
 * run: MGM's mul_acc (ns per block, runs of 64 blocks as mgm.c makes them)
 * and Streebog's compression (MB/s of message). The implementations take
 * turns in each repetition; best and median of the repetitions, wall clock
 * (the best is the steadier figure on a loaded machine). Build and run with
 * bench/micro.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "bench_rows.h"
#include "mgm/impl.h"
#include "streebog/impl.h"

static double now(void) { return gostx_bench_now(GOSTX_BENCH_WALL); }

static volatile uint8_t sink;

int main(int argc, char **argv) {
  const char *only = argc > 1 ? argv[1] : "";
  printf("cpu features: %s\n", gostx_cpu_features());
  if (!*only || !strcmp(only, "mgm")) {
    struct { const struct gostx_mgm_impl *impl; int ok; } mgm[8];
    const void *rows[8];
    const size_t nm = gostx_bench_rows(GOSTX_ALG_MGM, rows, 8);
    for (size_t k = 0; k < nm; k++) mgm[k].impl = rows[k], mgm[k].ok = 1;
    enum { B = 64 };
    static uint8_t h[B * 16], x[B * 16];
    uint8_t acc[16] = {0};
    for (size_t i = 0; i < sizeof h; i++) h[i] = (uint8_t)(i * 7 + 1), x[i] = (uint8_t)(i * 13 + 5);
    /* Implementations take turns in every repetition (see Streebog below). */
    enum { M_REPS = 61, M_CALLS = 200 };
    static double t128[8][M_REPS], t64[8][M_REPS];
    for (int r = 0; r < M_REPS; r++)
      for (size_t k = 0; k < nm; k++) {
        if (!mgm[k].ok) continue;
        double t0 = now();
        for (int c = 0; c < M_CALLS; c++) mgm[k].impl->mul_acc128(acc, h, x, B);
        double t1 = now();
        for (int c = 0; c < M_CALLS; c++) mgm[k].impl->mul_acc64(acc, h, x, B);
        t128[k][r] = (t1 - t0) / M_CALLS / B;
        t64[k][r] = (now() - t1) / M_CALLS / B;
      }
    printf("%-10s %21s %21s   (ns per block, runs of %d blocks)\n", "mgm", "mul_acc128 best/med",
           "mul_acc64 best/med", B);
    for (size_t k = 0; k < nm; k++) {
      if (!mgm[k].ok) continue;
      /* the median sorts the times: [0] is then the best */
      const double m128 = gostx_bench_median(t128[k], M_REPS), m64 = gostx_bench_median(t64[k], M_REPS);
      printf("%-10s %10.2f %10.2f %10.2f %10.2f\n", mgm[k].impl->name, t128[k][0] * 1e9, m128 * 1e9,
             t64[k][0] * 1e9, m64 * 1e9);
    }
    sink = acc[0];
  }
  if (!*only || !strcmp(only, "streebog")) {
    const void *sb_rows[8];
    const size_t nsb = gostx_bench_rows(GOSTX_ALG_STREEBOG, sb_rows, 8);
    const struct gostx_streebog_impl *sb[8];
    for (size_t k = 0; k < nsb; k++) sb[k] = sb_rows[k];
    uint8_t hh[64] = {0}, n[64] = {0}, m[64];
    for (int i = 0; i < 64; i++) m[i] = (uint8_t)(i * 29 + 3);
    /* Implementations take turns in every repetition and each keeps its
     * fastest and median timing, so a burst of load elsewhere on a shared
     * machine hits them alike. */
    enum { SB_REPS = 41, SB_CALLS = 3000 };
    double t[8][SB_REPS];
    for (int r = 0; r < SB_REPS; r++)
      for (size_t k = 0; k < nsb; k++) {
        double t0 = now();
        for (int c = 0; c < SB_CALLS; c++, n[0]++) sb[k]->compress(hh, n, m);
        t[k][r] = (now() - t0) / SB_CALLS;
      }
    printf("%-10s %10s %10s %8s   (compress only, MB/s = 10^6 B/s of message; ratio of best)\n",
           "streebog", "best MB/s", "median", "ratio");
    double base = 0;
    for (size_t k = 0; k < nsb; k++) {
      const double med = gostx_bench_mbps(64, gostx_bench_median(t[k], SB_REPS));
      const double best = gostx_bench_mbps(64, t[k][0]); /* sorted by the median */
      if (!base) base = best;
      printf("%-10s %10.1f %10.1f %8.2f\n", sb[k]->name, best, med, best / base);
    }
    sink = hh[0];
  }
  return 0;
}
