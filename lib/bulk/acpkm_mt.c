/* Parallel CTR-ACPKM (include/gostx/bulk.h).
 *
 * Section i (bytes [iN, (i+1)N)) is plain CTR under K^i from counter
 * CTR_1 + iN/n. The key chain K^0 = K, K^{i+1} = ACPKM(K^i) is sequential
 * and latency-bound (an expansion and a 32-byte encryption per section), so
 * it runs beside the keystream instead of before it: in each pool run, task
 * 0 makes the run's section keys one after another and publishes each as it
 * is made, and the data tasks (whole sections, or parts of a long one, in
 * section order) wait only for their own key. On two threads one makes keys
 * while the other encrypts the first sections, then joins in; no section
 * waits for more than the keys before it.
 *
 * No deadlock: the pool hands out task indices in increasing order, so task
 * 0 is taken first, and it waits for nothing; run inline (no pool, a nested
 * run) it finishes before any data task starts. Runs are windows of at most
 * ACPKM_WINDOW_MAX keys, the memory bound; every thread count gives the same
 * bytes. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bulk_internal.h"
#include "modes/modes_internal.h"

#define ACPKM_WINDOW_BYTES (16u << 20) /* data per pool run, at most */
#define ACPKM_WINDOW_MAX 1024          /* section keys per run, at most */
#define ACPKM_TASK_MIN 8192            /* bytes per data task, at least (short sections) */

struct acpkm_job {
  const uint8_t *iv;
  const uint8_t *in;
  uint8_t *out;
  size_t len, section_len;
  size_t per_task;        /* short sections: sections per task */
  size_t parts, part_len; /* long sections: tasks per section, bytes per part */
  size_t first, nsections; /* the window: sections [first, first + nsections) */
  gostx_cipher *keys;     /* keys[k] = K^(first + k), made by task 0 */
  gostx_cipher *chain;    /* the chain's next key, K^first at the start of a run */
  atomic_size_t ready;    /* keys[0, ready) are made */
  pthread_mutex_t mu;     /* with cv: data tasks sleep until their key is made */
  pthread_cond_t cv;
  size_t waiters;         /* under mu */
};

/* Task 0: the window's keys, each published as soon as it is made. */
static void acpkm_chain(struct acpkm_job *j) {
  uint8_t next[GOSTX_KEY_LEN];
  for (size_t k = 0; k < j->nsections; k++) {
    j->keys[k] = *j->chain;
    gostx_acpkm_next_key(j->chain, next);
    gostx_cipher_init(j->chain, j->chain->id, next); /* valid id: cannot fail */
    pthread_mutex_lock(&j->mu);
    atomic_store_explicit(&j->ready, k + 1, memory_order_release);
    if (j->waiters) pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->mu);
  }
  gostx_memzero(next, sizeof next);
}

/* The key of section k of the window, once task 0 has made it. */
static const gostx_cipher *acpkm_key(struct acpkm_job *j, size_t k) {
  if (atomic_load_explicit(&j->ready, memory_order_acquire) <= k) {
    pthread_mutex_lock(&j->mu);
    j->waiters++;
    while (atomic_load_explicit(&j->ready, memory_order_acquire) <= k)
      pthread_cond_wait(&j->cv, &j->mu);
    j->waiters--;
    pthread_mutex_unlock(&j->mu);
  }
  return &j->keys[k];
}

/* Bytes [off, off + l) of the message, inside section k of the window. */
static void acpkm_range(struct acpkm_job *j, size_t k, size_t off, size_t l) {
  const gostx_cipher *key = acpkm_key(j, k);
  const size_t n = key->block_len;
  gostx_mode_ctx ctx;
  if (gostx_mode_init(&ctx, key, GOSTX_MODE_CTR, 0, j->iv, n / 2, 0, GOSTX_PAD_NONE, 0) ==
      GOSTX_OK) {
    gostx__ctr_add(ctx.reg, n, GOSTX__CTR_FULL, off / n);
    gostx__ctr_bytes(&ctx, j->in + off, j->out + off, l);
  }
  gostx_memzero(&ctx, sizeof ctx);
}

