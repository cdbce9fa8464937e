/* The IKEv2 header and payloads (RFC 7296 section 3): strict readers (every
 * length checked against what is left, counts against what is there,
 * unknown payloads as section 2.5 says) and the writer of the same. */
#include <string.h>

#include "ike.h"

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static void put16(uint8_t *p, size_t v) {
  p[0] = (uint8_t)(v >> 8);
  p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v) {
  put16(p, v >> 16);
  put16(p + 2, v & 0xffff);
}

int gostx__ike_hdr_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h) {
  if (!msg || !h) return GOSTX_EINVAL;
  if (len < GOSTX_IKE_HDR_LEN) return GOSTX_ELEN;
  memcpy(h->spi_i, msg, 8);
  memcpy(h->spi_r, msg + 8, 8);
  h->next = msg[16];
  h->version = msg[17];
  h->exchange = msg[18];
  h->flags = msg[19];
  h->msg_id = get32(msg + 20);
  h->length = get32(msg + 24);
  /* 2.5: a higher minor version is fine, another major is not */
  if (h->version >> 4 != 2) return GOSTX_EUNSUP;
  if (h->length != len) return GOSTX_ELEN;
  return GOSTX_OK;
}

void gostx__ike_hdr_write(const gostx_ike_hdr *h, uint8_t out[GOSTX_IKE_HDR_LEN]) {
  memcpy(out, h->spi_i, 8);
  memcpy(out + 8, h->spi_r, 8);
  out[16] = h->next;
  out[17] = h->version;
  out[18] = h->exchange;
  out[19] = h->flags;
  put32(out + 20, h->msg_id);
  put32(out + 24, h->length);
}

/* The payload types this module knows (their bodies may still be handed on raw). */
static int known_type(uint8_t t) {
  return (t >= GOSTX_IKE_PT_SA && t <= GOSTX_IKE_PT_EAP) || t == GOSTX_IKE_PT_SKF;
}

static int encrypted_type(uint8_t t) { return t == GOSTX_IKE_PT_SK || t == GOSTX_IKE_PT_SKF; }

int gostx__ike_chain_read(uint8_t first, const uint8_t *p, size_t len, gostx_ike_chain *out,
                          uint8_t *inner_first) {
  if ((!p && len) || !out) return GOSTX_EINVAL;
  memset(out, 0, sizeof *out);
  if (inner_first) *inner_first = GOSTX_IKE_PT_NONE;
  uint8_t type = first;
  size_t at = 0;
  while (type != GOSTX_IKE_PT_NONE) {
    if (len - at < GOSTX_IKE_GEN_LEN) return GOSTX_EFORMAT;
    const uint8_t *g = p + at;
    size_t plen = get16(g + 2);
    if (plen < GOSTX_IKE_GEN_LEN || plen > len - at) return GOSTX_EFORMAT;
    const uint8_t next = g[0], critical = g[1] >> 7;
    if (!known_type(type)) {
      if (critical) {
        out->unsupported = type;
        return GOSTX_EUNSUP;
      }
      out->skipped++;
    } else {
      if (out->n == GOSTX_IKE_MAX_PAYLOADS) return GOSTX_EFORMAT;
      gostx_ike_payload *e = &out->p[out->n++];
      e->type = type;
      e->critical = critical;
      e->body = g + GOSTX_IKE_GEN_LEN;
      e->len = plen - GOSTX_IKE_GEN_LEN;
    }
    at += plen;
    if (encrypted_type(type)) { /* 3.14: the last payload; its Next names the inside */
      if (inner_first) *inner_first = next;
      break;
    }
    type = next;
  }
  return at == len ? GOSTX_OK : GOSTX_EFORMAT;
}

int gostx__ike_msg_read(const uint8_t *msg, size_t len, gostx_ike_hdr *h, gostx_ike_chain *c,
                        uint8_t *inner_first) {
  int rc = gostx__ike_hdr_read(msg, len, h);
  if (rc != GOSTX_OK) return rc;
  return gostx__ike_chain_read(h->next, msg + GOSTX_IKE_HDR_LEN, len - GOSTX_IKE_HDR_LEN, c,
                               inner_first);
}

const gostx_ike_payload *gostx__ike_find_next(const gostx_ike_chain *c,
                                              const gostx_ike_payload *prev, uint8_t type) {
  size_t i = prev ? (size_t)(prev - c->p) + 1 : 0;
  for (; i < c->n; i++)
    if (c->p[i].type == type) return &c->p[i];
  return NULL;
}

