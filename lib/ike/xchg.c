/* Once established, the dispatch: either side's requests (CREATE_CHILD_SA,
 * INFORMATIONAL) with a window of 1 each way (RFC 7296 2.3), the response
 * cache that answers a retransmitted request without processing it again
 * (2.1), the retransmission of our own request, and the old IKE SA a rekey
 * leaves until its Delete (2.18). child.c, ikesa.c and info.c build and
 * read the exchanges themselves; live.c holds what they share. */
#include <string.h>

#include "engine_int.h"

enum { INNER_MAX = GOSTX_IKE_MSG_MAX - 64 };

/* msg opened under sk into plain (GOSTX_IKE_MSG_MAX): GOSTX_EAUTH for a
 * forged ICV, GOSTX_EFORMAT when unreadable; a genuine one is the peer
 * heard from (DPD). */
static int open_from_peer(gostx_ike_engine *e, const gostx_ike_sk *sk, const uint8_t *msg,
                          size_t len, int64_t now_ms, uint8_t *first, uint8_t *plain,
                          size_t *plain_len) {
  gostx_ike_hdr h;
  int rc = gostx__ike_sk_open(sk, msg, len, &h, first, plain, GOSTX_IKE_MSG_MAX, plain_len, NULL);
  if (rc != GOSTX_OK) return rc == GOSTX_EAUTH ? GOSTX_EAUTH : GOSTX_EFORMAT;
  e->last_heard_ms = now_ms;
  return GOSTX_OK;
}

static void old_sa_wipe(gostx_ike_old_sa *o) {
  gostx__ike_sk_clear(&o->sk_in);
  gostx__ike_sk_clear(&o->sk_out);
  o->valid = 0;
}

/* o answered the peer's Delete with bye: its keys go, the answer stays for
 * the Delete's retransmissions. */
static int close_old(gostx_ike_old_sa *o, const uint8_t *bye, size_t len) {
  if (len > sizeof o->bye) return GOSTX_ELEN;
  memcpy(o->bye, bye, len);
  o->bye_len = len;
  o->closed = 1;
  old_sa_wipe(o);
  return GOSTX_OK;
}

/* ---- the peer's requests ---- */

/* The response's inside for the request c of exchange x into w; an IKE SA
 * rekey leaves the new SA in ns. */
static int answer(gostx_ike_engine *e, uint8_t x, const gostx_ike_chain *c, gostx_ike_writer *w,
                  gostx_ike_new_sa *ns) {
  if (x == GOSTX_IKE_INFORMATIONAL) return gostx__ike_info_request(e, c, w, ns);
  if (gostx__ike_is_ike_rekey(c)) return gostx__ike_ikesa_request(e, c, w, ns);
  return gostx__ike_child_request(e, c, w);
}

/* A request opened over the current IKE SA: answered, the answer cached. */
static int request_in(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                      const uint8_t *plain, size_t plain_len, uint8_t *out, size_t cap,
                      size_t *out_len) {
  gostx_ike_chain c;
  gostx_ike_writer w;
  gostx_ike_new_sa ns;
  uint8_t inner[INNER_MAX];
  memset(&ns, 0, sizeof ns);
  gostx__ike_w_inner(&w, inner, sizeof inner);
  int rc = gostx__ike_chain_read(first, plain, plain_len, &c, NULL);
  if (rc != GOSTX_OK) /* authenticated but malformed, or a critical payload unknown (2.21.3) */
    (void)gostx__ike_w_unreadable(&w, rc, &c);
  else if ((rc = answer(e, h->exchange, &c, &w, &ns)) != GOSTX_OK)
    return rc;
  size_t len = 0;
  rc = gostx__ike_seal_sa(e, 0, h->exchange, 1, h->msg_id, &w, out, cap, &len);
  gostx_memzero(inner, sizeof inner);
  /* the answer kept for the request's retransmissions (2.1), sized to fit */
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&e->tx, &e->tx_len, out, len);
  if (rc != GOSTX_OK) return rc;
  e->peer_req++;
  e->old_sa[0].tx_cached = 0; /* e->tx is this SA's now */
  const int deleted = ns.ready && h->exchange == GOSTX_IKE_INFORMATIONAL;
  if (ns.ready) rc = gostx__ike_ikesa_switch(e, &ns);
  gostx_memzero(&ns, sizeof ns);
  if (rc == GOSTX_OK && deleted) /* the peer deleted the SA this answer went over (2.8.2) */
    rc = close_old(&e->old_sa[0], e->tx, e->tx_len);
  if (rc != GOSTX_OK) return rc;
  *out_len = len;
  return GOSTX_OK;
}

