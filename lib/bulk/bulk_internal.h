/* Helpers shared by the bulk engine's files in lib/bulk/ (not installed). */
#ifndef GOSTX_BULK_INTERNAL_H
#define GOSTX_BULK_INTERNAL_H

#include "internal.h"

/* Task sizes: at least this many bytes per task (so the per-task set-up, a key
 * copy and a few counters, stays negligible), at most the maximum (so a noisy
 * machine can still balance the load), aiming at 8 tasks per thread. */
#define GOSTX__BULK_TASK_MIN (32 * 1024)
#define GOSTX__BULK_TASK_MAX (256 * 1024)

/* Bytes per task for len bytes on nthreads threads: a positive multiple of align. */
static inline size_t gostx__bulk_chunk(size_t len, unsigned nthreads, size_t align) {
  size_t c = len / ((size_t)nthreads * 8);
  if (c < GOSTX__BULK_TASK_MIN) c = GOSTX__BULK_TASK_MIN;
  if (c > GOSTX__BULK_TASK_MAX) c = GOSTX__BULK_TASK_MAX;
  c -= c % align;
  return c ? c : align;
}

/* 1 when len bytes are worth spreading over the pool. */
static inline int gostx__bulk_parallel(const gostx_pool *pool, size_t len) {
  return pool && gostx_pool_size(pool) > 1 && len >= GOSTX_BULK_MIN;
}

/* CTR (s = n) over len bytes that start at block first_block of a message
 * (counter IV || 0 + first_block), spread over the pool (NULL: inline);
 * the CPU half of gostx_gpu_ctr_crypt_split. */
int gostx__ctr_crypt_mt_from(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                             size_t iv_len, uint64_t first_block, const uint8_t *in,
                             uint8_t *out, size_t len);

#endif