const gostx_ike_payload *gostx__ike_find(const gostx_ike_chain *c, uint8_t type) {
  return gostx__ike_find_next(c, NULL, type);
}

/* ---- SA payload (3.3) ---- */

/* Transform attributes (3.3.5): TV when AF is set, else TLV. Key Length is
 * the only one RFC 7296 defines. */
static int attrs_read(const uint8_t *p, size_t len, gostx_ike_transform *t) {
  t->key_len = -1;
  size_t at = 0;
  while (at < len) {
    if (len - at < 4) return GOSTX_EFORMAT;
    const uint16_t af_type = get16(p + at), val = get16(p + at + 2);
    const int tv = af_type >> 15;
    const uint16_t type = af_type & 0x7fff;
    size_t size = tv ? 4 : 4 + (size_t)val;
    if (size > len - at) return GOSTX_EFORMAT;
    if (tv && type == GOSTX_IKE_ATTR_KEY_LENGTH) {
      if (t->key_len >= 0) return GOSTX_EFORMAT; /* twice */
      t->key_len = val;
    } else {
      t->unknown_attr = 1;
    }
    at += size;
  }
  return GOSTX_OK;
}

static int transforms_read(const uint8_t *p, size_t len, size_t count, gostx_ike_proposal *pr) {
  size_t at = 0;
  for (size_t i = 0; i < count; i++) {
    if (len - at < 8) return GOSTX_EFORMAT;
    const uint8_t *t = p + at;
    const size_t tlen = get16(t + 2);
    const int last = i + 1 == count;
    /* 3.3.2: 0 for the last transform, 3 before it */
    if (t[0] != (last ? 0 : 3) || tlen < 8 || tlen > len - at) return GOSTX_EFORMAT;
    gostx_ike_transform scratch, *x = i < GOSTX_IKE_MAX_TRANSFORMS ? &pr->t[pr->n++] : &scratch;
    memset(x, 0, sizeof *x);
    x->type = t[4];
    x->id = get16(t + 6);
    int rc = attrs_read(t + 8, tlen - 8, x);
    if (rc != GOSTX_OK) return rc;
    at += tlen;
  }
  if (count > GOSTX_IKE_MAX_TRANSFORMS) { /* read whole, kept empty (ike.h) */
    memset(pr->t, 0, sizeof pr->t);
    pr->n = 0;
    pr->more = 1;
  }
  return at == len ? GOSTX_OK : GOSTX_EFORMAT;
}

static int proposal_read(const uint8_t *p, size_t plen, gostx_ike_proposal *pr) {
  memset(pr, 0, sizeof *pr);
  pr->num = p[4];
  pr->proto = p[5];
  pr->spi_len = p[6];
  const size_t count = p[7];
  /* 3.3.1: no SPI (IKE_SA_INIT), 8 (an IKE SA's rekey) or 4 (ESP, AH) */
  if (pr->spi_len != 0 && pr->spi_len != 4 && pr->spi_len != 8) return GOSTX_EFORMAT;
  if (8 + (size_t)pr->spi_len > plen || count == 0) return GOSTX_EFORMAT;
  memcpy(pr->spi, p + 8, pr->spi_len);
  return transforms_read(p + 8 + pr->spi_len, plen - 8 - pr->spi_len, count, pr);
}

int gostx__ike_sa_read(const uint8_t *body, size_t len, gostx_ike_sa *sa) {
  if (!body || !sa) return GOSTX_EINVAL;
  static const gostx_ike_proposal none; /* what a scratch proposal starts from */
  gostx_ike_proposal scratch = none;
  sa->n = 0;
  sa->more = 0;
  size_t at = 0;
  int last = 0, first = 1;
  uint8_t prev = 0;
  while (!last) {
    if (len - at < 8) return GOSTX_EFORMAT;
    const uint8_t *p = body + at;
    const size_t plen = get16(p + 2);
    if ((p[0] != 0 && p[0] != 2) || plen < 8 || plen > len - at) return GOSTX_EFORMAT;
    last = p[0] == 0;
    const int keep = sa->n < GOSTX_IKE_MAX_PROPOSALS; /* the rest read, not kept (ike.h) */
    gostx_ike_proposal *pr = keep ? &sa->p[sa->n] : &scratch;
    int rc = proposal_read(p, plen, pr);
    if (rc != GOSTX_OK) return rc;
    /* 3.3.1: numbered from 1, each the previous or one more */
    if (first ? pr->num != 1 : pr->num != prev && pr->num != prev + 1) return GOSTX_EFORMAT;
    prev = pr->num;
    first = 0;
    if (keep) sa->n++;
    else sa->more = 1;
    at += plen;
  }
  return at == len ? GOSTX_OK : GOSTX_EFORMAT;
}

