/* gostx bench: throughput and cycles/byte of every algorithm and mode, the
 * tables of the classic performance articles, measured in-process on memory
 * buffers through the public API.
 *
 * Method: wall clock (CLOCK_MONOTONIC). Per row, per thread count: a warm-up
 * that also calibrates how many passes over the buffer make one repetition
 * last at least --time ms, then --repeat repetitions, aligned and unaligned
 * buffers interleaved (so their ratio is measured under the same noise), and
 * the median. Cycles: PERF_COUNT_HW_CPU_CYCLES per thread (user space) where
 * perf_event_open works, otherwise the TSC (reference cycles, not core clock).
 *
 * Threads (--threads N): rows whose mode the bulk engine parallelises (ECB,
 * CTR, CTR-ACPKM, MGM, XTS) run one buffer through the engine's parallel call
 * on a pool of N threads ("pool": what one big job gains from N cores); the
 * other rows, and every row with --engine streams, run N independent streams,
 * each with its own key and buffers, on N threads at once ("streams": many
 * jobs, e.g. one per connection). The aggregate is reported, and with a
 * 1-thread table in the same run, the scaling and efficiency against it. The
 * "runner" below is the one place that knows how streams are run. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* ---- the work of one row ---- */

/* One stream's state: its key and buffers (in/out/aux at the measured
 * alignment), set up once, used for every pass. */
struct stream {
  size_t len;
  uint8_t *in, *out, *aux; /* aux: MGM decrypt's ciphertext */
  void *mem[3];
  gostx_cipher c;
  gostx_xts_key xts;
  gostx_pool *pool; /* the bulk engine's threads (pool rows); NULL = 1 thread */
  gostx_gost89_key g89;             /* the gost89 rows (GOST89_SBOX) */
  uint8_t key[64], iv[16], tag[64]; /* tag: up to a Streebog-512 digest */
  size_t unit;                     /* XTS rows: the data unit (sector) length */
  gostx_xts_key *xkeys;            /* XTS batch rows with a key per sector: one per sector */
  size_t nxk;
  gostx_stream *xs; /* XTS batch rows: a stream per sector, the partial one last */
  uint8_t *xtw;     /* ... and their tweaks, the sector numbers */
  size_t nxs;
};

typedef int (*work_fn)(struct stream *s);

#define XTS_SECTOR 4096     /* data unit of the xts-enc / xts-dec rows (bytes) */
#define ACPKM_SECTION 4096  /* section N of the CTR-ACPKM rows (bytes) */
#define GOST89_SBOX GOSTX_SBOX_CRYPTOPRO_A

/* Rows with a bulk-engine variant call it: with s->pool NULL it is the
 * single-threaded call (include/gostx/bulk.h). */
