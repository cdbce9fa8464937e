/* gostx bench --gpu: the CUDA backend next to the CPU (builds with
 * -DGOSTX_CUDA=ON; docs/GPU.md).
 *   - pinned copy bandwidth: host-to-device, device-to-host, both at once;
 *   - kernel-only throughput per algorithm and mode (data already on the GPU,
 *     GPU event time of the kernels);
 *   - end to end from a host buffer (default 1 GiB) through the chunked,
 *     multi-stream pipeline, wall clock, and that as a share of the copy
 *     bandwidth (each byte crosses PCIe twice, in and out, at once);
 *   - the CPU on all cores for the same mode (the caller measures it).
 * GB/s = 10^9 bytes/s; median of the repeats. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

#ifndef GOSTX_CUDA

int bench_gpu_built(void) { return 0; }

int bench_gpu(const struct bench_gpu_args *a) {
  (void)a;
  cli_err("bench: --gpu: this gostx was built without the CUDA backend "
          "(cmake -DGOSTX_CUDA=ON; docs/GPU.md)");
  return CLI_EXIT_FAIL;
}

#else

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
static const char *const OPS[] = {"ctr", "ecb-enc", "ecb-dec", "xts-enc", "xts-dec", "cnt"};
#define XTS_UNIT 4096 /* = the CPU rows' data unit */

struct grow {
  const char *alg;
  int op;
};

static const struct grow ROWS[] = {
    {"kuznyechik", CTR},   {"kuznyechik", ECB_E}, {"kuznyechik", ECB_D},
    {"kuznyechik", XTS_E}, {"kuznyechik", XTS_D}, {"magma", CTR},
    {"magma", ECB_E},      {"magma", ECB_D},      {"gost89", CNT},
};
#define NGROWS (sizeof ROWS / sizeof ROWS[0])

struct keys {
  gostx_cipher kuz, magma;
  gostx_xts_key xts;
  gostx_gost89_key g89;
};

/* dev: in/out point at gostx_gpu_ptr device addresses; else host buffers. */
static int run(gostx_gpu *g, const struct grow *r, const struct keys *k, int dev, const void *in,
               void *out, size_t len) {
  static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const gostx_cipher *c = r->alg[0] == 'k' ? &k->kuz : &k->magma;
  const size_t n = gostx_cipher_block_len(c);
  if (dev) {
    gostx_gpu_ptr i = *(const gostx_gpu_ptr *)in, o = *(gostx_gpu_ptr *)out;
    switch (r->op) {
      case CTR: return gostx_gpu_ctr_crypt_dev(g, c, iv, n / 2, i, o, len);
      case ECB_E: return gostx_gpu_ecb_encrypt_dev(g, c, i, o, len);
      case ECB_D: return gostx_gpu_ecb_decrypt_dev(g, c, i, o, len);
      case XTS_E: return gostx_gpu_xts_encrypt_dev(g, &k->xts, 0, XTS_UNIT, i, o, len);
      case XTS_D: return gostx_gpu_xts_decrypt_dev(g, &k->xts, 0, XTS_UNIT, i, o, len);
      case CNT: return gostx_gpu_gost89_cnt_dev(g, &k->g89, iv, i, o, len);
    }
  } else {
    switch (r->op) {
      case CTR: return gostx_gpu_ctr_crypt(g, c, iv, n / 2, in, out, len);
      case ECB_E: return gostx_gpu_ecb_encrypt(g, c, in, out, len);
      case ECB_D: return gostx_gpu_ecb_decrypt(g, c, in, out, len);
      case XTS_E: return gostx_gpu_xts_encrypt(g, &k->xts, 0, XTS_UNIT, in, out, len);
      case XTS_D: return gostx_gpu_xts_decrypt(g, &k->xts, 0, XTS_UNIT, in, out, len);
      case CNT: return gostx_gpu_gost89_cnt(g, &k->g89, iv, in, out, len);
    }
  }
  return GOSTX_EINVAL;
}

struct figures {
  double kernel, e2e, e2e_kernel, cpu; /* GB/s; cpu < 0: none */
  int rc;
};