/* ---- the small payloads ---- */

int gostx__ike_ke_read(const uint8_t *body, size_t len, uint16_t *group, const uint8_t **data,
                       size_t *data_len) {
  if (!body || len < 4) return GOSTX_EFORMAT;
  *group = get16(body);
  *data = body + 4;
  *data_len = len - 4;
  return *data_len ? GOSTX_OK : GOSTX_EFORMAT;
}

/* octet | RESERVED(3) | data: ID and AUTH (3.5, 3.8). */
static int octet3_read(const uint8_t *body, size_t len, uint8_t *octet, const uint8_t **data,
                       size_t *data_len) {
  if (!body || len < 5) return GOSTX_EFORMAT;
  *octet = body[0];
  *data = body + 4;
  *data_len = len - 4;
  return GOSTX_OK;
}

int gostx__ike_id_read(const uint8_t *body, size_t len, uint8_t *id_type, const uint8_t **data,
                       size_t *data_len) {
  return octet3_read(body, len, id_type, data, data_len);
}

int gostx__ike_auth_read(const uint8_t *body, size_t len, uint8_t *method, const uint8_t **data,
                         size_t *data_len) {
  return octet3_read(body, len, method, data, data_len);
}

int gostx__ike_cert_read(const uint8_t *body, size_t len, uint8_t *encoding,
                         const uint8_t **data, size_t *data_len) {
  if (!body || len < 2) return GOSTX_EFORMAT;
  *encoding = body[0];
  *data = body + 1;
  *data_len = len - 1;
  return GOSTX_OK;
}

int gostx__ike_nonce_read(const uint8_t *body, size_t len) {
  return body && len >= 16 && len <= 256 ? GOSTX_OK : GOSTX_EFORMAT;
}

int gostx__ike_notify_read(const uint8_t *body, size_t len, gostx_ike_notify *n) {
  if (!body || !n || len < 4) return GOSTX_EFORMAT;
  n->proto = body[0];
  n->spi_len = body[1];
  n->type = get16(body + 2);
  if (n->spi_len > len - 4) return GOSTX_EFORMAT;
  n->spi = body + 4;
  n->data = body + 4 + n->spi_len;
  n->data_len = len - 4 - n->spi_len;
  return GOSTX_OK;
}

int gostx__ike_delete_read(const uint8_t *body, size_t len, gostx_ike_delete *d) {
  if (!body || !d || len < 4) return GOSTX_EFORMAT;
  d->proto = body[0];
  d->spi_len = body[1];
  d->count = get16(body + 2);
  d->spis = body + 4;
  /* 3.11: the IKE SA is named by the message's SPIs, so none here */
  if (d->proto == GOSTX_IKE_PROTO_IKE && (d->spi_len || d->count)) return GOSTX_EFORMAT;
  if (d->proto != GOSTX_IKE_PROTO_IKE && d->spi_len != 4) return GOSTX_EFORMAT;
  return (size_t)d->count * d->spi_len == len - 4 ? GOSTX_OK : GOSTX_EFORMAT;
}

int gostx__ike_ts_read(const uint8_t *body, size_t len, gostx_ike_ts_set *set) {
  if (!body || !set || len < 4) return GOSTX_EFORMAT;
  set->n = 0;
  const size_t count = body[0];
  size_t at = 4;
  for (size_t i = 0; i < count; i++) {
    if (len - at < 8) return GOSTX_EFORMAT;
    const uint8_t *s = body + at;
    const size_t slen = get16(s + 2);
    const size_t alen = s[0] == GOSTX_IKE_TS_IPV4 ? 4 : s[0] == GOSTX_IKE_TS_IPV6 ? 16 : 0;
    /* 3.13.1: an unknown type cannot be skipped safely: its length is all we know */
    if (!alen || slen != 8 + 2 * alen || slen > len - at) return GOSTX_EFORMAT;
    if (set->n == GOSTX_IKE_MAX_TS) return GOSTX_EFORMAT;
    gostx_ike_ts *t = &set->ts[set->n++];
    memset(t, 0, sizeof *t);
    t->type = s[0];
    t->ip_proto = s[1];
    t->start_port = get16(s + 4);
    t->end_port = get16(s + 6);
    memcpy(t->start, s + 8, alen);
    memcpy(t->end, s + 8 + alen, alen);
    at += slen;
  }
  return count && at == len ? GOSTX_OK : GOSTX_EFORMAT;
}

