/* Memory behind lib/cms's streaming callbacks, for test_cms_stream and
 * fuzz_cms: a feed read `step` bytes a call at most (0: as much as fits)
 * and a sink that refuses (GOSTX_ELEN) more than its cap. */
#ifndef GOSTX_TESTS_CMS_MEM_STREAM_H
#define GOSTX_TESTS_CMS_MEM_STREAM_H

#include <string.h>

#include "gostx.h"

typedef struct feed {
  const uint8_t *p;
  size_t n, pos, step;
} feed;

static int feed_read(void *ctx, uint8_t *buf, size_t cap, size_t *got) {
  feed *f = ctx;
  size_t n = f->n - f->pos;
  if (n > cap) n = cap;
  if (f->step && n > f->step) n = f->step;
  memcpy(buf, f->p + f->pos, n);
  f->pos += n, *got = n;
  return 0;
}

typedef struct sink {
  uint8_t *p;
  size_t n, cap;
} sink;

static int sink_write(void *ctx, const uint8_t *buf, size_t len) {
  sink *s = ctx;
  if (len > s->cap - s->n) return GOSTX_ELEN;
  memcpy(s->p + s->n, buf, len);
  s->n += len;
  return 0;
}

#endif
