/* CREATE_CHILD_SA rekeying a Child SA (RFC 7296 1.3.3, 2.8, 2.17), with or
 * without a new KE (PFS, RFC 9385's groups), in both roles, and the
 * simultaneous rekey of 2.8.1: the new SA made with the lowest of the four
 * nonces is deleted by the side that created it. Slots: e->child the
 * current SA, e->old the one being replaced until deleted, e->twin the
 * other new SA of a simultaneous rekey. */
#include <string.h>

#include "engine_int.h"

enum { NONCE_LEN = 32, KM_MAX = 2 * 44 };

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* Our new inbound ESP SPI: random above the 0-255 RFC 4303 2.1 reserves,
 * and none of ours in use; or the test's. */
static int new_spi(const gostx_ike_engine *e, uint32_t *spi) {
  uint8_t b[4];
#ifdef GOSTX_IKE_TEST_HOOKS
  if (e->test.set && e->test.esp_spi) return *spi = e->test.esp_spi, GOSTX_OK;
#endif
  do {
    int rc = gostx_random_bytes(b, 4);
    if (rc != GOSTX_OK) return rc;
    *spi = be32(b);
  } while (*spi < 256 || *spi == e->child.spi_in || *spi == e->old.spi_in ||
           *spi == e->twin.spi_in);
  return GOSTX_OK;
}

/* An ESP proposal we take: 4-octet SPI above 255, our ENCR, no ESN, at
 * most GOST KE methods (*group: ours when listed, else the first; 0 for
 * none), nothing else. */
static int esp_ok(const gostx_ike_engine *e, const gostx_ike_proposal *p, uint16_t *group) {
  int encr = 0, esn = 0;
  *group = 0;
  if (p->proto != GOSTX_IKE_PROTO_ESP || p->spi_len != 4 || be32(p->spi) < 256) return 0;
  for (size_t i = 0; i < p->n; i++) {
    const gostx_ike_transform *t = &p->t[i];
    const int usable = !t->unknown_attr && t->key_len < 0;
    if (t->type == GOSTX_IKE_TT_ENCR) encr |= usable && t->id == e->encr;
    else if (t->type == GOSTX_IKE_TT_ESN) esn |= usable && t->id == GOSTX_IKE_ESN_NO;
    else if (t->type != GOSTX_IKE_TT_KE || !usable || !gostx__ike_ke_curve(t->id)) return 0;
    else if (!*group || t->id == e->group) *group = t->id;
  }
  return encr && esn;
}

/* The selectors of a rekey (2.8: those of the SA it replaces), TSi being
 * the exchange initiator's side: swapped when we were IKE_AUTH's responder. */
static void w_ts(const gostx_ike_engine *e, gostx_ike_writer *w, int we_initiate) {
  const int ours_first = (e->cf->role == GOSTX_IKE_INITIATOR) == we_initiate;
  gostx__ike_w_ts(w, GOSTX_IKE_PT_TSI, ours_first ? &e->ts_i : &e->ts_r);
  gostx__ike_w_ts(w, GOSTX_IKE_PT_TSR, ours_first ? &e->ts_r : &e->ts_i);
}

static int ts_equal(const gostx_ike_ts_set *a, const gostx_ike_ts_set *b) {
  if (a->n != b->n) return 0;
  for (size_t i = 0; i < a->n; i++) {
    const gostx_ike_ts *x = &a->ts[i], *y = &b->ts[i];
    const size_t l = x->type == GOSTX_IKE_TS_IPV4 ? 4 : 16;
    if (x->type != y->type || x->ip_proto != y->ip_proto || x->start_port != y->start_port ||
        x->end_port != y->end_port || memcmp(x->start, y->start, l) || memcmp(x->end, y->end, l))
      return 0;
  }
  return 1;
}

