/* The message plumbing engine.c (IKE_SA_INIT) and auth.c (IKE_AUTH) both
 * use, below both of them: headers, bare notifies, what goes out and the
 * initiator's retransmission timer. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "engine_int.h"

void gostx__ike_handshake_done(gostx_ike_engine *e) {
  gostx__ike_drop(&e->m1, &e->m1_len);
  gostx__ike_drop(&e->m2, &e->m2_len);
  gostx__ike_reasm_free(e);
  /* the initiator's IKE_AUTH request is answered; the responder's answer
   * stays for the request's retransmissions (RFC 7296 2.1) */
  if (e->cf->role == GOSTX_IKE_INITIATOR) gostx__ike_drop(&e->tx, &e->tx_len);
}

void gostx__ike_pend_done(gostx_ike_engine *e) {
  e->pend = GOSTX_IKE_X_NONE;
  gostx__ike_drop(&e->req, &e->req_len);
}

void gostx__ike_w_notify_type(gostx_ike_writer *w, uint16_t type, const uint8_t *data,
                              size_t len) {
  const gostx_ike_notify n = {0, 0, type, NULL, data, len};
  gostx__ike_w_notify(w, &n);
}

uint16_t gostx__ike_w_unreadable(gostx_ike_writer *w, int rc, const gostx_ike_chain *c) {
  if (rc == GOSTX_EUNSUP) { /* RFC 7296 2.5: the payload's type, one octet */
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD, &c->unsupported, 1);
    return GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD;
  }
  gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0);
  return GOSTX_IKE_N_INVALID_SYNTAX;
}

void gostx__ike_hdr_of(const gostx_ike_engine *e, uint8_t exchange, int response,
                       uint32_t msg_id, gostx_ike_hdr *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->spi_i, e->spi_i, 8);
  memcpy(h->spi_r, e->spi_r, 8);
  h->version = GOSTX_IKE_VERSION;
  h->exchange = exchange;
  h->flags = (uint8_t)((e->cf->role == GOSTX_IKE_INITIATOR ? GOSTX_IKE_FLAG_I : 0) |
                       (response ? GOSTX_IKE_FLAG_R : 0));
  h->msg_id = msg_id;
}

int gostx__ike_send(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                    size_t *out_len) {
  if (e->tx_len > cap) return GOSTX_ELEN;
  memcpy(out, e->tx, e->tx_len);
  *out_len = e->tx_len;
  if (e->cf->role == GOSTX_IKE_INITIATOR) {
    e->tries = 1;
    e->rto_ms = e->cf->rto_ms ? e->cf->rto_ms : 500;
    e->next_tx_ms = now_ms + e->rto_ms;
  }
  return GOSTX_OK;
}

size_t gostx__ike_out_next(const uint8_t *out, size_t out_len, size_t *at) {
  if (!out || !at || *at >= out_len) return 0;
  /* the header's Length marks where the next message starts */
  if (out_len - *at < GOSTX_IKE_HDR_LEN) return 0;
  const uint8_t *m = out + *at;
  const size_t n = (size_t)m[24] << 24 | (size_t)m[25] << 16 | (size_t)m[26] << 8 | m[27];
  if (n < GOSTX_IKE_HDR_LEN || n > out_len - *at) return 0;
  *at += n;
  return n;
}
