/* CREATE_CHILD_SA rekeying the IKE SA (RFC 7296 1.3.2, 2.18): new SPIs, a
 * new KE of a GOST group, SKEYSEED = prf(SK_d (old), g^ir (new) | Ni | Nr)
 * and SK_* from it; the Child SAs move over as they are (the engine holds
 * them beside the IKE SA); the rekey's initiator becomes the new SA's
 * original initiator and deletes the old SA over the old SA. Two rekeys
 * crossing (2.8.2): the new SA with the lowest nonce is deleted by its
 * creator, the other survives. */
#include <string.h>

#include "engine_int.h"

enum { NONCE_LEN = 32 };

static void ike_proposal(const gostx_ike_engine *e, uint8_t num, const uint8_t spi[8],
                         uint16_t group, gostx_ike_sa *sa) {
  gostx_ike_proposal *p = gostx__ike_proposal_one(sa, num, GOSTX_IKE_PROTO_IKE, spi, 8, e->encr);
  p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_PRF, GOSTX_IKE_PRF_HMAC_STREEBOG_512, -1, 0};
  p->t[p->n++] = (gostx_ike_transform){GOSTX_IKE_TT_KE, group, -1, 0};
}

/* An IKE proposal we take: an 8-octet SPI not 0, the SA's ENCR, the PRF,
 * GOST KE methods and nothing else; *group ours when listed. */
static int ike_ok(const gostx_ike_engine *e, const gostx_ike_proposal *p, uint16_t *group) {
  int encr = 0, prf = 0;
  *group = 0;
  if (p->proto != GOSTX_IKE_PROTO_IKE || p->spi_len != 8 ||
      !memcmp(p->spi, "\0\0\0\0\0\0\0\0", 8))
    return 0;
  for (size_t i = 0; i < p->n; i++) {
    const gostx_ike_transform *t = &p->t[i];
    const int usable = !t->unknown_attr && t->key_len < 0;
    if (t->type == GOSTX_IKE_TT_ENCR) encr |= usable && t->id == e->encr;
    else if (t->type == GOSTX_IKE_TT_PRF) prf |= usable && t->id == GOSTX_IKE_PRF_HMAC_STREEBOG_512;
    else if (t->type != GOSTX_IKE_TT_KE || !usable || !gostx__ike_ke_curve(t->id)) return 0;
    else if (!*group || t->id == e->group) *group = t->id;
  }
  return encr && prf && *group;
}

int gostx__ike_is_ike_rekey(const gostx_ike_chain *c) {
  gostx_ike_sa sa;
  const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  return p && gostx__ike_sa_read(p->body, p->len, &sa) == GOSTX_OK && sa.n &&
         sa.p[0].proto == GOSTX_IKE_PROTO_IKE;
}

/* a against b as octet strings, a shorter prefix first. */
static int nonce_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
  const int c = memcmp(a, b, al < bl ? al : bl);
  return c ? c : (al > bl) - (al < bl);
}

/* The new SA's keys (2.18) from the old SK_d. */
static int new_keys(const gostx_ike_engine *e, const uint8_t *gir, size_t gir_len,
                    const uint8_t *ni, size_t ni_len, const uint8_t *nr, size_t nr_len,
                    const uint8_t spi_i[8], const uint8_t spi_r[8], int ours,
                    gostx_ike_new_sa *ns) {
  uint8_t seed[GOSTX_IKE_PRF_LEN];
  int rc = gostx__ike_skeyseed(e->k.sk_d, ni, ni_len, nr, nr_len, gir, gir_len, seed);
  if (rc == GOSTX_OK)
    rc = gostx__ike_sa_keys(seed, e->encr, ni, ni_len, nr, nr_len, spi_i, spi_r, &ns->k);
  gostx_memzero(seed, sizeof seed);
  memcpy(ns->spi_i, spi_i, 8);
  memcpy(ns->spi_r, spi_r, 8);
  ns->orig_init = (uint8_t)ours;
  /* the exchange's lower nonce (public): 2.8.2 compares them */
  const int ni_low = nonce_cmp(ni, ni_len, nr, nr_len) < 0;
  ns->low_len = ni_low ? ni_len : nr_len;
  memcpy(ns->low, ni_low ? ni : nr, ns->low_len);
  ns->ready = rc == GOSTX_OK;
  return rc;
}

