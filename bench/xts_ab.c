/* XTS against ECB across builds (not a test): each libgostx.so named on the
 * command line is dlopen'ed into this one process; per round, every build
 * runs ECB and then the XTS call of the test over the same 1 MiB (4 passes
 * each), timed by the thread's CPU time; the report per build is the median
 * ECB and XTS cycles/byte (CPU seconds x --ghz) and the median of the
 * per-round ratios ECB time / XTS time, i.e. XTS speed as a fraction of ECB
 * speed. Builds and rounds alternate, so on a shared machine the ratios of
 * all builds come from the same stretch of time (docs/BULK.md section 5).
 *
 *   build/bench/xts_ab ROUNDS TEST LIB.so [LIB.so ...]
 *   TEST: mt4096 mt512     gostx_xts_encrypt_mt, 4096- / 512-byte units
 *         b1_4096 b1_512   gostx_batch_streams (XTS, a stream per sector), one key
 *         bk_4096 bk_512   the same, a key per sector
 *         disk4096 disk512 gostx_xts_encrypt_disk over the buffer (plain64 in
 *                          512-byte units, as dm-crypt and LUKS number them)
 *         req512           the same in calls of 4 KiB (8 sectors: fio's
 *                          randread-4k through the nbdkit filter)
 *         one512           the same one sector per call
 *         (a trailing d: decryption, against ECB decryption)
 *   GOSTX_IMPL chooses the implementation level in every build. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gostx.h"
#include "harness.h"

#define LEN (1u << 20)
#define PASSES 4
#define MAX_LIBS 8

/* The current signatures (in, length, out; first_sector before the sector
 * length): include/gostx/modes.h, bulk.h, batch.h. Builds from before issue
 * 30 ran b1 / bk on gostx_batch_xts_* (removed since, docs/API_CHANGES.md):
 * compare only builds of one API. */
typedef int (*xts_mt_fn)(gostx_pool *, const gostx_xts_key *, uint64_t, size_t, const uint8_t *,
                         size_t, uint8_t *);
typedef int (*batch_fn)(gostx_pool *, gostx_batch_op, const gostx_batch_params *, gostx_stream *,
                        size_t);
typedef int (*ecb_fn)(const gostx_cipher *, const uint8_t *, size_t, uint8_t *);
typedef int (*disk_fn)(gostx_pool *, const gostx_xts_key *, uint64_t, size_t, size_t,
                       const uint8_t *, size_t, uint8_t *);

struct build {
  int (*xts_set_key)(gostx_xts_key *, const uint8_t *);
  int (*cipher_init)(gostx_cipher *, int, const uint8_t *);
  ecb_fn ecb[2];
  xts_mt_fn mt[2];
  disk_fn disk[2];
  batch_fn batch;
  gostx_cipher c;
  gostx_xts_key *keys;
  gostx_stream *st; /* a stream per sector: b1 key 0, bk key i */
};

static double cpu_s(void) { return gostx_bench_now(GOSTX_BENCH_THREAD_CPU); }

