/* IKE fragmentation (RFC 7383) in the exchange engine: an encrypted
 * message goes out whole (SK) or, when both sides announced
 * IKEV2_FRAGMENTATION_SUPPORTED and it is larger than the configured size,
 * as fragments back to back in e->tx (each its own datagram and IV, so that
 * a retransmission resends them all, 2.6.1); on receipt, SK opened or the
 * fragments of the Message ID expected gathered (frag.c) until whole. */
#include <string.h>

#include "engine_int.h"

/* The SK message inner_len octets of inside make (header, SK header, IV,
 * inside, Pad Length, ICV). */
static size_t sk_message_len(const gostx_ike_sk *sk, size_t inner_len) {
  return GOSTX_IKE_HDR_LEN + GOSTX_IKE_GEN_LEN + 8 + inner_len + 1 + sk->icv_len;
}

static int seal_fragments(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                          const uint8_t *inner, size_t inner_len, uint8_t *buf, size_t *buf_len) {
  const size_t max = e->cf->frag_size;
  uint16_t total;
  size_t at = 0, len;
  int rc = gostx__ike_frag_total(&e->sk_out, inner_len, max, &total);
  for (uint16_t n = 1; rc == GOSTX_OK && n <= total; n++, at += len)
    rc = gostx__ike_frag_seal(&e->sk_out, e->iv_out++, h, first, inner, inner_len, max, n,
                              buf + at, GOSTX_IKE_MSG_MAX - at, &len);
  *buf_len = at;
  return rc;
}

int gostx__ike_seal_out(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                        const uint8_t *inner, size_t inner_len) {
  const size_t max = e->cf->frag_size;
  uint8_t buf[GOSTX_IKE_MSG_MAX]; /* sealed here, kept in e->tx sized to fit */
  size_t len = 0;
  int rc = e->peer_frag && max && sk_message_len(&e->sk_out, inner_len) > max
               ? seal_fragments(e, h, first, inner, inner_len, buf, &len)
               : gostx__ike_sk_seal(&e->sk_out, e->iv_out++, h, first, inner, inner_len, buf,
                                    sizeof buf, &len);
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&e->tx, &e->tx_len, buf, len);
  if (rc != GOSTX_OK) gostx__ike_drop(&e->tx, &e->tx_len);
  gostx_memzero(buf, len);
  return rc;
}

int64_t gostx__ike_reasm_timeout_ms(const gostx_ike_conf *cf) {
  const int64_t rto = cf->rto_ms ? cf->rto_ms : 500;
  unsigned tries = cf->max_tries ? cf->max_tries : 5;
  if (tries > 20) tries = 20; /* days already; no overflow */
  return rto * (((int64_t)1 << tries) - 1); /* rto + 2 rto + ... (doubling, 2.1) */
}

void gostx__ike_reasm_free(gostx_ike_engine *e) {
  if (e->reasm_buf) gostx__ike_reasm_reset(&e->reasm); /* what it gathered wiped */
  gostx__ike_free(e->reasm_buf, GOSTX_IKE_MSG_MAX);
  e->reasm_buf = NULL;
  gostx__ike_reasm_init(&e->reasm, NULL, 0, e->reasm.msg_id);
}

void gostx__ike_reasm_expire(gostx_ike_engine *e, int64_t now_ms) {
  if (e->reasm_buf && e->reasm.have &&
      now_ms - e->reasm_since_ms >= gostx__ike_reasm_timeout_ms(e->cf))
    gostx__ike_reasm_free(e);
}

/* A fragment into the set for e->msg_id (a new set when it is another's,
 * or when the set's time is up). */
static int add_fragment(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                        gostx_ike_hdr *h, uint8_t *first, uint8_t *plain, size_t cap,
                        size_t *plain_len) {
  int complete = 0;
  if (!e->peer_frag) return GOSTX_ESTATE; /* 2.3: only after both announced it */
  gostx__ike_reasm_expire(e, now_ms);
  if (e->reasm_buf && e->reasm.msg_id != e->msg_id) gostx__ike_reasm_free(e); /* another's */
  if (!e->reasm_buf) { /* the buffer only while a set is gathered */
    if (!(e->reasm_buf = gostx__ike_alloc(GOSTX_IKE_MSG_MAX))) return GOSTX_ENOMEM;
    gostx__ike_reasm_init(&e->reasm, e->reasm_buf, GOSTX_IKE_MSG_MAX, e->msg_id);
  }
  int rc = gostx__ike_reasm_add(&e->reasm, &e->sk_in, msg, len, &complete);
  if (rc != GOSTX_OK) {
    if (!e->reasm.have) gostx__ike_reasm_free(e); /* a forged first one holds nothing */
    return rc;
  }
  /* the clock starts at a set's first fragment (a larger Total Fragments
   * starts the set over, and its clock with it) */
  if (e->reasm.have == 1) e->reasm_since_ms = now_ms;
  if (!complete) return GOSTX_IKE_PARTIAL;
  rc = gostx__ike_reasm_take(&e->reasm, h, first, plain, cap, plain_len);
  gostx__ike_reasm_free(e);
  return rc;
}

int gostx__ike_open_in(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                       gostx_ike_hdr *h, uint8_t *first, uint8_t *plain, size_t cap,
                       size_t *plain_len) {
  if (len >= GOSTX_IKE_HDR_LEN && msg[16] == GOSTX_IKE_PT_SKF) /* Next Payload */
    return add_fragment(e, msg, len, now_ms, h, first, plain, cap, plain_len);
  uint64_t iv;
  return gostx__ike_sk_open(&e->sk_in, msg, len, h, first, plain, cap, plain_len, &iv);
}

int gostx__ike_later_fragment(const uint8_t *msg, size_t len) {
  gostx_ike_hdr h;
  gostx_ike_skf f;
  if (len < GOSTX_IKE_HDR_LEN || msg[16] != GOSTX_IKE_PT_SKF) return 0;
  return gostx__ike_skf_read(msg, len, &h, &f) != GOSTX_OK || f.num != 1;
}
