/* gostx bench: clocks and cycle counters, the runner (N streams on N
 * threads, or one stream on a pool of N) and the medians of a row. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- clocks and cycle counters (bench/harness: the clocks, perf, the TSC) ---- */

/* --clock cpu: time each stream by its thread's CPU time instead of the wall
 * clock (for busy shared machines; it hides contention between threads). */
int bench_use_cpu_clock;

enum { CYC_NONE, CYC_PERF, CYC_TSC };
static int cycles_source = CYC_NONE;
static char cycles_note[160];
static double tsc_hz;

void bench_choose_cycles_source(void) {
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

const char *bench_cycles_note(void) { return cycles_note; }

const char *bench_cycles_source_name(void) {
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
    int rc = bench_stream_setup(&rn->w[t].st[0], r, len, 0, (unsigned)t);
    if (!rc) rc = bench_stream_setup(&rn->w[t].st[1], r, len, 1, (unsigned)t);
    if (rc) {
      for (int u = 0; u <= t; u++) {
        bench_stream_free(&rn->w[u].st[0]);
        bench_stream_free(&rn->w[u].st[1]);
      }
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
  if (bench_use_cpu_clock) {
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
    bench_stream_free(&rn->w[t].st[0]);
    bench_stream_free(&rn->w[t].st[1]);
  }
  pthread_barrier_destroy(&rn->start);
  pthread_barrier_destroy(&rn->done);
  free(rn->w);
}

/* ---- measuring a row ---- */


/* ---- for bench_batch.c (cli.h) ---- */

/* --clock cpu: the calling thread's CPU time (the 1-thread rows). */
gostx_bench_clock bench_clock(int wall) {
  return bench_use_cpu_clock && !wall ? GOSTX_BENCH_THREAD_CPU : GOSTX_BENCH_WALL;
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
    if (bench_use_cpu_clock) batch_cpu0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
    else batch_tsc0 = gostx_bench_tsc();
  }
}

double bench_cycles_stop(void) {
  if (cycles_source == CYC_PERF) return batch_fd >= 0 ? (double)gostx_bench_perf_stop(batch_fd) : -1;
  if (cycles_source == CYC_TSC && bench_use_cpu_clock)
    return (gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - batch_cpu0) * tsc_hz;
  if (cycles_source == CYC_TSC) return (double)(gostx_bench_tsc() - batch_tsc0);
  return -1;
}


int bench_meas_start(struct meas *m, const struct row *r, int nthreads, int pool, size_t len,
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

void bench_meas_round(struct meas *m, int i) {
  double cyc, t;
  if (m->rc) return;
  t = runner_round(&m->rn, 0, m->passes, &cyc, &m->rc);
  m->v[0][i] = gostx_bench_mbps(m->bytes, t);
  m->v[2][i] = cyc / m->bytes;
  t = runner_round(&m->rn, 1, m->passes, &cyc, &m->rc);
  m->v[1][i] = gostx_bench_mbps(m->bytes, t);
}

int bench_meas_finish(struct meas *m, struct result *res) {
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

int bench_measure(const struct row *r, int nthreads, int pool, size_t len, int repeat,
                   double min_time, struct result *res) {
  struct meas m;
  int rc = bench_meas_start(&m, r, nthreads, pool, len, repeat, min_time);
  if (rc) return rc;
  for (int i = 0; i < repeat; i++) bench_meas_round(&m, i);
  return bench_meas_finish(&m, res);
}