int gostx__ike_rekey_ike(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                         size_t *out_len) {
  if (!out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  int rc = gostx__ike_may_request(e);
  if (rc != GOSTX_OK) return rc;
  if (e->old.valid || e->twin.valid || e->old_sa[0].valid)
    return GOSTX_ESTATE; /* 2.25.1; and the last rekey's old SA deleted first */
  rc = gostx__ike_draw_spi(e, e->pend_ike_spi);
  if (rc == GOSTX_OK) rc = gostx__ike_draw_nonce(e, e->pend_nonce);
  if (rc == GOSTX_OK) rc = gostx__ike_new_ke(e, e->group);
  if (rc != GOSTX_OK) return rc;
  uint8_t inner[512];
  gostx_ike_writer w;
  gostx_ike_sa sa;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  ike_proposal(e, 1, e->pend_ike_spi, e->group, &sa);
  gostx__ike_w_sa(&w, &sa);
  gostx__ike_w_raw(&w, GOSTX_IKE_PT_NONCE, e->pend_nonce, NONCE_LEN);
  gostx__ike_w_ke(&w, e->group, e->pub, gostx__ike_ke_len(e->group));
  return gostx__ike_request(e, GOSTX_IKE_CREATE_CHILD_SA, GOSTX_IKE_X_REKEY_IKE, 0, &w, now_ms,
                            out, cap, out_len);
}

/* ns into slot o, the keys and counters of a fresh SA. */
static int slot_of_new(const gostx_ike_engine *e, const gostx_ike_new_sa *ns,
                       gostx_ike_old_sa *o) {
  memset(o, 0, sizeof *o);
  o->valid = 1;
  o->orig_init = ns->orig_init;
  memcpy(o->spi_i, ns->spi_i, 8);
  memcpy(o->spi_r, ns->spi_r, 8);
  o->iv_out = 1;
  const gostx_ike_keys *k = &ns->k;
  int rc = gostx__ike_sk_init(&o->sk_out, e->encr, ns->orig_init ? k->sk_ei : k->sk_er,
                              k->enc_len);
  if (rc == GOSTX_OK)
    rc = gostx__ike_sk_init(&o->sk_in, e->encr, ns->orig_init ? k->sk_er : k->sk_ei, k->enc_len);
  return rc;
}

static void slot_clear(gostx_ike_old_sa *o) {
  gostx__ike_sk_clear(&o->sk_in);
  gostx__ike_sk_clear(&o->sk_out);
  memset(o, 0, sizeof *o);
}

int gostx__ike_ikesa_switch(gostx_ike_engine *e, const gostx_ike_new_sa *ns) {
  gostx_ike_old_sa *o = &e->old_sa[0];
  slot_clear(o); /* SAs before it, closed: forgotten */
  slot_clear(&e->old_sa[1]);
  o->valid = 1;
  o->orig_init = e->orig_init;
  memcpy(o->spi_i, e->spi_i, 8);
  memcpy(o->spi_r, e->spi_r, 8);
  o->sk_in = e->sk_in;
  o->sk_out = e->sk_out;
  o->iv_out = e->iv_out;
  o->req_id = e->req_id;
  o->peer_req = e->peer_req;
  o->tx_cached = e->tx_len != 0; /* until the new SA answers its first request */
  memcpy(e->spi_i, ns->spi_i, 8);
  memcpy(e->spi_r, ns->spi_r, 8);
  e->k = ns->k;
  e->orig_init = ns->orig_init;
  int rc = gostx__ike_sk_init(&e->sk_out, e->encr, e->orig_init ? e->k.sk_ei : e->k.sk_er,
                              e->k.enc_len);
  if (rc == GOSTX_OK)
    rc = gostx__ike_sk_init(&e->sk_in, e->encr, e->orig_init ? e->k.sk_er : e->k.sk_ei,
                            e->k.enc_len);
  e->iv_out = 1;
  e->req_id = e->peer_req = 0; /* a new SA counts from 0 (2.18) */
  e->ev.flags |= GOSTX_IKE_EV_IKE_REKEYED;
  return rc;
}

int gostx__ike_ikesa_deleted_in_rekey(gostx_ike_engine *e, gostx_ike_new_sa *ns) {
  if (!e->ike_twin.ready) return 0;
  *ns = e->ike_twin;
  gostx_memzero(&e->ike_twin, sizeof e->ike_twin);
  gostx__ike_pend_done(e); /* our own rekey forgotten */
  gostx_memzero(e->priv, sizeof e->priv);
  return 1;
}

/* The refusals of 2.25.1/2.25.2: TEMPORARY_FAILURE while a Child SA is
 * being rekeyed or deleted, the last rekey's old SA not yet deleted, or a
 * request of ours other than an IKE SA rekey is out. */
static int busy(const gostx_ike_engine *e) {
  return (e->pend != GOSTX_IKE_X_NONE && e->pend != GOSTX_IKE_X_REKEY_IKE) || e->old.valid ||
         e->twin.valid || e->old_sa[0].valid || e->ike_twin.ready;
}

static int answer_ke(gostx_ike_engine *e, const gostx_ike_chain *c, uint16_t group,
                     const gostx_ike_payload *np, uint8_t num, const uint8_t *peer_spi,
                     gostx_ike_writer *w, gostx_ike_new_sa *ns) {
  uint8_t spi[8], nr[NONCE_LEN], gir[64];
  size_t gir_len = 0;
  const uint16_t old_group = e->group;
  int rc = gostx__ike_draw_spi(e, spi);
  if (rc == GOSTX_OK) rc = gostx__ike_draw_nonce(e, nr);
  if (rc == GOSTX_OK) rc = gostx__ike_new_ke(e, group);
  if (rc == GOSTX_OK && gostx__ike_peer_shared(e, c, group, gir, &gir_len) != GOSTX_OK) {
    e->group = old_group; /* off the curve (RFC 9385 6.1): refused, nothing changes */
    gostx_memzero(e->priv, sizeof e->priv);
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0);
    return GOSTX_OK;
  }
  if (rc == GOSTX_OK)
    rc = new_keys(e, gir, gir_len, np->body, np->len, nr, NONCE_LEN, peer_spi, spi, 0, ns);
  gostx_memzero(gir, sizeof gir);
  gostx_memzero(e->priv, sizeof e->priv);
  if (rc != GOSTX_OK) return rc;
  gostx_ike_sa sa;
  ike_proposal(e, num, spi, group, &sa);
  gostx__ike_w_sa(w, &sa);
  gostx__ike_w_raw(w, GOSTX_IKE_PT_NONCE, nr, NONCE_LEN);
  gostx__ike_w_ke(w, group, e->pub, gostx__ike_ke_len(group));
  return GOSTX_OK;
}

