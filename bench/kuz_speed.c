/* Kuznyechik block-function speed per implementation, MB/s (10^6 B/s), wall
 * clock, median of runs. Calls the implementation tables directly, so the
 * call sizes are exactly the ones printed (1, 4, 16, 64, 128 blocks per call, and
 * 64 KiB per call).
 *   cmake --build build --target kuz_speed && build/bench/kuz_speed [runs] [ms] [wall|cpu]
 * Prints one row per implementation the CPU runs, encryption and decryption.
 * The clock is the thread's CPU time by default: single-threaded work on a
 * shared, loaded machine is otherwise charged for time it spent descheduled
 * ("wall" gives CLOCK_MONOTONIC for a quiet machine). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "bench_rows.h"
#include "kuznyechik/impl.h"

static gostx_bench_clock clock_id = GOSTX_BENCH_THREAD_CPU;

struct blocks_job {
  gostx_kuz_blocks_fn fn;
  const gostx_kuz_key *k;
  uint8_t *buf;
  size_t nblocks;
};

/* 8 calls between clock reads: a 1-block call is shorter than a clock read. */
static int blocks_x8(void *arg) {
  const struct blocks_job *j = arg;
  for (int i = 0; i < 8; i++) j->fn(j->k, j->buf, j->buf, j->nblocks);
  return 0;
}

/* MB/s of fn on calls of nblocks blocks, median of runs runs of ~ms each. */
static double speed(gostx_kuz_blocks_fn fn, const gostx_kuz_key *k, uint8_t *buf, size_t nblocks,
                    int runs, double ms) {
  struct blocks_job j = {fn, k, buf, nblocks};
  double r[32], t;
  uint64_t n;
  fn(k, buf, buf, nblocks); /* warm up (and first-use table builds) */
  for (int i = 0; i < runs; i++) {
    gostx_bench_run_for(clock_id, ms * 1e-3, blocks_x8, &j, &n, &t);
    r[i] = gostx_bench_mbps((double)n * 8 * nblocks * 16, t);
  }
  return gostx_bench_median(r, runs);
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 7;
  double ms = argc > 2 ? atof(argv[2]) : 100;
  if (argc > 3 && !strcmp(argv[3], "wall")) clock_id = GOSTX_BENCH_WALL;
  if (runs < 1) runs = 1;
  if (runs > 31) runs = 31;
  static const size_t counts[] = {1, 4, 16, 64, 128, 4096};
  static uint8_t buf[16 * 4096 + 1];
  uint8_t key[32];
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 37 + 11);
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)i;
  gostx_kuz_key k;
  gostx_kuz_set_key(&k, key);

  printf("Kuznyechik MB/s, median of %d runs of %.0f ms (%s clock); CPU features: %s\n", runs, ms,
         clock_id == GOSTX_BENCH_WALL ? "wall" : "thread CPU", gostx_cpu_features());
  printf("%-9s %-4s %9s %9s %9s %9s %9s %9s\n", "impl", "dir", "1 blk", "4 blk", "16 blk", "64 blk", "128 blk",
         "64 KiB");
  const void *rows[16];
  const size_t nrows = gostx_bench_rows(GOSTX_ALG_KUZNYECHIK, rows, 16);
  for (size_t r = 0; r < nrows; r++) {
    const struct gostx_kuz_impl *im = rows[r];
    for (int dir = 0; dir < 2; dir++) {
      gostx_kuz_blocks_fn fn = dir ? im->decrypt_blocks : im->encrypt_blocks;
      printf("%-9s %-4s", im->name, dir ? "dec" : "enc");
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
        printf(" %9.1f", speed(fn, &k, buf, counts[c], runs, ms));
      printf("\n");
      fflush(stdout);
    }
  }
  gostx_kuz_clear(&k);
  return 0;
}