/* ---- our requests' answers ---- */

static int response_in(gostx_ike_engine *e, const gostx_ike_hdr *h, uint8_t first,
                       const uint8_t *plain, size_t plain_len, int64_t now_ms, uint8_t *out,
                       size_t cap, size_t *out_len) {
  gostx_ike_chain c;
  const uint8_t kind = e->pend;
  const int create = kind == GOSTX_IKE_X_REKEY_CHILD || kind == GOSTX_IKE_X_REKEY_IKE;
  if (kind == GOSTX_IKE_X_NONE || kind == GOSTX_IKE_X_DELETE_OLD_IKE ||
      h->exchange != (create ? GOSTX_IKE_CREATE_CHILD_SA : GOSTX_IKE_INFORMATIONAL))
    return GOSTX_ESTATE;
  if (gostx__ike_chain_read(first, plain, plain_len, &c, NULL) != GOSTX_OK) return GOSTX_EFORMAT;
  gostx__ike_pend_done(e);
  e->req_id++;
  if (kind == GOSTX_IKE_X_REKEY_CHILD)
    return gostx__ike_child_response(e, &c, now_ms, out, cap, out_len);
  if (kind == GOSTX_IKE_X_REKEY_IKE)
    return gostx__ike_ikesa_response(e, &c, now_ms, out, cap, out_len);
  gostx__ike_info_response(e, kind, &c);
  return GOSTX_OK;
}

/* ---- the old IKE SA: only its Delete (or liveness) is answered ---- */

/* The old SA after its Delete: the answer again, nothing else. */
static int old_sa_closed(const gostx_ike_old_sa *o, const gostx_ike_hdr *h, uint8_t *out,
                         size_t cap, size_t *out_len) {
  if ((h->flags & GOSTX_IKE_FLAG_R) || h->msg_id + 1 != o->peer_req) return GOSTX_ESTATE;
  return gostx__ike_copy_out(o->bye, o->bye_len, out, cap, out_len);
}

static int old_sa_input(gostx_ike_engine *e, int k, const uint8_t *msg, size_t len,
                        const gostx_ike_hdr *h, int64_t now_ms, uint8_t *out, size_t cap,
                        size_t *out_len) {
  gostx_ike_old_sa *o = &e->old_sa[k];
  const int response = (h->flags & GOSTX_IKE_FLAG_R) != 0;
  const int ours_out = e->pend == GOSTX_IKE_X_DELETE_OLD_IKE && e->pend_slot == k;
  if (o->closed) return old_sa_closed(o, h, out, cap, out_len);
  if (!response && h->msg_id + 1 == o->peer_req && o->tx_cached)
    return gostx__ike_copy_out(e->tx, e->tx_len, out, cap, out_len); /* our rekey's answer */
  if (response ? h->msg_id != o->req_id || !ours_out
               : h->msg_id != o->peer_req || h->exchange != GOSTX_IKE_INFORMATIONAL)
    return GOSTX_ESTATE;
  uint8_t first, plain[GOSTX_IKE_MSG_MAX];
  size_t plain_len;
  int rc = open_from_peer(e, &o->sk_in, msg, len, now_ms, &first, plain, &plain_len);
  gostx_memzero(plain, sizeof plain); /* a Delete or nothing: its contents do not matter */
  if (rc != GOSTX_OK) return rc;
  if (response) { /* our Delete answered: the SA is gone */
    gostx__ike_pend_done(e);
    old_sa_wipe(o);
    return GOSTX_OK;
  }
  /* the peer deletes it: an empty answer (1.4.1), kept for retransmissions */
  gostx_ike_writer w;
  uint8_t inner[8], bye[sizeof o->bye];
  size_t bye_len = 0;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  rc = gostx__ike_seal_sa(e, k + 1, GOSTX_IKE_INFORMATIONAL, 1, h->msg_id, &w, bye, sizeof bye,
                          &bye_len);
  o->peer_req++;
  if (rc == GOSTX_OK) rc = close_old(o, bye, bye_len);
  if (ours_out) gostx__ike_pend_done(e); /* both deleting it (2.25.2) */
  return rc == GOSTX_OK ? gostx__ike_copy_out(o->bye, o->bye_len, out, cap, out_len) : rc;
}

