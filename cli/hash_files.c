/* Digests of many files at once (gostx hash FILE..., hash -c): one file per
 * pool task, results reported in argument order. A hash is sequential
 * within a file, so a list of files is where more cores help.
 *
 * The pool hands out task indices in increasing order, so a job's
 * predecessors are all taken before it: whoever finishes a job reports every
 * finished job from the report cursor on, under one lock, and the output
 * streams in order while later files are still being read. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define HASH_READ (256 * 1024) /* bytes per read */

struct hash_run {
  cli_hash_job *jobs;
  size_t n;
  void (*report)(void *arg, const cli_hash_job *job);
  void *arg;
  pthread_mutex_t mu; /* guards done flags, next_report, stdin_turn */
  pthread_cond_t stdin_cv;
  size_t next_report;
  size_t *stdin_ticket; /* per job: its place among the stdin jobs */
  size_t stdin_turn;    /* the stdin job whose turn it is to read */
};

/* The digest of job j's input; j->err set on failure. */
static void digest(cli_hash_job *j, uint8_t *buf) {
  cli_in in;
  if ((j->err = cli_in_try_open(&in, j->path)) != 0) return;
  union {
    gostx_streebog_ctx streebog;
    gostx_gost94_ctx gost94;
  } ctx;
  if (j->gost94) gostx_gost94_init(&ctx.gost94, (gostx_sbox)j->sbox);
  else gostx_streebog_init(&ctx.streebog, j->digest_len);
  size_t got;
  while ((j->err = cli_in_try_read(&in, buf, HASH_READ, &got)) == 0 && got) {
    if (j->gost94) gostx_gost94_update(&ctx.gost94, buf, got);
    else gostx_streebog_update(&ctx.streebog, buf, got);
  }
  if (j->err) j->read_err = 1;
  else if (j->gost94) gostx_gost94_final(&ctx.gost94, j->digest);
  else gostx_streebog_final(&ctx.streebog, j->digest);
  gostx_memzero(&ctx, sizeof ctx);
  cli_in_close(&in);
}

static void hash_task(void *arg, size_t i) {
  struct hash_run *r = arg;
  cli_hash_job *j = &r->jobs[i];
  uint8_t *buf = malloc(HASH_READ);
  int is_stdin = !strcmp(j->path, "-");
  if (is_stdin && r->stdin_ticket) { /* wait for the stdin jobs before this one */
    pthread_mutex_lock(&r->mu);
    while (r->stdin_turn != r->stdin_ticket[i]) pthread_cond_wait(&r->stdin_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
  }
  if (buf) digest(j, buf);
  else j->err = ENOMEM;
  free(buf);
  pthread_mutex_lock(&r->mu);
  if (is_stdin) {
    r->stdin_turn++;
    pthread_cond_broadcast(&r->stdin_cv);
  }
  j->done = 1;
  while (r->next_report < r->n && r->jobs[r->next_report].done)
    r->report(r->arg, &r->jobs[r->next_report++]);
  pthread_mutex_unlock(&r->mu);
}

void cli_hash_files(cli_hash_job *jobs, size_t n, unsigned threads,
                    void (*report)(void *arg, const cli_hash_job *job), void *arg) {
  struct hash_run r = {.jobs = jobs, .n = n, .report = report, .arg = arg};
  pthread_mutex_init(&r.mu, NULL);
  pthread_cond_init(&r.stdin_cv, NULL);
  r.stdin_ticket = calloc(n ? n : 1, sizeof *r.stdin_ticket);
  for (size_t i = 0, k = 0; i < n; i++) {
    jobs[i].done = jobs[i].err = jobs[i].read_err = 0;
    if (r.stdin_ticket) r.stdin_ticket[i] = !strcmp(jobs[i].path, "-") ? k++ : 0;
  }
  if (threads == 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cpus > 0 ? (unsigned)cpus : 1;
  }
  if (threads > n) threads = (unsigned)n;
  /* Without the ticket table (out of memory) one thread, in order anyway;
   * pool NULL runs the tasks inline. */
  gostx_pool *pool = threads > 1 && r.stdin_ticket ? gostx_pool_new(threads) : NULL;
  gostx_pool_run(pool, n, hash_task, &r);
  gostx_pool_free(pool);
  free(r.stdin_ticket);
  pthread_cond_destroy(&r.stdin_cv);
  pthread_mutex_destroy(&r.mu);
}

void cli_hash_job_error(const cli_hash_job *job) {
  const char *name = strcmp(job->path, "-") ? job->path : "stdin";
  if (job->read_err) cli_err("%s: read error: %s", name, strerror(job->err));
  else cli_err("%s: %s", job->path, strerror(job->err));
}
