/* A/B of Kuznyechik operations between builds of libgostx.so, loaded into
 * one process and run in turn (repetition k of every build, then k + 1), so
 * that a busy host slows all of them alike. Time-stamp-counter ticks per
 * 16-byte block (per call for the key schedule; nanoseconds where the CPU
 * has no TSC the harness reads), medians and minima over the repetitions;
 * the CTR-ACPKM / CTR ratio from each repetition's back-to-back pair. The
 * "apart" rows (ECB, CTR, MGM from one 1 MiB buffer into another) give CTR
 * and MGM against ECB in one process: on Intel, CTR in place and apart
 * differed more than the port model explains (docs/BENCHMARKS.md, "Issue
 * 83"). The level is the library's own choice or GOSTX_IMPL's.
 *
 *   cmake --build build --target lib_ab
 *   GOSTX_IMPL=avx2 taskset -c 1 build/bench/lib_ab 61 old/libgostx.so new/libgostx.so
 *
 * (two trees built as usual, e.g. one in a `git worktree` at the old commit;
 * copy the .so files to distinct paths: dlopen loads a path once.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static double ticks(void) {
#ifdef GOSTX_BENCH_HAVE_TSC
  return (double)gostx_bench_tsc();
#else
  return gostx_bench_now(GOSTX_BENCH_WALL) * 1e9;
#endif
}

/* The public API's shapes (include/gostx/cipher.h, modes.h); the cipher
 * object is opaque here, a generous buffer holds it. */
typedef int (*init_fn)(void *, int, const uint8_t *);
typedef int (*cbc_fn)(const void *, const uint8_t *, size_t, const uint8_t *, size_t, uint8_t *);
typedef int (*omac_fn)(const void *, const uint8_t *, size_t, uint8_t *, size_t);
typedef int (*ctr_fn)(const void *, const uint8_t *, size_t, size_t, const uint8_t *, size_t,
                      uint8_t *);
typedef int (*ecb_fn)(const void *, const uint8_t *, size_t, uint8_t *);
typedef int (*mgm_fn)(const void *, const uint8_t *, const uint8_t *, size_t, const uint8_t *,
                      size_t, uint8_t *, uint8_t *, size_t);

/* "apart": from one 1 MiB buffer into another (gostx bench's shape), where
 * the other rows work in place; CTR and MGM against ECB in one process. */
