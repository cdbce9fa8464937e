/* gostx CUDA backend benchmark (built with -DGOSTX_CUDA=ON):
 *   - pinned copy bandwidth: host-to-device, device-to-host, both at once;
 *   - kernel-only throughput per algorithm and mode (data already on the GPU,
 *     GPU event time of the kernels);
 *   - end to end from a host buffer (default 1 GiB) through the chunked,
 *     multi-stream pipeline, wall clock.
 * GB/s = 10^9 bytes/s. Median of the repeats. Usage:
 *   gostx_gpu_bench [size_MiB (default 1024)] [repeats (default 5)] [device]
 * Without a GPU it says why and exits 2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gostx.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { CTR, ECB_E, ECB_D, XTS_E, XTS_D, CNT };
static const char *OPS[] = {"ctr", "ecb-enc", "ecb-dec", "xts-enc", "xts-dec", "cnt"};

typedef struct {
  const char *alg;
  int op;
} row;

static const row ROWS[] = {
  {"kuznyechik", CTR}, {"kuznyechik", ECB_E}, {"kuznyechik", ECB_D},
  {"kuznyechik", XTS_E}, {"kuznyechik", XTS_D},
  {"magma", CTR}, {"magma", ECB_E}, {"magma", ECB_D},
  {"gost89", CNT},
};

static int run(gostx_gpu *g, const row *r, const gostx_cipher *kc, const gostx_cipher *mc,
               const gostx_xts_key *x, const gostx_gost89_key *gk, int dev, const void *in,
               void *out, size_t len) {
  static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const gostx_cipher *c = r->alg[0] == 'k' ? kc : mc;
  const size_t n = gostx_cipher_block_len(c);
  if (dev) {
    gostx_gpu_ptr i = *(const gostx_gpu_ptr *)in, o = *(gostx_gpu_ptr *)out;
    switch (r->op) {
      case CTR: return gostx_gpu_ctr_crypt_dev(g, c, iv, n / 2, i, o, len);
      case ECB_E: return gostx_gpu_ecb_encrypt_dev(g, c, i, o, len);
      case ECB_D: return gostx_gpu_ecb_decrypt_dev(g, c, i, o, len);
      case XTS_E: return gostx_gpu_xts_encrypt_dev(g, x, 0, 4096, i, o, len);
      case XTS_D: return gostx_gpu_xts_decrypt_dev(g, x, 0, 4096, i, o, len);
      case CNT: return gostx_gpu_gost89_cnt_dev(g, gk, iv, i, o, len);
    }
  } else {
    switch (r->op) {
      case CTR: return gostx_gpu_ctr_crypt(g, c, iv, n / 2, in, out, len);
      case ECB_E: return gostx_gpu_ecb_encrypt(g, c, in, out, len);
      case ECB_D: return gostx_gpu_ecb_decrypt(g, c, in, out, len);
      case XTS_E: return gostx_gpu_xts_encrypt(g, x, 0, 4096, in, out, len);
      case XTS_D: return gostx_gpu_xts_decrypt(g, x, 0, 4096, in, out, len);
      case CNT: return gostx_gpu_gost89_cnt(g, gk, iv, in, out, len);
    }
  }
  return GOSTX_EINVAL;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  int device = argc > 3 ? atoi(argv[3]) : 0;
  if (mib == 0) mib = 1;
  if (reps < 1 || reps > 99) reps = 5;
  const size_t len = mib << 20; /* a multiple of 4096 (XTS sectors) */
  gostx_gpu *g;
  int rc = gostx_gpu_open(&g, device);
  if (rc) {
    fprintf(stderr, "gostx_gpu_bench: no GPU: %s (%s)\n", gostx_gpu_error(), gostx_strerror(rc));
    return 2;
  }
  printf("device: %s; buffer %zu MiB; median of %d; GB/s = 1e9 B/s\n", gostx_gpu_name(g), mib,
         reps);
  if (strstr(gostx_gpu_name(g), "mock"))
    printf("(mock driver: kernels run on the host, timings are meaningless)\n");

  double t[3][99];
  size_t clen = len < ((size_t)256 << 20) ? len : ((size_t)256 << 20);
  for (int i = 0; i < reps; i++) {
    if ((rc = gostx_gpu_copy_bench(g, clen, &t[0][i], &t[1][i], &t[2][i]))) {
      fprintf(stderr, "copy bench: %s\n", gostx_gpu_error());
      return 1;
    }
  }
  printf("pinned copies (%zu MiB): H2D %.2f GB/s, D2H %.2f GB/s, both at once %.2f GB/s\n",
         clen >> 20, clen / median(t[0], reps) / 1e9, clen / median(t[1], reps) / 1e9,
         2.0 * clen / median(t[2], reps) / 1e9);

  uint8_t key[64];
  for (int i = 0; i < 64; i++) key[i] = (uint8_t)(i * 37 + 11);
  gostx_cipher kc, mc;
  gostx_xts_key x;
  gostx_gost89_key gk;
  gostx_cipher_init(&kc, GOSTX_CIPHER_KUZNYECHIK, key);
  gostx_cipher_init(&mc, GOSTX_CIPHER_MAGMA, key);
  gostx_xts_set_key(&x, key);
  gostx_gost89_set_key(&gk, key, GOSTX_SBOX_CRYPTOPRO_A);

  uint8_t *hin = malloc(len), *hout = malloc(len);
  gostx_gpu_ptr din = 0, dout = 0;
  if (!hin || !hout || gostx_gpu_alloc(g, &din, len) || gostx_gpu_alloc(g, &dout, len)) {
    fprintf(stderr, "cannot allocate 2 x %zu MiB on the host and the GPU\n", mib);
    return 1;
  }
  for (size_t i = 0; i < len; i++) hin[i] = (uint8_t)(i * 131 + (i >> 12));
  gostx_gpu_upload(g, din, hin, len);

  printf("%-11s %-8s %12s %12s %14s\n", "algorithm", "mode", "kernel GB/s", "e2e GB/s",
         "e2e kern GB/s");
  for (size_t ri = 0; ri < sizeof ROWS / sizeof *ROWS; ri++) {
    const row *r = &ROWS[ri];
    double kt[99], et[99], ek[99];
    run(g, r, &kc, &mc, &x, &gk, 1, &din, &dout, len); /* warm-up */
    for (int i = 0; i < reps; i++) {
      if ((rc = run(g, r, &kc, &mc, &x, &gk, 1, &din, &dout, len))) break;
      kt[i] = gostx_gpu_last_kernel_seconds(g);
    }
    for (int i = 0; i < reps && !rc; i++) {
      double t0 = now_s();
      if ((rc = run(g, r, &kc, &mc, &x, &gk, 0, hin, hout, len))) break;
      et[i] = now_s() - t0;
      ek[i] = gostx_gpu_last_kernel_seconds(g);
    }
    if (rc) {
      printf("%-11s %-8s error: %s\n", r->alg, OPS[r->op], gostx_gpu_error());
      continue;
    }
    printf("%-11s %-8s %12.2f %12.2f %14.2f\n", r->alg, OPS[r->op], len / median(kt, reps) / 1e9,
           len / median(et, reps) / 1e9, len / median(ek, reps) / 1e9);
  }
  printf("kernel: device buffers, GPU time of the kernels alone. e2e: host buffer in, host\n"
         "buffer out, wall clock, with chunked copies overlapped on 3 streams (staging\n"
         "memcpy included). e2e kern: the kernels' summed GPU time within e2e.\n");
  gostx_gpu_free(g, din);
  gostx_gpu_free(g, dout);
  free(hin);
  free(hout);
  gostx_cipher_clear(&kc);
  gostx_cipher_clear(&mc);
  gostx_xts_clear(&x);
  gostx_gpu_close(g);
  return 0;
}
