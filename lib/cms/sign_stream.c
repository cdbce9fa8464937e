/* gostx_cms_sign_stream: a SignedData over content of any size in constant
 * memory, the content read once. The fields before encapContentInfo and
 * the length of those after it do not depend on the content (the
 * signature's length is the key's), so an attached message's headers are
 * written before the content goes by: DER from the content's length, or
 * BER with indefinite lengths and the content in OCTET STRING segments
 * (openssl cms -sign -stream's form) when it is unknown. The signature is
 * made by the one-shot writer over the digests computed on the way. */
#include <string.h>

#include "cms/cms_internal.h"

#define READ_CAP (64u * 1024) /* one read, one BER segment */
#define SEG_ROOM 16 /* a segment header (GOSTX__DER_HEADER_MAX) before the bytes, which stay aligned */
#define WINDOW (READ_CAP + SEG_ROOM)
#define HEAD_ROOM 64 /* version and digestAlgorithms */

/* the two OIDs as whole elements (tag 06, length 9) */
#define SIGNED_DATA_TLV ((const uint8_t *)"\x06\x09" OID_SIGNED_DATA)
#define DATA_TLV ((const uint8_t *)"\x06\x09" OID_DATA)
#define OID_TLV_LEN 11

typedef struct sign_stream {
  const gostx_cms_sign_stream_params *p;
  const gostx_cms_sign_params *sp;
  gostx_cms_write_fn write;
  void *wctx;
  int attached, ber;
  uint8_t *head; /* version and digestAlgorithms */
  size_t head_len, tail_len; /* tail: certificates and signerInfos */
} sign_stream;

/* Headers and bytes into the output, in one call per piece. */
static int put(sign_stream *s, uint8_t tag, uint64_t len, const uint8_t *then, size_t then_len) {
  uint8_t h[GOSTX__DER_HEADER_MAX];
  int rc = s->write(s->wctx, h, gostx__der_header(h, tag, s->ber ? GOSTX__DER_INDEFINITE : len));
  return rc || !then_len ? rc : s->write(s->wctx, then, then_len);
}

/* An attached message down to the content's first byte. */
static int prologue(sign_stream *s, uint64_t content_len) {
  uint64_t octets = gostx__der_tlv_size(content_len), ex = gostx__der_tlv_size(octets);
  uint64_t encap = OID_TLV_LEN + ex, fields = s->head_len + gostx__der_tlv_size(encap) + s->tail_len;
  uint64_t x = gostx__der_tlv_size(gostx__der_tlv_size(fields));
  int rc = put(s, GOSTX__DER_SEQ, OID_TLV_LEN + x, SIGNED_DATA_TLV, OID_TLV_LEN);
  if (!rc) rc = put(s, GOSTX__DER_CTXC(0), gostx__der_tlv_size(fields), NULL, 0);
  if (!rc) rc = put(s, GOSTX__DER_SEQ, fields, s->head, s->head_len);
  if (!rc) rc = put(s, GOSTX__DER_SEQ, encap, DATA_TLV, OID_TLV_LEN);
  if (!rc) rc = put(s, GOSTX__DER_CTXC(0), octets, NULL, 0);
  /* DER: one primitive OCTET STRING; BER: constructed of segments */
  if (!rc) rc = put(s, s->ber ? GOSTX__DER_OCTETS | 0x20 : GOSTX__DER_OCTETS, content_len, NULL, 0);
  return rc;
}

/* The content read once, digested, and (attached) written on. */
static int body(sign_stream *s, gostx_cms_hash *h, gostx_cms_read_fn read, void *rctx, uint64_t *total) {
  uint8_t *win = s->p->work;
  for (*total = 0;;) {
    size_t got = 0, hl = 0;
    int rc = read(rctx, win + SEG_ROOM, READ_CAP, &got);
    if (rc) return rc;
    if (got > READ_CAP) return GOSTX_EINVAL;
    if (!got) return 0;
    *total += got;
    if (s->attached && !s->ber && *total > s->p->content_len) return GOSTX_ELEN;
    if ((rc = gostx_cms_hash_update(h, win + SEG_ROOM, got))) return rc;
    if (!s->attached) continue;
    if (s->ber) { /* the segment's header just before its bytes */
      uint8_t hdr[GOSTX__DER_HEADER_MAX];
      hl = gostx__der_header(hdr, GOSTX__DER_OCTETS, got);
      memcpy(win + SEG_ROOM - hl, hdr, hl);
    }
    if ((rc = s->write(s->wctx, win + SEG_ROOM - hl, got + hl))) return rc;
  }
}

