/* Magma / GOST 28147-89 speed: MB/s (10^6 bytes/s) per implementation for
 * calls of 1, 8 and 64 blocks and 64 KiB buffers (ECB through each table
 * directly), the modes through the dispatcher's choice (Magma CTR, GOST
 * 28147-89 CNT and CFB decryption with key meshing), and openssl +
 * gost-engine's magma-ctr, gost89-cnt and gost89 (CFB) decryption on a
 * 16 MiB file in the same run, for ratios. Not a test.
 *
 * Each figure is the median of RUNS runs of about 0.1 s. Two clocks: wall
 * (CLOCK_MONOTONIC) and this thread's CPU time, which a shared, noisy
 * machine disturbs less; ratios are taken with the same clock. openssl's
 * time is its child's wall / user+sys time for the 16 MiB file minus that
 * for an empty file (process start-up and engine loading).
 *
 * Usage: magma_speed [runs]   (GOSTX_IMPL picks the modes' implementation;
 * GOSTX_BENCH_OPENSSL=0 skips openssl) */
#define _DEFAULT_SOURCE 1 /* wait4, mkdtemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gostx.h"
#include "harness.h"
#include "bench_rows.h"
#include "magma/impl.h"

static int runs = 7;

struct speed { double wall, cpu; }; /* MB/s */

/* Runs job(arg) (which processes `bytes` bytes) repeatedly for ~0.1 s of
 * wall clock per run; the thread's CPU time over the same stretch. */
static struct speed measure(gostx_bench_job job, void *arg, size_t bytes) {
  double w[64], c[64], wall;
  uint64_t n;
  job(arg); /* warm up */
  for (int r = 0; r < runs; r++) {
    const double c0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
    gostx_bench_run_for(GOSTX_BENCH_WALL, 0.1, job, arg, &n, &wall);
    const double cpu = gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - c0;
    w[r] = gostx_bench_mbps((double)n * bytes, wall);
    c[r] = gostx_bench_mbps((double)n * bytes, cpu);
  }
  return (struct speed){gostx_bench_median(w, runs), gostx_bench_median(c, runs)};
}

static uint8_t *buf;
static gostx_magma_key key;

struct ecb_job { const struct gostx_magma_impl *impl; size_t blocks; };
static int ecb_job(void *p) {
  struct ecb_job *j = p;
  j->impl->encrypt_blocks(&key, buf, buf, j->blocks);
  return 0;
}

static gostx_cipher cipher;
static int ctr_job(void *p) {
  static const uint8_t iv[4] = {1, 2, 3, 4};
  return gostx_ctr_crypt(&cipher, iv, 4, 8, buf, *(size_t *)p, buf);
}
static uint8_t key_bytes[32];
static gostx_gost89_key g89_key; /* key_bytes, CryptoPro-A S-box */
static int cnt_job(void *p) {
  static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  return gostx_gost89_cnt(&g89_key, iv, 1, buf, *(size_t *)p, buf);
}
static int cfb_dec_job(void *p) {
  static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  return gostx_gost89_cfb(&g89_key, iv, 1, 1, buf, *(size_t *)p, buf);
}

/* One openssl run: wall and user+sys seconds of the child. */
static int run_openssl(const char *cipher_name, const char *dir, const char *ivhex, const char *in,
                       double *wall, double *cpu) {
  char keyhex[65];
  for (int i = 0; i < 32; i++) snprintf(keyhex + 2 * i, 3, "%02x", key_bytes[i]);
  double w0 = gostx_bench_now(GOSTX_BENCH_WALL);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr)) _exit(127);
    execlp("openssl", "openssl", "enc", "-engine", "gost", cipher_name, dir, "-K", keyhex, "-iv",
           ivhex, "-in", in, "-out", "/dev/null", (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) return -1;
  *wall = gostx_bench_now(GOSTX_BENCH_WALL) - w0;
  *cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec * 1e-6;
  return 0;
}