/* The request's selectors are the current SA's (the peer initiating). */
static int ts_same(const gostx_ike_engine *e, const gostx_ike_chain *c) {
  gostx_ike_ts_set tsi, tsr;
  const gostx_ike_payload *pi = gostx__ike_find(c, GOSTX_IKE_PT_TSI);
  const gostx_ike_payload *pr = gostx__ike_find(c, GOSTX_IKE_PT_TSR);
  if (!pi || !pr || gostx__ike_ts_read(pi->body, pi->len, &tsi) != GOSTX_OK ||
      gostx__ike_ts_read(pr->body, pr->len, &tsr) != GOSTX_OK)
    return 0;
  const int peer_is_i = e->cf->role == GOSTX_IKE_RESPONDER; /* its TSi is IKE_AUTH's TSi */
  return ts_equal(peer_is_i ? &e->ts_i : &e->ts_r, &tsi) &&
         ts_equal(peer_is_i ? &e->ts_r : &e->ts_i, &tsr);
}

/* KEYMAT = prf+(SK_d, [g^ir |] Ni | Nr) into a new Child SA: the
 * initiator-to-responder keys first (2.17). */
static int keymat(const gostx_ike_engine *e, const uint8_t *gir, size_t gir_len,
                  const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                  int we_initiated, uint32_t spi_in, uint32_t spi_out, gostx_ike_child *ch) {
  uint8_t km[KM_MAX];
  const size_t kl = e->k.enc_len;
  memset(ch, 0, sizeof *ch);
  int rc = gostx__ike_keymat(e->k.sk_d, gir, gir_len, ni, ni_len, nr, nr_len, km, 2 * kl);
  if (rc != GOSTX_OK) return rc;
  memcpy(we_initiated ? ch->key_out : ch->key_in, km, kl);
  memcpy(we_initiated ? ch->key_in : ch->key_out, km + kl, kl);
  gostx_memzero(km, sizeof km);
  ch->valid = 1;
  ch->ours = we_initiated;
  ch->encr = e->encr;
  ch->key_len = kl;
  ch->spi_in = spi_in;
  ch->spi_out = spi_out;
  return GOSTX_OK;
}

/* a < b as octet strings (nonces are public: 2.8.1 compares them) */
static int nonce_less(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  const size_t l = al < bl ? al : bl;
  const int c = memcmp(a, b, l);
  return c < 0 || (c == 0 && al < bl);
}

static void keep_low(uint8_t *low, size_t *low_len, const uint8_t *n, size_t l) {
  if (!*low_len || nonce_less(n, l, low, *low_len)) {
    memcpy(low, n, l);
    *low_len = l;
  }
}

/* ---- initiator ---- */

