/* Internal to lib/container: the batches and the streamer that the two
 * streaming engines share (stream.c: batches from a FILE or memory, I/O
 * overlapped on a helper thread; stream_flow.c: input in memory on a pool, no
 * barrier between batches), and the batch steps both use (stream_batch.c). */
#ifndef GOSTX_CONTAINER_STREAM_H
#define GOSTX_CONTAINER_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "gostx/file.h"

/* Output writes are whole pages of this size from aligned memory (all but the
 * last), so a sink can pass them to O_DIRECT without copying them. */
#define OUT_ALIGN ((size_t)4096)

struct batch {
  uint8_t *buf;    /* OUT_ALIGN bytes of pad room, then cap slots of stride bytes */
  size_t *lens;    /* encrypt: plaintext length; decrypt: record length */
  int *rcs;
  uint64_t first;  /* chunk index of slot 0 */
  uint64_t in_off; /* in_mem: offset of slot 0's input */
  size_t pad;      /* bytes before slot 0: the previous batch's unwritten tail */
  size_t n;        /* slots in use */
  size_t touched;  /* slots ever read into: the wipe covers these, not the whole
                      (lazily mapped) buffer, so short files stay cheap */
  int last_final;  /* the last slot holds the final chunk (end of input) */
};

struct streamer {
  const gostx_file *file;
  gostx_file_stream *s;
  int decrypt;
  int contig;            /* the output is contiguous and page-aligned (above) */
  size_t rec, cap, unit; /* unit: bytes read per slot (chunk or record) */
  size_t stride;         /* slot spacing in buf */
  size_t rd_held;        /* the pad of the next batch read */
  uint64_t in_pos;       /* in_mem: input consumed */
  uint64_t in_bytes;
  struct batch b[2];
  /* the I/O job */
  struct batch *wr, *rd; /* write wr (may be NULL), then read into rd (may be NULL) */
  struct batch *wr_next; /* receives wr's unwritten tail as its pad */
  uint64_t rd_first;     /* chunk index of rd's first slot */
  int wr_rc, rd_rc;      /* 0, or GOSTX_EIO / GOSTX_EFORMAT with msg filled */
  char io_msg[160];
};

/* For gostx_pool_run: seal or open slot i of the batch in st->b[0 or 1]. */
struct task {
  struct streamer *st;
  struct batch *b;
};

/* Where slot i of a batch writes, and reads from. */
static inline uint8_t *slot_out(const struct streamer *st, const struct batch *b, size_t i) {
  return b->buf + b->pad + i * st->stride;
}

/* All slots but the last are full, so slot i's input is unit bytes on. */
static inline const uint8_t *slot_in(const struct streamer *st, const struct batch *b, size_t i) {
  return st->s->in_mem ? st->s->in_mem + b->in_off + i * st->unit : slot_out(st, b, i);
}

/* Output bytes of slot i: a record, or the plaintext of one. */
static inline size_t slot_out_len(const struct streamer *st, const struct batch *b, size_t i) {
  return st->decrypt ? b->lens[i] - st->file->tag_len : b->lens[i] + st->file->tag_len;
}

/* Seals or opens slot i of t->b (for gostx_pool_run). */
void gostx__file_batch_task(void *arg, size_t i);
/* Writes slots [0, upto) of a processed batch (stream.c says how). */
int gostx__file_write_batch(struct streamer *st, const struct batch *b, size_t upto, int last,
                            struct batch *next, char *msg, size_t msg_len);
/* Explains why chunk i of b failed to open, in st->s->msg; the error code. */
int gostx__file_explain_failure(struct streamer *st, struct batch *b, size_t i);
/* The in-memory flow: 1 when it does not apply (run the batches instead),
 * else the stream's result. */
int gostx__file_flow_stream(struct streamer *st);

#endif
