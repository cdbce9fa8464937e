/* gostx bench --gpu: the CUDA backend next to the CPU (builds with
 * -DGOSTX_CUDA=ON; docs/GPU.md).
 *   - pinned copy bandwidth: host-to-device, device-to-host, both at once;
 *   - kernel-only throughput per algorithm and mode (data already on the GPU,
 *     GPU event time of the kernels);
 *   - end to end from a host buffer (default 1 GiB) through the chunked,
 *     multi-stream pipeline, wall clock, and that as a share of the copy
 *     bandwidth (each byte crosses PCIe twice, in and out, at once);
 *   - the same from registered (pinned) host buffers: DMA straight from and to
 *     them, no staging copies; and the staged rate per number of copy threads;
 *   - the CPU on all cores for the same mode (the caller measures it);
 *   - many streams, each with its own key and IV (the batch calls; the GOST
 *     28147-89 article's 16,384 streams of 512 bytes), GPU and CPU;
 *   - one CTR job split between the GPU and the CPU pool by measured speed.
 * GB/s = 10^9 bytes/s; median of the repeats. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The wall clock, medians and GB/s: bench/harness (through cli.h). */
static double now_s(void) { return gostx_bench_now(GOSTX_BENCH_WALL); }
static double median_gbps(double bytes, double *t, int n) {
  return gostx_bench_gbps(bytes, gostx_bench_median(t, n));
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
      case CTR: return gostx_gpu_ctr_crypt_dev(g, c, iv, n / 2, i, len, o);
      case ECB_E: return gostx_gpu_ecb_encrypt_dev(g, c, i, len, o);
      case ECB_D: return gostx_gpu_ecb_decrypt_dev(g, c, i, len, o);
      case XTS_E: return gostx_gpu_xts_encrypt_dev(g, &k->xts, 0, XTS_UNIT, i, len, o);
      case XTS_D: return gostx_gpu_xts_decrypt_dev(g, &k->xts, 0, XTS_UNIT, i, len, o);
      case CNT: return gostx_gpu_gost89_cnt_dev(g, &k->g89, iv, i, len, o);
    }
  } else {
    switch (r->op) {
      case CTR: return gostx_gpu_ctr_crypt(g, c, iv, n / 2, in, len, out);
      case ECB_E: return gostx_gpu_ecb_encrypt(g, c, in, len, out);
      case ECB_D: return gostx_gpu_ecb_decrypt(g, c, in, len, out);
      case XTS_E: return gostx_gpu_xts_encrypt(g, &k->xts, 0, XTS_UNIT, in, len, out);
      case XTS_D: return gostx_gpu_xts_decrypt(g, &k->xts, 0, XTS_UNIT, in, len, out);
      case CNT: return gostx_gpu_gost89_cnt(g, &k->g89, iv, in, len, out);
    }
  }
  return GOSTX_EINVAL;
}

struct figures {
  double kernel, e2e, e2e_reg, e2e_kernel, cpu; /* GB/s; cpu < 0: none */
  int rc;
};

/* Median GB/s of repeat host-buffer runs of a row. */
static int e2e_rate(gostx_gpu *g, const struct grow *r, const struct keys *k, int repeat,
                    const uint8_t *hin, uint8_t *hout, size_t len, double *gbps, double *kgbps) {
  double *et = malloc(2 * sizeof(double) * (size_t)repeat), *ek = et + repeat;
  int rc = et ? GOSTX_OK : GOSTX_ENOMEM;
  for (int i = 0; i < repeat && !rc; i++) {
    double t0 = now_s();
    rc = run(g, r, k, 0, hin, hout, len);
    et[i] = now_s() - t0;
    ek[i] = gostx_gpu_last_kernel_seconds(g);
  }
  if (!rc) {
    *gbps = median_gbps((double)len, et, repeat);
    if (kgbps) *kgbps = median_gbps((double)len, ek, repeat);
  }
  free(et);
  return rc;
}