int gostx__ike_rekey_child(gostx_ike_engine *e, int pfs, int64_t now_ms, uint8_t *out,
                           size_t cap, size_t *out_len) {
  if (!out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  int rc = gostx__ike_may_request(e);
  if (rc != GOSTX_OK) return rc;
  if (!e->child.valid || e->old.valid || e->twin.valid) return GOSTX_ESTATE; /* one at a time */
  rc = gostx__ike_draw_nonce(e, e->pend_nonce);
  if (rc == GOSTX_OK) rc = new_spi(e, &e->pend_spi);
  if (rc == GOSTX_OK && pfs) rc = gostx__ike_new_ke(e, e->group);
  if (rc != GOSTX_OK) return rc;
  e->pend_pfs = pfs != 0;
  uint8_t inner[1024], old_spi[4];
  gostx_ike_writer w;
  gostx_ike_sa sa;
  put32(old_spi, e->child.spi_in); /* the SA as we receive it (2.8) */
  gostx__ike_w_inner(&w, inner, sizeof inner);
  gostx__ike_w_notify_spi(&w, GOSTX_IKE_N_REKEY_SA, GOSTX_IKE_PROTO_ESP, old_spi, 4);
  gostx__ike_esp_proposal(e, 1, e->pend_spi, pfs ? e->group : 0, &sa);
  gostx__ike_w_sa(&w, &sa);
  gostx__ike_w_raw(&w, GOSTX_IKE_PT_NONCE, e->pend_nonce, NONCE_LEN);
  if (pfs) gostx__ike_w_ke(&w, e->group, e->pub, gostx__ike_ke_len(e->group));
  w_ts(e, &w, 1);
  return gostx__ike_request(e, GOSTX_IKE_CREATE_CHILD_SA, GOSTX_IKE_X_REKEY_CHILD, 0, &w,
                            now_ms, out, cap, out_len);
}

/* Our Delete of the SA whose inbound SPI is spi (after our rekey). */
static int send_delete(gostx_ike_engine *e, uint32_t spi, int64_t now_ms, uint8_t *out,
                       size_t cap, size_t *out_len) {
  uint8_t inner[64], b[4];
  gostx_ike_writer w;
  put32(b, spi);
  const gostx_ike_delete d = {GOSTX_IKE_PROTO_ESP, 4, 1, b};
  gostx__ike_w_inner(&w, inner, sizeof inner);
  gostx__ike_w_delete(&w, &d);
  e->pend_spi = spi;
  return gostx__ike_request(e, GOSTX_IKE_INFORMATIONAL, GOSTX_IKE_X_DELETE_CHILD, 0, &w, now_ms,
                            out, cap, out_len);
}

/* The response's SA: one ESP proposal of our ENCR, with our group when we
 * sent a KE; *peer_spi its SPI. */
static int check_answer_sa(const gostx_ike_engine *e, const gostx_ike_chain *c,
                           uint32_t *peer_spi) {
  gostx_ike_sa sa;
  uint16_t group;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (!p || gostx__ike_sa_read(p->body, p->len, &sa) != GOSTX_OK || sa.n != 1 ||
      !esp_ok(e, &sa.p[0], &group) || group != (e->pend_pfs ? e->group : 0))
    return GOSTX_EFORMAT;
  *peer_spi = be32(sa.p[0].spi);
  return GOSTX_OK;
}

/* Who deletes what once our rekey is answered: with no simultaneous rekey
 * the old SA; with one (2.8.1) the redundant new SA if ours holds the
 * lowest nonce, else the old SA (the peer deletes its redundant one). The
 * SA to delete goes to e->twin or e->old; the Delete goes out. We seal
 * with our new SA at once (the peer installed it before answering); with
 * the peer's SA surviving, only once the peer deletes the old SA: the peer
 * installs its own new inbound SA when our answer reaches it, which may be
 * after its answer reached us (CHILD_OUT then comes from child_gone). */
static int settle(gostx_ike_engine *e, gostx_ike_child *mine, const uint8_t *nr, size_t nr_len,
                  int64_t now_ms, uint8_t *out, size_t cap, size_t *out_len) {
  uint8_t low[256];
  size_t low_len = 0;
  keep_low(low, &low_len, e->pend_nonce, NONCE_LEN);
  keep_low(low, &low_len, nr, nr_len);
  const int mine_redundant =
      e->twin.valid && nonce_less(low, low_len, e->twin_low, e->twin_low_len);
  e->old = e->child;
  if (mine_redundant) { /* the peer's new SA survives; ours goes */
    e->child = e->twin;
    e->twin = *mine;
  } else {
    e->child = *mine;
    e->ev.flags |= GOSTX_IKE_EV_CHILD_OUT;
  }
  return send_delete(e, mine_redundant ? e->twin.spi_in : e->old.spi_in, now_ms, out, cap,
                     out_len);
}

int gostx__ike_child_response(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                              uint8_t *out, size_t cap, size_t *out_len) {
  uint8_t gir[64];
  size_t gir_len = 0;
  uint32_t peer_spi = 0;
  gostx_ike_child mine;
  const uint16_t err = gostx__ike_error_of(c);
  const gostx_ike_payload *np = gostx__ike_nonce_of(c);
  int rc = err ? GOSTX_ESTATE : GOSTX_OK;
  /* refused (CHILD_SA_NOT_FOUND after a simultaneous rekey the peer
   * finished first, TEMPORARY_FAILURE, ...): nothing made, e->error says */
  if (rc == GOSTX_OK && (!np || check_answer_sa(e, c, &peer_spi) != GOSTX_OK)) rc = GOSTX_EFORMAT;
  if (rc == GOSTX_OK && e->pend_pfs) rc = gostx__ike_peer_shared(e, c, e->group, gir, &gir_len);
  if (rc == GOSTX_OK)
    rc = keymat(e, e->pend_pfs ? gir : NULL, gir_len, e->pend_nonce, NONCE_LEN, np->body,
                np->len, 1, e->pend_spi, peer_spi, &mine);
  gostx_memzero(gir, sizeof gir);
  gostx_memzero(e->priv, sizeof e->priv);
  if (rc != GOSTX_OK) {
    e->error = err ? err : GOSTX_IKE_N_INVALID_SYNTAX;
    return GOSTX_OK; /* the exchange is over; the current SA stands */
  }
  gostx__ike_ev_added(e, &mine, e->child.spi_in);
  rc = settle(e, &mine, np->body, np->len, now_ms, out, cap, out_len);
  gostx_memzero(&mine, sizeof mine);
  return rc;
}

/* ---- responder ---- */

/* The refusal that answers a request: one notify (with the SPI for
 * CHILD_SA_NOT_FOUND, 2.25). */
static int refuse(gostx_ike_writer *w, uint16_t type, const gostx_ike_notify *rekey) {
  if (type == GOSTX_IKE_N_CHILD_SA_NOT_FOUND)
    gostx__ike_w_notify_spi(w, type, rekey->proto, rekey->spi, rekey->spi_len);
  else
    gostx__ike_w_notify_type(w, type, NULL, 0);
  return GOSTX_OK;
}

static int find_rekey(const gostx_ike_chain *c, gostx_ike_notify *n) {
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_NOTIFY); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_NOTIFY))
    if (gostx__ike_notify_read(p->body, p->len, n) == GOSTX_OK && n->type == GOSTX_IKE_N_REKEY_SA)
      return n->proto == GOSTX_IKE_PROTO_ESP && n->spi_len == 4 ? GOSTX_OK : GOSTX_EFORMAT;
  return GOSTX_EUNSUP;
}