static void acpkm_task(void *arg, size_t t) {
  struct acpkm_job *j = arg;
  if (t == 0) {
    acpkm_chain(j);
    return;
  }
  t--;
  if (j->parts) {
    size_t k = t / j->parts, p = t % j->parts;
    size_t sec_off = (j->first + k) * j->section_len, off = sec_off + p * j->part_len;
    size_t sec_end = sec_off + j->section_len < j->len ? sec_off + j->section_len : j->len;
    if (off >= sec_end) return;
    acpkm_range(j, k, off, sec_end - off < j->part_len ? sec_end - off : j->part_len);
    return;
  }
  size_t a = t * j->per_task, b = a + j->per_task;
  if (b > j->nsections) b = j->nsections;
  for (size_t k = a; k < b; k++) {
    size_t off = (j->first + k) * j->section_len;
    acpkm_range(j, k, off, j->len - off < j->section_len ? j->len - off : j->section_len);
  }
}

int gostx_ctr_acpkm_crypt_mt(gostx_pool *pool, const gostx_cipher *c, const uint8_t *iv,
                             size_t iv_len, size_t section_len, const uint8_t *in, size_t len,
                             uint8_t *out) {
  if (!gostx__bulk_parallel(pool, len) || section_len == 0)
    return gostx_ctr_acpkm_crypt(c, iv, iv_len, section_len, in, len, out);
  gostx_mode_ctx chk;
  int rc = gostx_mode_init(&chk, c, GOSTX_MODE_CTR_ACPKM, 0, iv, iv_len, 0, GOSTX_PAD_NONE,
                           section_len);
  gostx_memzero(&chk, sizeof chk);
  if (rc) return rc;
  if (!in || !out) return GOSTX_EINVAL;

  const size_t n = c->block_len, total = (len + section_len - 1) / section_len;
  const unsigned threads = gostx_pool_size(pool);
  size_t win = ACPKM_WINDOW_BYTES / section_len;
  if (win < 1) win = 1;
  if (win > ACPKM_WINDOW_MAX) win = ACPKM_WINDOW_MAX;
  if (win > total) win = total;
  /* gostx_cipher holds 64-byte-aligned keys; its size is a multiple of 64. */
  gostx_cipher *keys = aligned_alloc(_Alignof(gostx_cipher), win * sizeof *keys);
  if (!keys) return gostx_ctr_acpkm_crypt(c, iv, iv_len, section_len, in, len, out);

  const size_t chunk = gostx__bulk_chunk(len, threads, n);
  struct acpkm_job j = {.iv = iv, .in = in, .out = out, .len = len, .section_len = section_len,
                        .keys = keys};
  if (section_len > chunk) {
    j.part_len = chunk;
    j.parts = (section_len + chunk - 1) / chunk;
  } else {
    /* About eight tasks per thread per window, none under ACPKM_TASK_MIN bytes. */
    size_t per = win / (8 * (size_t)threads), min = ACPKM_TASK_MIN / section_len;
    j.per_task = per > min ? per : min ? min : 1;
  }
  gostx_cipher chain = *c;
  j.chain = &chain;
  pthread_mutex_init(&j.mu, NULL);
  pthread_cond_init(&j.cv, NULL);
  for (size_t first = 0; first < total && !rc; first += win) {
    j.first = first;
    j.nsections = total - first < win ? total - first : win;
    atomic_store(&j.ready, 0);
    size_t ntasks = j.parts ? j.nsections * j.parts
                            : (j.nsections + j.per_task - 1) / j.per_task;
    rc = gostx_pool_run(pool, 1 + ntasks, acpkm_task, &j);
  }
  pthread_cond_destroy(&j.cv);
  pthread_mutex_destroy(&j.mu);
  gostx_memzero(&chain, sizeof chain);
  gostx_memzero(keys, win * sizeof *keys);
  free(keys);
  return rc;
}