/* ---- the writer ---- */

static uint8_t *w_take(gostx_ike_writer *w, size_t n) {
  if (w->err) return NULL;
  if (n > w->cap - w->len) {
    w->err = GOSTX_ELEN;
    return NULL;
  }
  uint8_t *p = w->buf + w->len;
  w->len += n;
  return p;
}

static void w_bytes(gostx_ike_writer *w, const void *p, size_t n) {
  uint8_t *d = w_take(w, n);
  if (d && n) memcpy(d, p, n);
}

static void w_u8(gostx_ike_writer *w, uint8_t v) { w_bytes(w, &v, 1); }

static void w_u16(gostx_ike_writer *w, size_t v) {
  uint8_t b[2];
  put16(b, v);
  w_bytes(w, b, 2);
}

/* The length at 'at' (16 bits) = what was written since 'from'. */
static void w_patch_len(gostx_ike_writer *w, size_t at, size_t from) {
  if (w->err) return;
  if (w->len - from > 0xffff) {
    w->err = GOSTX_ELEN;
    return;
  }
  put16(w->buf + at, w->len - from);
}

void gostx__ike_w_msg(gostx_ike_writer *w, uint8_t *buf, size_t cap, const gostx_ike_hdr *h) {
  memset(w, 0, sizeof *w);
  w->buf = buf;
  w->cap = buf ? cap : 0;
  uint8_t *p = w_take(w, GOSTX_IKE_HDR_LEN);
  if (!p) return;
  gostx_ike_hdr hh = *h;
  hh.next = GOSTX_IKE_PT_NONE;
  hh.length = 0;
  gostx__ike_hdr_write(&hh, p);
  w->np_at = 16;
}

void gostx__ike_w_inner(gostx_ike_writer *w, uint8_t *buf, size_t cap) {
  memset(w, 0, sizeof *w);
  w->buf = buf;
  w->cap = buf ? cap : 0;
  w->np_at = SIZE_MAX;
}

/* A payload's generic header, chained into the previous; returns where it starts. */
static size_t w_begin(gostx_ike_writer *w, uint8_t type) {
  const size_t start = w->len;
  uint8_t *g = w_take(w, GOSTX_IKE_GEN_LEN);
  if (!g) return start;
  g[0] = g[1] = g[2] = g[3] = 0;
  if (w->np_at == SIZE_MAX)
    w->first = type;
  else
    w->buf[w->np_at] = type;
  w->np_at = start;
  return start;
}

static void w_end(gostx_ike_writer *w, size_t start) { w_patch_len(w, start + 2, start); }

void gostx__ike_w_raw(gostx_ike_writer *w, uint8_t type, const uint8_t *body, size_t len) {
  const size_t s = w_begin(w, type);
  w_bytes(w, body, len);
  w_end(w, s);
}

static void w_transform(gostx_ike_writer *w, const gostx_ike_transform *t, int last) {
  const size_t s = w->len;
  w_u8(w, last ? 0 : 3);
  w_u8(w, 0);
  w_u16(w, 0);
  w_u8(w, t->type);
  w_u8(w, 0);
  w_u16(w, t->id);
  if (t->key_len >= 0) {
    w_u16(w, 0x8000 | GOSTX_IKE_ATTR_KEY_LENGTH);
    w_u16(w, (size_t)t->key_len);
  }
  w_patch_len(w, s + 2, s);
}

static void w_proposal(gostx_ike_writer *w, const gostx_ike_proposal *p, int last) {
  const size_t s = w->len;
  w_u8(w, last ? 0 : 2);
  w_u8(w, 0);
  w_u16(w, 0);
  w_u8(w, p->num);
  w_u8(w, p->proto);
  w_u8(w, p->spi_len);
  w_u8(w, (uint8_t)p->n);
  w_bytes(w, p->spi, p->spi_len);
  for (size_t i = 0; i < p->n; i++) w_transform(w, &p->t[i], i + 1 == p->n);
  w_patch_len(w, s + 2, s);
}