static int w_ecb_enc(struct stream *s) {
  return gostx_ecb_encrypt_mt(s->pool, &s->c, s->in, s->len, s->out);
}
static int w_ecb_dec(struct stream *s) {
  return gostx_ecb_decrypt_mt(s->pool, &s->c, s->in, s->len, s->out);
}
static int w_cbc_enc(struct stream *s) {
  return gostx_cbc_encrypt(&s->c, s->iv, s->c.block_len, s->in, s->len, s->out);
}
static int w_cbc_dec(struct stream *s) {
  return gostx_cbc_decrypt(&s->c, s->iv, s->c.block_len, s->in, s->len, s->out);
}
static int w_cfb_enc(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_cfb_encrypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_cfb_dec(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_cfb_decrypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_ofb(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_ofb_crypt(&s->c, s->iv, n, n, s->in, s->len, s->out);
}
static int w_ctr(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_ctr_crypt_mt(s->pool, &s->c, s->iv, n / 2, s->in, s->len, s->out);
}
static int w_ctr_acpkm(struct stream *s) {
  return gostx_ctr_acpkm_crypt_mt(s->pool, &s->c, s->iv, s->c.block_len / 2, ACPKM_SECTION, s->in,
                                  s->len, s->out);
}
static int w_omac(struct stream *s) {
  return gostx_omac(&s->c, s->in, s->len, s->tag, s->c.block_len);
}
static int w_mgm_enc(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_mgm_encrypt_mt(s->pool, &s->c, s->iv, n, NULL, 0, s->in, s->len, s->out, s->tag,
                              n);
}
static int w_mgm_dec(struct stream *s) {
  size_t n = s->c.block_len;
  return gostx_mgm_decrypt_mt(s->pool, &s->c, s->iv, n, NULL, 0, s->aux, s->len, s->tag, n,
                              s->out);
}
/* XTS, one call: consecutive data units of s->unit bytes (the last one may
 * be shorter), tweaks first + i. */
static int w_xts_enc(struct stream *s) {
  return gostx_xts_encrypt_mt(s->pool, &s->xts, 0, s->unit, s->in, s->len, s->out);
}
static int w_xts_dec(struct stream *s) {
  return gostx_xts_decrypt_mt(s->pool, &s->xts, 0, s->unit, s->in, s->len, s->out);
}
/* XTS, the stream batch on sectors (s->xs: one key, or a key per sector):
 * the sectors that fit (one length: the sector engine), then what is left
 * (>= 16 bytes) as one more stream. */
static int xts_batch(struct stream *s, int dec) {
  const gostx_batch_op op = dec ? GOSTX_BATCH_XTS_DECRYPT : GOSTX_BATCH_XTS_ENCRYPT;
  const gostx_batch_params p = {0};
  const size_t sl = s->len < s->unit ? s->len : s->unit, ns = s->len / sl, rest = s->len % sl;
  int rc = gostx_batch_streams(s->pool, op, &p, s->xs, ns);
  if (!rc && rest >= 16) rc = gostx_batch_streams(s->pool, op, &p, s->xs + ns, 1);
  return rc;
}
static int w_xts_batch_enc(struct stream *s) { return xts_batch(s, 0); }
static int w_xts_batch_dec(struct stream *s) { return xts_batch(s, 1); }
static int w_g89_cnt(struct stream *s) {
  return gostx_gost89_cnt(&s->g89, s->iv, 1, s->in, s->len, s->out);
}
static int w_g89_cfb(struct stream *s) {
  return gostx_gost89_cfb(&s->g89, s->iv, 1, 0, s->in, s->len, s->out);
}
static int w_sb256(struct stream *s) { return gostx_streebog(32, s->in, s->len, s->tag); }
static int w_sb512(struct stream *s) {
  uint8_t d[64];
  return gostx_streebog(64, s->in, s->len, d);
}
static int w_hmac256(struct stream *s) { return gostx_hmac(32, s->key, 32, s->in, s->len, s->tag); }
static int w_hmac512(struct stream *s) {
  uint8_t d[64];
  return gostx_hmac(64, s->key, 32, s->in, s->len, d);
}

enum { K_NONE = 0, K_KUZ = GOSTX_ALG_KUZNYECHIK, K_MAGMA = GOSTX_ALG_MAGMA, K_XTS = 100 };

struct row {
  const char *alg, *mode;
  int prim; /* enum gostx_alg: whose implementation runs */
  int keying;
  work_fn fn;
  int par;      /* 1: the bulk engine has a parallel variant (pool rows) */
  size_t unit;  /* XTS: the data unit */
  int keyed;    /* XTS batch: a key per sector */
};

#define CIPHER_ROWS(alg, prim, k)                                                              \
  {alg, "ecb-enc", prim, k, w_ecb_enc, 1, 0, 0}, {alg, "ecb-dec", prim, k, w_ecb_dec, 1, 0, 0},  \
  {alg, "cbc-enc", prim, k, w_cbc_enc, 0, 0, 0}, {alg, "cbc-dec", prim, k, w_cbc_dec, 0, 0, 0},  \
  {alg, "cfb-enc", prim, k, w_cfb_enc, 0, 0, 0}, {alg, "cfb-dec", prim, k, w_cfb_dec, 0, 0, 0},  \
  {alg, "ofb", prim, k, w_ofb, 0, 0, 0},         {alg, "ctr", prim, k, w_ctr, 1, 0, 0},          \
  {alg, "ctr-acpkm", prim, k, w_ctr_acpkm, 1, 0, 0}, {alg, "omac", prim, k, w_omac, 0, 0, 0},    \
  {alg, "mgm-enc", prim, k, w_mgm_enc, 1, 0, 0}, {alg, "mgm-dec", prim, k, w_mgm_dec, 1, 0, 0}

/* Kuznyechik-XTS encryption and decryption rows: "xts-" kind "enc" suffix. */
#define XTS_ROWS(kind, suffix, fn, unit, keyed)                                                  \
  {"kuznyechik", "xts-" kind "enc" suffix, GOSTX_ALG_KUZNYECHIK, K_XTS, fn##_enc, 1, unit, keyed}, \
  {"kuznyechik", "xts-" kind "dec" suffix, GOSTX_ALG_KUZNYECHIK, K_XTS, fn##_dec, 1, unit, keyed}

static const struct row rows[] = {
    CIPHER_ROWS("kuznyechik", GOSTX_ALG_KUZNYECHIK, K_KUZ),
    /* XTS: one call over the buffer (gostx_xts_*_mt) with 4096- and
     * 512-byte data units; the stream batch on sectors (gostx_batch_streams)
     * with one key and with a key per sector. Compare with ecb-enc / ecb-dec. */
    XTS_ROWS("", "", w_xts, XTS_SECTOR, 0),   XTS_ROWS("", "-512", w_xts, 512, 0),
    XTS_ROWS("batch-", "", w_xts_batch, 4096, 0), XTS_ROWS("batch-", "-512", w_xts_batch, 512, 0),
    XTS_ROWS("keyed-", "", w_xts_batch, 4096, 1), XTS_ROWS("keyed-", "-512", w_xts_batch, 512, 1),
    CIPHER_ROWS("magma", GOSTX_ALG_MAGMA, K_MAGMA),
    {"gost89", "cnt", GOSTX_ALG_MAGMA, K_NONE, w_g89_cnt, 0, 0, 0},
    {"gost89", "cfb-enc", GOSTX_ALG_MAGMA, K_NONE, w_g89_cfb, 0, 0, 0},
    {"streebog256", "hash", GOSTX_ALG_STREEBOG, K_NONE, w_sb256, 0, 0, 0},
    {"streebog512", "hash", GOSTX_ALG_STREEBOG, K_NONE, w_sb512, 0, 0, 0},
    {"hmac-streebog256", "mac", GOSTX_ALG_STREEBOG, K_NONE, w_hmac256, 0, 0, 0},
    {"hmac-streebog512", "mac", GOSTX_ALG_STREEBOG, K_NONE, w_hmac512, 0, 0, 0},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void stream_free(struct stream *s) {
  for (int i = 0; i < 3; i++) free(s->mem[i]);
  gostx_cipher_clear(&s->c);
  gostx_xts_clear(&s->xts);
  for (size_t i = 0; i < s->nxk; i++) gostx_xts_clear(&s->xkeys[i]);
  free(s->xkeys);
  free(s->xs);
  free(s->xtw);
  memset(s, 0, sizeof *s);
}

/* Buffers 64-byte aligned plus `offset`; deterministic contents, keys and IVs
 * (the IV's top bit clear for MGM). seed makes each stream's key its own. */
static int stream_setup(struct stream *s, const struct row *r, size_t len, size_t offset,
                        unsigned seed) {
  memset(s, 0, sizeof *s);
  s->len = len;
  uint8_t **bufs[3] = {&s->in, &s->out, &s->aux};
  for (int i = 0; i < 3; i++) {
    s->mem[i] = aligned_alloc(64, (len + 64 + 63) / 64 * 64);
    if (!s->mem[i]) return GOSTX_ENOMEM;
    *bufs[i] = (uint8_t *)s->mem[i] + offset;
  }
  uint32_t x = 0x9e3779b9u ^ (seed * 0x85ebca6bu);
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    s->in[i] = (uint8_t)x;
  }
  for (int i = 0; i < 64; i++) s->key[i] = (uint8_t)(i * 7 + seed * 31 + 1);
  for (int i = 0; i < 16; i++) s->iv[i] = (uint8_t)(0x12 + i * 0x11);
  s->iv[0] &= 0x7f;
  int rc = 0;
  if (r->keying == K_KUZ || r->keying == K_MAGMA)
    rc = gostx_cipher_init(&s->c, (gostx_alg)r->keying, s->key);
  else if (r->fn == w_g89_cnt || r->fn == w_g89_cfb)
    rc = gostx_gost89_set_key(&s->g89, s->key, GOST89_SBOX);
  else if (r->keying == K_XTS) rc = gostx_xts_set_key(&s->xts, s->key);
  if (rc) return rc;
  s->unit = r->unit;
  if (r->keyed) { /* distinct keys, one per sector (and the partial one), in sector order */
    s->nxk = len / (len < r->unit ? len : r->unit) + 1;
    s->xkeys = aligned_alloc(64, s->nxk * sizeof *s->xkeys);
    if (!s->xkeys) return GOSTX_ENOMEM;
    uint8_t k[64];
    memcpy(k, s->key, sizeof k);
    for (size_t i = 0; i < s->nxk && !rc; i++) {
      for (int b = 0; b < 8; b++) k[b] = (uint8_t)(s->key[b] ^ (i >> (8 * b)));
      rc = gostx_xts_set_key(&s->xkeys[i], k);
    }
    gostx_memzero(k, sizeof k);
    if (rc) return rc;
  }
  if (r->fn == w_xts_batch_enc || r->fn == w_xts_batch_dec) {
    const size_t sl = len < r->unit ? len : r->unit;
    s->nxs = len / sl + 1;
    s->xs = calloc(s->nxs, sizeof *s->xs);
    s->xtw = calloc(s->nxs, 16);
    if (!s->xs || !s->xtw) return GOSTX_ENOMEM;
    for (size_t i = 0; i < s->nxs; i++) {
      for (int b = 0; b < 8; b++) s->xtw[16 * i + b] = (uint8_t)(i >> (8 * b));
      s->xs[i] = (gostx_stream){.key = r->keyed ? &s->xkeys[i] : &s->xts, .iv = s->xtw + 16 * i,
                                .in = s->in + i * sl, .len = i < len / sl ? sl : len % sl,
                                .out = s->out + i * sl};
    }
  }
  if (r->fn == w_mgm_dec) { /* a valid ciphertext and tag to open on every pass */
    size_t n = s->c.block_len;
    rc = gostx_mgm_encrypt(&s->c, s->iv, n, NULL, 0, s->in, len, s->aux, s->tag, n);
  }
  return rc;
}

/* ---- clocks and cycle counters (bench/harness: the clocks, perf, the TSC) ---- */

/* --clock cpu: time each stream by its thread's CPU time instead of the wall
 * clock (for busy shared machines; it hides contention between threads). */
static int use_cpu_clock;

enum { CYC_NONE, CYC_PERF, CYC_TSC };
static int cycles_source = CYC_NONE;
static char cycles_note[160];
static double tsc_hz;

static void choose_cycles_source(void) {
  const char *why = "not Linux";
#ifdef GOSTX_BENCH_HAVE_PERF
  int fd = gostx_bench_perf_open(0);
  if (fd >= 0) {
    gostx_bench_perf_start(fd);
    volatile uint64_t x = 0;
    for (int i = 0; i < 1000000; i++) x += (uint64_t)i;
    (void)x;
    uint64_t c = gostx_bench_perf_stop(fd);
    gostx_bench_perf_close(fd);
    if (c > 0) {
      cycles_source = CYC_PERF;
      snprintf(cycles_note, sizeof cycles_note,
               "perf_event_open PERF_COUNT_HW_CPU_CYCLES (core cycles, user space, per thread)");
      return;
    }
    why = "perf counter reads 0";
  } else {
    why = strerror(errno);
  }
#endif
#ifdef GOSTX_BENCH_HAVE_TSC
  tsc_hz = gostx_bench_tsc_hz();
  cycles_source = CYC_TSC;
  snprintf(cycles_note, sizeof cycles_note,
           "TSC via rdtsc at %.3f GHz (estimated against CLOCK_MONOTONIC; reference cycles, "
           "not core clock; perf_event_open: %s)",
           tsc_hz / 1e9, why);
#else
  snprintf(cycles_note, sizeof cycles_note, "none (perf_event_open: %s; no TSC)", why);
#endif
}

static const char *cycles_source_name(void) {
  return cycles_source == CYC_PERF ? "perf" : cycles_source == CYC_TSC ? "tsc" : "none";
}

/* ---- the runner: N streams on N threads, or one stream on a pool of N ----
 * Workers hold two streams each (aligned, unaligned), wait at a barrier, run
 * `passes` passes over the chosen one, count their own cycles (perf), and meet
 * at a second barrier. The main thread times from the first barrier to the
 * second. In pool mode there is one worker; it creates the pool itself, after
 * opening its cycle counter, so that the counter also counts the pool's
 * threads (perf inherit), and it reads the process's CPU time instead of its
 * own. */

struct worker {
  pthread_t th;
  struct runner *rn;
  struct stream st[2];
  int perf_fd;
  uint64_t cycles;
  double cpu_s; /* the thread's CPU time in the last round */
  int rc;
};

struct runner {
  int nthreads;     /* workers = streams */
  int pool_threads; /* > 1: pool mode, one worker calling the bulk engine */
  int width;        /* threads doing the work: nthreads or pool_threads */
  pthread_barrier_t start, done;
  int which, passes, quit;
  const struct row *row;
  struct worker *w;
};

static void *worker_main(void *arg) {
  struct worker *w = arg;
  struct runner *rn = w->rn;
  w->perf_fd = -1;
  int pooled = rn->pool_threads > 1;
  if (cycles_source == CYC_PERF) w->perf_fd = gostx_bench_perf_open(pooled);
  gostx_pool *pool = NULL;
  if (pooled) {
    pool = gostx_pool_new((unsigned)rn->pool_threads);
    if (!pool) w->rc = GOSTX_ENOMEM;
    w->st[0].pool = w->st[1].pool = pool;
  }
  const gostx_bench_clock clock = pooled ? GOSTX_BENCH_PROCESS_CPU : GOSTX_BENCH_THREAD_CPU;
  pthread_barrier_wait(&rn->start);
  for (;;) {
    pthread_barrier_wait(&rn->start);
    if (rn->quit) break;
    struct stream *s = &w->st[rn->which];
    if (w->perf_fd >= 0) gostx_bench_perf_start(w->perf_fd);
    double c0 = gostx_bench_now(clock);
    for (int p = 0; p < rn->passes && !w->rc; p++) w->rc = rn->row->fn(s);
    /* pool mode: the time the job would take with its CPU time spread evenly */
    w->cpu_s = (gostx_bench_now(clock) - c0) / (pooled ? rn->pool_threads : 1);
    if (w->perf_fd >= 0) w->cycles = gostx_bench_perf_stop(w->perf_fd);
    pthread_barrier_wait(&rn->done);
  }
  if (w->perf_fd >= 0) gostx_bench_perf_close(w->perf_fd);
  w->st[0].pool = w->st[1].pool = NULL;
  gostx_pool_free(pool);
  return NULL;
}

/* pool: run the row's bulk-engine call on a pool of nthreads (one stream). */
static int runner_start(struct runner *rn, const struct row *r, int nthreads, int pool,
                        size_t len) {
  memset(rn, 0, sizeof *rn);
  rn->width = nthreads;
  if (pool && nthreads > 1) {
    rn->pool_threads = nthreads;
    nthreads = 1;
  }
  rn->nthreads = nthreads;
  rn->row = r;
  rn->w = calloc((size_t)nthreads, sizeof *rn->w);
  if (!rn->w) return GOSTX_ENOMEM;
  for (int t = 0; t < nthreads; t++) {
    rn->w[t].rn = rn;
    int rc = stream_setup(&rn->w[t].st[0], r, len, 0, (unsigned)t);
    if (!rc) rc = stream_setup(&rn->w[t].st[1], r, len, 1, (unsigned)t);
    if (rc) {
      for (int u = 0; u <= t; u++) { stream_free(&rn->w[u].st[0]); stream_free(&rn->w[u].st[1]); }
      free(rn->w);
      return rc;
    }
  }
  pthread_barrier_init(&rn->start, NULL, (unsigned)nthreads + 1);
  pthread_barrier_init(&rn->done, NULL, (unsigned)nthreads + 1);
  int started = 0;
  for (; started < nthreads; started++)
    if (pthread_create(&rn->w[started].th, NULL, worker_main, &rn->w[started])) break;
  if (started < nthreads) { /* cannot happen in practice; fail loudly */
    cli_err("bench: cannot start %d threads", nthreads);
    exit(CLI_EXIT_FAIL);
  }
  pthread_barrier_wait(&rn->start); /* workers have their counters */
  return 0;
}

/* One round: every worker runs `passes` passes over stream `which`.
 * Returns the wall time (--clock cpu: the time in which all streams together
 * would process their bytes at their CPU-time rates, i.e. one stream's bytes
 * over the sum of the rates); *cycles the cycles of all threads together. */
static double runner_round(struct runner *rn, int which, int passes, double *cycles, int *rc) {
  rn->which = which;
  rn->passes = passes;
  /* Clocks read before the start barrier: read after it, a main thread that
   * is descheduled there (busy machine) would miss the workers' time. */
  uint64_t c0 = gostx_bench_tsc();
  double t0 = gostx_bench_now(GOSTX_BENCH_WALL);
  pthread_barrier_wait(&rn->start);
  pthread_barrier_wait(&rn->done);
  double t = gostx_bench_now(GOSTX_BENCH_WALL) - t0;
  *cycles = 0;
  if (cycles_source == CYC_TSC) *cycles = (double)(gostx_bench_tsc() - c0) * rn->width;
  *rc = 0;
  double rate = 0, cpu = 0; /* rate: sum of 1/cpu_s, streams per second */
  for (int i = 0; i < rn->nthreads; i++) {
    if (cycles_source == CYC_PERF) *cycles += (double)rn->w[i].cycles;
    if (rn->w[i].rc) *rc = rn->w[i].rc;
    double c = rn->w[i].cpu_s > 1e-9 ? rn->w[i].cpu_s : 1e-9;
    rate += 1 / c;
    cpu += c;
  }
  if (use_cpu_clock) {
    if (cycles_source == CYC_TSC) *cycles = cpu * tsc_hz * (rn->width / rn->nthreads);
    t = rn->nthreads / rate;
  }
  return t;
}

static void runner_stop(struct runner *rn) {
  rn->quit = 1;
  pthread_barrier_wait(&rn->start);
  for (int t = 0; t < rn->nthreads; t++) {
    pthread_join(rn->w[t].th, NULL);
    stream_free(&rn->w[t].st[0]);
    stream_free(&rn->w[t].st[1]);
  }
  pthread_barrier_destroy(&rn->start);
  pthread_barrier_destroy(&rn->done);
  free(rn->w);
}

/* ---- measuring a row ---- */

struct result {
  double mbps[2];  /* aligned, unaligned: aggregate MB/s over all threads */
  double cpb;      /* cycles per byte (aligned), summed over threads; <0 if none */
  int passes;
};

/* ---- for bench_batch.c (cli.h) ---- */

/* --clock cpu: the calling thread's CPU time (the 1-thread rows). */
gostx_bench_clock bench_clock(int wall) {
  return use_cpu_clock && !wall ? GOSTX_BENCH_THREAD_CPU : GOSTX_BENCH_WALL;
}

static int batch_fd = -2; /* the perf counter, opened on first use */
static uint64_t batch_tsc0;
static double batch_cpu0; /* --clock cpu with the TSC: CPU time x TSC rate, as the rows */

void bench_cycles_start(void) {
  if (cycles_source == CYC_PERF) {
    if (batch_fd == -2) batch_fd = gostx_bench_perf_open(0);
    if (batch_fd >= 0) gostx_bench_perf_start(batch_fd);
  }
  if (cycles_source == CYC_TSC) {
    if (use_cpu_clock) batch_cpu0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
    else batch_tsc0 = gostx_bench_tsc();
  }
}

double bench_cycles_stop(void) {
  if (cycles_source == CYC_PERF) return batch_fd >= 0 ? (double)gostx_bench_perf_stop(batch_fd) : -1;
  if (cycles_source == CYC_TSC && use_cpu_clock)
    return (gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - batch_cpu0) * tsc_hz;
  if (cycles_source == CYC_TSC) return (double)(gostx_bench_tsc() - batch_tsc0);
  return -1;
}

/* One row's measurement, in steps, so that several rows' repetitions can be
 * interleaved (--interleave): start (buffers, threads, warm-up and
 * calibration), one repetition at a time, finish (medians). */
struct meas {
  struct runner rn;
  int passes, repeat, rc;
  double bytes;
  double *v[3]; /* per repetition: MB/s aligned, unaligned, cycles/byte */
};

static int meas_start(struct meas *m, const struct row *r, int nthreads, int pool, size_t len,
                      int repeat, double min_time) {
  memset(m, 0, sizeof *m);
  int rc = runner_start(&m->rn, r, nthreads, pool, len);
  if (rc) return rc;
  double cyc;
  /* Warm-up and calibration: double the passes until a round lasts 1/4 of
   * the target (at least one round of each alignment). */
  int passes = 1;
  double t;
  runner_round(&m->rn, 1, 1, &cyc, &rc);
  for (;;) {
    t = runner_round(&m->rn, 0, passes, &cyc, &rc);
    if (rc || t >= min_time / 4 || passes >= (1 << 24)) break;
    passes *= 2;
  }
  if (!rc && t < min_time) {
    double want = passes * min_time / (t > 0 ? t : 1e-9) + 1;
    passes = want > (1 << 26) ? (1 << 26) : (int)want;
  }
  m->passes = passes;
  m->repeat = repeat;
  m->rc = rc;
  m->bytes = (double)len * passes * m->rn.nthreads;
  for (int i = 0; i < 3; i++) m->v[i] = malloc(sizeof(double) * (size_t)repeat);
  return 0;
}

static void meas_round(struct meas *m, int i) {
  double cyc, t;
  if (m->rc) return;
  t = runner_round(&m->rn, 0, m->passes, &cyc, &m->rc);
  m->v[0][i] = gostx_bench_mbps(m->bytes, t);
  m->v[2][i] = cyc / m->bytes;
  t = runner_round(&m->rn, 1, m->passes, &cyc, &m->rc);
  m->v[1][i] = gostx_bench_mbps(m->bytes, t);
}

static int meas_finish(struct meas *m, struct result *res) {
  runner_stop(&m->rn);
  if (!m->rc) {
    res->mbps[0] = gostx_bench_median(m->v[0], m->repeat);
    res->mbps[1] = gostx_bench_median(m->v[1], m->repeat);
    res->cpb = cycles_source == CYC_NONE ? -1 : gostx_bench_median(m->v[2], m->repeat);
    res->passes = m->passes;
  }
  for (int i = 0; i < 3; i++) free(m->v[i]);
  return m->rc;
}

static int measure(const struct row *r, int nthreads, int pool, size_t len, int repeat,
                   double min_time, struct result *res) {
  struct meas m;
  int rc = meas_start(&m, r, nthreads, pool, len, repeat, min_time);
  if (rc) return rc;
  for (int i = 0; i < repeat; i++) meas_round(&m, i);
  return meas_finish(&m, res);
}

/* ---- options and output ---- */

static void usage(FILE *f) {
  fputs(
          "Usage: gostx bench [OPTIONS]\n"
          "\n"
          "Measures every algorithm and mode through the library API on memory\n"
          "buffers: the implementation that ran, MB/s (10^6 bytes/s) on a 64-byte-aligned\n"
          "buffer and on an unaligned one (offset 1), and cycles/byte.\n"
          "\n"
          "Options:\n"
          "  --size BYTES       bytes per call (suffix K, M, G = 2^10, 2^20, 2^30;\n"
          "                     rounded down to a multiple of 64; default 1M)\n"
          "  --threads N[,M..]  use N threads; one table per count (\"all\" = online CPUs;\n"
          "                     default 1). Modes the bulk engine parallelises (ecb, ctr,\n"
          "                     ctr-acpkm, mgm, xts) run one buffer on a pool of N threads\n"
          "                     (engine \"pool\"); the others run N independent streams\n"
          "                     (\"streams\"). With a 1-thread table in the same run, each\n"
          "                     row also shows its scaling (x) and efficiency (scaling/N)\n"
          "  --engine pool|streams  pool (default) as above; streams: every row runs N\n"
          "                     independent streams\n"
          "  --gpu              also the CUDA backend (builds with -DGOSTX_CUDA=ON): pinned\n"
          "                     copy bandwidth, kernel-only and end-to-end GB/s per mode on\n"
          "                     a host buffer of --gpu-size bytes, next to the CPU on all\n"
          "                     cores (pool engine) for the same modes\n"
          "  --gpu-size BYTES   the GPU's buffer (default 1G)\n"
          "  --device N         the GPU to use (default 0)\n"
          "  --repeat N         timed repetitions per row, the median is reported (default 5)\n"
          "  --interleave       start every selected row first, then take repetition k of\n"
          "                     each row in turn: the rows' medians come from the same\n"
          "                     stretch of time, so ratios between rows (XTS against ECB)\n"
          "                     hold on a busy machine\n"
          "  --time MS          minimum length of one repetition in ms (default 80); each\n"
          "                     repetition makes as many passes over the buffer as needed\n"
          "  --filter SUBSTR[,SUBSTR..]  only rows whose name (e.g. kuznyechik-ctr,\n"
          "                     magma-mgm-enc, streebog256-hash) contains one of them\n"
          "  --impl NAME        set GOSTX_IMPL=NAME before the library chooses (a level:\n"
          "                     portable, ssse3, avx2, avx512bw, avx512, or an\n"
          "                     implementation name)\n"
          "  --json             one JSON object: header fields and \"rows\", one object per\n"
          "                     row (algorithm, mode, impl, bytes, threads, mbps_aligned,\n"
          "                     mbps_unaligned, cycles_per_byte, cycles_source, ...)\n"
          "  --clock wall|cpu   time by the wall clock (default), or by each thread's CPU\n"
          "                     time (CLOCK_THREAD_CPUTIME_ID): steadier on a busy shared\n"
          "                     machine, but blind to contention between threads\n"
          "  --list             print the row names and exit\n"
          "  --batch SIZE       instead of the rows: stream batches (gostx_batch_streams)\n"
          "                     of 1024 streams of SIZE bytes (512: the disk-sector table\n"
          "                     of the GOST 28147-89 multi-stream article) per call, a key\n"
          "                     per stream and one key for all, against the one-stream\n"
          "                     call: MB/s on 1 thread and on every CPU, cycles/byte,\n"
          "                     ratios (--filter SUBSTR picks rows, e.g. magma-cbc)\n",
        f);
  /* Two strings: ISO C only promises literals of 4095 characters. */
  fprintf(f,
          "  --gost3410         instead of the rows: GOST R 34.10-2012 keygen, sign, verify\n"
          "                     and VKO per parameter set, one thread: ops/s and us/op\n"
          "                     (rows gost3410-CURVE-OP, e.g. gost3410-256a-sign; --filter\n"
          "                     SUBSTR picks them, --list names them)\n"
          "\n"
          "Rows: kuznyechik and magma ecb/cbc/cfb enc+dec, ofb, ctr, ctr-acpkm (section\n"
          "%d bytes), omac, mgm enc+dec (no AAD, full tag); kuznyechik xts enc+dec:\n"
          "one call over the buffer (xts-*: %d-byte data units, xts-*-512: 512-byte),\n"
          "the sector batch with one key (xts-batch-*) and with a key per sector\n"
          "(xts-keyed-*), plain64 tweaks; gost89 cnt and cfb-enc (CryptoPro-A\n"
          "S-box, CryptoPro key meshing); streebog256/512; hmac-streebog256/512.\n"
          "Method: wall clock (CLOCK_MONOTONIC); warm-up; aligned and unaligned\n"
          "repetitions interleaved; medians. Cycles: perf_event_open core cycles where\n"
          "available, else the TSC (reference cycles); the header says which.\n",
          ACPKM_SECTION, XTS_SECTOR);
}

enum {
  O_HELP = 1, O_SIZE, O_THREADS, O_REPEAT, O_TIME, O_FILTER, O_IMPL, O_JSON, O_LIST, O_CLOCK,
  O_ENGINE, O_GPU, O_GPU_SIZE, O_DEVICE, O_INTERLEAVE, O_BATCH, O_GOST3410
};

static const cli_opt opts[] = {
    {"help", 'h', CLI_NOARG, O_HELP},     {"size", 0, CLI_ARG, O_SIZE},
    {"threads", 0, CLI_ARG, O_THREADS},   {"repeat", 0, CLI_ARG, O_REPEAT},
    {"time", 0, CLI_ARG, O_TIME},         {"filter", 0, CLI_ARG, O_FILTER},
    {"impl", 0, CLI_ARG, O_IMPL},         {"json", 0, CLI_NOARG, O_JSON},
    {"list", 0, CLI_NOARG, O_LIST},       {"clock", 0, CLI_ARG, O_CLOCK},
    {"engine", 0, CLI_ARG, O_ENGINE},     {"gpu", 0, CLI_NOARG, O_GPU},
    {"gpu-size", 0, CLI_ARG, O_GPU_SIZE}, {"device", 0, CLI_ARG, O_DEVICE},
    {"interleave", 0, CLI_NOARG, O_INTERLEAVE}, {"batch", 0, CLI_ARG, O_BATCH},
    {"gost3410", 0, CLI_NOARG, O_GOST3410},
    {NULL, 0, 0, 0},
};

/* "4096", "4K", "4KiB", "1M", "1MB", "2G" (binary multiples). */
static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  if (!(*s >= '0' && *s <= '9')) return -1;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned shift = 0;
  if (*end) {
    switch (*end) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      default: return -1;
    }
    end++;
    if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "b")) end += strlen(end);
    if (*end) return -1;
  }
  if (v > (1ull << 30) >> shift) return -1;
  *out = (size_t)(v << shift);
  return 0;
}

