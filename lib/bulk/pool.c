/* The worker pool of the bulk engine (include/gostx/bulk.h).
 *
 * A fixed set of pthreads, created once in gostx_pool_new. A run publishes
 * (fn, arg, ntasks) under the pool mutex and bumps a generation number; every
 * worker wakes, takes task indices from one atomic counter until they run
 * out, and reports back. The calling thread takes indices too, so a pool of
 * n threads has n - 1 workers. Runs are serialised by a second mutex; a run
 * started from inside a task of the same pool (nested) executes inline on the
 * calling thread instead of deadlocking. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

#define GOSTX_POOL_MAX_THREADS 1024u

struct gostx_pool {
  unsigned nthreads;    /* threads that run tasks, the caller included */
  unsigned nworkers;    /* threads created: nthreads - 1 */
  pthread_t *workers;
  pid_t pid;            /* the process that owns the threads (fork() keeps none) */

  pthread_mutex_t run_mu; /* one run at a time */

  pthread_mutex_t mu;     /* guards everything below except next */
  pthread_cond_t work_cv; /* workers wait here for a new generation */
  pthread_cond_t done_cv; /* the runner waits here for busy == 0 */
  unsigned long generation;
  int shutdown;
  unsigned busy;          /* workers that have not finished the current run */
  void (*fn)(void *arg, size_t i);
  void *arg;
  size_t ntasks;

  atomic_size_t next;     /* next task index to hand out */
};

/* The pool whose task this thread is running (for nested runs). */
static _Thread_local const gostx_pool *tl_in_pool;

static void take_tasks(gostx_pool *p, void (*fn)(void *, size_t), void *arg, size_t ntasks) {
  for (;;) {
    size_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= ntasks) break;
    fn(arg, i);
  }
}

static void *worker_main(void *vp) {
  gostx_pool *p = vp;
  unsigned long seen = 0;
  tl_in_pool = p;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (p->generation == seen && !p->shutdown) pthread_cond_wait(&p->work_cv, &p->mu);
    if (p->shutdown) break;
    seen = p->generation;
    void (*fn)(void *, size_t) = p->fn;
    void *arg = p->arg;
    size_t ntasks = p->ntasks;
    pthread_mutex_unlock(&p->mu);

    take_tasks(p, fn, arg, ntasks);

    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0) pthread_cond_signal(&p->done_cv);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static unsigned online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  if ((unsigned long)n > GOSTX_POOL_MAX_THREADS) return GOSTX_POOL_MAX_THREADS;
  return (unsigned)n;
}

/* Stops and joins the first `started` workers, then frees the pool. */
static void pool_destroy(gostx_pool *p, unsigned started) {
  pthread_mutex_lock(&p->mu);
  p->shutdown = 1;
  pthread_cond_broadcast(&p->work_cv);
  pthread_mutex_unlock(&p->mu);
  for (unsigned i = 0; i < started; i++) pthread_join(p->workers[i], NULL);
  pthread_cond_destroy(&p->done_cv);
  pthread_cond_destroy(&p->work_cv);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->run_mu);
  free(p->workers);
  free(p);
}

gostx_pool *gostx_pool_new(unsigned nthreads) {
  if (nthreads == 0) nthreads = online_cpus();
  if (nthreads > GOSTX_POOL_MAX_THREADS) nthreads = GOSTX_POOL_MAX_THREADS;

  gostx_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->nthreads = nthreads;
  p->nworkers = nthreads - 1;
  p->pid = getpid();
  atomic_init(&p->next, 0);
  if (p->nworkers) {
    p->workers = calloc(p->nworkers, sizeof *p->workers);
    if (!p->workers) {
      free(p);
      return NULL;
    }
  }
  int ok = pthread_mutex_init(&p->run_mu, NULL) == 0;
  ok = ok && pthread_mutex_init(&p->mu, NULL) == 0;
  ok = ok && pthread_cond_init(&p->work_cv, NULL) == 0;
  ok = ok && pthread_cond_init(&p->done_cv, NULL) == 0;
  if (!ok) { /* glibc never fails these; stay simple rather than unwind each */
    free(p->workers);
    free(p);
    return NULL;
  }

  /* Workers start with every signal blocked, so that signals meant for the
   * application are delivered to its own threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  unsigned started = 0;
  for (; started < p->nworkers; started++)
    if (pthread_create(&p->workers[started], NULL, worker_main, p) != 0) break;
  pthread_sigmask(SIG_SETMASK, &old, NULL);

  if (started < p->nworkers) {
    pool_destroy(p, started);
    return NULL;
  }
  return p;
}

void gostx_pool_free(gostx_pool *pool) {
  if (!pool) return;
  if (pool->pid != getpid()) { /* a forked child: the threads are not ours to join */
    free(pool->workers);
    free(pool);
    return;
  }
  /* Wait for a run in progress on another thread to finish. */
  pthread_mutex_lock(&pool->run_mu);
  pthread_mutex_unlock(&pool->run_mu);
  pool_destroy(pool, pool->nworkers);
}

unsigned gostx_pool_size(const gostx_pool *pool) { return pool ? pool->nthreads : 1; }

int gostx_pool_run(gostx_pool *pool, size_t ntasks, void (*fn)(void *arg, size_t i), void *arg) {
  if (!fn) return GOSTX_EINVAL;
  if (ntasks == 0) return GOSTX_OK;
  /* No pool, a one-thread pool, a single task, a nested run, or a pool
   * inherited through fork() (its threads stayed in the parent): inline. */
  if (!pool || pool->nworkers == 0 || ntasks == 1 || tl_in_pool == pool ||
      pool->pid != getpid()) {
    for (size_t i = 0; i < ntasks; i++) fn(arg, i);
    return GOSTX_OK;
  }

  pthread_mutex_lock(&pool->run_mu);
  pthread_mutex_lock(&pool->mu);
  pool->fn = fn;
  pool->arg = arg;
  pool->ntasks = ntasks;
  atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
  pool->busy = pool->nworkers;
  pool->generation++;
  pthread_cond_broadcast(&pool->work_cv);
  pthread_mutex_unlock(&pool->mu);

  const gostx_pool *saved = tl_in_pool;
  tl_in_pool = pool;
  take_tasks(pool, fn, arg, ntasks);
  tl_in_pool = saved;

  pthread_mutex_lock(&pool->mu);
  while (pool->busy != 0) pthread_cond_wait(&pool->done_cv, &pool->mu);
  pool->fn = NULL;
  pool->arg = NULL;
  pthread_mutex_unlock(&pool->mu);
  pthread_mutex_unlock(&pool->run_mu);
  return GOSTX_OK;
}
