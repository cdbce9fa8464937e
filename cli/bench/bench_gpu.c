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

#include "bench.h"

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

/* One bench_gpu run: what it set up and what it measured. */
enum { NCT = 5, NSPLIT = 5 };
static const unsigned CT[NCT] = {1, 2, 4, 8, 16}; /* copy threads tried */
static const int SPLIT_ROWS[2] = {0, 5};          /* kuznyechik ctr, magma ctr */
static const double SPLIT_STEPS[NSPLIT] = {0, -0.1, -0.05, 0.05, 0.1};
struct gpu_run {
  const struct bench_gpu_args *a;
  gostx_gpu *g;
  const char *name;
  int mock, reps;
  size_t len, clen;
  double h2d, d2h, both, link; /* GB/s */
  struct keys k;
  uint8_t *hin, *hout;
  gostx_gpu_ptr din, dout;
  int ok, reg, bok; /* buffers made; host buffers registered; batch keys set up */
  struct figures f[NGROWS];
  double ct_rate[NCT], t_reg;
  long cpus;
  gostx_pool *pool, *spool; /* the batch rows' pool; the split's (freed after it) */
  struct batch b;
  size_t ns;
  struct bfig bf[NBROWS];
  double share[2], together[2], best_share[2], split_gbps[2][NSPLIT];
  int split_rc[2];
};

/* PCIe: pinned copies of up to 256 MiB. */
static int copy_bandwidth(struct gpu_run *R) {
  const int reps = R->reps;
  int rc = 0;
  R->clen = R->len < ((size_t)256 << 20) ? R->len : ((size_t)256 << 20);
  double *t = malloc(3 * sizeof(double) * (size_t)reps);
  for (int i = 0; i < reps && t && !rc; i++)
    rc = gostx_gpu_copy_bench(R->g, R->clen, &t[i], &t[reps + i], &t[2 * reps + i]);
  if (!t || rc) {
    cli_err("bench: --gpu: copy bandwidth: %s", t ? gostx_gpu_error() : "out of memory");
    free(t);
    return -1;
  }
  R->h2d = median_gbps((double)R->clen, t, reps);
  R->d2h = median_gbps((double)R->clen, t + reps, reps);
  R->both = median_gbps(2.0 * (double)R->clen, t + 2 * reps, reps);
  free(t);
  /* e2e moves each byte in and out: the link's ceiling is the both-at-once
   * rate over 2 (or one direction's rate, if that is lower). */
  R->link = R->both / 2;
  if (R->h2d < R->link) R->link = R->h2d;
  if (R->d2h < R->link) R->link = R->d2h;
  return 0;
}

/* The keys, the buffers, and every row on device data and from the host. */
static void measure_rows(struct gpu_run *R) {
  uint8_t key[64];
  for (int i = 0; i < 64; i++) key[i] = (uint8_t)(i * 37 + 11);
  gostx_cipher_init(&R->k.kuz, GOSTX_ALG_KUZNYECHIK, key);
  gostx_cipher_init(&R->k.magma, GOSTX_ALG_MAGMA, key);
  gostx_xts_set_key(&R->k.xts, key);
  gostx_gost89_set_key(&R->k.g89, key, GOSTX_SBOX_CRYPTOPRO_A);
  const size_t len = R->len;
  R->hin = malloc(len), R->hout = malloc(len);
  R->ok = R->hin && R->hout && !gostx_gpu_alloc(R->g, &R->din, len) &&
          !gostx_gpu_alloc(R->g, &R->dout, len);
  if (R->ok) {
    for (size_t i = 0; i < len; i++) R->hin[i] = (uint8_t)(i * 131 + (i >> 12));
    R->ok = !gostx_gpu_upload(R->g, R->din, R->hin, len);
  }
  for (size_t i = 0; R->ok && i < NGROWS; i++) {
    struct figures *f = &R->f[i];
    measure_row(R->g, &ROWS[i], &R->k, R->reps, R->din, R->dout, R->hin, R->hout, len, f);
    f->cpu = R->a->cpu(ROWS[i].alg, OPS[ROWS[i].op], R->a->ctx);
    if (f->cpu >= 0) f->cpu /= 1e3; /* MB/s -> GB/s */
  }
  if (!R->ok) cli_err("bench: --gpu: cannot allocate 2 x %zu MiB on the host and the GPU", len >> 20);
}

