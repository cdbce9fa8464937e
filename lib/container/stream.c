/* Streaming a gostx file over a FILE* or memory, a batch of chunks at a time
 * on a gostx_pool (docs/FORMAT.md).
 * Two batch buffers. While the pool seals/opens batch k in one, a helper
 * thread writes batch k-1 from the other and then reads batch k+1 into it,
 * so I/O overlaps the cipher work. Without a pool the same steps run one
 * after another on the calling thread. The order of the output is the order
 * of the input, and decryption writes a batch only once every chunk in it
 * verified (the failing batch's verified prefix is written last).
 *
 * Where the output of a batch is contiguous (encryption: records; decryption
 * from memory: plaintext chunks), a batch's slots start at buf + pad, and the
 * pad holds the previous batch's last output bytes past its last whole page
 * (the header, before the first batch): each write but the last then is whole
 * pages from page-aligned memory, which the sink can write with O_DIRECT, and
 * copying a tail of less than a page is all that takes. Input in memory
 * (s->in_mem, e.g. a mapped file) is sealed or opened from where it lies. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "container/stream.h"
#include "internal.h"

#define BATCH_BYTES_MAX ((size_t)256 << 20)

/* Default chunks per batch with a pool. A batch ends at a barrier (the pool's
 * run returns when its last chunk is done): threads that finish first wait
 * there, and the I/O thread takes CPU from the workers at times, so few chunks
 * per thread lose much of the second core. 1 GiB `gostx enc` on 2 cores,
 * medians of 5 interleaved runs: 2.68 s at 2 chunks per thread, 2.48 s at 8,
 * 2.34 s at 16 (about the bound that the CPU time sets); `dec` 2.94, 2.72,
 * 2.51 s. Soft cap: 64 MiB of buffers in all, but never fewer than 2 chunks
 * per thread. */
#define BATCH_PER_THREAD 16
#define BATCH_BYTES_SOFT ((size_t)64 << 20)

static void run_batch(struct streamer *st, struct batch *b) {
  struct task t = {st, b};
  if (st->s->pool && b->n > 1 && gostx_pool_run(st->s->pool, b->n, gostx__file_batch_task, &t) == 0) return;
  for (size_t i = 0; i < b->n; i++) gostx__file_batch_task(&t, i);
}

/* fread until len bytes or EOF; -1 on a read error. */
static int read_full(FILE *f, uint8_t *p, size_t len, size_t *got) {
  size_t n = 0;
  while (n < len) {
    size_t r = fread(p + n, 1, len - n, f);
    n += r;
    if (r == 0) {
      if (ferror(f)) return -1;
      break;
    }
  }
  *got = n;
  return 0;
}

/* 1 at EOF, 0 when more data follows, -1 on a read error. */
static int at_eof(FILE *f) {
  int c = getc(f);
  if (c == EOF) return ferror(f) ? -1 : 1;
  if (ungetc(c, f) == EOF) return -1;
  return 0;
}

/* The slots of the next batch from in_mem (nothing is copied). */
static int take_batch(struct streamer *st, struct batch *b, char *msg, size_t msg_len) {
  const uint64_t len = st->s->in_mem_len;
  b->in_off = st->in_pos;
  while (b->n < st->cap) {
    const uint64_t left = len - st->in_pos;
    const size_t got = left < st->unit ? (size_t)left : st->unit;
    if (st->decrypt && got == 0) {
      snprintf(msg, msg_len, "truncated file: no chunks after the header");
      return GOSTX_EFORMAT;
    }
    if (b->n + 1 > b->touched) b->touched = b->n + 1;
    b->lens[b->n++] = got;
    st->in_pos += got;
    st->in_bytes += got;
    if (st->in_pos == len) {
      b->last_final = 1;
      break;
    }
  }
  return GOSTX_OK;
}