static void measure_row(gostx_gpu *g, const struct grow *r, const struct keys *k, int repeat,
                        gostx_gpu_ptr din, gostx_gpu_ptr dout, const uint8_t *hin,
                        uint8_t *hout, size_t len, struct figures *f) {
  double *kt = malloc(sizeof(double) * (size_t)repeat);
  f->rc = kt ? run(g, r, k, 1, &din, &dout, len) : GOSTX_ENOMEM; /* warm-up */
  for (int i = 0; i < repeat && !f->rc; i++) {
    f->rc = run(g, r, k, 1, &din, &dout, len);
    kt[i] = gostx_gpu_last_kernel_seconds(g);
  }
  if (!f->rc) {
    f->kernel = median_gbps((double)len, kt, repeat);
    f->rc = e2e_rate(g, r, k, repeat, hin, hout, len, &f->e2e, &f->e2e_kernel);
  }
  free(kt);
}

/* ---- many streams, each with its own key (the batch calls) ---- */
#define BATCH_STREAM 512
enum { B_KUZ, B_MAGMA, B_CNT, NBROWS };
static const char *const BATCH_NAMES[NBROWS][2] = {
    {"kuznyechik", "ctr"}, {"magma", "ctr"}, {"gost89", "cnt"}};

struct batch {
  size_t ns;
  gostx_cipher *kuz, *magma;
  gostx_gost89_key *g89;
  const gostx_cipher **pk, **pm;
  const gostx_gost89_key **pg;
  uint8_t *ivs;
};

static int batch_new(struct batch *b, size_t ns) {
  memset(b, 0, sizeof *b);
  b->ns = ns;
  b->kuz = calloc(ns, sizeof *b->kuz);
  b->magma = calloc(ns, sizeof *b->magma);
  b->g89 = calloc(ns, sizeof *b->g89);
  b->pk = calloc(ns, sizeof *b->pk);
  b->pm = calloc(ns, sizeof *b->pm);
  b->pg = calloc(ns, sizeof *b->pg);
  b->ivs = malloc(8 * ns);
  if (!b->kuz || !b->magma || !b->g89 || !b->pk || !b->pm || !b->pg || !b->ivs) return -1;
  for (size_t i = 0; i < ns; i++) {
    uint8_t key[32];
    for (int j = 0; j < 32; j++) key[j] = (uint8_t)(i * 7919 + (size_t)j * 31 + (i >> 8));
    gostx_cipher_init(&b->kuz[i], GOSTX_ALG_KUZNYECHIK, key);
    gostx_cipher_init(&b->magma[i], GOSTX_ALG_MAGMA, key);
    gostx_gost89_set_key(&b->g89[i], key, GOSTX_SBOX_CRYPTOPRO_A);
    b->pk[i] = &b->kuz[i];
    b->pm[i] = &b->magma[i];
    b->pg[i] = &b->g89[i];
    for (int j = 0; j < 8; j++) b->ivs[8 * i + (size_t)j] = (uint8_t)(i >> (j % 3 * 8));
  }
  return 0;
}

static void batch_free(struct batch *b) {
  for (size_t i = 0; b->kuz && b->magma && i < b->ns; i++) {
    gostx_cipher_clear(&b->kuz[i]);
    gostx_cipher_clear(&b->magma[i]);
  }
  if (b->g89) gostx_memzero(b->g89, b->ns * sizeof *b->g89);
  free(b->kuz);
  free(b->magma);
  free(b->g89);
  free(b->pk);
  free(b->pm);
  free(b->pg);
  free(b->ivs);
}

/* The CPU form: one stream per sector (key i, IV i) through gostx_batch_streams. */
static int cpu_batch_ctr(gostx_pool *pool, const gostx_cipher *const *keys, size_t ns,
                         const uint8_t *ivs, size_t ivl, const uint8_t *in, size_t sl,
                         uint8_t *out) {
  gostx_stream *s = calloc(ns ? ns : 1, sizeof *s);
  if (!s) return GOSTX_ENOMEM;
  for (size_t i = 0; i < ns; i++)
    s[i] = (gostx_stream){.key = keys[i], .iv = ivs + i * ivl, .in = in + i * sl, .len = sl,
                          .out = out + i * sl};
  const gostx_batch_params p = {0};
  const int rc = gostx_batch_streams(pool, GOSTX_BATCH_CTR, &p, s, ns);
  free(s);
  return rc;
}