/* Staged rate of Kuznyechik CTR per number of copy threads; then registered
 * host buffers: the cost of pinning them, and every row again. */
static void measure_copies(struct gpu_run *R) {
  for (size_t i = 0; R->ok && i < NCT; i++) {
    gostx_gpu_set_copy_threads(R->g, CT[i]);
    if (e2e_rate(R->g, &ROWS[0], &R->k, R->reps, R->hin, R->hout, R->len, &R->ct_rate[i], NULL))
      R->ct_rate[i] = -1;
  }
  gostx_gpu_set_copy_threads(R->g, 0);
  if (R->ok) {
    double t0 = now_s();
    R->reg = !gostx_gpu_host_register(R->g, R->hin, R->len);
    R->reg = R->reg && !gostx_gpu_host_register(R->g, R->hout, R->len);
    R->t_reg = now_s() - t0;
    if (!R->reg) cli_err("bench: --gpu: cannot register the host buffers: %s", gostx_gpu_error());
  }
  for (size_t i = 0; R->reg && i < NGROWS; i++)
    if (!R->f[i].rc)
      R->f[i].rc = e2e_rate(R->g, &ROWS[i], &R->k, R->reps, R->hin, R->hout, R->len,
                            &R->f[i].e2e_reg, NULL);
}

/* Many streams: the article's 16,384 x 512 bytes (fewer if the buffer is
 * smaller), each its own key and IV. */
static void measure_batches(struct gpu_run *R) {
  gostx_gpu *g = R->g;
  const int reps = R->reps, reg = R->reg;
  const size_t ns = R->ns = R->len / BATCH_STREAM < 16384 ? R->len / BATCH_STREAM : 16384;
  R->pool = gostx_pool_new(0);
  R->bok = R->ok && batch_new(&R->b, ns) == 0;
  for (int r = 0; R->bok && r < NBROWS; r++) {
    struct bfig *bf = &R->bf[r];
    bf->rc = batch_rate(g, R->pool, &R->b, r, 1, reps, R->din, R->dout, NULL, NULL, &bf->kernel);
    if (!bf->rc) {
      /* staged: from buffers outside the registered ranges */
      uint8_t *si = reg ? malloc(ns * BATCH_STREAM) : R->hin;
      uint8_t *so = reg ? malloc(ns * BATCH_STREAM) : R->hout;
      if (si && so) {
        if (si != R->hin) memcpy(si, R->hin, ns * BATCH_STREAM);
        bf->rc = batch_rate(g, R->pool, &R->b, r, 0, reps, 0, 0, si, so, &bf->e2e);
      } else {
        bf->rc = GOSTX_ENOMEM;
      }
      if (reg) {
        free(si);
        free(so);
      }
    }
    if (!bf->rc && reg)
      bf->rc = batch_rate(g, R->pool, &R->b, r, 0, reps, 0, 0, R->hin, R->hout, &bf->e2e_reg);
    if (!bf->rc && batch_rate(g, R->pool, &R->b, r, 2, reps, 0, 0, R->hin, R->hout, &bf->cpu))
      bf->cpu = -1;
  }
  if (R->ok && !R->bok) cli_err("bench: --gpu: cannot set up %zu streams' keys", ns);
}

/* GPU and CPU at once: CTR split by the measured rates (registered e2e on
 * the GPU, the bulk engine on all cores), on a pool of one thread fewer
 * than the CPUs (one drives the GPU). */
