/* IKE fragmentation (RFC 7383) under ENCR_*_MGM_KTREE, as RFC 9385 A.2.1
 * uses it: the inside of an Encrypted payload cut into chunks regardless of
 * the payloads' boundaries (2.5), each chunk its own SKF message sealed as
 * sk.c seals SK; on receipt, the checks and the order of 2.6, into a
 * buffer the caller gives. */
#include <string.h>

#include "ike.h"

enum { SKF_OVERHEAD = GOSTX_IKE_HDR_LEN + GOSTX_IKE_GEN_LEN + 4 + 8 + 1 /* Pad Length */ };

/* The content one fragment carries at max_len, 0 when none fits. */
static size_t chunk_room(const gostx_ike_sk *sk, size_t max_len) {
  const size_t over = SKF_OVERHEAD + sk->icv_len;
  if (max_len <= over) return 0;
  const size_t room = max_len - over;
  return room < 0xffff ? room : 0xffff; /* a payload's length field */
}

int gostx__ike_frag_total(const gostx_ike_sk *sk, size_t inner_len, size_t max_len,
                          uint16_t *total) {
  if (!sk || !total) return GOSTX_EINVAL;
  const size_t room = chunk_room(sk, max_len);
  if (!room) return GOSTX_ELEN;
  const size_t n = inner_len ? (inner_len + room - 1) / room : 1;
  if (n > GOSTX_IKE_FRAG_MAX) return GOSTX_ELEN;
  *total = (uint16_t)n;
  return GOSTX_OK;
}

int gostx__ike_frag_seal(const gostx_ike_sk *sk, uint64_t iv, const gostx_ike_hdr *h,
                         uint8_t inner_first, const uint8_t *inner, size_t inner_len,
                         size_t max_len, uint16_t num, uint8_t *out, size_t cap,
                         size_t *out_len) {
  uint16_t total;
  int rc = gostx__ike_frag_total(sk, inner_len, max_len, &total);
  if (rc != GOSTX_OK) return rc;
  if (num == 0 || num > total) return GOSTX_EINVAL;
  const size_t room = chunk_room(sk, max_len), at = (size_t)(num - 1) * room;
  const size_t n = inner_len - at < room ? inner_len - at : room;
  return gostx__ike_skf_seal(sk, iv, h, inner_first, num, total, inner ? inner + at : NULL, n,
                             out, cap, out_len);
}

void gostx__ike_reasm_init(gostx_ike_reasm *r, uint8_t *buf, size_t cap, uint32_t msg_id) {
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->cap = buf ? cap : 0;
  r->msg_id = msg_id;
}

void gostx__ike_reasm_reset(gostx_ike_reasm *r) {
  if (r->buf && r->used) gostx_memzero(r->buf, r->used);
  gostx__ike_reasm_init(r, r->buf, r->cap, r->msg_id);
}

/* The fragments of one set share the header but for Length and Next
 * Payload (2.5): another exchange or flags under this Message ID is not
 * of the set. */
static int same_message(const gostx_ike_hdr *a, const gostx_ike_hdr *b) {
  return !memcmp(a->spi_i, b->spi_i, 8) && !memcmp(a->spi_r, b->spi_r, 8) &&
         a->version == b->version && a->exchange == b->exchange && a->flags == b->flags &&
         a->msg_id == b->msg_id;
}

/* The 2.6 checks that come before the ICV: numbers (skf_read), the set's
 * Message ID and header, the bound, Total Fragments not below the set's,
 * no fragment held twice. */
static int admissible(const gostx_ike_reasm *r, const gostx_ike_hdr *h, const gostx_ike_skf *f) {
  if (h->msg_id != r->msg_id) return GOSTX_EFORMAT;
  if (f->total > GOSTX_IKE_FRAG_MAX) return GOSTX_ELEN;
  if (!r->total) return GOSTX_OK;
  if (!same_message(&r->h, h) || f->total < r->total) return GOSTX_EFORMAT;
  if (f->total == r->total && r->f[f->num - 1].got) return GOSTX_ESTATE;
  return GOSTX_OK;
}

int gostx__ike_reasm_add(gostx_ike_reasm *r, const gostx_ike_sk *sk, const uint8_t *msg,
                         size_t len, int *complete) {
  if (!r || !sk || !msg || !complete) return GOSTX_EINVAL;
  *complete = 0;
  gostx_ike_hdr h;
  gostx_ike_skf f;
  int rc = gostx__ike_skf_read(msg, len, &h, &f);
  if (rc == GOSTX_OK) rc = admissible(r, &h, &f);
  if (rc != GOSTX_OK) return rc;
  /* opened after what is held: a forged fragment leaves the set as it was */
  uint8_t *at = r->buf + r->used;
  size_t got = 0;
  rc = gostx__ike_skf_open(sk, msg, &f, at, r->cap - r->used, &got, NULL);
  if (rc != GOSTX_OK) return rc; /* MGM writes nothing when the ICV fails */
  if (f.total > r->total && r->total) { /* a newer set (2.5.2): over with this one */
    memmove(r->buf, at, got);
    gostx_memzero(r->buf + got, r->used);
    at = r->buf;
    r->used = 0;
    r->have = 0;
    memset(r->f, 0, sizeof r->f);
  }
  if (!r->have) r->h = h, r->total = f.total, r->icv_len = sk->icv_len;
  if (f.num == 1) r->first = f.next;
  r->f[f.num - 1].off = (uint32_t)r->used;
  r->f[f.num - 1].len = (uint32_t)got;
  r->f[f.num - 1].got = 1;
  r->used += got;
  r->have++;
  *complete = r->have == r->total;
  return GOSTX_OK;
}

int gostx__ike_reasm_take(gostx_ike_reasm *r, gostx_ike_hdr *h, uint8_t *inner_first,
                          uint8_t *out, size_t cap, size_t *out_len) {
  if (!r || !h || !inner_first || !out || !out_len) return GOSTX_EINVAL;
  if (!r->total || r->have != r->total) return GOSTX_ESTATE;
  if (r->used > cap) return GOSTX_ELEN;
  size_t n = 0;
  for (size_t i = 0; i < r->total; i++) {
    memcpy(out + n, r->buf + r->f[i].off, r->f[i].len);
    n += r->f[i].len;
  }
  *h = r->h;
  h->next = GOSTX_IKE_PT_SK;
  /* the message as unfragmented: header, SK header, IV, inside, Pad Length, ICV */
  h->length = (uint32_t)(GOSTX_IKE_HDR_LEN + GOSTX_IKE_GEN_LEN + 8 + n + 1 + r->icv_len);
  *inner_first = r->first;
  *out_len = n;
  gostx__ike_reasm_reset(r);
  return GOSTX_OK;
}

int gostx__ike_frag_supported(const gostx_ike_chain *c) {
  if (!c) return GOSTX_EINVAL;
  int seen = 0;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY)) {
    gostx_ike_notify n;
    if (gostx__ike_notify_read(p->body, p->len, &n) != GOSTX_OK) return GOSTX_EFORMAT;
    if (n.type != GOSTX_IKE_N_FRAGMENTATION_SUPPORTED) continue;
    /* 2.3: protocol 0, no SPI, no data */
    if (n.proto != 0 || n.spi_len != 0 || n.data_len != 0) return GOSTX_EFORMAT;
    seen = 1;
  }
  return seen;
}

void gostx__ike_w_frag_supported(gostx_ike_writer *w) {
  const gostx_ike_notify n = {0, 0, GOSTX_IKE_N_FRAGMENTATION_SUPPORTED, NULL, NULL, 0};
  gostx__ike_w_notify(w, &n);
}
