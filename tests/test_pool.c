/* The worker pool: every index exactly once, many runs, concurrent callers,
 * nested runs, a pool of 0 (= online CPUs), NULL pool and ntasks 0. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

struct cover {
  atomic_uint *hits;
  size_t n;
  atomic_uint calls;
};

static void cover_fn(void *arg, size_t i) {
  struct cover *c = arg;
  if (i < c->n) atomic_fetch_add(&c->hits[i], 1);
  atomic_fetch_add(&c->calls, 1);
}

/* Runs ntasks tasks and checks each index was run once. */
static int run_cover(gostx_pool *p, size_t ntasks) {
  struct cover c;
  c.n = ntasks;
  c.hits = calloc(ntasks ? ntasks : 1, sizeof *c.hits);
  atomic_init(&c.calls, 0);
  int rc = gostx_pool_run(p, ntasks, cover_fn, &c);
  int ok = rc == GOSTX_OK && atomic_load(&c.calls) == ntasks;
  for (size_t i = 0; i < ntasks; i++) ok = ok && atomic_load(&c.hits[i]) == 1;
  free(c.hits);
  return ok;
}

/* Tasks that take a while, so that several threads really share a run. */
struct slow {
  atomic_ulong sum;
};
static void slow_fn(void *arg, size_t i) {
  struct slow *s = arg;
  volatile unsigned long x = 0;
  for (unsigned k = 0; k < 2000; k++) x += k ^ i;
  atomic_fetch_add(&s->sum, (unsigned long)i + 1);
}

struct caller {
  gostx_pool *pool;
  int ok;
  unsigned seed;
};

static void *caller_main(void *vp) {
  struct caller *c = vp;
  c->ok = 1;
  for (unsigned r = 0; r < 200; r++) {
    size_t n = (size_t)((c->seed * 2654435761u + r * 40503u) % 300u);
    if (!run_cover(c->pool, n)) c->ok = 0;
  }
  return NULL;
}

struct nest {
  gostx_pool *pool;
  atomic_uint inner_total;
};
static void inner_fn(void *arg, size_t i) {
  (void)i;
  struct nest *n = arg;
  atomic_fetch_add(&n->inner_total, 1);
}
static void outer_fn(void *arg, size_t i) {
  (void)i;
  struct nest *n = arg;
  gostx_pool_run(n->pool, 10, inner_fn, n);
}

int main(void) {
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (ncpu < 1) ncpu = 1;

  /* NULL pool: inline; size 1. */
  CHECK(gostx_pool_size(NULL) == 1, "size(NULL)");
  CHECK(run_cover(NULL, 0), "NULL pool, 0 tasks");
  CHECK(run_cover(NULL, 17), "NULL pool, 17 tasks");
  CHECK_RC(gostx_pool_run(NULL, 3, NULL, NULL), GOSTX_EINVAL, "NULL fn");
  gostx_pool_free(NULL);

  /* Pool of 0 = online CPUs. */
  {
    gostx_pool *p = gostx_pool_new(0);
    CHECK(p != NULL, "pool_new(0)");
    if (p) {
      CHECK(gostx_pool_size(p) == (unsigned)(ncpu > 1024 ? 1024 : ncpu), "pool_new(0) size %u, ncpu %ld",
            gostx_pool_size(p), ncpu);
      CHECK(run_cover(p, 1000), "pool(0) 1000 tasks");
      gostx_pool_free(p);
    }
  }

  static const unsigned sizes[] = {1, 2, 3, 4, 7, 16};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    gostx_pool *p = gostx_pool_new(sizes[s]);
    CHECK(p != NULL, "pool_new(%u)", sizes[s]);
    if (!p) continue;
    CHECK(gostx_pool_size(p) == sizes[s], "size %u", sizes[s]);
    CHECK_RC(gostx_pool_run(p, 5, NULL, NULL), GOSTX_EINVAL, "NULL fn");

    /* Every index once, for many task counts, many runs in a row. */
    int ok = 1;
    for (size_t n = 0; n <= 70; n++) ok = ok && run_cover(p, n);
    for (unsigned r = 0; r < 500; r++) ok = ok && run_cover(p, (r * 7919u) % 97u);
    ok = ok && run_cover(p, 100000);
    CHECK(ok, "pool %u: every index exactly once", sizes[s]);

    /* Slow tasks: the sum of (i + 1). */
    struct slow sl;
    atomic_init(&sl.sum, 0);
    gostx_pool_run(p, 2000, slow_fn, &sl);
    CHECK(atomic_load(&sl.sum) == 2000ul * 2001ul / 2, "pool %u: slow tasks sum", sizes[s]);

    /* Concurrent callers: 4 threads share one pool. */
    pthread_t th[4];
    struct caller cs[4];
    for (unsigned t = 0; t < 4; t++) {
      cs[t].pool = p;
      cs[t].seed = t + 1;
      pthread_create(&th[t], NULL, caller_main, &cs[t]);
    }
    for (unsigned t = 0; t < 4; t++) {
      pthread_join(th[t], NULL);
      CHECK(cs[t].ok, "pool %u: concurrent caller %u", sizes[s], t);
    }

    /* A run from inside a task of the same pool runs inline. */
    struct nest ne;
    ne.pool = p;
    atomic_init(&ne.inner_total, 0);
    CHECK_RC(gostx_pool_run(p, 20, outer_fn, &ne), GOSTX_OK, "nested run");
    CHECK(atomic_load(&ne.inner_total) == 200, "pool %u: nested runs %u", sizes[s],
          atomic_load(&ne.inner_total));

    gostx_pool_free(p);
  }

  /* A pool used in a child after fork() runs inline there (no hang). */
  {
    gostx_pool *p = gostx_pool_new(3);
    CHECK(p && run_cover(p, 50), "pool before fork");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
      int ok = run_cover(p, 1000);
      gostx_pool_free(p);
      _exit(ok ? 0 : 1);
    }
    int st = -1;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "pool in a forked child");
    CHECK(run_cover(p, 1000), "pool in the parent after fork");
    gostx_pool_free(p);
  }

  /* Create and free many pools (no leaks or hangs on shutdown). */
  {
    int ok = 1;
    for (unsigned r = 0; r < 50; r++) {
      gostx_pool *p = gostx_pool_new(1 + r % 5);
      ok = ok && p != NULL;
      if (p) {
        if (r & 1) ok = ok && run_cover(p, r);
        gostx_pool_free(p);
      }
    }
    CHECK(ok, "create/free 50 pools");
  }
  return t_done();
}
