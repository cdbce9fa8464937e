/* Messages outside an IKE SA (RFC 7296 1.5, 2.21.4): the unprotected
 * INVALID_IKE_SPI answer to a request for an IKE SA we do not know (we
 * restarted and the peer still talks to the SA we lost), the unprotected
 * INVALID_SPI notice of ESP under a Child SA we do not know, and the
 * reader of both for the other side. Nothing here is authenticated:
 * whoever reads them takes them as hints only (2.4, 2.21.4). */
#include <string.h>

#include "ike.h"

enum { N_INVALID_IKE_SPI = 4, N_INVALID_SPI = 11 };

/* 1.5: "an encrypted IKE request" for an SA not known: not IKE_SA_INIT
 * (a new SA: the responder's business) nor a response (2.21.4: never
 * answered, else two restarted peers could loop). */
static int answerable(const gostx_ike_hdr *h) {
  const int exchange_ok = h->exchange == GOSTX_IKE_AUTH ||
                          h->exchange == GOSTX_IKE_CREATE_CHILD_SA ||
                          h->exchange == GOSTX_IKE_INFORMATIONAL;
  const int encrypted = h->next == GOSTX_IKE_PT_SK || h->next == GOSTX_IKE_PT_SKF;
  return exchange_ok && encrypted && !(h->flags & GOSTX_IKE_FLAG_R);
}

static int one_notify(const gostx_ike_hdr *h, uint16_t type, const uint8_t *data, size_t len,
                      uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_writer w;
  gostx_ike_notify n = {0, 0, type, NULL, data, len};
  gostx__ike_w_msg(&w, out, cap, h);
  gostx__ike_w_notify(&w, &n);
  return gostx__ike_w_finish(&w, out_len);
}

int gostx__ike_invalid_ike_spi(const uint8_t *msg, size_t len, uint8_t *out, size_t cap,
                               size_t *out_len) {
  gostx_ike_hdr h;
  if (!msg || !out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  if (gostx__ike_hdr_read(msg, len, &h) != GOSTX_OK || !answerable(&h)) return 0;
  /* 1.5: the same SPIs, exchange and Message ID, the Response flag; the
   * I flag as the other end of the SA the request names would set it */
  h.flags = GOSTX_IKE_FLAG_R | ((h.flags & GOSTX_IKE_FLAG_I) ? 0 : GOSTX_IKE_FLAG_I);
  h.version = GOSTX_IKE_VERSION;
  int rc = one_notify(&h, N_INVALID_IKE_SPI, NULL, 0, out, cap, out_len);
  return rc == GOSTX_OK ? 1 : rc;
}

int gostx__ike_invalid_spi(uint32_t spi, uint8_t *out, size_t cap, size_t *out_len) {
  /* 1.5: zero SPIs, I set, R clear, an INFORMATIONAL never answered */
  gostx_ike_hdr h = {{0}, {0}, 0, GOSTX_IKE_VERSION, GOSTX_IKE_INFORMATIONAL, GOSTX_IKE_FLAG_I,
                     0, 0};
  const uint8_t data[4] = {(uint8_t)(spi >> 24), (uint8_t)(spi >> 16), (uint8_t)(spi >> 8),
                           (uint8_t)spi};
  if (!out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  return one_notify(&h, N_INVALID_SPI, data, sizeof data, out, cap, out_len);
}

/* The first notify of type in c read into n, else 0. */
static int notify_in(const gostx_ike_chain *c, uint16_t type, gostx_ike_notify *n) {
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY))
    if (gostx__ike_notify_read(p->body, p->len, n) == GOSTX_OK && n->type == type) return 1;
  return 0;
}

int gostx__ike_outside_hint(const uint8_t *msg, size_t len, gostx_ike_hdr *h, uint32_t *esp_spi) {
  gostx_ike_chain c;
  gostx_ike_notify n;
  if (!msg || !h || !esp_spi) return GOSTX_EINVAL;
  *esp_spi = 0;
  if (gostx__ike_msg_read(msg, len, h, &c, NULL) != GOSTX_OK) return 0;
  if (h->next == GOSTX_IKE_PT_SK || h->next == GOSTX_IKE_PT_SKF) return 0; /* protected */
  if ((h->flags & GOSTX_IKE_FLAG_R) && notify_in(&c, N_INVALID_IKE_SPI, &n))
    return GOSTX_IKE_HINT_IKE_SPI;
  if (!(h->flags & GOSTX_IKE_FLAG_R) && h->exchange == GOSTX_IKE_INFORMATIONAL &&
      notify_in(&c, N_INVALID_SPI, &n) && n.data_len == 4) {
    *esp_spi = (uint32_t)n.data[0] << 24 | (uint32_t)n.data[1] << 16 |
               (uint32_t)n.data[2] << 8 | n.data[3];
    return GOSTX_IKE_HINT_ESP_SPI;
  }
  return 0;
}
