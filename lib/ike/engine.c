/* IKE_SA_INIT (RFC 7296 1.2, 2.6, 2.10, 2.14) of the exchange engine:
 * the proposals, the RFC 9385 key exchange, nonces, the SA keys; the
 * states, Message IDs, retransmission and the response cache shared with
 * IKE_AUTH (auth.c). See engine.h. */
#include <string.h>

#include "engine.h"
#include "engine_int.h"

int gostx__ike_engine_init(gostx_ike_engine *e, const gostx_ike_conf *cf) {
  if (!e || !cf || !gostx__ike_encr_key_len(cf->encr)) return GOSTX_EINVAL;
  if (cf->role != GOSTX_IKE_INITIATOR && cf->role != GOSTX_IKE_RESPONDER) return GOSTX_EINVAL;
  if (cf->n_encr_offer > GOSTX_IKE_MAX_TRANSFORMS - 3 || (cf->n_encr_offer && !cf->encr_offer))
    return GOSTX_EINVAL;
  for (size_t i = 0; i < cf->n_encr_offer; i++)
    if (!gostx__ike_encr_key_len(cf->encr_offer[i])) return GOSTX_EINVAL;
  memset(e, 0, sizeof *e);
  e->cf = cf;
  e->encr = cf->encr;
  e->rto_ms = cf->rto_ms ? cf->rto_ms : 500;
  e->iv_out = 1;
  return GOSTX_OK;
}

int gostx__ike_engine_addrs(gostx_ike_engine *e, const gostx_ike_addr *local,
                            const gostx_ike_addr *remote) {
  if (!e || !gostx__ike_addr_ok(local) || !gostx__ike_addr_ok(remote)) return GOSTX_EINVAL;
  if (local->ip_len != remote->ip_len) return GOSTX_EINVAL;
  e->local = *local;
  e->remote = *remote;
  return GOSTX_OK;
}

void gostx__ike_engine_clear(gostx_ike_engine *e) {
  if (!e) return;
  gostx__ike_sk_clear(&e->sk_in);
  gostx__ike_sk_clear(&e->sk_out);
  gostx__ike_drop(&e->m1, &e->m1_len);
  gostx__ike_drop(&e->m2, &e->m2_len);
  gostx__ike_drop(&e->tx, &e->tx_len);
  gostx__ike_drop(&e->req, &e->req_len);
  gostx__ike_drop(&e->peer_certs, &e->peer_certs_len);
  gostx__ike_reasm_free(e);
  gostx_memzero(e, sizeof *e);
}

/* The IKE SA proposal: ENCR (the initiator's offer), PRF_HMAC_STREEBOG_512,
 * KE (the configured group first, then the other GOST one). Responder:
 * only the chosen ones. */
static void ike_proposal(const gostx_ike_engine *e, uint8_t num, int offer, gostx_ike_sa *sa) {
  memset(sa, 0, sizeof *sa);
  gostx_ike_proposal *p = &sa->p[0];
  sa->n = 1;
  p->num = num;
  p->proto = GOSTX_IKE_PROTO_IKE;
  for (size_t i = 0; offer && i < e->cf->n_encr_offer; i++)
    p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_ENCR, e->cf->encr_offer[i], -1, 0};
  if (!p->n) p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_ENCR, e->encr, -1, 0};
  p->t[p->n++] =
      (gostx_ike_transform){GOSTX_IKE_TT_PRF, GOSTX_IKE_PRF_HMAC_STREEBOG_512, -1, 0};
  /* the offer keeps its order after INVALID_KE_PAYLOAD (only KE changes,
   * as RFC 9385 A.2.1's retry does) */
  const uint16_t first = offer ? e->cf->group : e->group;
  p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_KE, first, -1, 0};
  if (offer) {
    const uint16_t other = first == GOSTX_IKE_KE_GOST3410_2012_512
                               ? GOSTX_IKE_KE_GOST3410_2012_256
                               : GOSTX_IKE_KE_GOST3410_2012_512;
    p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_KE, other, -1, 0};
  }
}

