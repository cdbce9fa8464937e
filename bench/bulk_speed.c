/* Bulk engine speed (not a test): Kuznyechik CTR and MGM on a large buffer
 * with 1, 2, ... threads (scaling and efficiency), and sector batches of
 * 512-byte sectors (per-sector keys and one key) against one-stream calls.
 *
 * Build (after building the library in build/):
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibench/harness bench/bulk_speed.c \
 *      bench/harness/harness.c build/libgostx.a -lpthread -o bulk_speed
 * (or cmake --build build --target bulk_speed: build/bench/bulk_speed)
 * Run: ./bulk_speed [MiB=64] [repetitions=3] [max threads=nproc]
 * (MiB = 0: only the sector batches). GOSTX_IMPL=LEVEL (gostx_levels()) picks
 * the implementation level (the header line names the one that ran).
 * Each figure is the best of the repetitions (the machine may be shared). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gostx.h"
#include "harness.h"

static double now(void) { return gostx_bench_now(GOSTX_BENCH_WALL); }

/* A failed batch call would time nothing: stop. */
static void must(int rc, const char *what) {
  if (rc == GOSTX_OK) return;
  fprintf(stderr, "bulk_speed: %s: %s\n", what, gostx_strerror(rc));
  exit(1);
}

static void fill(uint8_t *p, size_t len, uint64_t seed) {
  uint64_t x = seed | 1;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = (uint8_t)x;
  }
}

static double cpu_now(void) { return gostx_bench_now(GOSTX_BENCH_PROCESS_CPU); }

static int reps = 3;
static double last_cpu; /* CPU seconds (all threads) of the best run */
static double min_cpu;  /* the least CPU seconds (all threads) of the runs */

/* Best wall time of reps runs of the statement; last_cpu: its CPU time;
 * min_cpu: the least CPU time of any run (on a loaded machine the CPU time
 * of a one-thread run is a steadier measure than its wall time). */
#define BEST(var, stmt)                          \
  do {                                           \
    var = 1e30;                                  \
    min_cpu = 1e30;                              \
    for (int r_ = 0; r_ < reps; r_++) {          \
      double t0_ = now(), c0_ = cpu_now();       \
      stmt;                                      \
      double t_ = now() - t0_, c_ = cpu_now() - c0_; \
      if (c_ < min_cpu) min_cpu = c_;            \
      if (t_ < var) {                            \
        var = t_;                                \
        last_cpu = c_;                           \
      }                                          \
    }                                            \
  } while (0)