int gostx__ike_ikesa_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w,
                             gostx_ike_new_sa *ns) {
  gostx_ike_sa sa;
  uint16_t group = 0, ke_group;
  const uint8_t *ke;
  size_t ke_len, i = 0;
  if (busy(e)) {
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_TEMPORARY_FAILURE, NULL, 0);
    return GOSTX_OK;
  }
  const gostx_ike_payload *sp = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  const gostx_ike_payload *kp = gostx__ike_find(c, GOSTX_IKE_PT_KE);
  const gostx_ike_payload *np = gostx__ike_nonce_of(c);
  if (!sp || !np || !kp || gostx__ike_sa_read(sp->body, sp->len, &sa) != GOSTX_OK ||
      gostx__ike_ke_read(kp->body, kp->len, &ke_group, &ke, &ke_len) != GOSTX_OK) {
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0);
    return GOSTX_OK;
  }
  while (i < sa.n && !ike_ok(e, &sa.p[i], &group)) i++;
  if (i == sa.n) {
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_NO_PROPOSAL_CHOSEN, NULL, 0);
    return GOSTX_OK;
  }
  if (ke_group != group) { /* 1.3: the group we take, named */
    const uint8_t g[2] = {(uint8_t)(group >> 8), (uint8_t)group};
    gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_KE_PAYLOAD, g, 2);
    return GOSTX_OK;
  }
  if (e->pend != GOSTX_IKE_X_REKEY_IKE)
    return answer_ke(e, c, group, np, sa.p[i].num, sa.p[i].spi, w, ns);
  /* we are rekeying it too (2.8.2): answered as usual, the new SA waits
   * for our own answer; our request's key outlives this answer */
  uint8_t priv[sizeof e->priv];
  const uint16_t our_group = e->group;
  memcpy(priv, e->priv, sizeof priv);
  const int rc = answer_ke(e, c, group, np, sa.p[i].num, sa.p[i].spi, w, &e->ike_twin);
  memcpy(e->priv, priv, sizeof priv);
  gostx_memzero(priv, sizeof priv);
  e->group = our_group;
  return rc;
}