static void *sym(void *h, const char *name) {
  void *p = dlsym(h, name);
  if (!p) {
    fprintf(stderr, "xts_ab: %s: %s\n", name, dlerror());
    exit(1);
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc - 3 > MAX_LIBS) {
    fprintf(stderr, "usage: xts_ab ROUNDS TEST LIB.so [LIB.so ...] (see the source)\n");
    return 2;
  }
  const int rounds = atoi(argv[1]), nb = argc - 3;
  const char *test = argv[2];
  /* kind: 0 mt, 1 b1, 2 bk, 3 disk (per call: `per` sectors) */
  const int dec = test[strlen(test) - 1] == 'd';
  const int kind = test[0] == 'm' ? 0 : test[0] == 'b' ? (test[1] == '1' ? 1 : 2) : 3;
  const size_t sl = strstr(test, "4096") ? 4096 : 512, ns = LEN / sl;
  const size_t per = test[0] == 'r' ? 4096 / sl : test[0] == 'o' ? 1 : ns;
  const double ghz = getenv("XTS_AB_GHZ") ? atof(getenv("XTS_AB_GHZ")) : 2.6;
  if (rounds < 1) return 2;
  struct build b[MAX_LIBS];
  uint8_t *in = aligned_alloc(64, LEN), *out = aligned_alloc(64, LEN), *tw = calloc(ns, 16);
  const gostx_batch_params bp = {0};
  const gostx_batch_op xop = dec ? GOSTX_BATCH_XTS_DECRYPT : GOSTX_BATCH_XTS_ENCRYPT;
  if (!in || !out) return 1;
  for (size_t i = 0; i < LEN; i++) in[i] = (uint8_t)(i * 131 + 7);
  for (int l = 0; l < nb; l++) {
    void *h = dlopen(argv[3 + l], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "xts_ab: %s\n", dlerror());
      return 1;
    }
    *(void **)&b[l].xts_set_key = sym(h, "gostx_xts_set_key");
    *(void **)&b[l].cipher_init = sym(h, "gostx_cipher_init");
    *(void **)&b[l].ecb[0] = sym(h, "gostx_ecb_encrypt");
    *(void **)&b[l].ecb[1] = sym(h, "gostx_ecb_decrypt");
    *(void **)&b[l].mt[0] = sym(h, "gostx_xts_encrypt_mt");
    *(void **)&b[l].mt[1] = sym(h, "gostx_xts_decrypt_mt");
    *(void **)&b[l].batch = sym(h, "gostx_batch_streams");
    *(void **)&b[l].disk[0] = sym(h, "gostx_xts_encrypt_disk");
    *(void **)&b[l].disk[1] = sym(h, "gostx_xts_decrypt_disk");
    b[l].keys = aligned_alloc(64, sizeof *b[l].keys * ns);
    b[l].st = calloc(ns, sizeof *b[l].st);
    if (!b[l].keys || !b[l].st || !tw) return 1;
    uint8_t key[64];
    for (int i = 0; i < 64; i++) key[i] = (uint8_t)(i * 7 + 1);
    b[l].cipher_init(&b[l].c, GOSTX_ALG_KUZNYECHIK, key);
    for (size_t i = 0; i < ns; i++) { /* distinct keys, in sector order */
      key[0] = (uint8_t)i;
      key[1] = (uint8_t)(i >> 8);
      b[l].xts_set_key(&b[l].keys[i], key);
    }
    for (size_t i = 0; i < ns; i++) { /* tweak i; in and out back to back */
      for (int k = 0; k < 8; k++) tw[16 * i + (size_t)k] = (uint8_t)(i >> (8 * k));
      b[l].st[i] = (gostx_stream){.key = &b[l].keys[kind == 1 ? 0 : i], .iv = tw + 16 * i,
                                  .in = in + i * sl, .len = sl, .out = out + i * sl};
    }
  }
  double *t = calloc((size_t)nb * 2 * (size_t)rounds, sizeof *t); /* [build][ecb, xts][round] */
  if (!t) return 1;
  for (int r = 0; r < rounds; r++)
    for (int l = 0; l < nb; l++)
      for (int w = 0; w < 2; w++) {
        double t0 = cpu_s();
        for (int p = 0; p < PASSES; p++) {
          if (w == 0) b[l].ecb[dec](&b[l].c, in, LEN, out);
          else if (kind == 0) b[l].mt[dec](NULL, &b[l].keys[0], 0, sl, in, LEN, out);
          else if (kind == 3)
            for (size_t i = 0; i < ns; i += per)
              b[l].disk[dec](NULL, &b[l].keys[0], i, sl, 512, in + i * sl, per, out + i * sl);
          else if (b[l].batch(NULL, xop, &bp, b[l].st, ns)) return 1;
        }
        t[((size_t)l * 2 + (size_t)w) * (size_t)rounds + (size_t)r] = cpu_s() - t0;
      }
  for (int l = 0; l < nb; l++) {
    double *ecb = t + (size_t)l * 2 * (size_t)rounds, *xts = ecb + rounds;
    double *ratio = malloc(sizeof *ratio * (size_t)rounds);
    if (!ratio) return 1;
    for (int r = 0; r < rounds; r++) ratio[r] = ecb[r] / xts[r];
    const double hz = ghz * 1e9, bytes = (double)PASSES * LEN;
    const double ecb_s = gostx_bench_median(ecb, rounds), xts_s = gostx_bench_median(xts, rounds);
    printf("%-32s %-9s ECB %.3f c/B %.0f MB/s  XTS %.3f c/B %.0f MB/s  XTS/ECB speed %.3f\n",
           argv[3 + l], test, gostx_bench_cpb(ecb_s, hz, bytes), bytes / ecb_s / 1e6,
           gostx_bench_cpb(xts_s, hz, bytes), bytes / xts_s / 1e6, gostx_bench_median(ratio, rounds));
    free(ratio);
  }
  free(t);
  return 0;
}
