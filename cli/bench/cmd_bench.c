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

#include "../commands.h"
#include "bench.h"


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
  for (size_t i = 0; i < bench_nrows; i++) {
    if (strcmp(bench_rows[i].alg, alg) || strcmp(bench_rows[i].mode, mode)) continue;
    struct result res;
    if (bench_measure(&bench_rows[i], cpus > 0 ? (int)cpus : 1, 1, c->size, c->repeat,
                      c->min_time, &res))
      return -1;
    return res.mbps[0];
  }
  return -1;
}

/* What the options ask for. */
struct bench_opts {
  size_t size, gpu_size, batch_len;
  int counts[MAX_COUNTS], ncounts, repeat, json, list;
  int pool_engine, gpu, device, size_given, interleave, gost3410;
  double min_time;
  const char *filter, *impl;
};

/* The options into o: -1 to go on, else the exit code (help, bad usage). */
static int parse_opts(int argc, char **argv, struct bench_opts *o) {
  *o = (struct bench_opts){.size = 1 << 20, .gpu_size = (size_t)1 << 30, .counts = {1},
                           .ncounts = 1, .repeat = 5, .pool_engine = 1, .min_time = 0.08};
  cli_parser p;
  cli_parser_init(&p, "bench", argc, argv);
  for (;;) {
    int id = cli_next(&p, opts);
    if (id == CLI_END) return -1;
    if (id == CLI_BAD) return CLI_EXIT_USAGE;
    uint64_t v;
    switch (id) {
      case O_HELP: usage(stdout); return CLI_EXIT_OK;
      case O_SIZE:
        if (parse_size(p.arg, &o->size) || o->size < 64)
          return cli_usage("bench: bad --size '%s' (64 bytes .. 1G; suffixes K, M, G)", p.arg);
        o->size &= ~(size_t)63;
        o->size_given = 1;
        break;
      case O_THREADS:
        if (parse_threads(p.arg, o->counts, &o->ncounts))
          return cli_usage("bench: bad --threads '%s' (N[,M...], 1..1024 or all)", p.arg);
        break;
      case O_REPEAT:
        if (cli_uint("--repeat", p.arg, 1, 1000, &v)) return CLI_EXIT_USAGE;
        o->repeat = (int)v;
        break;
      case O_TIME:
        if (cli_uint("--time", p.arg, 0, 60000, &v)) return CLI_EXIT_USAGE;
        o->min_time = (double)v / 1000;
        break;
      case O_FILTER: o->filter = p.arg; break;
      case O_IMPL:
        if (!*p.arg) return cli_usage("bench: empty --impl");
        o->impl = p.arg;
        break;
      case O_JSON: o->json = 1; break;
      case O_LIST: o->list = 1; break;
      case O_CLOCK:
        if (!strcmp(p.arg, "wall")) bench_use_cpu_clock = 0;
        else if (!strcmp(p.arg, "cpu")) bench_use_cpu_clock = 1;
        else return cli_usage("bench: bad --clock '%s' (wall or cpu)", p.arg);
        break;
      case O_ENGINE:
        if (!strcmp(p.arg, "pool")) o->pool_engine = 1;
        else if (!strcmp(p.arg, "streams")) o->pool_engine = 0;
        else return cli_usage("bench: bad --engine '%s' (pool or streams)", p.arg);
        break;
      case O_GPU: o->gpu = 1; break;
      case O_GOST3410: o->gost3410 = 1; break;
      case O_BATCH:
        if (parse_size(p.arg, &o->batch_len) || o->batch_len < 1 || o->batch_len > (1 << 20))
          return cli_usage("bench: bad --batch '%s' (1 byte .. 1M per stream)", p.arg);
        break;
      case O_INTERLEAVE: o->interleave = 1; break;
      case O_GPU_SIZE:
        if (parse_size(p.arg, &o->gpu_size) || o->gpu_size < 4096)
          return cli_usage("bench: bad --gpu-size '%s' (4K .. 1G; suffixes K, M, G)", p.arg);
        o->gpu_size &= ~(size_t)4095; /* whole XTS data units */
        break;
      case O_DEVICE:
        if (cli_uint("--device", p.arg, 0, 1023, &v)) return CLI_EXIT_USAGE;
        o->device = (int)v;
        break;
      case CLI_POS: return cli_usage("bench: unexpected argument '%s' (try --help)", p.pos);
      default: return cli_usage("bench: unexpected option");
    }
  }
}

