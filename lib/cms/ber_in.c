/* BER over a read callback for CMS streaming (lib/cms/ber_in.h). */
#include <string.h>

#include "cms/ber_in.h"

#define REFUSE(r, why) ((r)->st = (why), GOSTX_EFORMAT)

void gostx__ber_in_init(gostx__ber_in *r, gostx_cms_read_fn read, void *ctx, uint8_t *buf, size_t cap) {
  memset(r, 0, sizeof *r);
  r->read = read, r->ctx = ctx, r->buf = buf, r->cap = cap;
  r->st = GOSTX_CMS_MALFORMED;
}

/* At least need bytes in the window: 1 when there are, 0 at the input's
 * end before that, else the callback's error (negated below 0). */
static int fill(gostx__ber_in *r, size_t need, int *rc) {
  *rc = 0;
  while (r->len - r->pos < need) {
    if (r->eof) return 0;
    if (r->pos) {
      memmove(r->buf, r->buf + r->pos, r->len - r->pos);
      r->len -= r->pos, r->pos = 0;
    }
    size_t got = 0;
    if ((*rc = r->read(r->ctx, r->buf + r->len, r->cap - r->len, &got)) != 0) return 0;
    if (got > r->cap - r->len) return *rc = GOSTX_EINVAL, 0;
    if (!got) r->eof = 1;
    r->len += got;
  }
  return 1;
}

/* need bytes in the window, or the refusal (TRUNCATED) or callback error. */
static int need(gostx__ber_in *r, size_t n) {
  int rc;
  if (fill(r, n, &rc)) return 0;
  return rc ? rc : REFUSE(r, GOSTX_CMS_TRUNCATED);
}

/* n bytes of the window consumed: each definite element open around them
 * must still hold them. */
static int consume(gostx__ber_in *r, uint64_t n) {
  for (size_t i = 0; i < r->depth; i++)
    if (!r->f[i].indef && r->f[i].left < n) return REFUSE(r, GOSTX_CMS_MALFORMED);
  for (size_t i = 0; i < r->depth; i++)
    if (!r->f[i].indef) r->f[i].left -= n;
  r->pos += (size_t)n;
  return 0;
}

/* A tag and its length (indef: 0x80), consumed; the content must fit in
 * every definite element around it. */
static int header(gostx__ber_in *r, uint8_t *tag, uint64_t *len, int *indef) {
  int rc = need(r, 2);
  if (rc) return rc;
  const uint8_t *p = r->buf + r->pos;
  size_t h = 2, k = p[1] & 0x7f;
  *tag = p[0], *len = 0, *indef = 0;
  if ((p[0] & 0x1f) == 0x1f) return REFUSE(r, GOSTX_CMS_MALFORMED); /* no high tags here */
  if (p[1] == 0x80) {
    if (!(p[0] & 0x20)) return REFUSE(r, GOSTX_CMS_MALFORMED); /* X.690 8.1.3.2 */
    *indef = 1;
  } else if (p[1] & 0x80) {
    if (k > 8 || (rc = need(r, 2 + k))) return rc ? rc : REFUSE(r, GOSTX_CMS_MALFORMED);
    p = r->buf + r->pos;
    for (size_t i = 0; i < k; i++) *len = *len << 8 | p[2 + i];
    if (p[2] == 0 || *len < 0x80 || *len >> 62) return REFUSE(r, GOSTX_CMS_MALFORMED); /* shortest form */
    h += k;
  } else {
    *len = p[1];
  }
  if ((rc = consume(r, h))) return rc;
  for (size_t i = 0; i < r->depth && !*indef; i++)
    if (!r->f[i].indef && r->f[i].left < *len) return REFUSE(r, GOSTX_CMS_MALFORMED);
  return 0;
}

static int push(gostx__ber_in *r, uint64_t len, int indef) {
  if (r->depth == GOSTX_CMS_STREAM_DEPTH) return REFUSE(r, GOSTX_CMS_TOO_DEEP);
  r->f[r->depth].left = len, r->f[r->depth].indef = indef;
  r->depth++;
  return 0;
}

int gostx__ber_more(gostx__ber_in *r, uint8_t *tag) {
  int rc;
  if (r->depth == 0) {
    if (!fill(r, 1, &rc)) return rc ? rc : 0;
  } else if (!r->f[r->depth - 1].indef) {
    if (r->f[r->depth - 1].left == 0) return 0;
    if ((rc = need(r, 1))) return rc;
  } else {
    if ((rc = need(r, 2))) return rc;
    if (r->buf[r->pos] == 0) /* the end-of-contents, which is 00 00 */
      return r->buf[r->pos + 1] ? REFUSE(r, GOSTX_CMS_BAD_EOC) : 0;
  }
  if (tag) *tag = r->buf[r->pos];
  return 1;
}

