/* The timing harness of gostx's benchmarks: the `gostx bench` command (cli/)
 * and the programs in bench/ link it, so they share one definition of their
 * clocks, medians, repetition loop and rate arithmetic. Not part of the
 * library (lib/): nothing here is exported from libgostx. */
#ifndef GOSTX_BENCH_HARNESS_H
#define GOSTX_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
#define GOSTX_BENCH_HAVE_TSC 1
#endif
#if defined(__linux__)
#define GOSTX_BENCH_HAVE_PERF 1
#endif

/* WALL: CLOCK_MONOTONIC. THREAD_CPU: the calling thread's CPU time, which a
 * busy shared machine disturbs less (time spent descheduled is not charged).
 * PROCESS_CPU: every thread of the process (a pool's workers included). */
typedef enum { GOSTX_BENCH_WALL, GOSTX_BENCH_THREAD_CPU, GOSTX_BENCH_PROCESS_CPU } gostx_bench_clock;

/* Seconds on the clock (an arbitrary origin: only differences mean anything). */
double gostx_bench_now(gostx_bench_clock clock);

/* Sorts v[0..n) ascending in place (so v[0] is then the least) and returns
 * its median: the middle value, or the mean of the two middle ones (n even). */
double gostx_bench_median(double *v, int n);

/* One unit of work to time; nonzero (an error code) stops the loop. */
typedef int (*gostx_bench_job)(void *arg);

/* Calls job(arg) at least once and until at least min_s seconds of `clock`
 * have passed since the first call began (or job fails). *calls: the calls
 * made, *seconds: the time they took. Returns job's last result. */
int gostx_bench_run_for(gostx_bench_clock clock, double min_s, gostx_bench_job job, void *arg,
                        uint64_t *calls, double *seconds);

/* Rates: MB/s and GB/s are 10^6 and 10^9 bytes per second. */
static inline double gostx_bench_mbps(double bytes, double seconds) { return bytes / seconds / 1e6; }
static inline double gostx_bench_gbps(double bytes, double seconds) { return bytes / seconds / 1e9; }
/* Cycles per byte of `seconds` of work on a core at hz cycles per second. */
static inline double gostx_bench_cpb(double seconds, double hz, double bytes) {
  return seconds * hz / bytes;
}

/* The time-stamp counter (GOSTX_BENCH_HAVE_TSC: x86-64): elsewhere
 * gostx_bench_tsc() reads 0 and gostx_bench_tsc_hz() is 0. The rate is
 * estimated against the wall clock (reference cycles, not the core's clock). */
double gostx_bench_tsc_hz(void);
uint64_t gostx_bench_tsc(void);

/* The core-cycle counter of perf_event_open (GOSTX_BENCH_HAVE_PERF: Linux;
 * user space only): gostx_bench_perf_open returns a descriptor or -1 (errno
 * says why; ENOSYS without perf);
 * inherit: also count the threads this thread creates later. */
int gostx_bench_perf_open(int inherit);
void gostx_bench_perf_start(int fd);
uint64_t gostx_bench_perf_stop(int fd); /* the cycles since start; 0 on failure */
void gostx_bench_perf_close(int fd);

#endif
