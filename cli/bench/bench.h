/* gostx bench internals, shared by cmd_bench.c (options, the tables),
 * bench_rows.c (what each row runs), bench_measure.c (clocks, cycle
 * counters, the runner and the medians) and the tables of their own:
 * bench_batch.c, bench_gost3410.c, bench_gpu.c. Not installed. */
#ifndef GOSTX_CLI_BENCH_H
#define GOSTX_CLI_BENCH_H

#include <pthread.h>

#include "cli.h"
#include "harness.h" /* bench/harness: the benchmarks' clocks and medians */

#define XTS_SECTOR 4096     /* data unit of the xts-enc / xts-dec rows (bytes) */
#define ACPKM_SECTION 4096  /* section N of the CTR-ACPKM rows (bytes) */

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

struct result {
  double mbps[2];  /* aligned, unaligned: aggregate MB/s over all threads */
  double cpb;      /* cycles per byte (aligned), summed over threads; <0 if none */
  int passes;
};

/* One row's measurement, in steps, so that several rows' repetitions can be
 * interleaved (--interleave): start (buffers, threads, warm-up and
 * calibration), one repetition at a time, finish (medians). */
struct meas {
  struct runner rn;
  int passes, repeat, rc;
  double bytes;
  double *v[3]; /* per repetition: MB/s aligned, unaligned, cycles/byte */
};

/* The rows (bench_rows.c). */
extern const struct row bench_rows[];
extern const size_t bench_nrows;
int bench_row_is_mgm(const struct row *r); /* the MGM rows run two implementations */
int bench_stream_setup(struct stream *s, const struct row *r, size_t len, size_t offset,
                       unsigned seed);
void bench_stream_free(struct stream *s);

/* Clocks and measuring (bench_measure.c). */
extern int bench_use_cpu_clock; /* --clock cpu */
void bench_choose_cycles_source(void);
const char *bench_cycles_source_name(void);
const char *bench_cycles_note(void);
int bench_meas_start(struct meas *m, const struct row *r, int nthreads, int pool, size_t len,
                     int repeat, double min_time);
void bench_meas_round(struct meas *m, int i);
int bench_meas_finish(struct meas *m, struct result *res);
int bench_measure(const struct row *r, int nthreads, int pool, size_t len, int repeat,
                  double min_time, struct result *res);

/* gostx bench --gpu (bench_gpu.c; without the CUDA backend it says so
 * and fails). cpu(alg, mode, ctx) measures the same work on the CPU on all
 * cores and returns its MB/s, or < 0 when there is no such CPU row. */
struct bench_gpu_args {
  size_t len; /* host buffer bytes, a multiple of 4096 */
  int repeat, device, json;
  double (*cpu)(const char *alg, const char *mode, void *ctx);
  void *ctx;
};
int bench_gpu(const struct bench_gpu_args *a);
int bench_gpu_built(void); /* 1 in CUDA builds */

/* gostx bench --batch SIZE (bench_batch.c): the stream-batch table.
 * The clock it shares with cmd_bench.c (wall: always the wall clock, for
 * pool rows; else --clock's choice) and the cycle counter of the calling
 * thread (cmd_bench.c's source; stop returns the cycles since start, or -1
 * without a source). */
int bench_batch(size_t stream_len, int repeat, double min_time, const char *filter, int json);
gostx_bench_clock bench_clock(int wall);
/* gostx bench --gost3410 (bench_gost3410.c): ops/s of GOST R 34.10-2012
 * per parameter set. count: the rows the filter picks (list: prints them). */
int bench_gost3410(int repeat, double min_time, const char *filter, int json);
int bench_gost3410_count(const char *filter, int list);
void bench_cycles_start(void);
double bench_cycles_stop(void);

#endif