/* The proposal of c we take: its index, *group its KE (0 for none). */
static int choose(const gostx_ike_engine *e, const gostx_ike_sa *sa, uint16_t *group) {
  for (size_t i = 0; i < sa->n; i++)
    if (esp_ok(e, &sa->p[i], group)) return (int)i;
  return -1;
}

/* The new SA of the peer's rekey into e->child (the current one to
 * e->old), or into e->twin when we are rekeying it too (2.8.1). */
static void take_new(gostx_ike_engine *e, const gostx_ike_child *ch, const uint8_t *ni,
                     size_t ni_len, const uint8_t *nr) {
  gostx__ike_ev_added(e, ch, e->child.spi_in);
  if (e->pend == GOSTX_IKE_X_REKEY_CHILD) {
    e->twin = *ch;
    e->twin_low_len = 0;
    keep_low(e->twin_low, &e->twin_low_len, ni, ni_len);
    keep_low(e->twin_low, &e->twin_low_len, nr, NONCE_LEN);
    return;
  }
  e->old = e->child;
  e->child = *ch;
}

/* The answer's inside: SA, Nr, [KE], TSi, TSr. */
static void w_answer(gostx_ike_engine *e, gostx_ike_writer *w, uint8_t num, uint32_t spi,
                     uint16_t group, const uint8_t *nr) {
  gostx_ike_sa sa;
  gostx__ike_esp_proposal(e, num, spi, group, &sa);
  gostx__ike_w_sa(w, &sa);
  gostx__ike_w_raw(w, GOSTX_IKE_PT_NONCE, nr, NONCE_LEN);
  if (group) gostx__ike_w_ke(w, group, e->pub, gostx__ike_ke_len(group));
  w_ts(e, w, 0);
}