static double mbs(size_t bytes, double s) { return gostx_bench_mbps((double)bytes, s); }

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
  const int scaling = mib > 0;
  if (!scaling) mib = 1;
  if (argc > 2) reps = atoi(argv[2]);
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned maxth = argc > 3 ? (unsigned)atoi(argv[3]) : (unsigned)(ncpu > 0 ? ncpu : 1);
  if (reps < 1) reps = 1;
  if (maxth < 1) maxth = 1;
  const size_t len = mib << 20;
  const size_t blen0 = (size_t)4 << 20; /* the sector batches' 4 MiB */
  uint8_t *buf = malloc(len > blen0 ? len : blen0), *tag = malloc(16), key[64], iv[16], nonce[16];
  if (!buf) return 1;
  fill(buf, len > blen0 ? len : blen0, 1);
  fill(key, sizeof key, 2);
  fill(iv, sizeof iv, 3);
  memset(nonce, 0x11, sizeof nonce);
  const gostx_mgm_params mp = {nonce, NULL, 0, 16};
  printf("gostx bulk_speed: %zu MiB, best of %d, %ld online CPUs, kuznyechik impl %s\n", mib,
         reps, ncpu, gostx_impl(GOSTX_ALG_KUZNYECHIK));

  gostx_cipher c;
  gostx_cipher_init(&c, GOSTX_ALG_KUZNYECHIK, key);


  /* ---- Kuznyechik CTR and MGM: scaling ----
   * The runs of the single-threaded call and of each pool size alternate, so
   * that a change in the machine's load hits all of them alike; each figure is
   * the best of its runs. cpu: CPU seconds of all threads relative to one
   * thread (of that best run); on an idle machine the scaling is about
   * threads / cpu, since the work does not grow. */
  for (int op = 0; op < 2 * scaling; op++) {
    enum { MAXP = 8 };
    unsigned ths[MAXP];
    gostx_pool *pl[MAXP];
    double best[MAXP + 1], cpu[MAXP + 1];
    int np = 0;
    for (unsigned th = 1; th <= maxth && np < MAXP; th = th < 2 ? 2 : th * 2) {
      ths[np] = th;
      pl[np++] = gostx_pool_new(th);
    }
    for (int i = 0; i <= np; i++) best[i] = 1e30, cpu[i] = 0;
    for (int r = 0; r < reps; r++) {
      for (int i = -1; i < np; i++) {
        double t0 = now(), c0 = cpu_now();
        if (op == 0) {
          if (i < 0) gostx_ctr_crypt(&c, iv, 8, 16, buf, len, buf);
          else gostx_ctr_crypt_mt(pl[i], &c, iv, 8, buf, len, buf);
        } else {
          if (i < 0) gostx_mgm_encrypt(&c, nonce, NULL, 0, buf, len, buf, tag, 16);
          else gostx_mgm_encrypt_mt(pl[i], &c, &mp, buf, len, buf, tag);
        }
        double tt = now() - t0, cc = cpu_now() - c0;
        if (tt < best[i + 1]) best[i + 1] = tt, cpu[i + 1] = cc;
      }
    }
    printf("\nkuznyechik %s, %zu MiB\n  single-threaded %-18s %8.1f MB/s\n",
           op ? "MGM encrypt" : "CTR", mib, op ? "gostx_mgm_encrypt:" : "gostx_ctr_crypt:",
           mbs(len, best[0]));
    for (int i = 0; i < np; i++) {
      printf("  %s %2u thread%s: %8.1f MB/s  scaling %.2fx  efficiency %3.0f%%  cpu x%.3f\n",
             op ? "gostx_mgm_encrypt_mt" : "gostx_ctr_crypt_mt", ths[i], ths[i] == 1 ? " " : "s",
             mbs(len, best[i + 1]), best[1] / best[i + 1], 100.0 * best[1] / best[i + 1] / ths[i],
             cpu[i + 1] / cpu[1]);
      gostx_pool_free(pl[i]);
    }
  }

  /* MGM decrypt (two passes: tag first, then keystream), 1 thread vs all. */
  if (scaling) {
    gostx_mgm_encrypt(&c, nonce, NULL, 0, buf, len, buf, tag, 16);
    double dn;
    gostx_pool *p1 = gostx_pool_new(1), *pn = gostx_pool_new(maxth);
    /* Each run decrypts in place: re-encrypt (outside the clock) before the next. */
    double best1 = 1e30, bestn = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = now();
      int rc1 = gostx_mgm_decrypt_mt(p1, &c, &mp, buf, len, tag, buf);
      double tt = now() - t0;
      if (tt < best1) best1 = tt;
      gostx_mgm_encrypt_mt(pn, &c, &mp, buf, len, buf, tag);
      t0 = now();
      int rcn = gostx_mgm_decrypt_mt(pn, &c, &mp, buf, len, tag, buf);
      tt = now() - t0;
      if (tt < bestn) bestn = tt;
      gostx_mgm_encrypt_mt(pn, &c, &mp, buf, len, buf, tag);
      if (rc1 || rcn) printf("  (decrypt failed: %d %d)\n", rc1, rcn);
    }
    dn = bestn;
    printf("  gostx_mgm_decrypt_mt  1 thread : %8.1f MB/s\n  gostx_mgm_decrypt_mt %2u threads: "
           "%8.1f MB/s  scaling %.2fx\n",
           mbs(len, best1), maxth, mbs(len, dn), best1 / dn);
    gostx_pool_free(p1);
    gostx_pool_free(pn);
  }

  /* ---- sector batches: 512-byte sectors ---- */
  const size_t sl = 512, ns = (size_t)4 << 20 >> 9; /* 4 MiB of sectors */
  const size_t blen = sl * ns;
  gostx_cipher *keys = aligned_alloc(64, ns * sizeof *keys);
  gostx_xts_key *xkeys = aligned_alloc(64, ns * sizeof *xkeys);
  const gostx_cipher **kp = malloc(ns * sizeof *kp);
  const gostx_xts_key **xp = malloc(ns * sizeof *xp);
  uint8_t *ivs = malloc(ns * 16);
  fill(ivs, ns * 16, 4);
  for (size_t i = 0; i < ns; i++) {
    uint8_t k[64];
    fill(k, sizeof k, 100 + i);
    gostx_cipher_init(&keys[i], GOSTX_ALG_KUZNYECHIK, k);
    gostx_xts_set_key(&xkeys[i], k);
    kp[i] = &keys[i];
    xp[i] = &xkeys[i];
  }
  /* One stream per sector, in place; the XTS tweaks are the sector
   * numbers, the OMAC tags go over the IVs. st[keyed]: keys per sector or
   * one key; the tweaks and tags in tw. */
  gostx_stream *st[2] = {calloc(ns, sizeof **st), calloc(ns, sizeof **st)};
  gostx_stream *xst[2] = {calloc(ns, sizeof **st), calloc(ns, sizeof **st)};
  uint8_t *tw = calloc(ns, 16);
  for (size_t i = 0; i < ns; i++) {
    tw[16 * i] = (uint8_t)i;
    tw[16 * i + 1] = (uint8_t)(i >> 8);
    tw[16 * i + 2] = (uint8_t)(i >> 16);
    for (int k = 0; k < 2; k++) {
      st[k][i] = (gostx_stream){.key = kp[k ? i : 0], .iv = ivs + 16 * i, .in = buf + i * sl,
                                .len = sl, .out = buf + i * sl, .tag = ivs + 16 * i};
      xst[k][i] = (gostx_stream){.key = xp[k ? i : 0], .iv = tw + 16 * i, .in = buf + i * sl,
                                 .len = sl, .out = buf + i * sl};
    }
  }
  const gostx_batch_params bp0 = {0};