/* dev: in/out are device addresses; cpu: the CPU batch call on pool. */
static int batch_run(gostx_gpu *g, gostx_pool *pool, const struct batch *b, int row, int where,
                     gostx_gpu_ptr din, gostx_gpu_ptr dout, const uint8_t *in, uint8_t *out) {
  enum { HOST, DEV, CPU };
  const size_t ns = b->ns, sl = BATCH_STREAM;
  switch (row) {
    case B_KUZ:
    case B_MAGMA: {
      const gostx_cipher *const *k = row == B_KUZ ? b->pk : b->pm;
      const size_t ivl = row == B_KUZ ? 8 : 4;
      if (where == DEV) return gostx_gpu_batch_ctr_crypt_dev(g, k, ns, b->ivs, ivl, din, sl, ns, dout);
      if (where == CPU) return cpu_batch_ctr(pool, k, ns, b->ivs, ivl, in, sl, out);
      return gostx_gpu_batch_ctr_crypt(g, k, ns, b->ivs, ivl, in, sl, ns, out);
    }
    case B_CNT:
      if (where == DEV) return gostx_gpu_batch_gost89_cnt_dev(g, b->pg, ns, b->ivs, din, sl, ns, dout);
      if (where == CPU) return GOSTX_EUNSUP; /* no CPU batch for the 1989 modes (yet) */
      return gostx_gpu_batch_gost89_cnt(g, b->pg, ns, b->ivs, in, sl, ns, out);
  }
  return GOSTX_EINVAL;
}

struct bfig {
  double kernel, e2e, e2e_reg, cpu; /* GB/s; cpu < 0: none */
  int rc;
};

/* Median over repeat runs of batch_run at `where`: GB/s of wall time (or of
 * the kernel's GPU time for DEV). */