static int rekey_answer(gostx_ike_engine *e, const gostx_ike_chain *c, const gostx_ike_sa *sa,
                        int chosen, uint16_t group, gostx_ike_writer *w) {
  uint8_t nr[NONCE_LEN], gir[64];
  size_t gir_len = 0;
  uint32_t spi;
  gostx_ike_child ch;
  const gostx_ike_payload *np = gostx__ike_nonce_of(c);
  if (!np) return refuse(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL);
  int rc = gostx__ike_draw_nonce(e, nr);
  if (rc == GOSTX_OK) rc = new_spi(e, &spi);
  if (rc == GOSTX_OK && group) rc = gostx__ike_new_ke(e, group);
  if (rc == GOSTX_OK && group && gostx__ike_peer_shared(e, c, group, gir, &gir_len) != GOSTX_OK)
    return refuse(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL); /* off the curve: RFC 9385 6.1 */
  if (rc != GOSTX_OK) return rc;
  rc = keymat(e, group ? gir : NULL, gir_len, np->body, np->len, nr, NONCE_LEN, 0, spi,
              be32(sa->p[chosen].spi), &ch);
  gostx_memzero(gir, sizeof gir);
  if (rc == GOSTX_OK) {
    w_answer(e, w, sa->p[chosen].num, spi, group, nr);
    take_new(e, &ch, np->body, np->len, nr);
  }
  gostx_memzero(&ch, sizeof ch);
  return rc;
}

int gostx__ike_child_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w) {
  gostx_ike_notify rekey;
  gostx_ike_sa sa;
  uint16_t group, ke_group;
  const uint8_t *ke;
  size_t ke_len;
  const int has_rekey = find_rekey(c, &rekey);
  if (has_rekey == GOSTX_EUNSUP) { /* a new Child SA: this engine keeps one pair */
    e->refused_child = 1;
    return refuse(w, GOSTX_IKE_N_NO_ADDITIONAL_SAS, NULL);
  }
  const gostx_ike_payload *sp = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  if (has_rekey != GOSTX_OK || !sp || gostx__ike_sa_read(sp->body, sp->len, &sa) != GOSTX_OK)
    return refuse(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL);
  /* 2.25: only the current SA is rekeyed, and not while the IKE SA is */
  if (!e->child.valid || e->child.spi_out != be32(rekey.spi) || e->twin.valid)
    return refuse(w, GOSTX_IKE_N_CHILD_SA_NOT_FOUND, &rekey);
  if (e->pend == GOSTX_IKE_X_REKEY_IKE || e->old.valid)
    return refuse(w, GOSTX_IKE_N_TEMPORARY_FAILURE, NULL);
  const int chosen = choose(e, &sa, &group);
  if (chosen < 0) return refuse(w, GOSTX_IKE_N_NO_PROPOSAL_CHOSEN, NULL);
  if (!ts_same(e, c)) return refuse(w, GOSTX_IKE_N_TS_UNACCEPTABLE, NULL);
  const gostx_ike_payload *kp = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  if (group && (!kp || gostx__ike_ke_read(kp->body, kp->len, &ke_group, &ke, &ke_len) != GOSTX_OK ||
                ke_group != group)) { /* 1.3: the group we take, named */
    const uint8_t g[2] = {(uint8_t)(group >> 8), (uint8_t)group};
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_KE_PAYLOAD, g, 2);
    return GOSTX_OK;
  }
  /* our own request's private key (a simultaneous rekey) outlives this answer */
  uint8_t priv[sizeof e->priv];
  const uint16_t ike_group = e->group;
  memcpy(priv, e->priv, sizeof priv);
  const int rc = rekey_answer(e, c, &sa, chosen, group, w);
  memcpy(e->priv, priv, sizeof priv);
  gostx_memzero(priv, sizeof priv);
  e->group = ike_group;
  return rc;
}