#define STREAMS(pool, op, s) must(gostx_batch_streams(pool, op, &bp0, s, ns), #op)
  gostx_pool *p2 = gostx_pool_new(maxth);
  printf("\nsector batches: %zu sectors of %zu bytes (kuznyechik), pool of %u threads\n", ns, sl,
         maxth);
  printf("  %-34s %10s %10s %10s   %s\n", "", "one-stream", "batch 1T", "batch pool",
         "| per CPU-second: one-stream, batch 1T");
  /* One row: the one-stream calls (one_stmt), then the batch on 1 thread
   * and on the pool. */
#define ROW(label, one_stmt, op, s)                                                              \
  do {                                                                                           \
    double a, b1, bp, ca, cb;                                                                    \
    BEST(a, one_stmt);                                                                           \
    ca = min_cpu;                                                                                \
    BEST(b1, STREAMS(NULL, op, s));                                                              \
    cb = min_cpu;                                                                                \
    BEST(bp, STREAMS(p2, op, s));                                                                \
    printf("  %-12s %-21s %7.1f MB/s %7.1f MB/s %7.1f MB/s  (x%.1f, x%.1f) | %6.1f %6.1f MB/s\n", \
           label, keyed ? "a key per sector" : "one key", mbs(blen, a), mbs(blen, b1),          \
           mbs(blen, bp), a / b1, a / bp, mbs(blen, ca), mbs(blen, cb));                         \
  } while (0)
  for (int keyed = 1; keyed >= 0; keyed--) {
#define EACH for (size_t i = 0; i < ns; i++)
#define K kp[keyed ? i : 0]
#define SEC buf + i * sl, sl, buf + i * sl
    ROW("CBC encrypt,", EACH gostx_cbc_encrypt(K, ivs + 16 * i, 16, SEC),
        GOSTX_BATCH_CBC_ENCRYPT, st[keyed]);
    ROW("CBC decrypt,", EACH gostx_cbc_decrypt(K, ivs + 16 * i, 16, SEC),
        GOSTX_BATCH_CBC_DECRYPT, st[keyed]);
    ROW("CTR,", EACH gostx_ctr_crypt(K, ivs + 16 * i, 8, 16, SEC), GOSTX_BATCH_CTR, st[keyed]);
    ROW("XTS encrypt,", EACH gostx_xts_encrypt_sector(xp[keyed ? i : 0], i, SEC),
        GOSTX_BATCH_XTS_ENCRYPT, xst[keyed]);
    ROW("OMAC,", EACH gostx_omac(K, buf + i * sl, sl, ivs + 16 * i, 16), GOSTX_BATCH_OMAC,
        st[keyed]);
#undef EACH
#undef K
#undef SEC
  }
#undef ROW
#undef STREAMS
  gostx_pool_free(p2);
  for (int k = 0; k < 2; k++) {
    free(st[k]);
    free(xst[k]);
  }
  free(tw);
  for (size_t i = 0; i < ns; i++) {
    gostx_cipher_clear(&keys[i]);
    gostx_xts_clear(&xkeys[i]);
  }
  gostx_cipher_clear(&c);
  free(keys);
  free(xkeys);
  free(kp);
  free(xp);
  free(ivs);
  free(buf);
  free(tag);
  return 0;
}
