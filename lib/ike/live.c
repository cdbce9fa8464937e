/* What the exchanges after IKE_AUTH share (below child.c, ikesa.c,
 * info.c and xchg.c's dispatch): the Message ID windows, sealing over the
 * current or the old IKE SA, our request sent and timed, the events. */
#include <string.h>

#include "engine_int.h"

void gostx__ike_live(gostx_ike_engine *e) {
  /* after IKE_AUTH: Message IDs 0 and 1 were the initiator's (2.2) */
  e->orig_init = e->cf->role == GOSTX_IKE_INITIATOR;
  e->req_id = e->orig_init ? 2 : 0;
  e->peer_req = e->orig_init ? 0 : 2;
  gostx__ike_handshake_done(e);
}

/* e->ev is what the last call changed (left as it was when it was empty,
 * so that a dropped datagram changes nothing). */
void gostx__ike_ev_clear(gostx_ike_engine *e) {
  if (e->ev.flags) memset(&e->ev, 0, sizeof e->ev);
}

void gostx__ike_w_notify_spi(gostx_ike_writer *w, uint16_t type, uint8_t proto,
                             const uint8_t *spi, size_t spi_len) {
  const gostx_ike_notify n = {proto, (uint8_t)spi_len, type, spi, NULL, 0};
  gostx__ike_w_notify(w, &n);
}

uint16_t gostx__ike_error_of(const gostx_ike_chain *c) {
  gostx_ike_notify n;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY))
    if (gostx__ike_notify_read(p->body, p->len, &n) == GOSTX_OK && n.type < 16384)
      return n.type;
  return 0;
}

void gostx__ike_ev_added(gostx_ike_engine *e, const gostx_ike_child *ch, uint32_t replaces) {
  e->ev.flags |= GOSTX_IKE_EV_CHILD_NEW;
  e->ev.added = *ch;
  e->ev.replaces = replaces;
}

/* ch goes into the call's retired list and is wiped. */
void gostx__ike_ev_retired(gostx_ike_engine *e, gostx_ike_child *ch) {
  if (!ch->valid) return;
  if (e->ev.n_retired < sizeof e->ev.retired / sizeof e->ev.retired[0])
    e->ev.retired[e->ev.n_retired++] = *ch;
  e->ev.flags |= GOSTX_IKE_EV_CHILD_RETIRE;
  gostx_memzero(ch, sizeof *ch);
}

/* g^ir from the KE payload of c (group as agreed) with e->priv. */
int gostx__ike_peer_shared(gostx_ike_engine *e, const gostx_ike_chain *c, uint16_t group,
                           uint8_t *gir, size_t *gir_len) {
  uint16_t g;
  const uint8_t *d;
  size_t l;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  if (!p || gostx__ike_ke_read(p->body, p->len, &g, &d, &l) != GOSTX_OK || g != group)
    return GOSTX_EFORMAT;
  *gir_len = gostx__ike_ke_len(group) / 2;
  return gostx__ike_ke_shared(group, e->priv, *gir_len, d, l, gir, *gir_len);
}

const gostx_ike_payload *gostx__ike_nonce_of(const gostx_ike_chain *c) {
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NONCE);
  return p && gostx__ike_nonce_read(p->body, p->len) == GOSTX_OK ? p : NULL;
}

gostx_ike_proposal *gostx__ike_proposal_one(gostx_ike_sa *sa, uint8_t num, uint8_t proto,
                                            const uint8_t *spi, uint8_t spi_len, uint16_t encr) {
  memset(sa, 0, sizeof *sa);
  gostx_ike_proposal *p = &sa->p[0];
  sa->n = 1;
  p->num = num;
  p->proto = proto;
  p->spi_len = spi_len;
  memcpy(p->spi, spi, spi_len);
  p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_ENCR, encr, -1, 0};
  return p;
}