/* The next header, which must be tag's. */
static int expect(gostx__ber_in *r, uint8_t tag, uint64_t *len, int *indef) {
  uint8_t t;
  int rc = header(r, &t, len, indef);
  return rc ? rc : t != tag ? REFUSE(r, GOSTX_CMS_MALFORMED) : 0;
}

int gostx__ber_open(gostx__ber_in *r, uint8_t tag) {
  uint64_t len;
  int indef, rc = expect(r, tag, &len, &indef);
  return rc ? rc : push(r, len, indef);
}

int gostx__ber_close(gostx__ber_in *r) {
  if (r->depth == 0) return REFUSE(r, GOSTX_CMS_MALFORMED);
  if (!r->f[r->depth - 1].indef) {
    if (r->f[r->depth - 1].left) return REFUSE(r, GOSTX_CMS_MALFORMED); /* more than expected */
    r->depth--;
    return 0;
  }
  int rc = need(r, 2);
  if (rc) return rc;
  if (r->buf[r->pos] || r->buf[r->pos + 1]) /* another element, or a broken end-of-contents */
    return REFUSE(r, r->buf[r->pos] ? GOSTX_CMS_MALFORMED : GOSTX_CMS_BAD_EOC);
  r->depth--;
  return consume(r, 2);
}

int gostx__ber_element(gostx__ber_in *r, uint8_t tag, uint8_t *out, size_t cap, gostx__der *whole) {
  uint64_t len;
  int indef, rc = expect(r, tag, &len, &indef);
  if (rc) return rc;
  if (indef) return REFUSE(r, GOSTX_CMS_MALFORMED);
  /* the header again, as DER writes it (the length was in its shortest form) */
  uint8_t hdr[GOSTX__DER_HEADER_MAX];
  size_t h = gostx__der_header(hdr, tag, len);
  if (cap < h || len > cap - h) return REFUSE(r, GOSTX_CMS_TOO_LARGE);
  memcpy(out, hdr, h);
  for (uint64_t left = len; left;) {
    if ((rc = need(r, 1))) return rc;
    size_t n = r->len - r->pos < left ? r->len - r->pos : (size_t)left;
    memcpy(out + h, r->buf + r->pos, n);
    if ((rc = consume(r, n))) return rc;
    h += n, left -= n;
  }
  whole->p = out, whole->n = h;
  return 0;
}

int gostx__ber_octets_open(gostx__ber_in *r, uint8_t prim) {
  uint8_t t;
  uint64_t len;
  int indef, rc = header(r, &t, &len, &indef);
  if (rc) return rc;
  if (t == prim) {
    r->octets = 1, r->seg_left = len;
    return 0;
  }
  if (t != (prim | 0x20)) return REFUSE(r, GOSTX_CMS_MALFORMED);
  r->octets = 2, r->seg_left = 0;
  return push(r, len, indef);
}

/* The constructed string's next segment: a primitive OCTET STRING (X.690
 * allows constructed ones inside too; CER and openssl write primitive). */
static int next_segment(gostx__ber_in *r, int *done) {
  uint8_t t;
  uint64_t len;
  int indef, rc = gostx__ber_more(r, NULL);
  if (rc < 0 || rc > 1) return rc;
  if (rc == 0) {
    *done = 1;
    return gostx__ber_close(r);
  }
  if ((rc = header(r, &t, &len, &indef))) return rc;
  if (t != GOSTX__DER_OCTETS) return REFUSE(r, GOSTX_CMS_MALFORMED);
  r->seg_left = len;
  return 0;
}

int gostx__ber_octets_read(gostx__ber_in *r, uint8_t **p, size_t *n) {
  int rc, done = 0;
  *n = 0;
  while (r->octets && r->seg_left == 0) {
    if (r->octets == 1) return r->octets = 0, 0;
    if ((rc = next_segment(r, &done))) return rc;
    if (done) return r->octets = 0, 0;
  }
  if (!r->octets) return 0;
  if ((rc = need(r, 1))) return rc;
  size_t avail = r->len - r->pos;
  *n = r->seg_left < avail ? (size_t)r->seg_left : avail;
  *p = r->buf + r->pos;
  r->seg_left -= *n;
  return consume(r, *n);
}

int gostx__ber_end(gostx__ber_in *r) {
  int rc;
  if (r->depth) return REFUSE(r, GOSTX_CMS_MALFORMED);
  if (fill(r, 1, &rc)) return REFUSE(r, GOSTX_CMS_TRAILING_DATA);
  return rc;
}