static void measure_split(struct gpu_run *R) {
  static const uint8_t iv[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const int reps = R->reps;
  R->spool = gostx_pool_new(R->cpus > 2 ? (unsigned)R->cpus - 1 : 1);
  R->split_rc[0] = R->split_rc[1] = GOSTX_EUNSUP;
  for (int s2 = 0; R->reg && s2 < 2; s2++) {
    const struct figures *fr = &R->f[SPLIT_ROWS[s2]];
    if (fr->rc || fr->cpu <= 0) continue;
    R->share[s2] = fr->e2e_reg / (fr->e2e_reg + fr->cpu);
    const gostx_cipher *c = s2 ? &R->k.magma : &R->k.kuz;
    double *t2 = malloc(sizeof(double) * (size_t)reps);
    int *rc = &R->split_rc[s2];
    *rc = t2 ? GOSTX_OK : GOSTX_ENOMEM;
    /* the share from the rates alone, then a few around it: the two sides
     * share the host's memory, so the best split is found by measurement */
    for (int tr = 0; tr < NSPLIT && !*rc; tr++) {
      double sh = R->share[s2] + SPLIT_STEPS[tr];
      if (sh > 1) sh = 1;
      if (sh < 0) sh = 0;
      *rc = gostx_gpu_ctr_crypt_split(R->g, R->spool, sh, c, iv, s2 ? 4 : 8, R->hin, R->len,
                                      R->hout);
      for (int i = 0; i < reps && !*rc; i++) {
        double t0 = now_s();
        *rc = gostx_gpu_ctr_crypt_split(R->g, R->spool, sh, c, iv, s2 ? 4 : 8, R->hin, R->len,
                                        R->hout);
        t2[i] = now_s() - t0;
      }
      if (*rc) break;
      R->split_gbps[s2][tr] = median_gbps((double)R->len, t2, reps);
      if (R->split_gbps[s2][tr] > R->together[s2]) {
        R->together[s2] = R->split_gbps[s2][tr];
        R->best_share[s2] = sh;
      }
    }
    free(t2);
  }
  gostx_pool_free(R->spool);
  if (R->reg) {
    gostx_gpu_host_unregister(R->g, R->hin);
    gostx_gpu_host_unregister(R->g, R->hout);
  }
}

static void json_error(int rc) {
  printf("\"error\": ");
  cli_json_str(gostx_strerror(rc));
}

static void print_json(const struct gpu_run *R) {
  const struct figures *f = R->f;
  printf("{\"device\": ");
  cli_json_str(R->name);
  printf(", \"mock\": %s, \"bytes\": %zu, \"repeat\": %d, \"copy_bytes\": %zu, "
         "\"h2d_gbps\": %.3f, \"d2h_gbps\": %.3f, \"both_gbps\": %.3f, \"rows\": [",
         R->mock ? "true" : "false", R->len, R->reps, R->clen, R->h2d, R->d2h, R->both);
  for (size_t i = 0; i < NGROWS; i++) {
    printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"%s\", ", i ? "," : "", ROWS[i].alg,
           OPS[ROWS[i].op]);
    if (f[i].rc) {
      json_error(f[i].rc);
    } else {
      printf("\"kernel_gbps\": %.3f, \"e2e_gbps\": %.3f, \"e2e_kernel_gbps\": %.3f, "
             "\"e2e_share_of_link\": %.3f, \"e2e_registered_gbps\": %.3f, "
             "\"e2e_registered_share_of_link\": %.3f, \"cpu_all_cores_gbps\": ",
             f[i].kernel, f[i].e2e, f[i].e2e_kernel, f[i].e2e / R->link, f[i].e2e_reg,
             f[i].e2e_reg / R->link);
      if (f[i].cpu >= 0) printf("%.3f", f[i].cpu); else printf("null");
    }
    printf("}");
  }
  printf("\n], \"register_seconds\": %.4f, \"copy_threads\": [", R->t_reg);
  for (size_t i = 0; i < NCT; i++)
    printf("%s{\"threads\": %u, \"kuznyechik_ctr_e2e_gbps\": %.3f}", i ? ", " : "", CT[i],
           R->ct_rate[i]);
  printf("],\n \"batch\": {\"streams\": %zu, \"stream_bytes\": %d, \"rows\": [", R->ns,
         BATCH_STREAM);
  for (int r = 0; r < NBROWS; r++) {
    const struct bfig *bf = &R->bf[r];
    printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"%s\", ", r ? "," : "", BATCH_NAMES[r][0],
           BATCH_NAMES[r][1]);
    if (bf->rc) {
      json_error(bf->rc);
    } else {
      printf("\"kernel_gbps\": %.3f, \"e2e_gbps\": %.3f, \"e2e_registered_gbps\": %.3f, "
             "\"cpu_all_cores_gbps\": ",
             bf->kernel, bf->e2e, bf->e2e_reg);
      if (bf->cpu >= 0) printf("%.3f", bf->cpu); else printf("null");
    }
    printf("}");
  }
  printf("]},\n \"split\": [");
  for (int s2 = 0; s2 < 2; s2++) {
    const struct figures *fr = &f[SPLIT_ROWS[s2]];
    printf("%s\n  {\"algorithm\": \"%s\", \"mode\": \"ctr\", ", s2 ? "," : "",
           ROWS[SPLIT_ROWS[s2]].alg);
    if (R->split_rc[s2]) {
      json_error(R->split_rc[s2]);
    } else {
      printf("\"gpu_share\": %.3f, \"gpu_alone_gbps\": %.3f, \"cpu_alone_gbps\": %.3f, "
             "\"together_at_share_gbps\": %.3f, \"best_share\": %.3f, \"together_gbps\": %.3f",
             R->share[s2], fr->e2e_reg, fr->cpu, R->split_gbps[s2][0], R->best_share[s2],
             R->together[s2]);
    }
    printf("}");
  }
  printf("\n]}");
}

