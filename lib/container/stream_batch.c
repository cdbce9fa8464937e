/* The steps of a batch that both streaming engines run (stream.c, the
 * batches; stream_flow.c, the in-memory flow): seal or open one slot, write
 * a processed batch out, explain a chunk that failed to open. Below both
 * engines, so neither calls into the other for them. */
#include <stdio.h>
#include <string.h>

#include "container/stream.h"
#include "internal.h"

void gostx__file_batch_task(void *arg, size_t i) {
  struct task *t = arg;
  struct batch *b = t->b;
  const uint8_t *in = slot_in(t->st, b, i);
  uint8_t *out = slot_out(t->st, b, i);
  int final = b->last_final && i + 1 == b->n;
  if (t->st->decrypt)
    b->rcs[i] = gostx_file_open_chunk(t->st->file, b->first + i, final, in, b->lens[i], out);
  else
    b->rcs[i] = gostx_file_seal_chunk(t->st->file, b->first + i, final, in, b->lens[i], out);
}

/* Writes slots [0, upto) of a processed batch: all of it when last (the end
 * of the output), else up to its last whole page, its tail going to the front
 * of next (the following batch, whose pad it is). */
int gostx__file_write_batch(struct streamer *st, const struct batch *b, size_t upto, int last,
                       struct batch *next, char *msg, size_t msg_len) {
  if (st->contig) {
    size_t total = b->pad;
    for (size_t i = 0; i < upto; i++) total += slot_out_len(st, b, i);
    const size_t whole = last ? total : total - total % OUT_ALIGN;
    if (whole && st->s->write(st->s->write_arg, b->buf, whole)) goto write_error;
    if (!last) memcpy(next->buf, b->buf + whole, total - whole); /* next->pad bytes */
    /* Chunks whose every byte went out. */
    size_t done = upto;
    for (size_t end = total; done > 0 && end > whole; done--) end -= slot_out_len(st, b, done - 1);
    for (size_t i = 0; i < upto; i++)
      st->s->bytes_out += st->decrypt ? b->lens[i] - st->file->tag_len : b->lens[i];
    st->s->chunks = b->first + done;
    return GOSTX_OK;
  }
  for (size_t i = 0; i < upto; i++) { /* decryption from a FILE: records opened in place */
    const size_t len = slot_out_len(st, b, i);
    if (st->s->write(st->s->write_arg, slot_out(st, b, i), len)) goto write_error;
    st->s->bytes_out += len;
  }
  st->s->chunks = b->first + upto;
  return GOSTX_OK;
write_error:
  snprintf(msg, msg_len, "write error");
  return GOSTX_EIO;
}

/* Explains why chunk i of b failed to open (decryption), in s->msg. */
int gostx__file_explain_failure(struct streamer *st, struct batch *b, size_t i) {
  gostx_file_stream *s = st->s;
  const gostx_file *file = st->file;
  uint64_t ci = b->first + i;
  const uint8_t *p = slot_in(st, b, i);
  uint8_t *o = slot_out(st, b, i);
  size_t len = b->lens[i], tag = file->tag_len;
  int final = b->last_final && i + 1 == b->n;
  s->fail_chunk = ci;
  /* Second attempts only choose the message; they release nothing. */
  if (len < tag) {
    snprintf(s->msg, sizeof s->msg, "truncated file: chunk %llu is incomplete (%zu bytes)",
             (unsigned long long)ci, len);
    return GOSTX_EFORMAT;
  }
  if (final && len == st->rec && gostx_file_open_chunk(file, ci, 0, p, len, o) == 0) {
    snprintf(s->msg, sizeof s->msg,
             "truncated file: chunk %llu is not the final chunk (cut at a chunk boundary)",
             (unsigned long long)ci);
    return GOSTX_EFORMAT;
  }
  if (!final && gostx_file_open_chunk(file, ci, 1, p, len, o) == 0) {
    snprintf(s->msg, sizeof s->msg, "trailing data after final chunk %llu", (unsigned long long)ci);
    return GOSTX_EFORMAT;
  }
  if (final)
    snprintf(s->msg, sizeof s->msg,
             "authentication failed: chunk %llu (final chunk: corrupted, truncated or followed "
             "by extra data)",
             (unsigned long long)ci);
  else
    snprintf(s->msg, sizeof s->msg, "authentication failed: chunk %llu", (unsigned long long)ci);
  return GOSTX_EAUTH;
}