static void measure_row(gostx_gpu *g, const struct grow *r, const struct keys *k, int repeat,
                        gostx_gpu_ptr din, gostx_gpu_ptr dout, const uint8_t *hin,
                        uint8_t *hout, size_t len, struct figures *f) {
  double *kt = malloc(3 * sizeof(double) * (size_t)repeat), *et = kt + repeat, *ek = et + repeat;
  f->rc = kt ? run(g, r, k, 1, &din, &dout, len) : GOSTX_ENOMEM; /* warm-up */
  for (int i = 0; i < repeat && !f->rc; i++) {
    f->rc = run(g, r, k, 1, &din, &dout, len);
    kt[i] = gostx_gpu_last_kernel_seconds(g);
  }
  for (int i = 0; i < repeat && !f->rc; i++) {
    double t0 = now_s();
    f->rc = run(g, r, k, 0, hin, hout, len);
    et[i] = now_s() - t0;
    ek[i] = gostx_gpu_last_kernel_seconds(g);
  }
  if (!f->rc) {
    f->kernel = (double)len / median(kt, repeat) / 1e9;
    f->e2e = (double)len / median(et, repeat) / 1e9;
    f->e2e_kernel = (double)len / median(ek, repeat) / 1e9;
  }
  free(kt);
}

int bench_gpu_built(void) { return 1; }