/* The rows --filter picks, or the --list answer: -1 to go on, else the
 * exit code. */
static int select_rows(const struct bench_opts *o) {
  const char *filter = o->filter;
  if (o->gost3410 && (o->batch_len || o->gpu))
    return cli_usage("bench: --gost3410 goes alone (not with --batch or --gpu)");
  if (o->gost3410) {
    if (!bench_gost3410_count(filter, 0))
      return cli_usage("bench: --filter '%s' matches no GOST R 34.10 row (see gostx bench --gost3410 --list)", filter);
    if (o->list) return bench_gost3410_count(filter, 1) ? CLI_EXIT_OK : CLI_EXIT_FAIL;
  }
  size_t nsel = (size_t)o->gost3410;
  for (size_t i = 0; i < bench_nrows; i++) nsel += (size_t)row_selected(&bench_rows[i], filter);
  if (!nsel && !o->batch_len) return cli_usage("bench: --filter '%s' matches no row (see gostx bench --list)", filter);
  if (o->list) {
    char name[64];
    for (size_t i = 0; i < bench_nrows; i++)
      if (row_selected(&bench_rows[i], filter)) {
        row_name(&bench_rows[i], name, sizeof name);
        puts(name);
      }
    return CLI_EXIT_OK;
  }
  return -1;
}

/* The machine and the moment, for the header. */
struct host {
  char model[256], date[64];
  long cpus;
  double load; /* 1-minute load average, -1 unknown */
};

static void host_read(struct host *h) {
  cpu_model(h->model, sizeof h->model);
  time_t tnow = time(NULL);
  struct tm tmv;
  gmtime_r(&tnow, &tmv);
  strftime(h->date, sizeof h->date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
  h->load = -1;
  FILE *lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (fscanf(lf, "%lf", &h->load) != 1) h->load = -1;
    fclose(lf);
  }
}

/* The JSON object's first members, up to the results' own ("rows", "gpu"). */
static void header_json(const struct bench_opts *o, const struct host *h, const char *forced) {
  printf("{\"gostx\": ");
  cli_json_str(gostx_version());
  printf(", \"cpu\": ");
  cli_json_str(h->model);
  printf(", \"online_cpus\": %ld, \"loadavg_1min\": ", h->cpus);
  if (h->load >= 0) printf("%.2f", h->load); else printf("null");
  printf(", \"features\": ");
  cli_json_str(gostx_cpu_features());
  printf(", \"gostx_impl_env\": ");
  if (forced) cli_json_str(forced); else printf("null");
  printf(", \"date\": ");
  cli_json_str(h->date);
  printf(", \"cycles_source\": ");
  cli_json_str(bench_cycles_source_name());
  printf(", \"cycles_note\": ");
  cli_json_str(bench_cycles_note());
  printf(", \"clock\": \"%s\", \"engine\": \"%s\", \"repeat\": %d, \"min_time_ms\": %.0f, "
         "\"interleave\": %s, ",
         bench_use_cpu_clock ? "cpu" : "wall", o->pool_engine ? "pool" : "streams", o->repeat,
         o->min_time * 1000, o->interleave ? "true" : "false");
  printf(o->gpu ? "\"gpu\": " : o->batch_len || o->gost3410 ? "" : "\"rows\": [");
}

static void header_text(const struct bench_opts *o, const struct host *h, const char *forced) {
  printf("gostx %s bench, %s\n", gostx_version(), h->date);
  printf("CPU: %s (%ld online)\n", h->model, h->cpus);
  if (h->load >= 0)
    printf("load average: %.2f%s\n", h->load,
           h->load > h->cpus - 0.5 ? " (busy machine: wall-clock figures are disturbed)" : "");
  printf("features: %s\n", gostx_cpu_features());
  printf("GOSTX_IMPL: %s\n", forced ? forced : "(not set)");
  printf("cycles: %s\n", bench_cycles_note());
  if (bench_use_cpu_clock)
    printf("clock: each thread's CPU time (CLOCK_THREAD_CPUTIME_ID), --clock cpu; TSC cycles\n"
           "       = CPU time x TSC rate\n");
  printf("method: %s, warm-up, median of %d repetitions of >= %.0f ms%s;\n"
         "        %zu bytes per call; MB/s = 10^6 B/s, aggregate over threads; cycles/B per\n"
         "        byte summed over threads; unaligned = buffers at offset 1\n",
         bench_use_cpu_clock ? "thread CPU time" : "wall clock (CLOCK_MONOTONIC)", o->repeat,
         o->min_time * 1000, o->interleave ? " (rows interleaved)" : "", o->size);
  printf("engine: %s\n", o->pool_engine ? "pool = one buffer through the bulk engine's parallel call "
                                           "on N threads;\n        streams = N independent streams"
                                         : "streams (N independent streams for every row)");
}