enum { MAX_LIBS = 6, MAX_REPS = 1001, OPS = 9, CIPHER_BYTES = 16384 };
static const char *const op_names[OPS] = {
    "cbc-enc 16K",   "omac 16K",      "set_key (call)", "ctr 1M",   "ctr-acpkm 1M",
    "ecb 1M apart",  "ctr 1M apart",  "mgm 1M apart",   "acpkm/ctr"};

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) {
    fprintf(stderr, "lib_ab: %s missing\n", name);
    exit(2);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc - 2 > MAX_LIBS) {
    fprintf(stderr, "usage: lib_ab REPS LIB.so [LIB.so ...] (at most %d)\n", MAX_LIBS);
    return 2;
  }
  const int nl = argc - 2, reps = atoi(argv[1]);
  if (reps < 1 || reps > MAX_REPS) {
    fprintf(stderr, "lib_ab: REPS in 1..%d\n", MAX_REPS);
    return 2;
  }
  const size_t len = 1 << 20;
  uint8_t *buf = aligned_alloc(64, len), *buf2 = aligned_alloc(64, len);
  if (!buf || !buf2) return 1;
  memset(buf, 7, len);
  memset(buf2, 9, len);
  uint8_t key[32], iv[16] = {1, 2, 3, 4, 5, 6, 7, 8}, mac[16];
  for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 11 + 3);
  static _Alignas(64) uint8_t cipher[MAX_LIBS][CIPHER_BYTES], scratch[CIPHER_BYTES];
  init_fn init[MAX_LIBS];
  cbc_fn cbc[MAX_LIBS];
  omac_fn omac[MAX_LIBS];
  ctr_fn ctr[MAX_LIBS], acpkm[MAX_LIBS];
  ecb_fn ecb[MAX_LIBS];
  mgm_fn mgm[MAX_LIBS];
  for (int l = 0; l < nl; l++) {
    void *h = dlopen(argv[2 + l], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "lib_ab: %s\n", dlerror());
      return 2;
    }
    size_t (*size)(void) = (size_t(*)(void))sym(h, "gostx_sizeof_cipher");
    if (size() > CIPHER_BYTES) {
      fprintf(stderr, "lib_ab: gostx_cipher larger than %d bytes\n", CIPHER_BYTES);
      return 2;
    }
    init[l] = (init_fn)sym(h, "gostx_cipher_init");
    cbc[l] = (cbc_fn)sym(h, "gostx_cbc_encrypt");
    omac[l] = (omac_fn)sym(h, "gostx_omac");
    ctr[l] = (ctr_fn)sym(h, "gostx_ctr_crypt");
    acpkm[l] = (ctr_fn)sym(h, "gostx_ctr_acpkm_crypt");
    ecb[l] = (ecb_fn)sym(h, "gostx_ecb_encrypt");
    mgm[l] = (mgm_fn)sym(h, "gostx_mgm_encrypt");
    if (init[l](cipher[l], 1, key)) return 1;
  }
  static double t[MAX_LIBS][OPS][MAX_REPS];
  for (int r = 0; r < reps; r++)
    for (int l = 0; l < nl; l++) {
      const double t0 = ticks();
      cbc[l](cipher[l], iv, 16, buf, 16384, buf);
      const double t1 = ticks();
      omac[l](cipher[l], buf, 16384, mac, 16);
      const double t2 = ticks();
      for (int i = 0; i < 100; i++) init[l](scratch, 1, key);
      const double t3 = ticks();
      ctr[l](cipher[l], iv, 8, 16, buf, len, buf);
      const double t4 = ticks();
      acpkm[l](cipher[l], iv, 8, 4096, buf, len, buf);
      const double t5 = ticks();
      ecb[l](cipher[l], buf, len, buf2);
      const double t6 = ticks();
      ctr[l](cipher[l], iv, 8, 16, buf, len, buf2);
      const double t7 = ticks();
      mgm[l](cipher[l], iv, NULL, 0, buf, len, buf2, mac, 16);
      const double t8 = ticks();
      t[l][0][r] = (t1 - t0) / 1024;
      t[l][1][r] = (t2 - t1) / 1024;
      t[l][2][r] = (t3 - t2) / 100;
      t[l][3][r] = (t4 - t3) / 65536;
      t[l][4][r] = (t5 - t4) / 65536;
      t[l][5][r] = (t6 - t5) / 65536;
      t[l][6][r] = (t7 - t6) / 65536;
      t[l][7][r] = (t8 - t7) / 65536;
      t[l][8][r] = (t4 - t3) / (t5 - t4);
    }
  printf("ticks per block, median (min) of %d; acpkm/ctr: median (max) of the pairs\n", reps);
  printf("%-16s", "");
  for (int l = 0; l < nl; l++) {
    const char *slash = strrchr(argv[2 + l], '/');
    printf(" %20s", slash ? slash + 1 : argv[2 + l]);
  }
  printf("\n");
  for (int o = 0; o < OPS; o++) {
    printf("%-16s", op_names[o]);
    for (int l = 0; l < nl; l++) {
      qsort(t[l][o], (size_t)reps, sizeof(double), cmp_double);
      if (o == OPS - 1) printf("      %.4f (%.4f)", t[l][o][reps / 2], t[l][o][reps - 1]);
      else printf(" %11.1f (%6.1f)", t[l][o][reps / 2], t[l][o][0]);
    }
    printf("\n");
  }
  free(buf);
  free(buf2);
  return 0;
}