/* "%10.2f" of v, or "-" in its width when v < 0 (none). */
static const char *gbps_col(char *buf, size_t cap, double v) {
  if (v >= 0) snprintf(buf, cap, "%10.2f", v);
  else snprintf(buf, cap, "%10s", "-");
  return buf;
}

static void print_text_rows(const struct gpu_run *R) {
  const struct figures *f = R->f;
  char cpu[32];
  printf("\nGPU: %s%s\n", R->name, R->mock ? " (mock driver: kernels run on the host; "
                                             "timings are meaningless)" : "");
  printf("pinned copies (%zu MiB): H2D %.2f GB/s, D2H %.2f GB/s, both at once %.2f GB/s;\n"
         "  end-to-end ceiling (each byte in and out): %.2f GB/s\n",
         R->clen >> 20, R->h2d, R->d2h, R->both, R->link);
  printf("host buffer %zu MiB; median of %d; GB/s = 10^9 B/s\n", R->len >> 20, R->reps);
  printf("%-11s %-8s %12s %10s %8s %10s %8s %10s %10s\n", "algorithm", "mode", "kernel GB/s",
         "e2e GB/s", "of link", "e2e reg", "of link", "e2e kern", "CPU GB/s");
  for (size_t i = 0; i < NGROWS; i++) {
    const struct grow *r = &ROWS[i];
    if (f[i].rc) {
      printf("%-11s %-8s error: %s (%s)\n", r->alg, OPS[r->op], gostx_strerror(f[i].rc),
             gostx_gpu_error());
      continue;
    }
    printf("%-11s %-8s %12.2f %10.2f %7.0f%% %10.2f %7.0f%% %10.2f %s\n", r->alg, OPS[r->op],
           f[i].kernel, f[i].e2e, 100 * f[i].e2e / R->link, f[i].e2e_reg,
           100 * f[i].e2e_reg / R->link, f[i].e2e_kernel, gbps_col(cpu, sizeof cpu, f[i].cpu));
  }
  printf("kernel: device buffers, GPU time of the kernels alone. e2e: host buffer in, host\n"
         "buffer out, wall clock, chunked copies overlapped with the kernels on several\n"
         "streams (staging memcpy included); \"of link\": e2e over the ceiling above.\n"
         "e2e reg: the same from registered host buffers (DMA straight from and to them).\n"
         "e2e kern: the kernels' summed GPU time within e2e. CPU: this machine's cores on\n"
         "the same mode (bulk engine; gost89 cnt: independent streams, key meshing on).\n");
  printf("\nstaging copy threads, kuznyechik ctr e2e (unregistered buffers):");
  for (size_t i = 0; i < NCT; i++) printf(" %u: %.2f", CT[i], R->ct_rate[i]);
  printf(" GB/s\nregistering the 2 x %zu MiB host buffers: %.3f s\n", R->len >> 20, R->t_reg);
}