/* --interleave: every selected row started (buffers, threads, calibration),
 * then repetition k of every row in turn, so that all rows' medians come
 * from the same stretch of time. pre[i], pre_rc[i]: row i's result. */
static int measure_interleaved(const struct bench_opts *o, int nt, struct result *pre,
                               int *pre_rc) {
  struct meas *ms = calloc(bench_nrows, sizeof *ms);
  int *on = calloc(bench_nrows, sizeof *on);
  int rc = ms && on ? 0 : GOSTX_ENOMEM;
  for (size_t i = 0; i < bench_nrows && !rc; i++)
    if (row_selected(&bench_rows[i], o->filter)) {
      pre_rc[i] = bench_meas_start(&ms[i], &bench_rows[i], nt, o->pool_engine && bench_rows[i].par,
                                   o->size, o->repeat, o->min_time);
      on[i] = !pre_rc[i];
    }
  for (int k = 0; k < o->repeat && !rc; k++)
    for (size_t i = 0; i < bench_nrows; i++)
      if (on[i]) bench_meas_round(&ms[i], k);
  for (size_t i = 0; i < bench_nrows && !rc; i++)
    if (on[i]) pre_rc[i] = bench_meas_finish(&ms[i], &pre[i]);
  free(ms);
  free(on);
  return rc;
}

/* One row's line (or JSON object) for nt threads; scaling against its
 * 1-thread figure of this run (one_thread, -1 when none). */
static void print_row(const struct bench_opts *o, const struct row *r, int nt,
                      const struct result *res, double one_thread, int first) {
  const char *engine = nt == 1 ? "single" : o->pool_engine && r->par ? "pool" : "streams";
  double scaling = one_thread > 0 ? res->mbps[0] / one_thread : -1;
  /* MGM rows run two implementations: the block cipher and the GF multiply. */
  char im_buf[64];
  const char *im = gostx_impl(r->prim);
  if (bench_row_is_mgm(r) && strcmp(im, gostx_impl(GOSTX_ALG_MGM))) {
    snprintf(im_buf, sizeof im_buf, "%s+%s", im, gostx_impl(GOSTX_ALG_MGM));
    im = im_buf;
  }
  if (o->json) {
    printf("%s\n  {\"algorithm\": ", first ? "" : ",");
    cli_json_str(r->alg);
    printf(", \"mode\": ");
    cli_json_str(r->mode);
    printf(", \"impl\": ");
    cli_json_str(im);
    printf(", \"bytes\": %zu, \"threads\": %d, \"mbps_aligned\": %.3f, \"mbps_unaligned\": %.3f, "
           "\"cycles_per_byte\": ",
           o->size, nt, res->mbps[0], res->mbps[1]);
    if (res->cpb >= 0) printf("%.3f", res->cpb); else printf("null");
    printf(", \"cycles_source\": \"%s\", \"clock\": \"%s\", \"passes\": %d, \"repeat\": %d, "
           "\"engine\": \"%s\", \"scaling\": ",
           bench_cycles_source_name(), bench_use_cpu_clock ? "cpu" : "wall", res->passes,
           o->repeat, engine);
    if (scaling > 0) printf("%.3f, \"efficiency\": %.3f}", scaling, scaling / nt);
    else printf("null, \"efficiency\": null}");
  } else {
    char cpb[32];
    if (res->cpb >= 0) snprintf(cpb, sizeof cpb, "%9.2f", res->cpb);
    else snprintf(cpb, sizeof cpb, "%9s", "-");
    char sc[48] = "-";
    if (scaling > 0) snprintf(sc, sizeof sc, "%.2fx (%.0f%%)", scaling, 100 * scaling / nt);
    printf("%-17s %-17s %-12s %12.2f %12.2f %s %-8s %s\n", r->alg, r->mode, im, res->mbps[0],
           res->mbps[1], cpb, engine, sc);
  }
  fflush(stdout);
}