/* Reads the next batch (first chunk index `first`) into b. */
static int read_batch(struct streamer *st, struct batch *b, uint64_t first, char *msg,
                      size_t msg_len) {
  b->n = 0;
  b->first = first;
  b->last_final = 0;
  b->pad = st->rd_held;
  if (st->s->in_mem) {
    int rc = take_batch(st, b, msg, msg_len);
    if (rc) return rc;
  }
  while (!st->s->in_mem && b->n < st->cap) {
    size_t got;
    if (b->n + 1 > b->touched) b->touched = b->n + 1;
    if (read_full(st->s->in, slot_out(st, b, b->n), st->unit, &got) < 0) goto read_error;
    if (st->decrypt && got == 0) { /* only possible right after the header */
      snprintf(msg, msg_len, "truncated file: no chunks after the header");
      return GOSTX_EFORMAT;
    }
    b->lens[b->n++] = got;
    st->in_bytes += got;
    int eof = got < st->unit ? 1 : at_eof(st->s->in);
    if (eof < 0) goto read_error;
    if (eof) {
      b->last_final = 1;
      break;
    }
  }
  if (b->n > GOSTX_FILE_MAX_CHUNKS - first) {
    snprintf(msg, msg_len, "too many chunks (more than 2^62)");
    return st->decrypt ? GOSTX_EFORMAT : GOSTX_ELEN;
  }
  if (st->contig) {
    size_t total = b->pad;
    for (size_t i = 0; i < b->n; i++) total += slot_out_len(st, b, i);
    st->rd_held = total % OUT_ALIGN;
  }
  return GOSTX_OK;
read_error:
  snprintf(msg, msg_len, "read error: %s", strerror(errno));
  return GOSTX_EIO;
}

static void io_job(struct streamer *st) {
  st->wr_rc = st->rd_rc = GOSTX_OK;
  if (st->wr)
    st->wr_rc = gostx__file_write_batch(st, st->wr, st->wr->n, 0, st->wr_next, st->io_msg, sizeof st->io_msg);
  if (st->rd && st->wr_rc == GOSTX_OK)
    st->rd_rc = read_batch(st, st->rd, st->rd_first, st->io_msg, sizeof st->io_msg);
}

static void *io_thread(void *arg) {
  io_job(arg);
  return NULL;
}

/* A batch buffer: the pad's room, cap slots, rounded to whole pages. */
static size_t buf_bytes(const struct streamer *st) {
  const size_t b = OUT_ALIGN + st->cap * st->stride;
  return b + (OUT_ALIGN - b % OUT_ALIGN) % OUT_ALIGN;
}