static void print_text_batch_split(const struct gpu_run *R) {
  char cpu[32];
  printf("\nmany streams, each with its own key and IV: %zu streams x %d B = %zu MiB\n", R->ns,
         BATCH_STREAM, R->ns * BATCH_STREAM >> 20);
  printf("%-11s %-8s %12s %10s %10s %10s\n", "algorithm", "mode", "kernel GB/s", "e2e GB/s",
         "e2e reg", "CPU GB/s");
  for (int r = 0; r < NBROWS; r++) {
    const struct bfig *bf = &R->bf[r];
    if (bf->rc) {
      printf("%-11s %-8s error: %s (%s)\n", BATCH_NAMES[r][0], BATCH_NAMES[r][1],
             gostx_strerror(bf->rc), gostx_gpu_error());
      continue;
    }
    printf("%-11s %-8s %12.2f %10.2f %10.2f %s\n", BATCH_NAMES[r][0], BATCH_NAMES[r][1],
           bf->kernel, bf->e2e, bf->e2e_reg, gbps_col(cpu, sizeof cpu, bf->cpu));
  }
  printf("kernel: the batch kernel on device data (keys already set up); e2e: host buffers,\n"
         "keys and IVs uploaded per call; CPU: gostx_batch_streams (CTR) on all cores.\n");
  printf("\nGPU + CPU at once (gostx_gpu_ctr_crypt_split, registered buffers, %ld pool threads):\n",
         R->cpus > 2 ? R->cpus - 1 : 1);
  printf("%-11s %-8s %10s %10s %10s %10s %10s %10s\n", "algorithm", "mode", "GPU share",
         "GPU GB/s", "CPU GB/s", "together", "best share", "together");
  for (int s2 = 0; s2 < 2; s2++) {
    const struct figures *fr = &R->f[SPLIT_ROWS[s2]];
    if (R->split_rc[s2]) {
      printf("%-11s %-8s error: %s\n", ROWS[SPLIT_ROWS[s2]].alg, "ctr",
             gostx_strerror(R->split_rc[s2]));
      continue;
    }
    printf("%-11s %-8s %10.3f %10.2f %10.2f %10.2f %10.3f %10.2f\n", ROWS[SPLIT_ROWS[s2]].alg,
           "ctr", R->share[s2], fr->e2e_reg, fr->cpu, R->split_gbps[s2][0], R->best_share[s2],
           R->together[s2]);
  }
  printf("GPU share: GPU rate / (GPU + CPU rate), from the rows above; best share: the\n"
         "fastest of that share and +-0.05, +-0.1 around it (within [0, 1]).\n");
}

static void release(struct gpu_run *R) {
  batch_free(&R->b);
  gostx_pool_free(R->pool);
  gostx_gpu_free(R->g, R->din);
  gostx_gpu_free(R->g, R->dout);
  free(R->hin);
  free(R->hout);
  gostx_cipher_clear(&R->k.kuz);
  gostx_cipher_clear(&R->k.magma);
  gostx_xts_clear(&R->k.xts);
  gostx_memzero(&R->k.g89, sizeof R->k.g89);
  gostx_gpu_close(R->g);
}

int bench_gpu(const struct bench_gpu_args *a) {
  struct gpu_run *R = calloc(1, sizeof *R);
  if (!R) {
    cli_err("bench: --gpu: out of memory");
    return CLI_EXIT_FAIL;
  }
  R->a = a, R->len = a->len, R->reps = a->repeat;
  if (gostx_gpu_open(&R->g, a->device)) {
    cli_err("bench: --gpu: no GPU: %s", gostx_gpu_error());
    free(R);
    return CLI_EXIT_FAIL;
  }
  R->name = gostx_gpu_name(R->g);
  R->mock = strstr(R->name, "mock") != NULL;
  if (copy_bandwidth(R)) {
    gostx_gpu_close(R->g);
    free(R);
    return CLI_EXIT_FAIL;
  }
  R->cpus = sysconf(_SC_NPROCESSORS_ONLN);
  measure_rows(R);
  measure_copies(R);
  measure_batches(R);
  measure_split(R);
  if (R->ok && a->json) print_json(R);
  else if (R->ok) print_text_rows(R), print_text_batch_split(R);
  int failed = !R->ok;
  for (size_t i = 0; i < NGROWS; i++) failed |= R->f[i].rc != 0;
  for (int r = 0; r < NBROWS; r++) failed |= R->bok && R->bf[r].rc != 0;
  for (int s2 = 0; s2 < 2; s2++) failed |= R->reg && R->split_rc[s2] != 0;
  release(R);
  free(R);
  return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

#endif