int bench_gpu(const struct bench_gpu_args *a) {
  const size_t len = a->len;
  const int reps = a->repeat;
  gostx_gpu *g;
  int rc = gostx_gpu_open(&g, a->device);
  if (rc) {
    cli_err("bench: --gpu: no GPU: %s", gostx_gpu_error());
    return CLI_EXIT_FAIL;
  }
  const char *name = gostx_gpu_name(g);
  int mock = strstr(name, "mock") != NULL;

  /* PCIe: pinned copies of up to 256 MiB. */
  size_t clen = len < ((size_t)256 << 20) ? len : ((size_t)256 << 20);
  double *t = malloc(3 * sizeof(double) * (size_t)reps);
  for (int i = 0; i < reps && t && !rc; i++)
    rc = gostx_gpu_copy_bench(g, clen, &t[i], &t[reps + i], &t[2 * reps + i]);
  if (!t || rc) {
    cli_err("bench: --gpu: copy bandwidth: %s", t ? gostx_gpu_error() : "out of memory");
    free(t);
    gostx_gpu_close(g);
    return CLI_EXIT_FAIL;
  }
  double h2d = (double)clen / median(t, reps) / 1e9, d2h = (double)clen / median(t + reps, reps) / 1e9;
  double both = 2.0 * (double)clen / median(t + 2 * reps, reps) / 1e9;
  free(t);

  struct keys k;
  uint8_t key[64];
  for (int i = 0; i < 64; i++) key[i] = (uint8_t)(i * 37 + 11);
  gostx_cipher_init(&k.kuz, GOSTX_CIPHER_KUZNYECHIK, key);
  gostx_cipher_init(&k.magma, GOSTX_CIPHER_MAGMA, key);
  gostx_xts_set_key(&k.xts, key);
  gostx_gost89_set_key(&k.g89, key, GOSTX_SBOX_CRYPTOPRO_A);

  uint8_t *hin = malloc(len), *hout = malloc(len);
  gostx_gpu_ptr din = 0, dout = 0;
  int ok = hin && hout && !gostx_gpu_alloc(g, &din, len) && !gostx_gpu_alloc(g, &dout, len);
  if (ok) {
    for (size_t i = 0; i < len; i++) hin[i] = (uint8_t)(i * 131 + (i >> 12));
    ok = !gostx_gpu_upload(g, din, hin, len);
  }
  struct figures f[NGROWS];
  memset(f, 0, sizeof f);
  for (size_t i = 0; ok && i < NGROWS; i++) {
    measure_row(g, &ROWS[i], &k, reps, din, dout, hin, hout, len, &f[i]);
    f[i].cpu = a->cpu(ROWS[i].alg, OPS[ROWS[i].op], a->ctx);
    if (f[i].cpu >= 0) f[i].cpu /= 1e3; /* MB/s -> GB/s */
  }
  if (!ok) cli_err("bench: --gpu: cannot allocate 2 x %zu MiB on the host and the GPU", len >> 20);

  /* e2e moves each byte in and out: the link's ceiling is the both-at-once
   * rate over 2 (or one direction's rate, if that is lower). */
  double link = both / 2;
  if (h2d < link) link = h2d;
  if (d2h < link) link = d2h;
  if (ok && a->json) {
    printf("{\"device\": ");
    cli_json_str(name);
    printf(", \"mock\": %s, \"bytes\": %zu, \"repeat\": %d, \"copy_bytes\": %zu, "
           "\"h2d_gbps\": %.3f, \"d2h_gbps\": %.3f, \"both_gbps\": %.3f, \"rows\": [",
           mock ? "true" : "false", len, reps, clen, h2d, d2h, both);
    for (size_t i = 0; i < NGROWS; i++) {
      printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"%s\", ", i ? "," : "", ROWS[i].alg,
             OPS[ROWS[i].op]);
      if (f[i].rc) {
        printf("\"error\": ");
        cli_json_str(gostx_strerror(f[i].rc));
      } else {
        printf("\"kernel_gbps\": %.3f, \"e2e_gbps\": %.3f, \"e2e_kernel_gbps\": %.3f, "
               "\"e2e_share_of_link\": %.3f, \"cpu_all_cores_gbps\": ",
               f[i].kernel, f[i].e2e, f[i].e2e_kernel, f[i].e2e / link);
        if (f[i].cpu >= 0) printf("%.3f", f[i].cpu); else printf("null");
      }
      printf("}");
    }
    printf("\n]}");
  } else if (ok) {
    printf("\nGPU: %s%s\n", name, mock ? " (mock driver: kernels run on the host; "
                                         "timings are meaningless)" : "");
    printf("pinned copies (%zu MiB): H2D %.2f GB/s, D2H %.2f GB/s, both at once %.2f GB/s;\n"
           "  end-to-end ceiling (each byte in and out): %.2f GB/s\n",
           clen >> 20, h2d, d2h, both, link);
    printf("host buffer %zu MiB; median of %d; GB/s = 10^9 B/s\n", len >> 20, reps);
    printf("%-11s %-8s %12s %10s %8s %10s %12s\n", "algorithm", "mode", "kernel GB/s",
           "e2e GB/s", "of link", "e2e kern", "CPU GB/s");
    for (size_t i = 0; i < NGROWS; i++) {
      const struct grow *r = &ROWS[i];
      if (f[i].rc) {
        printf("%-11s %-8s error: %s (%s)\n", r->alg, OPS[r->op], gostx_strerror(f[i].rc),
               gostx_gpu_error());
        continue;
      }
      char cpu[32];
      if (f[i].cpu >= 0) snprintf(cpu, sizeof cpu, "%12.2f", f[i].cpu);
      else snprintf(cpu, sizeof cpu, "%12s", "-");
      printf("%-11s %-8s %12.2f %10.2f %7.0f%% %10.2f %s\n", r->alg, OPS[r->op], f[i].kernel,
             f[i].e2e, 100 * f[i].e2e / link, f[i].e2e_kernel, cpu);
    }
    printf("kernel: device buffers, GPU time of the kernels alone. e2e: host buffer in, host\n"
           "buffer out, wall clock, chunked copies overlapped with the kernels on several\n"
           "streams (staging memcpy included); \"of link\": e2e over the ceiling above.\n"
           "e2e kern: the kernels' summed GPU time within e2e. CPU: this machine's cores on\n"
           "the same mode (bulk engine; gost89 cnt: independent streams, key meshing on).\n");
  }
  gostx_gpu_free(g, din);
  gostx_gpu_free(g, dout);
  free(hin);
  free(hout);
  gostx_cipher_clear(&k.kuz);
  gostx_cipher_clear(&k.magma);
  gostx_xts_clear(&k.xts);
  gostx_memzero(&k.g89, sizeof k.g89);
  gostx_gpu_close(g);
  int failed = !ok;
  for (size_t i = 0; i < NGROWS; i++) failed |= f[i].rc != 0;
  return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

#endif