#define MAX_COUNTS 16

static int parse_threads(const char *s, int *counts, int *n) {
  *n = 0;
  const char *p = s;
  while (*p) {
    int c;
    if (!strncmp(p, "all", 3) && (p[3] == ',' || !p[3])) {
      long cpus = sysconf(_SC_NPROCESSORS_ONLN);
      c = cpus > 0 ? (int)cpus : 1;
      p += 3;
    } else {
      char *end;
      errno = 0;
      long v = strtol(p, &end, 10);
      if (errno || end == p || v < 1 || v > 1024 || (*end && *end != ',')) return -1;
      c = (int)v;
      p = end;
    }
    if (*n == MAX_COUNTS) return -1;
    counts[(*n)++] = c;
    if (*p == ',') {
      p++;
      if (!*p) return -1;
    }
  }
  return *n ? 0 : -1;
}

static void row_name(const struct row *r, char *buf, size_t cap) {
  snprintf(buf, cap, "%s-%s", r->alg, r->mode);
}

static int row_selected(const struct row *r, const char *filter) {
  if (!filter) return 1;
  char name[64];
  row_name(r, name, sizeof name);
  const char *p = filter;
  while (*p) {
    const char *e = strchr(p, ',');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    if (l > 0 && l < 64) {
      char sub[64];
      memcpy(sub, p, l);
      sub[l] = 0;
      if (strstr(name, sub)) return 1;
    }
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

static void cpu_model(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) && strncmp(line, "Model", 5) &&
        strncmp(line, "cpu model", 9))
      continue;
    char *c = strchr(line, ':');
    if (!c) continue;
    c++;
    while (*c == ' ' || *c == '\t') c++;
    c[strcspn(c, "\n")] = 0;
    snprintf(buf, cap, "%s", c);
    break;
  }
  fclose(f);
}