/* Our IKE_SA_INIT message, kept for AUTH and as what goes out: the request
 * (message 1) [N(COOKIE)], SA (both groups), KE, Ni, [N(NAT_DETECTION_*)],
 * N(FRAGMENTATION_SUPPORTED); the response (message 2) SA (proposal num, the
 * choice), KE, Nr, the same notifies and, with signatures, CERTREQ naming
 * our CAs; with signatures both end with SIGNATURE_HASH_ALGORITHMS
 * (Streebog-256, -512). RFC 9385 A.1.1's and A.2.1's order: NAT detection
 * just after the nonce, before CERTREQ (RFC 7296 2.23). */
static int write_init(gostx_ike_engine *e, int response, uint8_t num) {
  gostx_ike_hdr h;
  gostx_ike_writer w;
  gostx_ike_sa sa;
  uint8_t m[GOSTX_IKE_INIT_MAX];
  size_t m_len = 0;
  gostx__ike_hdr_of(e, GOSTX_IKE_SA_INIT, response, 0, &h);
  gostx__ike_w_msg(&w, m, sizeof m, &h);
  if (e->cookie_len) gostx__ike_w_notify_type(&w, GOSTX_IKE_N_COOKIE, e->cookie, e->cookie_len);
  ike_proposal(e, num, !response, &sa);
  gostx__ike_w_sa(&w, &sa);
  gostx__ike_w_ke(&w, e->group, e->pub, gostx__ike_ke_len(e->group));
  gostx__ike_w_raw(&w, GOSTX_IKE_PT_NONCE, response ? e->nr : e->ni,
                   response ? e->nr_len : e->ni_len);
  gostx__ike_w_nat(&w, e);
  if (response && e->cf->auth == GOSTX_IKE_AUTH_DIGITAL_SIGNATURE) /* our CAs (1.2, 3.7) */
    gostx__ike_w_certreq(&w, e->cf->store);
  gostx__ike_w_frag_supported(&w);
  if (e->cf->auth == GOSTX_IKE_AUTH_DIGITAL_SIGNATURE) { /* RFC 7427 4: sent when supported */
    static const uint8_t streebog[4] = {0, GOSTX_IKE_HASH_STREEBOG_256, 0,
                                        GOSTX_IKE_HASH_STREEBOG_512};
    gostx__ike_w_notify_type(&w, GOSTX_IKE_N_SIGNATURE_HASH_ALGORITHMS, streebog, 4);
  }
  int rc = gostx__ike_w_finish(&w, &m_len);
  if (rc == GOSTX_OK)
    rc = response ? gostx__ike_keep(&e->m2, &e->m2_len, m, m_len)
                  : gostx__ike_keep(&e->m1, &e->m1_len, m, m_len);
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&e->tx, &e->tx_len, m, m_len);
  return rc;
}

int gostx__ike_start(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                     size_t *out_len) {
  if (!e || !out || !out_len || e->cf->role != GOSTX_IKE_INITIATOR) return GOSTX_EINVAL;
  if (e->state != GOSTX_IKE_S_IDLE) return GOSTX_ESTATE;
  *out_len = 0;
  int rc = gostx__ike_draw_spi(e, e->spi_i);
  if (rc == GOSTX_OK) rc = gostx__ike_draw_nonce(e, e->ni);
  if (rc == GOSTX_OK) rc = gostx__ike_new_ke(e, e->cf->group);
  e->ni_len = 32;
  if (rc == GOSTX_OK) rc = write_init(e, 0, 1);
  if (rc != GOSTX_OK) return rc;
  e->state = GOSTX_IKE_S_INIT_SENT;
  e->msg_id = 0;
  return gostx__ike_send(e, now_ms, out, cap, out_len);
}