static int batch_rate(gostx_gpu *g, gostx_pool *pool, const struct batch *b, int row, int where,
                      int repeat, gostx_gpu_ptr din, gostx_gpu_ptr dout, const uint8_t *in,
                      uint8_t *out, double *gbps) {
  double *t = malloc(sizeof(double) * (size_t)repeat);
  int rc = t ? batch_run(g, pool, b, row, where, din, dout, in, out) : GOSTX_ENOMEM; /* warm-up */
  for (int i = 0; i < repeat && !rc; i++) {
    double t0 = now_s();
    rc = batch_run(g, pool, b, row, where, din, dout, in, out);
    t[i] = where == 1 ? gostx_gpu_last_kernel_seconds(g) : now_s() - t0;
  }
  if (!rc) *gbps = median_gbps((double)(b->ns * BATCH_STREAM), t, repeat);
  free(t);
  return rc;
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
  double h2d = median_gbps((double)clen, t, reps), d2h = median_gbps((double)clen, t + reps, reps);
  double both = median_gbps(2.0 * (double)clen, t + 2 * reps, reps);
  free(t);

  struct keys k;
  uint8_t key[64];
  for (int i = 0; i < 64; i++) key[i] = (uint8_t)(i * 37 + 11);
  gostx_cipher_init(&k.kuz, GOSTX_ALG_KUZNYECHIK, key);
  gostx_cipher_init(&k.magma, GOSTX_ALG_MAGMA, key);
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

  /* Staged rate of Kuznyechik CTR per number of copy threads. */
  static const unsigned CT[] = {1, 2, 4, 8, 16};
  double ct_rate[5] = {0};
  for (size_t i = 0; ok && i < 5; i++) {
    gostx_gpu_set_copy_threads(g, CT[i]);
    if (e2e_rate(g, &ROWS[0], &k, reps, hin, hout, len, &ct_rate[i], NULL)) ct_rate[i] = -1;
  }
  gostx_gpu_set_copy_threads(g, 0);

  /* Registered host buffers: the cost of pinning them, then every row again. */
  double t_reg = 0;
  int reg = 0;
  if (ok) {
    double t0 = now_s();
    reg = !gostx_gpu_host_register(g, hin, len);
    reg = reg && !gostx_gpu_host_register(g, hout, len);
    t_reg = now_s() - t0;
    if (!reg) cli_err("bench: --gpu: cannot register the host buffers: %s", gostx_gpu_error());
  }
  for (size_t i = 0; reg && i < NGROWS; i++)
    if (!f[i].rc) f[i].rc = e2e_rate(g, &ROWS[i], &k, reps, hin, hout, len, &f[i].e2e_reg, NULL);

  /* Many streams: the article's 16,384 x 512 bytes (fewer if the buffer is
   * smaller), each its own key and IV. */
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  gostx_pool *pool = gostx_pool_new(0);
  struct batch b;
  memset(&b, 0, sizeof b);
  size_t ns = len / BATCH_STREAM < 16384 ? len / BATCH_STREAM : 16384;
  struct bfig bf[NBROWS];
  memset(bf, 0, sizeof bf);
  int bok = ok && batch_new(&b, ns) == 0;
  for (int r = 0; bok && r < NBROWS; r++) {
    bf[r].rc = batch_rate(g, pool, &b, r, 1, reps, din, dout, NULL, NULL, &bf[r].kernel);
    if (!bf[r].rc) {
      /* staged: from buffers outside the registered ranges */
      uint8_t *si = reg ? malloc(ns * BATCH_STREAM) : hin, *so = reg ? malloc(ns * BATCH_STREAM) : hout;
      if (si && so) {
        if (si != hin) memcpy(si, hin, ns * BATCH_STREAM);
        bf[r].rc = batch_rate(g, pool, &b, r, 0, reps, 0, 0, si, so, &bf[r].e2e);
      } else {
        bf[r].rc = GOSTX_ENOMEM;
      }
      if (reg) {
        free(si);
        free(so);
      }
    }
    if (!bf[r].rc && reg)
      bf[r].rc = batch_rate(g, pool, &b, r, 0, reps, 0, 0, hin, hout, &bf[r].e2e_reg);
    if (!bf[r].rc && batch_rate(g, pool, &b, r, 2, reps, 0, 0, hin, hout, &bf[r].cpu)) bf[r].cpu = -1;
  }
  if (ok && !bok) cli_err("bench: --gpu: cannot set up %zu streams' keys", ns);

  /* GPU and CPU at once: CTR split by the measured rates (registered e2e on
   * the GPU, the bulk engine on all cores), on a pool of one thread fewer
   * than the CPUs (one drives the GPU). */
  gostx_pool *spool = gostx_pool_new(cpus > 2 ? (unsigned)cpus - 1 : 1);
  static const int SPLIT_ROWS[2] = {0, 5}; /* kuznyechik ctr, magma ctr */
  enum { NSPLIT = 5 };
  static const double SPLIT_STEPS[NSPLIT] = {0, -0.1, -0.05, 0.05, 0.1};
  double share[2] = {0}, together[2] = {0}, best_share[2] = {0}, split_gbps[2][NSPLIT] = {{0}};
  int split_rc[2] = {GOSTX_EUNSUP, GOSTX_EUNSUP};
  for (int s2 = 0; reg && s2 < 2; s2++) {
    const struct figures *fr = &f[SPLIT_ROWS[s2]];
    if (fr->rc || fr->cpu <= 0) continue;
    share[s2] = fr->e2e_reg / (fr->e2e_reg + fr->cpu);
    const gostx_cipher *c = s2 ? &k.magma : &k.kuz;
    static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double *t2 = malloc(sizeof(double) * (size_t)reps);
    split_rc[s2] = t2 ? GOSTX_OK : GOSTX_ENOMEM;
    /* the share from the rates alone, then a few around it: the two sides
     * share the host's memory, so the best split is found by measurement */
    for (int tr = 0; tr < NSPLIT && !split_rc[s2]; tr++) {
      double sh = share[s2] + SPLIT_STEPS[tr];
      if (sh > 1) sh = 1;
      if (sh < 0) sh = 0;
      split_rc[s2] = gostx_gpu_ctr_crypt_split(g, spool, sh, c, iv, s2 ? 4 : 8, hin, len, hout);
      for (int i = 0; i < reps && !split_rc[s2]; i++) {
        double t0 = now_s();
        split_rc[s2] = gostx_gpu_ctr_crypt_split(g, spool, sh, c, iv, s2 ? 4 : 8, hin, len, hout);
        t2[i] = now_s() - t0;
      }
      if (split_rc[s2]) break;
      split_gbps[s2][tr] = median_gbps((double)len, t2, reps);
      if (split_gbps[s2][tr] > together[s2]) {
        together[s2] = split_gbps[s2][tr];
        best_share[s2] = sh;
      }
    }
    free(t2);
  }
  gostx_pool_free(spool);
  if (reg) {
    gostx_gpu_host_unregister(g, hin);
    gostx_gpu_host_unregister(g, hout);
  }

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
               "\"e2e_share_of_link\": %.3f, \"e2e_registered_gbps\": %.3f, "
               "\"e2e_registered_share_of_link\": %.3f, \"cpu_all_cores_gbps\": ",
               f[i].kernel, f[i].e2e, f[i].e2e_kernel, f[i].e2e / link, f[i].e2e_reg,
               f[i].e2e_reg / link);
        if (f[i].cpu >= 0) printf("%.3f", f[i].cpu); else printf("null");
      }
      printf("}");
    }
    printf("\n], \"register_seconds\": %.4f, \"copy_threads\": [", t_reg);
    for (size_t i = 0; i < 5; i++)
      printf("%s{\"threads\": %u, \"kuznyechik_ctr_e2e_gbps\": %.3f}", i ? ", " : "", CT[i],
             ct_rate[i]);
    printf("],\n \"batch\": {\"streams\": %zu, \"stream_bytes\": %d, \"rows\": [", ns,
           BATCH_STREAM);
    for (int r = 0; r < NBROWS; r++) {
      printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"%s\", ", r ? "," : "",
             BATCH_NAMES[r][0], BATCH_NAMES[r][1]);
      if (bf[r].rc) {
        printf("\"error\": ");
        cli_json_str(gostx_strerror(bf[r].rc));
      } else {
        printf("\"kernel_gbps\": %.3f, \"e2e_gbps\": %.3f, \"e2e_registered_gbps\": %.3f, "
               "\"cpu_all_cores_gbps\": ",
               bf[r].kernel, bf[r].e2e, bf[r].e2e_reg);
        if (bf[r].cpu >= 0) printf("%.3f", bf[r].cpu); else printf("null");
      }
      printf("}");
    }
    printf("]},\n \"split\": [");
    for (int s2 = 0; s2 < 2; s2++) {
      const struct figures *fr = &f[SPLIT_ROWS[s2]];
      printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"ctr\", ", s2 ? "," : "",
             ROWS[SPLIT_ROWS[s2]].alg);
      if (split_rc[s2]) {
        printf("\"error\": ");
        cli_json_str(gostx_strerror(split_rc[s2]));
      } else {
        printf("\"gpu_share\": %.3f, \"gpu_alone_gbps\": %.3f, \"cpu_alone_gbps\": %.3f, "
               "\"together_at_share_gbps\": %.3f, \"best_share\": %.3f, \"together_gbps\": %.3f",
               share[s2], fr->e2e_reg, fr->cpu, split_gbps[s2][0], best_share[s2], together[s2]);
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
    printf("%-11s %-8s %12s %10s %8s %10s %8s %10s %10s\n", "algorithm", "mode", "kernel GB/s",
           "e2e GB/s", "of link", "e2e reg", "of link", "e2e kern", "CPU GB/s");
    for (size_t i = 0; i < NGROWS; i++) {
      const struct grow *r = &ROWS[i];
      if (f[i].rc) {
        printf("%-11s %-8s error: %s (%s)\n", r->alg, OPS[r->op], gostx_strerror(f[i].rc),
               gostx_gpu_error());
        continue;
      }
      char cpu[32];
      if (f[i].cpu >= 0) snprintf(cpu, sizeof cpu, "%10.2f", f[i].cpu);
      else snprintf(cpu, sizeof cpu, "%10s", "-");
      printf("%-11s %-8s %12.2f %10.2f %7.0f%% %10.2f %7.0f%% %10.2f %s\n", r->alg, OPS[r->op],
             f[i].kernel, f[i].e2e, 100 * f[i].e2e / link, f[i].e2e_reg,
             100 * f[i].e2e_reg / link, f[i].e2e_kernel, cpu);
    }
    printf("kernel: device buffers, GPU time of the kernels alone. e2e: host buffer in, host\n"
           "buffer out, wall clock, chunked copies overlapped with the kernels on several\n"
           "streams (staging memcpy included); \"of link\": e2e over the ceiling above.\n"
           "e2e reg: the same from registered host buffers (DMA straight from and to them).\n"
           "e2e kern: the kernels' summed GPU time within e2e. CPU: this machine's cores on\n"
           "the same mode (bulk engine; gost89 cnt: independent streams, key meshing on).\n");
    printf("\nstaging copy threads, kuznyechik ctr e2e (unregistered buffers):");
    for (size_t i = 0; i < 5; i++) printf(" %u: %.2f", CT[i], ct_rate[i]);
    printf(" GB/s\nregistering the 2 x %zu MiB host buffers: %.3f s\n", len >> 20, t_reg);
    printf("\nmany streams, each with its own key and IV: %zu streams x %d B = %zu MiB\n", ns,
           BATCH_STREAM, ns * BATCH_STREAM >> 20);
    printf("%-11s %-8s %12s %10s %10s %10s\n", "algorithm", "mode", "kernel GB/s", "e2e GB/s",
           "e2e reg", "CPU GB/s");
    for (int r = 0; r < NBROWS; r++) {
      if (bf[r].rc) {
        printf("%-11s %-8s error: %s (%s)\n", BATCH_NAMES[r][0], BATCH_NAMES[r][1],
               gostx_strerror(bf[r].rc), gostx_gpu_error());
        continue;
      }
      char cpu[32];
      if (bf[r].cpu >= 0) snprintf(cpu, sizeof cpu, "%10.2f", bf[r].cpu);
      else snprintf(cpu, sizeof cpu, "%10s", "-");
      printf("%-11s %-8s %12.2f %10.2f %10.2f %s\n", BATCH_NAMES[r][0], BATCH_NAMES[r][1],
             bf[r].kernel, bf[r].e2e, bf[r].e2e_reg, cpu);
    }
    printf("kernel: the batch kernel on device data (keys already set up); e2e: host buffers,\n"
           "keys and IVs uploaded per call; CPU: gostx_batch_streams (CTR) on all cores.\n");
    printf("\nGPU + CPU at once (gostx_gpu_ctr_crypt_split, registered buffers, %ld pool threads):\n",
           cpus > 2 ? cpus - 1 : 1);
    printf("%-11s %-8s %10s %10s %10s %10s %10s %10s\n", "algorithm", "mode", "GPU share",
           "GPU GB/s", "CPU GB/s", "together", "best share", "together");
    for (int s2 = 0; s2 < 2; s2++) {
      const struct figures *fr = &f[SPLIT_ROWS[s2]];
      if (split_rc[s2]) {
        printf("%-11s %-8s error: %s\n", ROWS[SPLIT_ROWS[s2]].alg, "ctr",
               gostx_strerror(split_rc[s2]));
        continue;
      }
      printf("%-11s %-8s %10.3f %10.2f %10.2f %10.2f %10.3f %10.2f\n", ROWS[SPLIT_ROWS[s2]].alg,
             "ctr", share[s2], fr->e2e_reg, fr->cpu, split_gbps[s2][0], best_share[s2],
             together[s2]);
    }
    printf("GPU share: GPU rate / (GPU + CPU rate), from the rows above; best share: the\n"
           "fastest of that share and +-0.05, +-0.1 around it (within [0, 1]).\n");
  }
  batch_free(&b);
  gostx_pool_free(pool);
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
  for (int r = 0; r < NBROWS; r++) failed |= bok && bf[r].rc != 0;
  for (int s2 = 0; s2 < 2; s2++) failed |= reg && split_rc[s2] != 0;
  return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

#endif
