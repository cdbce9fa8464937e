/* gostx: the bulk engine. A fixed pool of worker threads, parallel variants of
 * the parallelisable modes, and the sector-batch (multi-stream) API. Results
 * are identical to the single-threaded calls for every thread count. Part of
 * the public API. */
#ifndef GOSTX_BULK_H
#define GOSTX_BULK_H

#include "cipher.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gostx_pool gostx_pool;

/* nthreads = 0: one thread per online CPU (at most 1024). Threads are created
 * once, here, with every signal blocked. NULL when threads cannot be created. */
GOSTX_API gostx_pool *gostx_pool_new(unsigned nthreads);
/* Waits for a run in progress, stops and joins the threads. NULL: no-op. */
GOSTX_API void gostx_pool_free(gostx_pool *pool);
/* Number of threads that run tasks (the caller counts as one of them);
 * 1 for NULL. */
GOSTX_API unsigned gostx_pool_size(const gostx_pool *pool);
/* Runs fn(arg, i) for every i in [0, ntasks) on the pool (the calling thread
 * helps) and returns when all have finished. Not re-entrant: one run at a
 * time per pool (concurrent callers are serialised). Indices are handed out
 * dynamically, in increasing order, each exactly once. pool NULL (or a pool of
 * one thread) runs every task inline on the calling thread; so does a run
 * started from inside a task of the same pool. ntasks 0 returns at once.
 * Returns GOSTX_OK, or GOSTX_EINVAL when fn is NULL. */
GOSTX_API int gostx_pool_run(gostx_pool *pool, size_t ntasks, void (*fn)(void *arg, size_t i),
                             void *arg);

#ifdef __cplusplus
}
#endif
#endif