/* Our rekey answered: its SA mine becomes current and the old SA is
 * deleted over itself; after a simultaneous rekey (2.8.2) the new SA with
 * the lower nonce is deleted by its creator instead, the other survives
 * and the one we did not make waits in old_sa[1] for the peer's Delete. */
static int settle(gostx_ike_engine *e, const gostx_ike_new_sa *mine, int64_t now_ms,
                  uint8_t *out, size_t cap, size_t *out_len) {
  const gostx_ike_new_sa *twin = &e->ike_twin;
  const int mine_redundant =
      twin->ready && nonce_cmp(mine->low, mine->low_len, twin->low, twin->low_len) < 0;
  int rc = gostx__ike_ikesa_switch(e, mine_redundant ? twin : mine);
  if (rc == GOSTX_OK && twin->ready)
    rc = slot_of_new(e, mine_redundant ? mine : twin, &e->old_sa[1]);
  e->old_sa[1].expire_ms = mine_redundant ? INT64_MAX : now_ms + GOSTX_IKE_REDUNDANT_MS;
  gostx_memzero(&e->ike_twin, sizeof e->ike_twin);
  if (rc != GOSTX_OK) return rc;
  /* mine redundant: the peer deletes the old SA, we the one we made */
  uint8_t inner[16];
  gostx_ike_writer w;
  const gostx_ike_delete d = {GOSTX_IKE_PROTO_IKE, 0, 0, NULL};
  gostx__ike_w_inner(&w, inner, sizeof inner);
  gostx__ike_w_delete(&w, &d);
  return gostx__ike_request(e, GOSTX_IKE_INFORMATIONAL, GOSTX_IKE_X_DELETE_OLD_IKE,
                            mine_redundant ? 2 : 1, &w, now_ms, out, cap, out_len);
}

int gostx__ike_ikesa_response(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now_ms,
                              uint8_t *out, size_t cap, size_t *out_len) {
  gostx_ike_sa sa;
  gostx_ike_new_sa ns;
  uint16_t group = 0;
  uint8_t gir[64];
  size_t gir_len = 0;
  memset(&ns, 0, sizeof ns);
  const uint16_t err = gostx__ike_error_of(c);
  const gostx_ike_payload *sp = gostx__ike_find(c, GOSTX_IKE_PT_SA);
  const gostx_ike_payload *np = gostx__ike_nonce_of(c);
  int rc = err || !sp || !np || gostx__ike_sa_read(sp->body, sp->len, &sa) != GOSTX_OK ||
                   sa.n != 1 || sa.p[0].n != 3 || !ike_ok(e, &sa.p[0], &group) ||
                   group != e->group
               ? GOSTX_EFORMAT
               : GOSTX_OK;
  if (rc == GOSTX_OK) rc = gostx__ike_peer_shared(e, c, e->group, gir, &gir_len);
  if (rc == GOSTX_OK)
    rc = new_keys(e, gir, gir_len, e->pend_nonce, NONCE_LEN, np->body, np->len, e->pend_ike_spi,
                  sa.p[0].spi, 1, &ns);
  gostx_memzero(gir, sizeof gir);
  gostx_memzero(e->priv, sizeof e->priv);
  if (rc != GOSTX_OK) { /* refused (TEMPORARY_FAILURE, ...) or unusable: the SA stands */
    e->error = err ? err : GOSTX_IKE_N_INVALID_SYNTAX;
    if (!e->ike_twin.ready) return GOSTX_OK;
    rc = gostx__ike_ikesa_switch(e, &e->ike_twin); /* the peer's rekey went through alone */
    gostx_memzero(&e->ike_twin, sizeof e->ike_twin);
    return rc;
  }
  rc = settle(e, &ns, now_ms, out, cap, out_len);
  gostx_memzero(&ns, sizeof ns);
  return rc;
}
