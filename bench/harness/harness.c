/* bench/harness/harness.h: the benchmarks' clocks, medians and counters. */
#define _GNU_SOURCE /* syscall() */
#include "harness.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef GOSTX_BENCH_HAVE_TSC
#include <x86intrin.h>
#endif
#ifdef GOSTX_BENCH_HAVE_PERF
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#endif

double gostx_bench_now(gostx_bench_clock clock) {
  static const clockid_t ids[] = {CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID};
  struct timespec ts;
  clock_gettime(ids[clock], &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double gostx_bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int gostx_bench_run_for(gostx_bench_clock clock, double min_s, gostx_bench_job job, void *arg,
                        uint64_t *calls, double *seconds) {
  uint64_t n = 0;
  int rc;
  double t;
  const double t0 = gostx_bench_now(clock);
  do {
    rc = job(arg);
    n++;
    t = gostx_bench_now(clock) - t0;
  } while (!rc && t < min_s);
  *calls = n;
  *seconds = t;
  return rc;
}

uint64_t gostx_bench_tsc(void) {
#ifdef GOSTX_BENCH_HAVE_TSC
  return __rdtsc();
#else
  return 0;
#endif
}

double gostx_bench_tsc_hz(void) {
  double best = 0;
#ifdef GOSTX_BENCH_HAVE_TSC
  /* The least disturbed of three 20 ms intervals: a preempted one reads low. */
  for (int i = 0; i < 3; i++) {
    double t0 = gostx_bench_now(GOSTX_BENCH_WALL);
    uint64_t c0 = gostx_bench_tsc();
    while (gostx_bench_now(GOSTX_BENCH_WALL) - t0 < 0.02) {}
    uint64_t c1 = gostx_bench_tsc();
    double hz = (double)(c1 - c0) / (gostx_bench_now(GOSTX_BENCH_WALL) - t0);
    if (hz > best) best = hz;
  }
#endif
  return best;
}

#ifdef GOSTX_BENCH_HAVE_PERF
int gostx_bench_perf_open(int inherit) {
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_HARDWARE;
  a.size = sizeof a;
  a.config = PERF_COUNT_HW_CPU_CYCLES;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.inherit = inherit ? 1 : 0;
  return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}
void gostx_bench_perf_start(int fd) {
  ioctl(fd, PERF_EVENT_IOC_RESET, 0);
  ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}
uint64_t gostx_bench_perf_stop(int fd) {
  uint64_t v = 0;
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) return 0;
  return v;
}
void gostx_bench_perf_close(int fd) { close(fd); }
#else
int gostx_bench_perf_open(int inherit) {
  (void)inherit;
  errno = ENOSYS;
  return -1;
}
void gostx_bench_perf_start(int fd) { (void)fd; }
uint64_t gostx_bench_perf_stop(int fd) {
  (void)fd;
  return 0;
}
void gostx_bench_perf_close(int fd) { (void)fd; }
#endif