int gostx__ike_timer(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                     size_t *out_len) {
  if (!e || !out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  gostx__ike_reasm_expire(e, now_ms); /* RFC 7383 2.6 */
  if (e->state == GOSTX_IKE_S_ESTABLISHED) /* xchg.c */
    return gostx__ike_live_timer(e, now_ms, out, cap, out_len);
  const int waiting = e->state == GOSTX_IKE_S_INIT_SENT || e->state == GOSTX_IKE_S_AUTH_SENT;
  if (!waiting || e->cf->role != GOSTX_IKE_INITIATOR || now_ms < e->next_tx_ms) return GOSTX_OK;
  if (e->tries >= (e->cf->max_tries ? e->cf->max_tries : 5)) {
    e->state = GOSTX_IKE_S_FAILED; /* error: the last error notify, or 0 */
    return GOSTX_OK;
  }
  if (e->tx_len > cap) return GOSTX_ELEN;
  memcpy(out, e->tx, e->tx_len);
  *out_len = e->tx_len;
  e->tries++;
  e->rto_ms *= 2; /* RFC 7296 2.1: exponential back-off */
  e->next_tx_ms = now_ms + e->rto_ms;
  return GOSTX_OK;
}

/* ---- choosing (responder) and checking (initiator) the IKE SA proposal ---- */

static int has(const gostx_ike_proposal *p, uint8_t type, uint16_t id) {
  for (size_t i = 0; i < p->n; i++)
    if (p->t[i].type == type && p->t[i].id == id && !p->t[i].unknown_attr &&
        p->t[i].key_len < 0)
      return 1;
  return 0;
}

/* A proposal we can take whole: our ENCR, the PRF, a GOST KE, nothing else
 * (no integrity beside an AEAD, RFC 7296 3.3.3). Returns the group to
 * use: ours (cf->group) when listed, else the first GOST one, or 0. */
static uint16_t ike_acceptable(const gostx_ike_conf *cf, uint16_t encr,
                               const gostx_ike_proposal *p) {
  if (p->proto != GOSTX_IKE_PROTO_IKE || p->spi_len) return 0;
  if (!has(p, GOSTX_IKE_TT_ENCR, encr)) return 0;
  if (!has(p, GOSTX_IKE_TT_PRF, GOSTX_IKE_PRF_HMAC_STREEBOG_512)) return 0;
  for (size_t i = 0; i < p->n; i++) {
    const uint8_t t = p->t[i].type;
    if (t != GOSTX_IKE_TT_ENCR && t != GOSTX_IKE_TT_PRF && t != GOSTX_IKE_TT_KE) return 0;
  }
  if (gostx__ike_ke_curve(cf->group) && has(p, GOSTX_IKE_TT_KE, cf->group)) return cf->group;
  for (size_t i = 0; i < p->n; i++)
    if (p->t[i].type == GOSTX_IKE_TT_KE && gostx__ike_ke_curve(p->t[i].id)) return p->t[i].id;
  return 0;
}

/* The request's nonce into e->ni/nr. */
static int take_nonce(const gostx_ike_chain *c, uint8_t *n, size_t *len) {
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NONCE);
  if (!p || gostx__ike_nonce_read(p->body, p->len) != GOSTX_OK) return GOSTX_EFORMAT;
  memcpy(n, p->body, p->len);
  *len = p->len;
  return GOSTX_OK;
}

static int read_ke(const gostx_ike_chain *c, uint16_t *group, const uint8_t **d, size_t *l) {
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  if (!p) return GOSTX_EFORMAT;
  return gostx__ike_ke_read(p->body, p->len, group, d, l);
}

/* What the peer's IKE_SA_INIT announced: SIGNATURE_HASH_ALGORITHMS (RFC
 * 7427 4), IKEV2_FRAGMENTATION_SUPPORTED (RFC 7383 2.3). Read first, kept
 * in e once the message is taken (a dropped one changes nothing). */
typedef struct announced {
  uint32_t hashes;
  int hashes_sent, frag;
} announced;

static int read_announced(const gostx_ike_chain *c, announced *a) {
  a->hashes_sent = gostx__ike_sig_hashes(c, &a->hashes);
  a->frag = gostx__ike_frag_supported(c);
  return a->hashes_sent < 0 || a->frag < 0 ? GOSTX_EFORMAT : GOSTX_OK;
}

static void keep_announced(gostx_ike_engine *e, const announced *a) {
  e->peer_hashes = a->hashes;
  e->peer_hashes_sent = (uint8_t)a->hashes_sent;
  e->peer_frag = (uint8_t)a->frag;
}

