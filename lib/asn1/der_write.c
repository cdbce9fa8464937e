/* The DER writer: see der.h. It copies secrets (a private key's bytes) as
 * they are and branches only on lengths and tags, which are public. */
#include <string.h>

#include "asn1/der.h"

void gostx__der_w_init(gostx__der_w *w, uint8_t *buf, size_t cap) {
  memset(w, 0, sizeof *w);
  w->buf = buf;
  w->cap = buf ? cap : SIZE_MAX;
}

/* Whether to go on with len more bytes at w->n: past the end of the
 * buffer the writer goes on counting (buf NULL), so that finish can say
 * how long the whole would be; after a misuse it stops. */
static int room(gostx__der_w *w, size_t len) {
  if (w->err == GOSTX_EINVAL) return 0;
  if (len > w->cap - w->n) {
    if (w->cap == SIZE_MAX) { /* counting: more than memory holds */
      w->err = GOSTX_EINVAL;
      return 0;
    }
    w->err = GOSTX_ELEN;
    w->buf = NULL;
    w->cap = SIZE_MAX;
  }
  return 1;
}

void gostx__der_w_raw(gostx__der_w *w, const void *p, size_t len) {
  if (!room(w, len)) return;
  if (w->buf && len) memmove(w->buf + w->n, p, len);
  w->n += len;
}

void gostx__der_w_begin(gostx__der_w *w, uint8_t tag) {
  if (w->depth == GOSTX__DER_W_DEPTH) w->err = GOSTX_EINVAL;
  if (!room(w, 2)) return;
  if (w->buf) w->buf[w->n] = tag, w->buf[w->n + 1] = 0; /* the length byte: end's */
  w->n += 2;
  w->open[w->depth++] = w->n;
}

void gostx__der_w_end(gostx__der_w *w) {
  if (w->depth == 0) w->err = GOSTX_EINVAL;
  if (w->err == GOSTX_EINVAL) return;
  size_t start = w->open[--w->depth], len = w->n - start, extra = 0;
  for (size_t l = len; len >= 0x80 && l; l >>= 8) extra++;
  if (!room(w, extra)) return;
  if (w->buf) {
    memmove(w->buf + start + extra, w->buf + start, len);
    w->buf[start - 1] = (uint8_t)(extra ? 0x80 | extra : len);
    for (size_t i = 0; i < extra; i++) w->buf[start + i] = (uint8_t)(len >> 8 * (extra - 1 - i));
  }
  w->n += extra;
}

void gostx__der_w_tlv(gostx__der_w *w, uint8_t tag, const void *content, size_t len) {
  gostx__der_w_begin(w, tag);
  gostx__der_w_raw(w, content, len);
  gostx__der_w_end(w);
}

void gostx__der_w_oid(gostx__der_w *w, const char *text) {
  uint8_t c[64];
  size_t len = 0;
  int rc = gostx__der_oid_encode(text, c, sizeof c, &len);
  if (rc) w->err = GOSTX_EINVAL;
  if (!rc) gostx__der_w_tlv(w, GOSTX__DER_OID, c, len);
}

void gostx__der_w_uint(gostx__der_w *w, const uint8_t *be, size_t len) {
  while (len > 1 && be[0] == 0) be++, len--;
  gostx__der_w_begin(w, GOSTX__DER_INT);
  if (len == 0 || be[0] & 0x80) gostx__der_w_raw(w, "", 1); /* a zero byte */
  gostx__der_w_raw(w, be, len);
  gostx__der_w_end(w);
}

void gostx__der_w_u32(gostx__der_w *w, uint32_t v) {
  const uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  gostx__der_w_uint(w, be, sizeof be);
}

int gostx__der_w_finish(const gostx__der_w *w, size_t *len) {
  if (w->err == GOSTX_EINVAL || w->depth) return GOSTX_EINVAL;
  *len = w->n;
  return w->err;
}

size_t gostx__der_header(uint8_t *out, uint8_t tag, uint64_t len) {
  size_t k = 0;
  out[0] = tag;
  if (len == GOSTX__DER_INDEFINITE) return out[1] = 0x80, 2;
  for (uint64_t v = len; len >= 0x80 && v; v >>= 8) k++;
  out[1] = k ? (uint8_t)(0x80 | k) : (uint8_t)len;
  for (size_t i = 0; i < k; i++) out[2 + i] = (uint8_t)(len >> (8 * (k - 1 - i)));
  return 2 + k;
}

size_t gostx_der_header(uint8_t *out, uint8_t tag, uint64_t len) {
  return out ? gostx__der_header(out, tag, len) : 0;
}

uint64_t gostx__der_tlv_size(uint64_t len) {
  uint8_t h[GOSTX__DER_HEADER_MAX];
  return gostx__der_header(h, 0, len) + len;
}

const uint8_t gostx__der_eocs[16];