static int openssl_speed(const char *cipher_name, const char *dir, const char *ivhex,
                         const char *big, const char *empty, size_t bytes, struct speed *s) {
  double wb[64], cb[64], we[64], ce[64];
  for (int r = 0; r < runs; r++)
    if (run_openssl(cipher_name, dir, ivhex, big, &wb[r], &cb[r]) ||
        run_openssl(cipher_name, dir, ivhex, empty, &we[r], &ce[r]))
      return -1;
  double w = gostx_bench_median(wb, runs) - gostx_bench_median(we, runs), c = gostx_bench_median(cb, runs) - gostx_bench_median(ce, runs);
  s->wall = gostx_bench_mbps((double)bytes, w);
  s->cpu = gostx_bench_mbps((double)bytes, c);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1) runs = atoi(argv[1]);
  if (runs < 1 || runs > 64) runs = 7;
  const size_t big = 64 << 10;
  buf = malloc(big);
  for (size_t i = 0; i < big; i++) buf[i] = (uint8_t)(i * 131 + 7);
  for (int i = 0; i < 32; i++) key_bytes[i] = (uint8_t)(i * 29 + 1);
  gostx_magma_set_key(&key, key_bytes);
  gostx_cipher_init(&cipher, GOSTX_ALG_MAGMA, key_bytes);
  gostx_gost89_set_key(&g89_key, key_bytes, GOSTX_SBOX_CRYPTOPRO_A);

  printf("cpu features: %s\nmedian of %d runs; MB/s = 10^6 bytes/s, wall clock / thread CPU time\n\n",
         gostx_cpu_features(), runs);
  const size_t counts[] = {1, 8, 64, big / 8};
  printf("Magma ECB encrypt, in place, per call size:\n%-10s", "impl");
  for (size_t c = 0; c < 4; c++) {
    char h[32];
    if (counts[c] == big / 8) snprintf(h, sizeof h, "64KiB");
    else snprintf(h, sizeof h, "%zu blk", counts[c]);
    printf(" %17s", h);
  }
  printf("\n");
  double portable64k = 0;
  const void *rows[16];
  const size_t nrows = gostx_bench_rows(GOSTX_ALG_MAGMA, rows, 16);
  for (size_t r = 0; r < nrows; r++) {
    const struct gostx_magma_impl *t = rows[r];
    printf("%-10s", t->name);
    for (size_t c = 0; c < 4; c++) {
      struct ecb_job j = {t, counts[c]};
      struct speed s = measure(ecb_job, &j, counts[c] * 8);
      printf(" %8.1f /%7.1f", s.wall, s.cpu);
      if (t == &gostx_magma_portable && c == 3) portable64k = s.cpu;
      if (t != &gostx_magma_portable && c == 3) printf("  (%.1fx portable)", s.cpu / portable64k);
    }
    printf("\n");
    fflush(stdout);
  }

  printf("\nModes through the dispatcher (magma impl: %s), 64 KiB per call:\n",
         gostx_impl(GOSTX_ALG_MAGMA));
  struct speed ctr = measure(ctr_job, (void *)&big, big);
  struct speed cnt = measure(cnt_job, (void *)&big, big);
  struct speed cfbd = measure(cfb_dec_job, (void *)&big, big);
  printf("  magma CTR (GOST R 34.13)        %8.1f /%7.1f\n", ctr.wall, ctr.cpu);
  printf("  gost89 CNT, meshing, CryptoPro-A %7.1f /%7.1f\n", cnt.wall, cnt.cpu);
  printf("  gost89 CFB decrypt, meshing, A   %7.1f /%7.1f\n", cfbd.wall, cfbd.cpu);

  const char *e = getenv("GOSTX_BENCH_OPENSSL");
  if (e && !strcmp(e, "0")) return 0;
  char dir[] = "/tmp/magma_speed.XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char bigf[64], emptyf[64];
  snprintf(bigf, sizeof bigf, "%s/in", dir);
  snprintf(emptyf, sizeof emptyf, "%s/empty", dir);
  const size_t fsize = 16u << 20;
  FILE *f = fopen(bigf, "wb");
  for (size_t i = 0; f && i < fsize / big; i++) fwrite(buf, 1, big, f);
  if (f) fclose(f);
  f = fopen(emptyf, "wb");
  if (f) fclose(f);
  /* -gost89 is CFB with CryptoPro-A and key meshing; decrypting random bytes is fine. */
  const struct {
    const char *cipher, *dir, *iv, *label, *short_name, *ours;
    const struct speed *g;
  } peers[] = {
      {"-magma-ctr", "-e", "01020304", "magma-ctr", "magma-ctr", "CTR", &ctr},
      {"-gost89-cnt", "-e", "0102030405060708", "gost89-cnt", "gost89-cnt", "CNT", &cnt},
      {"-gost89", "-d", "0102030405060708", "gost89 (CFB) -d", "gost89 -d", "CFB dec", &cfbd},
  };
  printf("\nopenssl enc -engine gost, 16 MiB file (start-up subtracted):\n");
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++) {
    struct speed o;
    if (!openssl_speed(peers[i].cipher, peers[i].dir, peers[i].iv, bigf, emptyf, fsize, &o))
      printf("  %-32s%8.1f /%7.1f   gostx %s / openssl: %.1fx wall, %.1fx cpu\n", peers[i].label,
             o.wall, o.cpu, peers[i].ours, peers[i].g->wall / o.wall, peers[i].g->cpu / o.cpu);
    else
      printf("  %s: openssl or gost-engine not available\n", peers[i].short_name);
  }
  unlink(bigf);
  unlink(emptyf);
  rmdir(dir);
  free(buf);
  return 0;
}