/* g^ir, SKEYSEED and SK_* from the peer's KE data; the SK states. */
static int derive(gostx_ike_engine *e, const uint8_t *peer_ke, size_t peer_len) {
  uint8_t gir[64], seed[GOSTX_IKE_PRF_LEN];
  const size_t l = gostx__ike_ke_len(e->group) / 2;
  int rc = gostx__ike_ke_shared(e->group, e->priv, l, peer_ke, peer_len, gir, l);
  if (rc == GOSTX_OK)
    rc = gostx__ike_skeyseed(NULL, e->ni, e->ni_len, e->nr, e->nr_len, gir, l, seed);
  if (rc == GOSTX_OK)
    rc = gostx__ike_sa_keys(seed, e->encr, e->ni, e->ni_len, e->nr, e->nr_len, e->spi_i,
                            e->spi_r, &e->k);
  const int init = e->cf->role == GOSTX_IKE_INITIATOR;
  if (rc == GOSTX_OK)
    rc = gostx__ike_sk_init(&e->sk_out, e->encr, init ? e->k.sk_ei : e->k.sk_er,
                            e->k.enc_len);
  if (rc == GOSTX_OK)
    rc = gostx__ike_sk_init(&e->sk_in, e->encr, init ? e->k.sk_er : e->k.sk_ei,
                            e->k.enc_len);
  gostx_memzero(gir, sizeof gir);
  gostx_memzero(seed, sizeof seed);
  if (rc == GOSTX_OK) gostx_memzero(e->priv, sizeof e->priv); /* it has done its work */
  return rc;
}

/* ---- responder: the IKE_SA_INIT request ---- */

/* An unencrypted IKE_SA_INIT response carrying one notify; nothing kept
 * (RFC 7296 2.21.1). */
static int init_refusal(gostx_ike_engine *e, uint16_t type, const uint8_t *data, size_t len,
                        uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_hdr h;
  gostx_ike_writer w;
  memset(e->spi_r, 0, 8);
  gostx__ike_hdr_of(e, GOSTX_IKE_SA_INIT, 1, 0, &h);
  gostx__ike_w_msg(&w, out, cap, &h);
  gostx__ike_w_notify_type(&w, type, data, len);
  e->state = GOSTX_IKE_S_FAILED;
  e->error = type;
  return gostx__ike_w_finish(&w, out_len);
}

/* The SA payload's proposal the responder takes: its index, or -1. */
static int choose_ike(const gostx_ike_conf *cf, const gostx_ike_sa *sa, uint16_t *group) {
  for (size_t i = 0; i < sa->n; i++)
    if ((*group = ike_acceptable(cf, cf->encr, &sa->p[i])) != 0) return (int)i;
  return -1;
}

static int responder_init(gostx_ike_engine *e, const uint8_t *msg, size_t len,
                          const gostx_ike_chain *c, int64_t now_ms, uint8_t *out, size_t cap,
                          size_t *out_len) {
  gostx_ike_sa sa;
  announced ann;
  uint16_t group, ke_group;
  const uint8_t *ke;
  size_t ke_len;
  const gostx_ike_payload *sp = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (!sp || gostx__ike_sa_read(sp->body, sp->len, &sa) != GOSTX_OK ||
      read_ke(c, &ke_group, &ke, &ke_len) != GOSTX_OK ||
      take_nonce(c, e->ni, &e->ni_len) != GOSTX_OK || len > GOSTX_IKE_INIT_MAX ||
      read_announced(c, &ann) != GOSTX_OK ||
      gostx__ike_nat_check(e, c) != GOSTX_OK) /* SPIr still 0, as the request hashed it */
    return init_refusal(e, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0, out, cap, out_len);
  keep_announced(e, &ann);
  const int chosen = choose_ike(e->cf, &sa, &group);
  if (chosen < 0) {
    e->why = "no proposal of the peer's is ours (our ENCR, PRF_HMAC_STREEBOG_512, a GOST KE)";
    return init_refusal(e, GOSTX_IKE_N_NO_PROPOSAL_CHOSEN, NULL, 0, out, cap, out_len);
  }
  if (ke_group != group) { /* the KE sent is not the group we take (1.2) */
    const uint8_t g[2] = {(uint8_t)(group >> 8), (uint8_t)group};
    return init_refusal(e, GOSTX_IKE_N_INVALID_KE_PAYLOAD, g, 2, out, cap, out_len);
  }
  int rc = gostx__ike_draw_spi(e, e->spi_r);
  if (rc == GOSTX_OK) rc = gostx__ike_draw_nonce(e, e->nr);
  e->nr_len = 32;
  if (rc == GOSTX_OK) rc = gostx__ike_new_ke(e, ke_group);
  if (rc != GOSTX_OK) return rc;
  if (derive(e, ke, ke_len) != GOSTX_OK) { /* RFC 9385 6.1 */
    e->why = "the peer's KE is not a point of its group's curve (or gives the identity)";
    return init_refusal(e, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0, out, cap, out_len);
  }
  rc = gostx__ike_keep(&e->m1, &e->m1_len, msg, len);
  if (rc == GOSTX_OK) rc = write_init(e, 1, sa.p[chosen].num);
  if (rc != GOSTX_OK) return rc;
  e->state = GOSTX_IKE_S_INIT_DONE;
  e->msg_id = 1;
  return gostx__ike_send(e, now_ms, out, cap, out_len);
}

