/* INFORMATIONAL (RFC 7296 1.4): Delete of a Child SA (the answer names our
 * half of each pair deleted, 1.4.1 and 3.11) or of the IKE SA (an empty
 * answer, and every Child SA goes with it), and the empty request of
 * liveness checks (DPD). */
#include <string.h>

#include "engine_int.h"

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* The IKE SA is gone: so is every Child SA under it. */
static void ike_gone(gostx_ike_engine *e) {
  gostx__ike_ev_retired(e, &e->child);
  gostx__ike_ev_retired(e, &e->old);
  gostx__ike_ev_retired(e, &e->twin);
  e->state = GOSTX_IKE_S_DELETED;
  gostx__ike_pend_done(e);
  e->ev.flags |= GOSTX_IKE_EV_IKE_DELETED;
}

/* A Child SA deleted: out of its slot; the current one's successor (a
 * simultaneous rekey's survivor) moves up; the old one gone means the
 * rekey's responder now seals with the new SA. */
static void child_gone(gostx_ike_engine *e, gostx_ike_child *ch) {
  const int was_current = ch == &e->child, was_old = ch == &e->old;
  gostx__ike_ev_retired(e, ch);
  if (was_current && e->twin.valid) {
    e->child = e->twin;
    gostx_memzero(&e->twin, sizeof e->twin);
  }
  if ((was_current || was_old) && e->child.valid) e->ev.flags |= GOSTX_IKE_EV_CHILD_OUT;
}

/* Our slot whose SPI (inbound when in, else outbound) is spi, or NULL. */
static gostx_ike_child *slot_of(gostx_ike_engine *e, uint32_t spi, int in) {
  gostx_ike_child *s[3] = {&e->child, &e->old, &e->twin};
  for (int i = 0; i < 3; i++)
    if (s[i]->valid && (in ? s[i]->spi_in : s[i]->spi_out) == spi) return s[i];
  return NULL;
}

int gostx__ike_delete(gostx_ike_engine *e, int what, int64_t now_ms, uint8_t *out, size_t cap,
                      size_t *out_len) {
  if (!out || !out_len || (what != GOSTX_IKE_DEL_CHILD && what != GOSTX_IKE_DEL_IKE))
    return GOSTX_EINVAL;
  *out_len = 0;
  int rc = gostx__ike_may_request(e);
  if (rc != GOSTX_OK) return rc;
  if (what == GOSTX_IKE_DEL_CHILD && !e->child.valid) return GOSTX_ESTATE;
  uint8_t inner[64], spi[4];
  gostx_ike_writer w;
  gostx_ike_delete d = {GOSTX_IKE_PROTO_IKE, 0, 0, NULL};
  if (what == GOSTX_IKE_DEL_CHILD) {
    put32(spi, e->child.spi_in);
    d = (gostx_ike_delete){GOSTX_IKE_PROTO_ESP, 4, 1, spi};
    e->pend_spi = e->child.spi_in;
  }
  gostx__ike_w_inner(&w, inner, sizeof inner);
  gostx__ike_w_delete(&w, &d);
  return gostx__ike_request(e, GOSTX_IKE_INFORMATIONAL,
                            what == GOSTX_IKE_DEL_IKE ? GOSTX_IKE_X_DELETE_IKE
                                                      : GOSTX_IKE_X_DELETE_CHILD,
                            0, &w, now_ms, out, cap, out_len);
}

int gostx__ike_dpd(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                   size_t *out_len) {
  if (!out || !out_len) return GOSTX_EINVAL;
  *out_len = 0;
  int rc = gostx__ike_may_request(e);
  if (rc != GOSTX_OK) return rc;
  uint8_t inner[8];
  gostx_ike_writer w;
  gostx__ike_w_inner(&w, inner, sizeof inner);
  return gostx__ike_request(e, GOSTX_IKE_INFORMATIONAL, GOSTX_IKE_X_DPD, 0, &w, now_ms, out, cap,
                            out_len);
}

/* The peer's ESP Delete d: each pair found is retired and our half named
 * in the answer (ours[n]); one we are deleting ourselves is retired but
 * not named (2.25.1). */
static void delete_children(gostx_ike_engine *e, const gostx_ike_delete *d, uint8_t *ours,
                            size_t *n, size_t max) {
  for (size_t i = 0; i < d->count; i++) {
    gostx_ike_child *ch = slot_of(e, be32(d->spis + 4 * i), 0);
    if (!ch) continue; /* unknown: nothing to name (2.25.1) */
    const int ours_too = e->pend == GOSTX_IKE_X_DELETE_CHILD && e->pend_spi == ch->spi_in;
    if (!ours_too && *n < max) put32(ours + 4 * (*n)++, ch->spi_in);
    child_gone(e, ch);
  }
}

int gostx__ike_info_request(gostx_ike_engine *e, const gostx_ike_chain *c, gostx_ike_writer *w,
                            gostx_ike_new_sa *ns) {
  enum { MAX_SPIS = 16 };
  uint8_t ours[4 * MAX_SPIS];
  size_t n = 0;
  gostx_ike_delete d;
  for (const gostx_ike_payload *p = gostx__ike_find(c, GOSTX_IKE_PT_DELETE); p;
       p = gostx__ike_find_next(c, p, GOSTX_IKE_PT_DELETE)) {
    if (gostx__ike_delete_read(p->body, p->len, &d) != GOSTX_OK) {
      gostx__ike_w_notify_type(w, GOSTX_IKE_N_INVALID_SYNTAX, NULL, 0);
      return GOSTX_OK;
    }
    if (d.proto == GOSTX_IKE_PROTO_IKE) { /* 1.4.1: answered empty, all gone */
      if (!gostx__ike_ikesa_deleted_in_rekey(e, ns)) ike_gone(e);
      return GOSTX_OK;
    }
    if (d.proto == GOSTX_IKE_PROTO_ESP) delete_children(e, &d, ours, &n, MAX_SPIS);
  }
  if (n) {
    const gostx_ike_delete a = {GOSTX_IKE_PROTO_ESP, 4, (uint16_t)n, ours};
    gostx__ike_w_delete(w, &a);
  }
  return GOSTX_OK; /* nothing asked (liveness): an empty answer */
}

void gostx__ike_info_response(gostx_ike_engine *e, uint8_t kind, const gostx_ike_chain *c) {
  (void)c; /* the pair's other half is retired by our own SPI */
  if (kind == GOSTX_IKE_X_DPD) e->ev.flags |= GOSTX_IKE_EV_ALIVE;
  if (kind == GOSTX_IKE_X_DELETE_IKE) ike_gone(e);
  if (kind == GOSTX_IKE_X_DELETE_CHILD) {
    gostx_ike_child *ch = slot_of(e, e->pend_spi, 1);
    if (ch) child_gone(e, ch);
  }
}
