/* gostx_cms_encrypt_stream: EnvelopedData or EncryptedData of content of
 * any size in constant memory. The fixed parts (the type's OID, version and
 * recipientInfos, EncryptedContentInfo's type and algorithm, the MAC
 * attribute) are written by the one-shot code's writers into the work
 * buffer; the lengths around them are computed from the content's length
 * (DER) or indefinite (BER, content_len unknown); the content is read into
 * the window, encrypted in place and written out chunk by chunk. */
#include <string.h>

#include "cms/cms_internal.h"

#define WINDOW (64u * 1024)
#define SEG_ROOM 10 /* a segment's header before its bytes */

typedef struct estream {
  const gostx_cms_encrypt_stream_params *p;
  gostx_cms_encrypt_params ep; /* the one-shot writer's view of p */
  gostx_cms_write_fn write;
  void *wctx;
  int ber;
  uint8_t *piece[3]; /* the type's OID; the fields before ECI; ECI's first two */
  size_t piece_len[3];
} estream;

static size_t header_len(uint64_t len) { return (size_t)(gostx__der_tlv_size(len) - len); }

/* A header: definite (DER) or indefinite (BER, len ignored). */
static int emit_header(estream *e, uint8_t tag, uint64_t len) {
  uint8_t h[GOSTX__DER_HEADER_MAX];
  return e->write(e->wctx, h, gostx__der_header(h, tag, e->ber ? GOSTX__DER_INDEFINITE : len));
}

static int emit_eocs(estream *e, int n) {
  return e->ber ? e->write(e->wctx, gostx__der_eocs, 2 * (size_t)n) : 0;
}

/* The fixed pieces into the header area (the CEK wrapped per recipient
 * from draw, by the one-shot encryption's writer). */
static int pieces(estream *e, const gostx__cms_sender_draw *draw, uint8_t *area, size_t cap) {
  const gostx_cms_encrypt_stream_params *p = e->p;
  int rc = 0, mac = gostx_cms_cipher_has_mac(p->cipher);
  for (int i = 0; i < 3 && !rc; i++) {
    gostx__der_w w;
    gostx__der_w_init(&w, area, cap);
    if (i == 0) gostx__der_w_oid(&w, p->secret_key ? "1.2.840.113549.1.7.6" : "1.2.840.113549.1.7.3");
    /* RFC 5652 6.1, 8: 2 with unprotectedAttrs (or RecipientInfos not KTRI v0) */
    if (i == 1) gostx__der_w_u32(&w, p->secret_key ? (mac ? 2 : 0) : gostx__cms_enveloped_version(&e->ep));
    if (i == 1 && !p->secret_key)
      rc = gostx__cms_write_recipient_infos(&w, p->recipients, p->n_recipients, &e->ep, draw);
    if (i == 2 && !rc) rc = gostx__cms_write_content_alg(&w, p->cipher, 0);
    if (!rc) rc = gostx__der_w_finish(&w, &e->piece_len[i]);
    e->piece[i] = area, area += e->piece_len[i], cap -= e->piece_len[i];
  }
  return rc;
}

/* ContentInfo down to encryptedContent's header. */
static int prologue(estream *e, uint64_t len) {
  size_t attrs = 0;
  gostx__der_w w;
  gostx__der_w_init(&w, NULL, 0); /* counting */
  gostx__cms_write_mac_attr(&w, e->p->cipher);
  if (gostx__der_w_finish(&w, &attrs)) return GOSTX_EINVAL;
  uint64_t eci = e->piece_len[2] + header_len(len) + len;
  uint64_t ed = e->piece_len[1] + header_len(eci) + eci + attrs;
  uint64_t x = header_len(ed) + ed, ci = e->piece_len[0] + header_len(x) + x;
  int rc = emit_header(e, GOSTX__DER_SEQ, ci);
  if (!rc) rc = e->write(e->wctx, e->piece[0], e->piece_len[0]);
  if (!rc) rc = emit_header(e, GOSTX__DER_CTXC(0), x);
  if (!rc) rc = emit_header(e, GOSTX__DER_SEQ, ed);
  if (!rc) rc = e->write(e->wctx, e->piece[1], e->piece_len[1]);
  if (!rc) rc = emit_header(e, GOSTX__DER_SEQ, eci);
  if (!rc) rc = e->write(e->wctx, e->piece[2], e->piece_len[2]);
  /* [0] IMPLICIT OCTET STRING: primitive, or constructed of segments */
  if (!rc) rc = emit_header(e, e->ber ? GOSTX__DER_CTXC(0) : GOSTX__DER_CTX(0), len);
  return rc;
}

/* The content read, encrypted in place and written: DER as it is, BER
 * one OCTET STRING segment per read. */