/* ---- initiator: the IKE_SA_INIT response ---- */

/* A response of one notify: COOKIE (retry with it), INVALID_KE_PAYLOAD
 * (retry with the group named, if we offered it) or an error (noted).
 * GOSTX_ESTATE when it is none of these. */
static int init_notify(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                       uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_notify n;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY);
  if (!p || gostx__ike_notify_read(p->body, p->len, &n) != GOSTX_OK) return GOSTX_EFORMAT;
  if (e->init_tries >= 4) return GOSTX_ESTATE; /* no endless restarts */
  if (n.type == GOSTX_IKE_N_COOKIE) {
    if (n.data_len < 1 || n.data_len > sizeof e->cookie) return GOSTX_EFORMAT;
    memcpy(e->cookie, n.data, n.data_len);
    e->cookie_len = n.data_len;
  } else if (n.type == GOSTX_IKE_N_INVALID_KE_PAYLOAD) {
    if (n.data_len != 2) return GOSTX_EFORMAT;
    const uint16_t g = (uint16_t)(n.data[0] << 8 | n.data[1]);
    if (g == e->group || !gostx__ike_ke_curve(g)) return GOSTX_ESTATE;
    int rc = gostx__ike_new_ke(e, g);
    if (rc != GOSTX_OK) return rc;
  } else if (n.type < 16384) {
    /* an error type (3.10.1), unauthenticated: noted, and the request stays
     * out until its tries run out (2.21.1: not acted on at once, so that a
     * forged notify cannot end the exchange) */
    e->error = n.type;
    return GOSTX_OK;
  } else {
    return GOSTX_ESTATE;
  }
  e->init_tries++;
  int rc = write_init(e, 0, 1);
  return rc == GOSTX_OK ? gostx__ike_send(e, now_ms, out, cap, out_len) : rc;
}

/* The ENCR of our offer that the responder's proposal q names, 0 if none. */
static uint16_t offered_encr(const gostx_ike_engine *e, const gostx_ike_proposal *q) {
  if (!e->cf->n_encr_offer) return has(q, GOSTX_IKE_TT_ENCR, e->encr) ? e->encr : 0;
  for (size_t i = 0; i < e->cf->n_encr_offer; i++)
    if (has(q, GOSTX_IKE_TT_ENCR, e->cf->encr_offer[i])) return e->cf->encr_offer[i];
  return 0;
}

/* The responder's SA: one proposal, exactly one ENCR we offered, the PRF
 * and the group sent. *encr: that ENCR. */
static int check_init_sa(const gostx_ike_engine *e, const gostx_ike_chain *c, uint16_t *encr) {
  gostx_ike_sa sa;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (!p || gostx__ike_sa_read(p->body, p->len, &sa) != GOSTX_OK || sa.n != 1)
    return GOSTX_EFORMAT;
  const gostx_ike_proposal *q = &sa.p[0];
  *encr = offered_encr(e, q);
  if (q->num != 1 || q->n != 3 || !*encr || ike_acceptable(e->cf, *encr, q) != e->group)
    return GOSTX_EFORMAT;
  return GOSTX_OK;
}

