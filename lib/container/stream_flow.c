/* The in-memory streaming engine of lib/container: with the whole input at
 * hand and a pool of two or more threads, chunks flow through the pool with
 * no barrier between batches. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "container/stream.h"
#include "internal.h"

/* ---- input in memory, on a pool: no barrier between batches ----
 * With the whole input at hand, every chunk's place is known in advance: the
 * pool's threads claim chunks in order across the whole file (an atomic
 * counter) and seal or open each into the buffer of its group (cap chunks,
 * the batches above), waiting only when that buffer still holds the group
 * two before; the calling thread writes each group once all its chunks are
 * done (and calls progress), then hands the buffer to the group two on. Where
 * batches end at a barrier, a thread would idle while the last chunk of a
 * batch finishes; here it goes on with the next group. */

struct flow {
  struct streamer *st;
  uint64_t nchunks, ngroups;
  uint64_t host[2]; /* the group buffer k holds now */
  size_t done[2];   /* its chunks finished */
  atomic_ullong next;
  atomic_int stop;
  pthread_mutex_t mu;
  pthread_cond_t to_workers, to_writer;
};

/* Sets st->b[k] up for group g: its chunks, their input, its pad. */
static void flow_group(struct flow *f, int k, uint64_t g) {
  struct streamer *st = f->st;
  struct batch *b = &st->b[k];
  const uint64_t first = g * st->cap, len = st->s->in_mem_len;
  const uint64_t start = (st->decrypt ? 0 : GOSTX_FILE_HEADER_LEN) +
                         first * (st->decrypt ? st->stride : st->rec); /* output offset */
  b->first = first;
  b->n = (size_t)(f->nchunks - first < st->cap ? f->nchunks - first : st->cap);
  b->in_off = first * st->unit;
  b->pad = (size_t)(start % OUT_ALIGN);
  b->last_final = g + 1 == f->ngroups;
  for (size_t i = 0; i < b->n; i++) b->lens[i] = st->unit;
  if (b->last_final) b->lens[b->n - 1] = (size_t)(len - (f->nchunks - 1) * st->unit);
  if (b->n > b->touched) b->touched = b->n;
  f->done[k] = 0;
  f->host[k] = g;
}

static void flow_worker(void *arg, size_t unused) {
  struct flow *f = arg;
  (void)unused;
  for (;;) {
    const uint64_t i = atomic_fetch_add(&f->next, 1);
    if (i >= f->nchunks || atomic_load(&f->stop)) return;
    const uint64_t g = i / f->st->cap;
    const int k = (int)(g & 1);
    pthread_mutex_lock(&f->mu);
    while (f->host[k] != g && !atomic_load(&f->stop)) pthread_cond_wait(&f->to_workers, &f->mu);
    pthread_mutex_unlock(&f->mu);
    if (atomic_load(&f->stop)) return;
    struct task t = {f->st, &f->st->b[k]};
    gostx__file_batch_task(&t, (size_t)(i - g * f->st->cap));
    pthread_mutex_lock(&f->mu);
    if (++f->done[k] == f->st->b[k].n) pthread_cond_signal(&f->to_writer);
    pthread_mutex_unlock(&f->mu);
  }
}

static void *flow_runner(void *arg) {
  struct flow *f = arg;
  const unsigned t = gostx_pool_size(f->st->s->pool);
  gostx_pool_run(f->st->s->pool, t, flow_worker, f);
  return NULL;
}

static void flow_stop(struct flow *f) {
  pthread_mutex_lock(&f->mu);
  atomic_store(&f->stop, 1);
  pthread_cond_broadcast(&f->to_workers);
  pthread_mutex_unlock(&f->mu);
}

/* The stream when the flow applies (input in memory, a pool of 2 or more):
 * 1 = not started (run the batches instead), else the stream's result. */
int gostx__file_flow_stream(struct streamer *st) {
  gostx_file_stream *s = st->s;
  const uint64_t len = s->in_mem_len;
  if (!s->in_mem || !s->pool || gostx_pool_size(s->pool) < 2 || (st->decrypt && len == 0))
    return 1;
  struct flow f;
  memset(&f, 0, sizeof f);
  f.st = st;
  f.nchunks = len == 0 ? 1 : (len - 1) / st->unit + 1;
  if (f.nchunks > GOSTX_FILE_MAX_CHUNKS) return 1; /* the batches say why */
  f.ngroups = (f.nchunks - 1) / st->cap + 1;
  atomic_init(&f.next, 0);
  atomic_init(&f.stop, 0);
  if (pthread_mutex_init(&f.mu, NULL)) return 1;
  if (pthread_cond_init(&f.to_workers, NULL)) {
    pthread_mutex_destroy(&f.mu);
    return 1;
  }
  if (pthread_cond_init(&f.to_writer, NULL)) {
    pthread_cond_destroy(&f.to_workers);
    pthread_mutex_destroy(&f.mu);
    return 1;
  }
  flow_group(&f, 0, 0);
  if (f.ngroups > 1) flow_group(&f, 1, 1);
  int rc = 1;
  pthread_t th;
  if (pthread_create(&th, NULL, flow_runner, &f) != 0) goto out;
  rc = GOSTX_OK;
  for (uint64_t g = 0; g < f.ngroups && rc == GOSTX_OK; g++) {
    const int k = (int)(g & 1);
    struct batch *b = &st->b[k];
    pthread_mutex_lock(&f.mu);
    while (f.done[k] < b->n) pthread_cond_wait(&f.to_writer, &f.mu);
    pthread_mutex_unlock(&f.mu);
    size_t ok = 0;
    while (ok < b->n && b->rcs[ok] == GOSTX_OK) ok++;
    if (ok < b->n) {
      if (st->decrypt) { /* the verified prefix, then why */
        rc = gostx__file_write_batch(st, b, ok, 1, NULL, s->msg, sizeof s->msg);
        if (rc == GOSTX_OK) rc = gostx__file_explain_failure(st, b, ok);
      } else {
        s->fail_chunk = b->first + ok;
        snprintf(s->msg, sizeof s->msg, "chunk %llu: %s", (unsigned long long)s->fail_chunk,
                 gostx_strerror(b->rcs[ok]));
        rc = b->rcs[ok];
      }
      break;
    }
    rc = gostx__file_write_batch(st, b, b->n, b->last_final, &st->b[k ^ 1], s->msg, sizeof s->msg);
    if (rc) break;
    st->in_bytes = (st->decrypt ? GOSTX_FILE_HEADER_LEN : 0) + b->in_off;
    for (size_t i = 0; i < b->n; i++) st->in_bytes += b->lens[i];
    if (s->progress) s->progress(s->progress_arg, st->in_bytes);
    if (g + 2 < f.ngroups) {
      pthread_mutex_lock(&f.mu);
      flow_group(&f, k, g + 2);
      pthread_cond_broadcast(&f.to_workers);
      pthread_mutex_unlock(&f.mu);
    }
  }
  flow_stop(&f);
  pthread_join(th, NULL);
out:
  pthread_cond_destroy(&f.to_writer);
  pthread_cond_destroy(&f.to_workers);
  pthread_mutex_destroy(&f.mu);
  return rc;
}