/* The CPU side of --gpu: a row on every online CPU (pool engine). */
struct gpu_cpu_ctx {
  size_t size;
  int repeat;
  double min_time;
};
static double gpu_cpu_mbps(const char *alg, const char *mode, void *arg) {
  const struct gpu_cpu_ctx *c = arg;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (size_t i = 0; i < NROWS; i++) {
    if (strcmp(rows[i].alg, alg) || strcmp(rows[i].mode, mode)) continue;
    struct result res;
    if (measure(&rows[i], cpus > 0 ? (int)cpus : 1, 1, c->size, c->repeat, c->min_time, &res))
      return -1;
    return res.mbps[0];
  }
  return -1;
}

int cmd_bench(int argc, char **argv) {
  size_t size = 1 << 20, gpu_size = (size_t)1 << 30;
  int counts[MAX_COUNTS] = {1}, ncounts = 1, repeat = 5, json = 0, list = 0;
  int pool_engine = 1, gpu = 0, device = 0, size_given = 0, interleave = 0;
  size_t batch_len = 0;
  int gost3410 = 0;
  double min_time = 0.08;
  const char *filter = NULL, *impl = NULL;
  cli_parser p;
  cli_parser_init(&p, "bench", argc, argv);
  for (;;) {
    int id = cli_next(&p, opts);
    if (id == CLI_END) break;
    if (id == CLI_BAD) return CLI_EXIT_USAGE;
    uint64_t v;
    switch (id) {
      case O_HELP: usage(stdout); return CLI_EXIT_OK;
      case O_SIZE:
        if (parse_size(p.arg, &size) || size < 64)
          return cli_usage("bench: bad --size '%s' (64 bytes .. 1G; suffixes K, M, G)", p.arg);
        size &= ~(size_t)63;
        size_given = 1;
        break;
      case O_THREADS:
        if (parse_threads(p.arg, counts, &ncounts))
          return cli_usage("bench: bad --threads '%s' (N[,M...], 1..1024 or all)", p.arg);
        break;
      case O_REPEAT:
        if (cli_uint("--repeat", p.arg, 1, 1000, &v)) return CLI_EXIT_USAGE;
        repeat = (int)v;
        break;
      case O_TIME:
        if (cli_uint("--time", p.arg, 0, 60000, &v)) return CLI_EXIT_USAGE;
        min_time = (double)v / 1000;
        break;
      case O_FILTER: filter = p.arg; break;
      case O_IMPL:
        if (!*p.arg) return cli_usage("bench: empty --impl");
        impl = p.arg;
        break;
      case O_JSON: json = 1; break;
      case O_LIST: list = 1; break;
      case O_CLOCK:
        if (!strcmp(p.arg, "wall")) use_cpu_clock = 0;
        else if (!strcmp(p.arg, "cpu")) use_cpu_clock = 1;
        else return cli_usage("bench: bad --clock '%s' (wall or cpu)", p.arg);
        break;
      case O_ENGINE:
        if (!strcmp(p.arg, "pool")) pool_engine = 1;
        else if (!strcmp(p.arg, "streams")) pool_engine = 0;
        else return cli_usage("bench: bad --engine '%s' (pool or streams)", p.arg);
        break;
      case O_GPU: gpu = 1; break;
      case O_GOST3410: gost3410 = 1; break;
      case O_BATCH:
        if (parse_size(p.arg, &batch_len) || batch_len < 1 || batch_len > (1 << 20))
          return cli_usage("bench: bad --batch '%s' (1 byte .. 1M per stream)", p.arg);
        break;
      case O_INTERLEAVE: interleave = 1; break;
      case O_GPU_SIZE:
        if (parse_size(p.arg, &gpu_size) || gpu_size < 4096)
          return cli_usage("bench: bad --gpu-size '%s' (4K .. 1G; suffixes K, M, G)", p.arg);
        gpu_size &= ~(size_t)4095; /* whole XTS data units */
        break;
      case O_DEVICE:
        if (cli_uint("--device", p.arg, 0, 1023, &v)) return CLI_EXIT_USAGE;
        device = (int)v;
        break;
      case CLI_POS: return cli_usage("bench: unexpected argument '%s' (try --help)", p.pos);
      default: return cli_usage("bench: unexpected option");
    }
  }
  if (gost3410 && (batch_len || gpu))
    return cli_usage("bench: --gost3410 goes alone (not with --batch or --gpu)");
  if (gost3410) {
    if (!bench_gost3410_count(filter, 0))
      return cli_usage("bench: --filter '%s' matches no GOST R 34.10 row (see gostx bench --gost3410 --list)", filter);
    if (list) return bench_gost3410_count(filter, 1) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
  }
  size_t nsel = gost3410;
  for (size_t i = 0; i < NROWS; i++) nsel += (size_t)row_selected(&rows[i], filter);
  if (!nsel && !batch_len) return cli_usage("bench: --filter '%s' matches no row (see gostx bench --list)", filter);
  if (list) {
    char name[64];
    for (size_t i = 0; i < NROWS; i++)
      if (row_selected(&rows[i], filter)) { row_name(&rows[i], name, sizeof name); puts(name); }
    return CLI_EXIT_OK;
  }
  if (gpu && !bench_gpu_built()) return bench_gpu(NULL); /* says why and fails */
  /* Before any other library call: the dispatcher reads it once. */
  if (impl && setenv("GOSTX_IMPL", impl, 1)) {
    cli_err("bench: setenv: %s", strerror(errno));
    return CLI_EXIT_FAIL;
  }
  const char *forced = getenv("GOSTX_IMPL");
  cli_impl_warn();

  choose_cycles_source();
  char model[256], date[64];
  cpu_model(model, sizeof model);
  time_t tnow = time(NULL);
  struct tm tmv;
  gmtime_r(&tnow, &tmv);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  double load = -1;
  FILE *lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (fscanf(lf, "%lf", &load) != 1) load = -1;
    fclose(lf);
  }

  if (json) {
    printf("{\"gostx\": ");
    cli_json_str(gostx_version());
    printf(", \"cpu\": ");
    cli_json_str(model);
    printf(", \"online_cpus\": %ld, \"loadavg_1min\": ", cpus);
    if (load >= 0) printf("%.2f", load); else printf("null");
    printf(", \"features\": ");
    cli_json_str(gostx_cpu_features());
    printf(", \"gostx_impl_env\": ");
    if (forced) cli_json_str(forced); else printf("null");
    printf(", \"date\": ");
    cli_json_str(date);
    printf(", \"cycles_source\": ");
    cli_json_str(cycles_source_name());
    printf(", \"cycles_note\": ");
    cli_json_str(cycles_note);
    printf(", \"clock\": \"%s\", \"engine\": \"%s\", \"repeat\": %d, \"min_time_ms\": %.0f, "
           "\"interleave\": %s, ",
           use_cpu_clock ? "cpu" : "wall", pool_engine ? "pool" : "streams", repeat,
           min_time * 1000, interleave ? "true" : "false");
    printf(gpu ? "\"gpu\": " : batch_len || gost3410 ? "" : "\"rows\": [");
  } else {
    printf("gostx %s bench, %s\n", gostx_version(), date);
    printf("CPU: %s (%ld online)\n", model, cpus);
    if (load >= 0)
      printf("load average: %.2f%s\n", load,
             load > cpus - 0.5 ? " (busy machine: wall-clock figures are disturbed)" : "");
    printf("features: %s\n", gostx_cpu_features());
    printf("GOSTX_IMPL: %s\n", forced ? forced : "(not set)");
    printf("cycles: %s\n", cycles_note);
    if (use_cpu_clock)
      printf("clock: each thread's CPU time (CLOCK_THREAD_CPUTIME_ID), --clock cpu; TSC cycles\n"
             "       = CPU time x TSC rate\n");
    printf("method: %s, warm-up, median of %d repetitions of >= %.0f ms%s;\n"
           "        %zu bytes per call; MB/s = 10^6 B/s, aggregate over threads; cycles/B per\n"
           "        byte summed over threads; unaligned = buffers at offset 1\n",
           use_cpu_clock ? "thread CPU time" : "wall clock (CLOCK_MONOTONIC)", repeat,
           min_time * 1000, interleave ? " (rows interleaved)" : "", size);
    printf("engine: %s\n", pool_engine ? "pool = one buffer through the bulk engine's parallel call "
                                          "on N threads;\n        streams = N independent streams"
                                        : "streams (N independent streams for every row)");
  }
  fflush(stdout);

  if (batch_len) {
    int brc = bench_batch(batch_len, repeat, min_time, filter, json);
    if (json) printf("}\n");
    return brc;
  }

  if (gost3410) {
    int grc = bench_gost3410(repeat, min_time, filter, json);
    if (json) printf("}\n");
    return grc;
  }

  if (gpu) {
    /* The CPU columns: the same modes on all cores, on at least 16 MiB. */
    struct gpu_cpu_ctx cc = {size_given ? size : (size_t)16 << 20, repeat, min_time};
    struct bench_gpu_args ga = {gpu_size, repeat, device, json, gpu_cpu_mbps, &cc};
    int grc = bench_gpu(&ga);
    if (json) printf("}\n");
    return grc;
  }

  /* Scaling: each row's aggregate against its 1-thread figure in this run. */
  double one_thread[NROWS];
  for (size_t i = 0; i < NROWS; i++) one_thread[i] = -1;

  int first = 1, rc = 0;
  for (int ci = 0; ci < ncounts && !rc; ci++) {
    int nt = counts[ci];
    if (!json) {
      printf("\nthreads: %d\n%-17s %-17s %-12s %12s %12s %9s %-8s %s\n", nt, "algorithm", "mode",
             "impl", "MB/s aligned", "unaligned", "cycles/B", "engine", "scaling");
      fflush(stdout);
    }
    /* --interleave: every selected row started (buffers, threads,
     * calibration), then repetition k of every row in turn, so that all
     * rows' medians come from the same stretch of time. */
    struct result *pre = NULL;
    int *pre_rc = NULL;
    if (interleave) {
      struct meas *ms = calloc(NROWS, sizeof *ms);
      int *on = calloc(NROWS, sizeof *on);
      pre = calloc(NROWS, sizeof *pre);
      pre_rc = calloc(NROWS, sizeof *pre_rc);
      if (!ms || !on || !pre || !pre_rc) {
        cli_err("bench: out of memory");
        return CLI_EXIT_FAIL;
      }
      for (size_t i = 0; i < NROWS; i++)
        if (row_selected(&rows[i], filter)) {
          pre_rc[i] = meas_start(&ms[i], &rows[i], nt, pool_engine && rows[i].par, size, repeat,
                                 min_time);
          on[i] = !pre_rc[i];
        }
      for (int k = 0; k < repeat; k++)
        for (size_t i = 0; i < NROWS; i++)
          if (on[i]) meas_round(&ms[i], k);
      for (size_t i = 0; i < NROWS; i++)
        if (on[i]) pre_rc[i] = meas_finish(&ms[i], &pre[i]);
      free(ms);
      free(on);
    }
    for (size_t i = 0; i < NROWS && !rc; i++) {
      const struct row *r = &rows[i];
      if (!row_selected(r, filter)) continue;
      struct result res;
      int pooled = pool_engine && r->par;
      if (interleave) {
        rc = pre_rc[i];
        res = pre[i];
      } else {
        rc = measure(r, nt, pooled, size, repeat, min_time, &res);
      }
      if (rc) {
        char name[64];
        row_name(r, name, sizeof name);
        if (json) printf("]}\n");
        cli_err("bench: %s failed: %s", name, gostx_strerror(rc));
        return CLI_EXIT_FAIL;
      }
      if (nt == 1) one_thread[i] = res.mbps[0];
      const char *engine = nt == 1 ? "single" : pooled ? "pool" : "streams";
      double scaling = one_thread[i] > 0 ? res.mbps[0] / one_thread[i] : -1;
      /* MGM rows run two implementations: the block cipher and the GF multiply. */
      char im_buf[64];
      const char *im = gostx_impl(r->prim);
      if ((r->fn == w_mgm_enc || r->fn == w_mgm_dec) && strcmp(im, gostx_impl(GOSTX_ALG_MGM))) {
        snprintf(im_buf, sizeof im_buf, "%s+%s", im, gostx_impl(GOSTX_ALG_MGM));
        im = im_buf;
      }
      if (json) {
        printf("%s\n  {\"algorithm\": ", first ? "" : ",");
        cli_json_str(r->alg);
        printf(", \"mode\": ");
        cli_json_str(r->mode);
        printf(", \"impl\": ");
        cli_json_str(im);
        printf(", \"bytes\": %zu, \"threads\": %d, \"mbps_aligned\": %.3f, \"mbps_unaligned\": %.3f, "
               "\"cycles_per_byte\": ",
               size, nt, res.mbps[0], res.mbps[1]);
        if (res.cpb >= 0) printf("%.3f", res.cpb); else printf("null");
        printf(", \"cycles_source\": \"%s\", \"clock\": \"%s\", \"passes\": %d, \"repeat\": %d, "
               "\"engine\": \"%s\", \"scaling\": ",
               cycles_source_name(), use_cpu_clock ? "cpu" : "wall", res.passes, repeat, engine);
        if (scaling > 0) printf("%.3f, \"efficiency\": %.3f}", scaling, scaling / nt);
        else printf("null, \"efficiency\": null}");
      } else {
        char cpb[32];
        if (res.cpb >= 0) snprintf(cpb, sizeof cpb, "%9.2f", res.cpb);
        else snprintf(cpb, sizeof cpb, "%9s", "-");
        char sc[48] = "-";
        if (scaling > 0) snprintf(sc, sizeof sc, "%.2fx (%.0f%%)", scaling, 100 * scaling / nt);
        printf("%-17s %-17s %-12s %12.2f %12.2f %s %-8s %s\n", r->alg, r->mode, im, res.mbps[0],
               res.mbps[1], cpb, engine, sc);
      }
      first = 0;
      fflush(stdout);
    }
    free(pre);
    free(pre_rc);
  }
  if (json) printf("\n]}\n");
  return CLI_EXIT_OK;
}