static int initiator_init(gostx_ike_engine *e, const uint8_t *msg, size_t len,
                          const gostx_ike_hdr *h, const gostx_ike_chain *c, int64_t now_ms,
                          uint8_t *out, size_t cap, size_t *out_len) {
  uint16_t g, encr;
  announced ann;
  const uint8_t *ke;
  size_t ke_len;
  if (!gostx__ike_find(c, GOSTX_IKE_PT_SA)) return init_notify(e, c, now_ms, out, cap, out_len);
  if (check_init_sa(e, c, &encr) != GOSTX_OK || read_ke(c, &g, &ke, &ke_len) != GOSTX_OK ||
      g != e->group || take_nonce(c, e->nr, &e->nr_len) != GOSTX_OK || len > GOSTX_IKE_INIT_MAX ||
      gostx__ike_certreq_scan(c, &e->peer_cas) != GOSTX_OK || read_announced(c, &ann) != GOSTX_OK)
    return GOSTX_EFORMAT;
  if (!memcmp(h->spi_r, "\0\0\0\0\0\0\0\0", 8)) return GOSTX_EFORMAT;
  memcpy(e->spi_r, h->spi_r, 8);
  e->encr = encr;
  if (gostx__ike_nat_check(e, c) != GOSTX_OK || derive(e, ke, ke_len) != GOSTX_OK) {
    /* malformed NAT notifies or off the curve (RFC 9385 6.1),
     * unauthenticated: dropped, and a valid response may still come (RFC
     * 7296 2.21.1) */
    memset(e->spi_r, 0, 8);
    memset(e->nr, 0, sizeof e->nr);
    e->nr_len = 0;
    return GOSTX_EFORMAT;
  }
  int rc = gostx__ike_keep(&e->m2, &e->m2_len, msg, len);
  if (rc != GOSTX_OK) return rc;
  keep_announced(e, &ann);
  e->error = 0; /* an error notify seen before was not the responder's last word */
  return gostx__ike_auth_request(e, now_ms, out, cap, out_len);
}

/* ---- dispatch ---- */

/* The header against what this SA expects; GOSTX_ESTATE to drop. */
static int header_expected(const gostx_ike_engine *e, const gostx_ike_hdr *h) {
  const int from_initiator = (h->flags & GOSTX_IKE_FLAG_I) != 0;
  const int response = (h->flags & GOSTX_IKE_FLAG_R) != 0;
  const int we_init = e->cf->role == GOSTX_IKE_INITIATOR;
  if (from_initiator == we_init || response != we_init) return GOSTX_ESTATE;
  if (e->state != GOSTX_IKE_S_IDLE && memcmp(h->spi_i, e->spi_i, 8)) return GOSTX_ESTATE;
  /* SPIr is 0 in IKE_SA_INIT requests, retransmissions included */
  const int init_request = h->exchange == GOSTX_IKE_SA_INIT && !response;
  const int spi_r_known = e->state != GOSTX_IKE_S_IDLE && e->state != GOSTX_IKE_S_INIT_SENT &&
                          !init_request;
  if (spi_r_known && memcmp(h->spi_r, e->spi_r, 8)) return GOSTX_ESTATE;
  return GOSTX_OK;
}

/* Responder: a request it has answered already (RFC 7296 2.1): the cached
 * response, nothing processed again. IKE_SA_INIT must be the same bytes. */
static int answered_before(const gostx_ike_engine *e, const uint8_t *msg, size_t len,
                           const gostx_ike_hdr *h) {
  if (e->cf->role != GOSTX_IKE_RESPONDER || e->state == GOSTX_IKE_S_IDLE || !e->tx_len)
    return 0;
  if (h->msg_id == 0)
    return h->exchange == GOSTX_IKE_SA_INIT && len == e->m1_len && !memcmp(msg, e->m1, len);
  /* of a fragmented request, fragment 1 alone (RFC 7383 2.6.1) */
  return h->msg_id + 1 == e->msg_id && h->exchange == GOSTX_IKE_AUTH &&
         !gostx__ike_later_fragment(msg, len);
}

static int resend_cached(const gostx_ike_engine *e, uint8_t *out, size_t cap, size_t *out_len) {
  if (e->tx_len > cap) return GOSTX_ELEN;
  memcpy(out, e->tx, e->tx_len);
  *out_len = e->tx_len;
  return GOSTX_OK;
}