/* The head piece into the work buffer, the tail's length counted. */
static int measure(sign_stream *s) {
  gostx_cms_hash zero;
  gostx__der_w w;
  memset(&zero, 0, sizeof zero);
  gostx__der_w_init(&w, s->head, HEAD_ROOM);
  gostx__cms_signed_head(&w, s->p->signers, s->p->n_signers, OID_DATA_TEXT);
  int rc = gostx__der_w_finish(&w, &s->head_len);
  gostx__der_w_init(&w, NULL, 0);
  if (!rc) rc = gostx__cms_signed_tail(&w, s->p->signers, s->p->n_signers, s->sp, OID_DATA_TEXT, &zero, 1);
  if (!rc) rc = gostx__der_w_finish(&w, &s->tail_len);
  return rc ? GOSTX_EINVAL : 0;
}

int gostx_cms_sign_stream(const gostx_cms_sign_stream_params *p, gostx_cms_read_fn read, void *read_ctx,
                          gostx_cms_write_fn write, void *write_ctx, gostx_cms_sign_stream_result *res) {
  if (!res) return GOSTX_EINVAL;
  memset(res, 0, sizeof *res);
  if (!p || !read || !write || !p->work) return GOSTX_EINVAL;
  sign_stream s = {p, p->sign ? p->sign : &gostx__cms_sign_defaults, write, write_ctx, 0, 0, NULL, 0, 0};
  gostx_cms_sign_params detached = *s.sp;
  detached.flags &= ~GOSTX_CMS_ATTACHED;
  s.attached = (s.sp->flags & GOSTX_CMS_ATTACHED) != 0;
  s.ber = s.attached && p->content_len == GOSTX_CMS_LEN_UNKNOWN;
  /* the detached message's length: the arguments checked, the room asked */
  size_t der_len = 0;
  int rc = gostx_cms_sign(p->signers, p->n_signers, &detached, NULL, NULL, 0, NULL, 0, &der_len);
  if (rc) return rc;
  res->work_needed = WINDOW + HEAD_ROOM + der_len;
  if (p->work_len < res->work_needed) return GOSTX_ELEN;
  s.head = p->work + WINDOW;
  uint8_t *der = s.head + HEAD_ROOM;
  gostx_cms_hash h;
  if ((rc = measure(&s)) || (rc = gostx_cms_hash_init(&h, gostx__cms_signers_want(p->signers, p->n_signers))))
    return rc;
  if (s.attached) rc = prologue(&s, p->content_len);
  if (!rc) rc = body(&s, &h, read, read_ctx, &res->content_len);
  if (!rc && s.attached && !s.ber && res->content_len != p->content_len) rc = GOSTX_ELEN;
  if (!rc && s.ber) rc = write(write_ctx, gostx__der_eocs, 6); /* the segments', [0]'s, encap's */
  if (!rc) rc = gostx_cms_hash_final(&h);
  size_t room = p->work_len - WINDOW - HEAD_ROOM;
  if (!rc) rc = gostx_cms_sign(p->signers, p->n_signers, &detached, &h, NULL, 0, der, room, &res->der_len);
  if (!rc && res->der_len != der_len) rc = GOSTX_EINVAL; /* not the length counted: a bug */
  gostx_memzero(p->work, WINDOW); /* the content was there */
  if (rc) return rc;
  res->der = der;
  if (!s.attached) return write(write_ctx, der, der_len);
  rc = write(write_ctx, der + der_len - s.tail_len, s.tail_len);
  return rc || !s.ber ? rc : write(write_ctx, gostx__der_eocs, 6); /* SignedData's, [0]'s, ContentInfo's */
}