static int body(estream *e, gostx__cms_opener *o, gostx_cms_read_fn read, void *rctx) {
  uint8_t *win = e->p->work;
  uint64_t total = 0;
  for (;;) {
    size_t got = 0, h = 0;
    int rc = read(rctx, win + SEG_ROOM, WINDOW - SEG_ROOM, &got);
    if (rc) return rc;
    if (got > WINDOW - SEG_ROOM) return GOSTX_EINVAL;
    if (!got) break;
    total += got;
    if (!e->ber && total > e->p->content_len) return GOSTX_ELEN;
    if ((rc = gostx__cms_sealer_update(o, win + SEG_ROOM, got, win + SEG_ROOM))) return rc;
    if (e->ber) { /* the segment's header just before its bytes */
      uint8_t hdr[GOSTX__DER_HEADER_MAX];
      h = gostx__der_header(hdr, GOSTX__DER_OCTETS, got);
      memcpy(win + SEG_ROOM - h, hdr, h);
    }
    if ((rc = e->write(e->wctx, win + SEG_ROOM - h, got + h))) return rc;
  }
  return !e->ber && total != e->p->content_len ? GOSTX_ELEN : 0;
}

/* After the content: the ends, the MAC attribute, the ends. */
static int epilogue(estream *e, gostx__cms_opener *o, uint8_t *area, size_t cap) {
  uint8_t mac[16] = {0};
  size_t len = 0;
  gostx__der_w w;
  int rc = gostx__cms_sealer_final(o, mac);
  gostx__der_w_init(&w, area, cap);
  gostx__cms_write_mac_value(&w, e->p->cipher, mac);
  if (!rc) rc = gostx__der_w_finish(&w, &len);
  if (!rc) rc = emit_eocs(e, 2); /* the content's, EncryptedContentInfo's */
  if (!rc && len) rc = e->write(e->wctx, area, len);
  if (!rc) rc = emit_eocs(e, 3);
  return rc;
}

static int params_ok(const gostx_cms_encrypt_stream_params *p, const gostx_cms_encrypt_params *ep) {
  if (!p || !p->work || p->work_len < GOSTX_CMS_STREAM_WORK) return 0;
  if (p->secret_key) return p->cipher >= GOSTX_CMS_KUZNYECHIK && p->cipher <= GOSTX_CMS_GOST89;
  return gostx__cms_encrypt_params_ok(p->recipients, p->n_recipients, ep);
}

/* The CEK (the caller's, or drawn with the recipients' ephemeral keys
 * once, before anything is written) and the pieces made from it. */
static int draw_and_write_pieces(estream *e, gostx__cms_sender_draw *draw, uint8_t *area, size_t cap) {
  const gostx_cms_encrypt_stream_params *p = e->p;
  int rc = p->secret_key ? (memcpy(draw->cek, p->secret_key, 32), 0)
                         : gostx__cms_draw(p->recipients, p->n_recipients, &e->ep, draw);
  return rc ? rc : pieces(e, draw, area, cap);
}

int gostx_cms_encrypt_stream(const gostx_cms_encrypt_stream_params *p, gostx_cms_read_fn read,
                             void *read_ctx, gostx_cms_write_fn write, void *write_ctx) {
  estream e;
  memset(&e, 0, sizeof e);
  if (p) e.ep.cipher = p->cipher, e.ep.kari = p->kari, e.ep.key_id = p->key_id;
  if (p) e.ep.originator = p->originator, e.ep.originator_key = p->originator_key;
  if (!params_ok(p, &e.ep) || !read || !write) return GOSTX_EINVAL;
  e.p = p, e.write = write, e.wctx = write_ctx, e.ber = p->content_len == GOSTX_CMS_LEN_UNKNOWN;
  uint8_t *area = p->work + WINDOW;
  size_t cap = p->work_len - WINDOW;
  gostx__cms_sender_draw draw;
  gostx_cms_encrypted_content ec;
  gostx__cms_opener o;
  int rc = draw_and_write_pieces(&e, &draw, area, cap);
  if (!rc) { /* the IV or ukm as the algorithm piece carries it */
    gostx__der alg = {e.piece[2], e.piece_len[2]}, oid;
    memset(&ec, 0, sizeof ec);
    rc = gostx__der_oid(&alg, &oid) || gostx__cms_content_alg(&alg, &ec) ? GOSTX_EINVAL : 0;
  }
  if (!rc) rc = gostx__cms_sealer_init(&o, &ec, draw.cek);
  gostx_memzero(&draw, sizeof draw);
  if (rc) return rc;
  rc = prologue(&e, p->content_len);
  if (!rc) rc = body(&e, &o, read, read_ctx);
  if (!rc) return epilogue(&e, &o, area + e.piece_len[0] + e.piece_len[1] + e.piece_len[2],
                           cap - e.piece_len[0] - e.piece_len[1] - e.piece_len[2]);
  gostx__cms_opener_clear(&o);
  gostx_memzero(p->work, WINDOW); /* content was there */
  return rc;
}