static int input_init(gostx_ike_engine *e, const uint8_t *msg, size_t len,
                      const gostx_ike_hdr *h, int64_t now_ms, uint8_t *out, size_t cap,
                      size_t *out_len) {
  static const uint8_t zero[8];
  gostx_ike_chain c;
  const int responder = e->cf->role == GOSTX_IKE_RESPONDER;
  /* 3.1: a request's SPIi is never zero, its SPIr is: else dropped */
  if (responder && (!memcmp(h->spi_i, zero, 8) || memcmp(h->spi_r, zero, 8)))
    return GOSTX_EFORMAT;
  int rc = gostx__ike_chain_read(h->next, msg + GOSTX_IKE_HDR_LEN, len - GOSTX_IKE_HDR_LEN, &c,
                                 NULL);
  if (responder && rc == GOSTX_EUNSUP) { /* 2.5: refused whole, the type named */
    memcpy(e->spi_i, h->spi_i, 8);
    e->why = "the peer's IKE_SA_INIT has a critical payload of a type we do not know";
    return init_refusal(e, GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD, &c.unsupported, 1, out,
                        cap, out_len);
  }
  if (rc != GOSTX_OK) return rc == GOSTX_EUNSUP ? GOSTX_EFORMAT : rc;
  if (responder) {
    memcpy(e->spi_i, h->spi_i, 8);
    return responder_init(e, msg, len, &c, now_ms, out, cap, out_len);
  }
  return initiator_init(e, msg, len, h, &c, now_ms, out, cap, out_len);
}

int gostx__ike_input(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                     uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_hdr h;
  if (!e || !msg || !out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  if (gostx__ike_hdr_read(msg, len, &h) != GOSTX_OK) return GOSTX_EFORMAT;
  if (e->state == GOSTX_IKE_S_ESTABLISHED || e->state == GOSTX_IKE_S_DELETED) /* xchg.c */
    return gostx__ike_live_input(e, msg, len, &h, now_ms, out, cap, out_len);
  if (header_expected(e, &h) != GOSTX_OK) return GOSTX_ESTATE;
  if (answered_before(e, msg, len, &h)) return resend_cached(e, out, cap, out_len);
  const int init = e->cf->role == GOSTX_IKE_INITIATOR;
  if (h.exchange == GOSTX_IKE_SA_INIT && h.msg_id == 0 &&
      e->state == (init ? GOSTX_IKE_S_INIT_SENT : GOSTX_IKE_S_IDLE))
    return input_init(e, msg, len, &h, now_ms, out, cap, out_len);
  if (h.exchange == GOSTX_IKE_AUTH && h.msg_id == e->msg_id &&
      e->state == (init ? GOSTX_IKE_S_AUTH_SENT : GOSTX_IKE_S_INIT_DONE))
    return gostx__ike_auth_input(e, msg, len, now_ms, out, cap, out_len);
  return GOSTX_ESTATE;
}

/* An independent copy (the tests fork engines): the heap buffers
 * duplicated, so either may be cleared without the other. */
int gostx__ike_engine_copy(gostx_ike_engine *dst, const gostx_ike_engine *src) {
  *dst = *src;
  dst->m1 = dst->m2 = dst->tx = dst->req = dst->peer_certs = dst->reasm_buf = NULL;
  dst->m1_len = dst->m2_len = dst->tx_len = dst->req_len = dst->peer_certs_len = 0;
  int rc = gostx__ike_keep(&dst->m1, &dst->m1_len, src->m1, src->m1_len);
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&dst->m2, &dst->m2_len, src->m2, src->m2_len);
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&dst->tx, &dst->tx_len, src->tx, src->tx_len);
  if (rc == GOSTX_OK) rc = gostx__ike_keep(&dst->req, &dst->req_len, src->req, src->req_len);
  if (rc == GOSTX_OK)
    rc = gostx__ike_keep(&dst->peer_certs, &dst->peer_certs_len, src->peer_certs,
                         src->peer_certs_len);
  if (rc == GOSTX_OK && src->reasm_buf) {
    if ((dst->reasm_buf = gostx__ike_alloc(GOSTX_IKE_MSG_MAX)) == NULL) rc = GOSTX_ENOMEM;
    else memcpy(dst->reasm_buf, src->reasm_buf, GOSTX_IKE_MSG_MAX);
  }
  dst->reasm.buf = dst->reasm_buf;
  if (rc != GOSTX_OK) gostx__ike_engine_clear(dst);
  return rc;
}