static int same_spis(const gostx_ike_hdr *h, const uint8_t *spi_i, const uint8_t *spi_r) {
  return !memcmp(h->spi_i, spi_i, 8) && !memcmp(h->spi_r, spi_r, 8);
}

int gostx__ike_live_input(gostx_ike_engine *e, const uint8_t *msg, size_t len,
                          const gostx_ike_hdr *h, int64_t now_ms, uint8_t *out, size_t cap,
                          size_t *out_len) {
  gostx__ike_ev_clear(e);
  for (int k = 0; k < 2; k++) {
    const gostx_ike_old_sa *o = &e->old_sa[k];
    if ((o->valid || o->closed) && same_spis(h, o->spi_i, o->spi_r))
      return old_sa_input(e, k, msg, len, h, now_ms, out, cap, out_len);
  }
  if (!same_spis(h, e->spi_i, e->spi_r)) return GOSTX_ESTATE;
  const int response = (h->flags & GOSTX_IKE_FLAG_R) != 0;
  const int from_orig_init = (h->flags & GOSTX_IKE_FLAG_I) != 0;
  if (from_orig_init == e->orig_init) return GOSTX_ESTATE; /* our own flag: not the peer's */
  /* a request answered already: the cached answer, nothing processed
   * again; of a fragmented request, for fragment 1 alone (RFC 7383 2.6.1) */
  if (!response && e->peer_req && h->msg_id + 1 == e->peer_req && e->tx_len)
    return gostx__ike_later_fragment(msg, len)
               ? GOSTX_OK
               : gostx__ike_copy_out(e->tx, e->tx_len, out, cap, out_len);
  if (e->state != GOSTX_IKE_S_ESTABLISHED) return GOSTX_ESTATE; /* DELETED: the cache only */
  if (response ? h->msg_id != e->req_id || e->pend == GOSTX_IKE_X_NONE
               : h->msg_id != e->peer_req)
    return GOSTX_ESTATE;
  if (h->exchange != GOSTX_IKE_CREATE_CHILD_SA && h->exchange != GOSTX_IKE_INFORMATIONAL)
    return GOSTX_ESTATE;
  uint8_t first, plain[GOSTX_IKE_MSG_MAX];
  size_t plain_len;
  int rc = open_from_peer(e, &e->sk_in, msg, len, now_ms, &first, plain, &plain_len);
  if (rc != GOSTX_OK) return rc;
  rc = response ? response_in(e, h, first, plain, plain_len, now_ms, out, cap, out_len)
                : request_in(e, h, first, plain, plain_len, out, cap, out_len);
  gostx_memzero(plain, sizeof plain);
  return rc;
}

int gostx__ike_live_timer(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                          size_t *out_len) {
  gostx__ike_ev_clear(e);
  gostx_ike_old_sa *redundant = &e->old_sa[1];
  if (redundant->valid && now_ms >= redundant->expire_ms && e->pend != GOSTX_IKE_X_DELETE_OLD_IKE)
    old_sa_wipe(redundant);
  if (e->pend == GOSTX_IKE_X_NONE || now_ms < e->next_tx_ms) return GOSTX_OK;
  if (e->tries >= (e->cf->max_tries ? e->cf->max_tries : 5)) {
    if (e->pend == GOSTX_IKE_X_DELETE_OLD_IKE) { /* the old SA is dead either way */
      old_sa_wipe(&e->old_sa[e->pend_slot]);
      gostx__ike_pend_done(e);
      return GOSTX_OK;
    }
    e->state = GOSTX_IKE_S_FAILED; /* 2.4: the peer is gone, and with it every SA */
    e->error = 0;
    e->ev.flags |= GOSTX_IKE_EV_PEER_GONE;
    return GOSTX_OK;
  }
  e->tries++;
  e->rto_ms *= 2; /* 2.1: exponential back-off */
  e->next_tx_ms = now_ms + e->rto_ms;
  return gostx__ike_copy_out(e->req, e->req_len, out, cap, out_len);
}