static int stream(const gostx_file *file, gostx_file_stream *s, int decrypt) {
  if (!s) return GOSTX_EINVAL;
  s->chunks = s->bytes_out = s->fail_chunk = 0;
  s->msg[0] = 0;
  if (!file || !file->tag_len || (!s->in && !s->in_mem) || !s->write) {
    snprintf(s->msg, sizeof s->msg, "invalid arguments");
    return GOSTX_EINVAL;
  }
  struct streamer st;
  memset(&st, 0, sizeof st);
  st.file = file;
  st.s = s;
  st.decrypt = decrypt;
  st.rec = (size_t)file->h.chunk_size + file->tag_len;
  st.unit = decrypt ? st.rec : file->h.chunk_size;
  st.contig = !decrypt || s->in_mem;
  st.stride = decrypt && s->in_mem ? file->h.chunk_size : st.rec;
  st.in_bytes = decrypt ? GOSTX_FILE_HEADER_LEN : 0;
  size_t n = s->batch;
  if (!n && !s->pool) n = 2; /* no overlap without a pool: more buys nothing */
  if (!n) {
    const size_t t = gostx_pool_size(s->pool);
    n = BATCH_PER_THREAD * t;
    if (n > BATCH_BYTES_SOFT / 2 / st.rec) n = BATCH_BYTES_SOFT / 2 / st.rec;
    if (n < 2 * t) n = 2 * t;
    n -= n % t; /* every thread the same share: no thread idles at the barrier */
  }
  if (n > BATCH_BYTES_MAX / 2 / st.rec) n = BATCH_BYTES_MAX / 2 / st.rec;
  if (n < 1) n = 1;
  st.cap = s->batch = n;
  int rc = GOSTX_OK;
  for (int k = 0; k < 2; k++) {
    st.b[k].buf = aligned_alloc(OUT_ALIGN, buf_bytes(&st));
    st.b[k].lens = calloc(n, sizeof *st.b[k].lens);
    st.b[k].rcs = calloc(n, sizeof *st.b[k].rcs);
    if (!st.b[k].buf || !st.b[k].lens || !st.b[k].rcs) rc = GOSTX_ENOMEM;
  }
  if (rc) {
    snprintf(s->msg, sizeof s->msg, "out of memory");
    goto out;
  }
  if (!decrypt) { /* the header goes out in front of the first batch */
    memcpy(st.b[0].buf, file->header, GOSTX_FILE_HEADER_LEN);
    st.rd_held = GOSTX_FILE_HEADER_LEN;
  }
  if ((rc = gostx__file_flow_stream(&st)) != 1) goto out;
  rc = read_batch(&st, &st.b[0], 0, s->msg, sizeof s->msg);
  if (rc) goto out;
  struct batch *cur = &st.b[0], *other = &st.b[1], *prev = NULL;
  for (;;) {
    /* I/O for the neighbours of cur: write prev, read the batch after cur. */
    st.wr = prev;
    st.wr_next = cur;
    st.rd = cur->last_final ? NULL : other;
    st.rd_first = cur->first + cur->n;
    pthread_t th;
    int async = s->pool && (st.wr || st.rd) && pthread_create(&th, NULL, io_thread, &st) == 0;
    if (!async) io_job(&st);
    run_batch(&st, cur);
    if (async) pthread_join(th, NULL);
    if (st.wr_rc) { /* prev could not be written: stop there */
      memcpy(s->msg, st.io_msg, sizeof s->msg);
      rc = st.wr_rc;
      goto out;
    }
    size_t ok = 0;
    while (ok < cur->n && cur->rcs[ok] == GOSTX_OK) ok++;
    if (ok < cur->n) {
      if (decrypt) {
        /* Release the verified prefix, then report the first failure. */
        rc = gostx__file_write_batch(&st, cur, ok, 1, NULL, s->msg, sizeof s->msg);
        if (rc == GOSTX_OK) rc = gostx__file_explain_failure(&st, cur, ok);
      } else {
        s->fail_chunk = cur->first + ok;
        snprintf(s->msg, sizeof s->msg, "chunk %llu: %s", (unsigned long long)s->fail_chunk,
                 gostx_strerror(cur->rcs[ok]));
        rc = cur->rcs[ok];
      }
      goto out;
    }
    if (st.rd_rc) { /* cur is fine; the input after it is not */
      memcpy(s->msg, st.io_msg, sizeof s->msg);
      rc = st.rd_rc;
      goto out;
    }
    if (s->progress) s->progress(s->progress_arg, st.in_bytes);
    if (cur->last_final) {
      rc = gostx__file_write_batch(&st, cur, cur->n, 1, NULL, s->msg, sizeof s->msg);
      goto out;
    }
    prev = cur;
    cur = other;
    other = prev;
  }
out:
  for (int k = 0; k < 2; k++) {
    if (st.b[k].buf) /* plaintext */
      gostx_memzero(st.b[k].buf, OUT_ALIGN + st.b[k].touched * st.stride);
    free(st.b[k].buf);
    free(st.b[k].lens);
    free(st.b[k].rcs);
  }
  return rc;
}

int gostx_file_encrypt_stream(const gostx_file *file, gostx_file_stream *s) { return stream(file, s, 0); }

int gostx_file_decrypt_stream(const gostx_file *file, gostx_file_stream *s) { return stream(file, s, 1); }