void gostx__ike_esp_proposal(const gostx_ike_engine *e, uint8_t num, uint32_t spi, uint16_t group,
                         gostx_ike_sa *sa) {
  const uint8_t be[4] = {(uint8_t)(spi >> 24), (uint8_t)(spi >> 16), (uint8_t)(spi >> 8), (uint8_t)spi};
  gostx_ike_proposal *p = gostx__ike_proposal_one(sa, num, GOSTX_IKE_PROTO_ESP, be, 4, e->encr);
  if (group) p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_KE, group, -1, 0};
  p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_ESN, GOSTX_IKE_ESN_NO, -1, 0};
}

/* The keys, SPIs and counters one IKE SA sends and reads with: the current
 * one or the old one a rekey replaced. */
typedef struct sa_ref {
  const uint8_t *spi_i, *spi_r;
  uint8_t orig_init;
  const gostx_ike_sk *in, *out;
  uint64_t *iv_out;
  uint32_t *req_id, *peer_req;
} sa_ref;

static sa_ref current(gostx_ike_engine *e) {
  return (sa_ref){e->spi_i, e->spi_r, e->orig_init, &e->sk_in, &e->sk_out,
                  &e->iv_out, &e->req_id, &e->peer_req};
}

static sa_ref old_one(gostx_ike_engine *e, int k) {
  gostx_ike_old_sa *o = &e->old_sa[k];
  return (sa_ref){o->spi_i, o->spi_r, o->orig_init, &o->sk_in, &o->sk_out,
                  &o->iv_out, &o->req_id, &o->peer_req};
}

/* The inside in w sealed over s into dst (cap) as a request or response. */
static int seal(const sa_ref *s, uint8_t exchange, int response, uint32_t msg_id,
                const gostx_ike_writer *w, uint8_t *dst, size_t cap, size_t *len) {
  gostx_ike_hdr h;
  if (w->err) return w->err;
  memset(&h, 0, sizeof h);
  memcpy(h.spi_i, s->spi_i, 8);
  memcpy(h.spi_r, s->spi_r, 8);
  h.version = GOSTX_IKE_VERSION;
  h.exchange = exchange;
  h.flags = (uint8_t)((s->orig_init ? GOSTX_IKE_FLAG_I : 0) | (response ? GOSTX_IKE_FLAG_R : 0));
  h.msg_id = msg_id;
  return gostx__ike_sk_seal(s->out, (*s->iv_out)++, &h, w->first, w->buf, w->len, dst, cap, len);
}

int gostx__ike_seal_sa(gostx_ike_engine *e, int old, uint8_t exchange, int response,
                       uint32_t msg_id, const gostx_ike_writer *w, uint8_t *dst, size_t cap,
                       size_t *len) {
  const sa_ref s = old ? old_one(e, old - 1) : current(e);
  return seal(&s, exchange, response, msg_id, w, dst, cap, len);
}

int gostx__ike_copy_out(const uint8_t *m, size_t len, uint8_t *out, size_t cap, size_t *out_len) {
  if (len > cap) return GOSTX_ELEN;
  memcpy(out, m, len);
  *out_len = len;
  return GOSTX_OK;
}

int gostx__ike_may_request(gostx_ike_engine *e) {
  if (!e || e->state != GOSTX_IKE_S_ESTABLISHED) return GOSTX_ESTATE;
  gostx__ike_ev_clear(e);
  return e->pend == GOSTX_IKE_X_NONE ? GOSTX_OK : GOSTX_ESTATE;
}

int gostx__ike_request(gostx_ike_engine *e, uint8_t exchange, uint8_t kind, int old,
                       gostx_ike_writer *w, int64_t now_ms, uint8_t *out, size_t cap,
                       size_t *out_len) {
  const sa_ref s = old ? old_one(e, old - 1) : current(e);
  size_t len = 0;
  int rc = seal(&s, exchange, 0, *s.req_id, w, out, cap, &len);
  /* kept sized to fit for its retransmissions, freed once answered */
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&e->req, &e->req_len, out, len);
  if (rc != GOSTX_OK) return rc;
  e->pend = kind;
  e->pend_slot = (uint8_t)(old ? old - 1 : 0);
  e->tries = 1;
  e->rto_ms = e->cf->rto_ms ? e->cf->rto_ms : 500;
  e->next_tx_ms = now_ms + e->rto_ms;
  *out_len = len;
  return GOSTX_OK;
}