/* The throughput rows at each thread count. */
static int run_rows(const struct bench_opts *o) {
  /* Scaling: each row's aggregate against its 1-thread figure in this run. */
  double *one_thread = malloc(bench_nrows * sizeof *one_thread);
  struct result *pre = calloc(bench_nrows, sizeof *pre); /* --interleave's results */
  int *pre_rc = calloc(bench_nrows, sizeof *pre_rc);
  int rc = one_thread && pre && pre_rc ? 0 : GOSTX_ENOMEM, first = 1;
  const struct row *bad = NULL; /* the row that failed; NULL: out of memory */
  for (size_t i = 0; !rc && i < bench_nrows; i++) one_thread[i] = -1;
  for (int ci = 0; ci < o->ncounts && !rc; ci++) {
    int nt = o->counts[ci];
    if (!o->json) {
      printf("\nthreads: %d\n%-17s %-17s %-12s %12s %12s %9s %-8s %s\n", nt, "algorithm", "mode",
             "impl", "MB/s aligned", "unaligned", "cycles/B", "engine", "scaling");
      fflush(stdout);
    }
    if (o->interleave) rc = measure_interleaved(o, nt, pre, pre_rc);
    for (size_t i = 0; i < bench_nrows && !rc; i++) {
      const struct row *r = &bench_rows[i];
      if (!row_selected(r, o->filter)) continue;
      struct result res;
      if (o->interleave) res = pre[i], rc = pre_rc[i];
      else rc = bench_measure(r, nt, o->pool_engine && r->par, o->size, o->repeat, o->min_time, &res);
      if (rc) {
        bad = r;
        break;
      }
      if (nt == 1) one_thread[i] = res.mbps[0];
      print_row(o, r, nt, &res, one_thread[i], first);
      first = 0;
    }
  }
  free(pre);
  free(pre_rc);
  free(one_thread);
  if (rc && !bad) {
    cli_err("bench: out of memory");
    return CLI_EXIT_FAIL;
  }
  if (rc) {
    char name[64];
    row_name(bad, name, sizeof name);
    if (o->json) printf("]}\n");
    cli_err("bench: %s failed: %s", name, gostx_strerror(rc));
    return CLI_EXIT_FAIL;
  }
  if (o->json) printf("\n]}\n");
  return CLI_EXIT_OK;
}

int cmd_bench(int argc, char **argv) {
  struct bench_opts o;
  int rc = parse_opts(argc, argv, &o);
  if (rc < 0) rc = select_rows(&o);
  if (rc >= 0) return rc;
  if (o.gpu && !bench_gpu_built()) return bench_gpu(NULL); /* says why and fails */
  /* Before any other library call: the dispatcher reads it once. */
  if (o.impl && setenv("GOSTX_IMPL", o.impl, 1)) {
    cli_err("bench: setenv: %s", strerror(errno));
    return CLI_EXIT_FAIL;
  }
  const char *forced = getenv("GOSTX_IMPL");
  cli_impl_warn();

  bench_choose_cycles_source();
  struct host h;
  host_read(&h);
  if (o.json) header_json(&o, &h, forced);
  else header_text(&o, &h, forced);
  fflush(stdout);

  if (o.batch_len) {
    rc = bench_batch(o.batch_len, o.repeat, o.min_time, o.filter, o.json);
  } else if (o.gost3410) {
    rc = bench_gost3410(o.repeat, o.min_time, o.filter, o.json);
  } else if (o.gpu) {
    /* The CPU columns: the same modes on all cores, on at least 16 MiB. */
    struct gpu_cpu_ctx cc = {o.size_given ? o.size : (size_t)16 << 20, o.repeat, o.min_time};
    struct bench_gpu_args ga = {o.gpu_size, o.repeat, o.device, o.json, gpu_cpu_mbps, &cc};
    rc = bench_gpu(&ga);
  } else {
    return run_rows(&o);
  }
  if (o.json) printf("}\n");
  return rc;
}