void gostx__ike_w_sa(gostx_ike_writer *w, const gostx_ike_sa *sa) {
  const size_t s = w_begin(w, GOSTX_IKE_PT_SA);
  for (size_t i = 0; i < sa->n; i++) w_proposal(w, &sa->p[i], i + 1 == sa->n);
  w_end(w, s);
}

void gostx__ike_w_ke(gostx_ike_writer *w, uint16_t group, const uint8_t *data, size_t len) {
  const size_t s = w_begin(w, GOSTX_IKE_PT_KE);
  w_u16(w, group);
  w_u16(w, 0);
  w_bytes(w, data, len);
  w_end(w, s);
}

static void w_octet3(gostx_ike_writer *w, uint8_t type, uint8_t octet, const uint8_t *data,
                     size_t len) {
  const size_t s = w_begin(w, type);
  const uint8_t head[4] = {octet, 0, 0, 0};
  w_bytes(w, head, 4);
  w_bytes(w, data, len);
  w_end(w, s);
}

void gostx__ike_w_id(gostx_ike_writer *w, uint8_t type, uint8_t id_type, const uint8_t *data,
                     size_t len) {
  w_octet3(w, type, id_type, data, len);
}

void gostx__ike_w_auth(gostx_ike_writer *w, uint8_t method, const uint8_t *data, size_t len) {
  w_octet3(w, GOSTX_IKE_PT_AUTH, method, data, len);
}

void gostx__ike_w_cert(gostx_ike_writer *w, uint8_t type, uint8_t encoding, const uint8_t *data,
                       size_t len) {
  const size_t s = w_begin(w, type);
  w_u8(w, encoding);
  w_bytes(w, data, len);
  w_end(w, s);
}

void gostx__ike_w_notify(gostx_ike_writer *w, const gostx_ike_notify *n) {
  const size_t s = w_begin(w, GOSTX_IKE_PT_NOTIFY);
  w_u8(w, n->proto);
  w_u8(w, n->spi_len);
  w_u16(w, n->type);
  w_bytes(w, n->spi, n->spi_len);
  w_bytes(w, n->data, n->data_len);
  w_end(w, s);
}

void gostx__ike_w_delete(gostx_ike_writer *w, const gostx_ike_delete *d) {
  const size_t s = w_begin(w, GOSTX_IKE_PT_DELETE);
  w_u8(w, d->proto);
  w_u8(w, d->spi_len);
  w_u16(w, d->count);
  w_bytes(w, d->spis, (size_t)d->count * d->spi_len);
  w_end(w, s);
}

void gostx__ike_w_ts(gostx_ike_writer *w, uint8_t type, const gostx_ike_ts_set *set) {
  const size_t s = w_begin(w, type);
  const uint8_t head[4] = {(uint8_t)set->n, 0, 0, 0};
  w_bytes(w, head, 4);
  for (size_t i = 0; i < set->n; i++) {
    const gostx_ike_ts *t = &set->ts[i];
    const size_t alen = t->type == GOSTX_IKE_TS_IPV4 ? 4 : 16;
    w_u8(w, t->type);
    w_u8(w, t->ip_proto);
    w_u16(w, 8 + 2 * alen);
    w_u16(w, t->start_port);
    w_u16(w, t->end_port);
    w_bytes(w, t->start, alen);
    w_bytes(w, t->end, alen);
  }
  w_end(w, s);
}

void gostx__ike_w_cp(gostx_ike_writer *w, const gostx_ike_cp *cp) {
  if (!w->err && gostx__ike_cp_valid(cp) != GOSTX_OK) w->err = GOSTX_EFORMAT;
  const size_t s = w_begin(w, GOSTX_IKE_PT_CP);
  const uint8_t head[4] = {cp->cfg_type, 0, 0, 0};
  w_bytes(w, head, 4);
  for (size_t i = 0; i < cp->n; i++) {
    const gostx_ike_cp_attr *a = &cp->a[i];
    w_u16(w, a->type);
    w_u16(w, a->len);
    w_bytes(w, a->v, a->len);
  }
  w_end(w, s);
}

int gostx__ike_w_finish(gostx_ike_writer *w, size_t *len) {
  if (w->err) return w->err;
  put32(w->buf + 24, (uint32_t)w->len);
  *len = w->len;
  return GOSTX_OK;
}
