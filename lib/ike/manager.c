/* The IKE manager (manager.h): the SA table (ours as initiator, the
 * responders' slots), how each datagram finds its SA, the starts of new
 * ones (the cookie gate and the bound on half-open SAs in front of the
 * responders, the collision rule between both sides' initiators), the
 * unprotected hints both ways (RFC 7296 2.21.4), the clocks of the SAs not
 * yet installed, and the shutdown's Delete. The installed SA's life is
 * mgr_live.c's, the events out mgr_out.c's. */
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "mgr_int.h"

/* a log line of k's, k's engine output to the peer (mgr_out.c) */
#define say(...) gostx__ike_mgr_say(k, __VA_ARGS__)
#define send_to gostx__ike_mgr_send
#define addr_text gostx__ike_mgr_addr_text
#define feed gostx__ike_mgr_feed
#define show gostx__ike_mgr_show

/* Where the peer's IKE listens: its address at our IKE port (its data
 * port, behind the marker, when ours is the data port) */
static void peer_ike(const gostx__ike_mgr *k, gostx__ike_mgr_to *to) {
  to->addr = k->set.peer;
  to->encap = k->set.on_data_port;
  if (!to->encap) to->addr.port = k->set.local.port;
}

/* Every IPv4 and IPv6 address, every port and protocol: the tunnel
 * carries all of what its TUN device is routed. */
static void ts_all(gostx_ike_ts_set *s) {
  memset(s, 0, sizeof *s);
  s->n = 2;
  s->ts[0].type = GOSTX_IKE_TS_IPV4;
  s->ts[1].type = GOSTX_IKE_TS_IPV6;
  for (int i = 0; i < 2; i++) {
    s->ts[i].end_port = 65535;
    memset(s->ts[i].end, 0xff, 16);
  }
}

/* A responder's TSi of the caller's prefixes (at most GOSTX_IKE_MAX_TS). */
static void ts_of(const gostx__ike_mgr_prefix *p, size_t n, gostx_ike_ts_set *s) {
  memset(s, 0, sizeof *s);
  for (size_t i = 0; i < n && s->n < GOSTX_IKE_MAX_TS; i++) {
    gostx_ike_ts *t = &s->ts[s->n++];
    t->type = p[i].ip_len == 4 ? GOSTX_IKE_TS_IPV4 : GOSTX_IKE_TS_IPV6;
    t->end_port = 65535;
    for (unsigned b = 0; b < p[i].ip_len; b++) {
      const unsigned left = p[i].len > 8 * b ? p[i].len - 8 * b : 0;
      const uint8_t mask = left >= 8 ? 0xff : (uint8_t)(0xff00 >> left);
      t->start[b] = p[i].ip[b] & mask;
      t->end[b] = p[i].ip[b] | (uint8_t)~mask;
    }
  }
}

_Static_assert((int)GOSTX_IKE_MGR_REVOCATION_OFF == (int)GOSTX_IKE_REVOCATION_OFF &&
                   (int)GOSTX_IKE_MGR_REVOCATION_WARN == (int)GOSTX_IKE_REVOCATION_WARN &&
                   (int)GOSTX_IKE_MGR_REVOCATION_REQUIRE == (int)GOSTX_IKE_REVOCATION_REQUIRE,
               "the manager's revocation policies are lib/ike's");

/* A remote user's IDi against the patterns: the responders' conf (peer_id
 * NULL: the ID stands as matched), or NULL, said. */
static const gostx_ike_conf *pick_peer(void *ctx, uint8_t type, const uint8_t *id, size_t len) {
  gostx__ike_mgr *k = ctx;
  const uint8_t *psk;
  size_t psk_len;
  /* named from now on by the ID it gives (checked or refused below) */
  k->set.peer_id_text = gostx__ike_mgr_id_text(type, id, len, k->peer_id_seen,
                                               sizeof k->peer_id_seen);
  if (k->set.peer_psk && !k->set.peer_psk(k->set.assign_ctx, type, id, len, &psk, &psk_len)) {
    if (!k->cf_psk) { /* made by make_confs with peer_psk: only out of memory */
      say("IKE_AUTH from %s refused: out of memory", k->set.peer_text);
      return NULL;
    }
    k->cf_psk->psk = psk; /* this manager's users are one source's: one IKE_AUTH at a time */
    k->cf_psk->psk_len = psk_len;
    return k->cf_psk;
  }
  for (size_t i = 0; i < k->set.n_peer_patterns; i++)
    if (gostx__ike_id_match(k->set.peer_patterns[i], type, id, len)) return &k->cf_r;
  say("IKE_AUTH from %s refused: its ID %s matches no remote_id pattern%s", k->set.peer_text,
      k->peer_id_seen, k->set.peer_psk ? " and has no PSK" : "");
  return NULL;
}

/* A remote user's CFG_REQUEST: the caller's address and DNS servers in the reply. */
static int cp_assign(void *ctx, uint8_t type, const uint8_t *id, size_t len,
                     const gostx_ike_cp *req, gostx_ike_cp *reply) {
  gostx__ike_mgr *k = ctx;
  uint8_t ip[4], dns[2][4];
  size_t n_dns = 0;
  (void)req; /* an address it asks for is not granted: the pool decides */
  if (k->set.assign(k->set.assign_ctx, type, id, len, ip, dns, &n_dns)) return GOSTX_ELEN;
  int rc = gostx__ike_cp_add(reply, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, ip, 4);
  for (size_t i = 0; !rc && i < n_dns && i < 2; i++)
    rc = gostx__ike_cp_add(reply, GOSTX_IKE_CA_INTERNAL_IP4_DNS, dns[i], 4);
  return rc;
}

/* A conf on the heap (lib/ike's allocator) for *slot, made once and kept
 * for the manager's life (engines point at it): NULL when out of memory. */
static gostx_ike_conf *conf_slot(gostx_ike_conf **slot) {
  if (!*slot) *slot = (gostx_ike_conf *)gostx__ike_alloc(sizeof **slot);
  return *slot;
}

/* The engine's confs of the settings: the responders' always, ours as
 * initiator only when this side initiates and the one for a remote user's
 * own PSK only when there are such users (1,448 octets each: a gateway's
 * remote user needs neither) */
static void make_confs(gostx__ike_mgr *k, const gostx__ike_mgr_settings *cfg) {
  gostx_ike_conf conf, *c = &conf;
  memset(c, 0, sizeof *c);
  c->encr = cfg->encr[0];
  c->encr_offer = cfg->encr;
  c->n_encr_offer = cfg->n_encr;
  c->group = cfg->group;
  c->auth = cfg->auth;
  c->psk = cfg->psk;
  c->psk_len = cfg->psk_len;
  c->key = cfg->key;
  c->certs = cfg->certs;
  c->cert_lens = cfg->cert_lens;
  c->n_certs = cfg->n_certs;
  c->store = cfg->store;
  c->revocation.crls = cfg->crls;
  c->revocation.n_crls = cfg->n_crls;
  c->revocation.policy = cfg->revocation;
  c->id_type = cfg->id_type;
  c->id = cfg->id;
  c->id_len = cfg->id_len;
  c->peer_id_type = cfg->peer_id_type;
  c->peer_id = cfg->peer_id;
  c->peer_id_len = cfg->peer_id_len;
  c->force_encap = cfg->encap; /* the peer sees a NAT: both move (RFC 9385 A.2) */
  c->frag_size = cfg->frag_size;
  k->cf_r = *c;
  c->role = GOSTX_IKE_INITIATOR;
  ts_all(&c->tsi);
  ts_all(&c->tsr);
  k->cf_r.role = GOSTX_IKE_RESPONDER; /* no selectors of its own but a site's TSi */
  ts_of(cfg->peer_ts, cfg->n_peer_ts, &k->cf_r.tsi);
  c->cp_request = cfg->cp_request;
  k->cf_r.ctx = k;
  k->cf_r.pick = cfg->n_peer_patterns || cfg->peer_psk ? pick_peer : NULL;
  k->cf_r.cp_assign = cfg->assign ? cp_assign : NULL;
  if (cfg->initiate && conf_slot(&k->cf_i)) *k->cf_i = conf;
  if (cfg->peer_psk && conf_slot(&k->cf_psk)) {
    *k->cf_psk = k->cf_r;
    k->cf_psk->auth = GOSTX_IKE_AUTH_PSK;
  }
  gostx_memzero(&conf, sizeof conf); /* it points at the PSK */
}

static void drop_slot(struct gostx__ike_slot *s) {
  if (s->e) gostx__ike_engine_clear(s->e);
  s->used = 0;
}

/* The engines of the slots let go freed (not the installed SA's, nor the
 * one the shutdown still compares with). */
static void reap(gostx__ike_mgr *k) {
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++) {
    struct gostx__ike_slot *s = &k->resp[i];
    if (s->used || !s->e || s->e == k->sa || s->e == k->bye_sa) continue;
    gostx__ike_engine_clear(s->e); /* cleared already: its buffers freed, the struct wiped */
    gostx__ike_free((uint8_t *)s->e, sizeof *s->e);
    s->e = NULL;
  }
}

/* An engine holding nothing on the heap (through lib/ike's allocator: the
 * tests count what an SA costs): NULL when out of memory. */
static gostx_ike_engine *new_engine(void) {
  gostx_ike_engine *e = (gostx_ike_engine *)gostx__ike_alloc(sizeof *e);
  if (e) memset(e, 0, sizeof *e);
  return e;
}

/* A free slot's engine, made when none is left from before: NULL when out
 * of memory. */
static gostx_ike_engine *slot_engine(struct gostx__ike_slot *s) {
  if (!s->e) s->e = new_engine();
  return s->e;
}

/* Our own engine holds the installed SA. */
static int init_installed(const gostx__ike_mgr *k) { return k->init && k->sa == k->init; }

int gostx__ike_mgr_bufs(gostx__ike_mgr *k) {
  k->in = malloc(2 * (size_t)GOSTX_IKE_MSG_MAX);
  if (!k->in) return GOSTX_ENOMEM;
  k->out = k->in + GOSTX_IKE_MSG_MAX;
  return GOSTX_OK;
}

void gostx__ike_mgr_bufs_done(gostx__ike_mgr *k) {
  free(k->in); /* datagrams as on the wire: nothing to wipe */
  k->in = k->out = NULL;
}

/* The responder SAs not installed: in all, and those from src's address
 * (any port: a NAT's peers share one). */
static size_t half_open(const gostx__ike_mgr *k, const gostx__ike_mgr_addr *src,
                        size_t *from_src) {
  size_t n = 0;
  *from_src = 0;
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++) {
    const struct gostx__ike_slot *s = &k->resp[i];
    if (!s->used || s->e == k->sa) continue;
    n++;
    *from_src += s->src.ip_len == src->ip_len && !memcmp(s->src.ip, src->ip, src->ip_len);
  }
  return n;
}

/* Both sides initiating (RFC 7296 leaves it open for the first SA): the
 * exchange the side with the higher address (then port) started is the one
 * both keep, so each installs the same Child SA. 1: ours wins. */
static int we_lead(const gostx__ike_mgr *k, const gostx__ike_mgr_to *from) {
  const gostx__ike_mgr_addr *peer = &from->addr;
  gostx_ike_addr ours = k->local;
  /* where the peer's request came to, when known: a wildcard local would
   * make both sides yield */
  if (from->at.ip_len == ours.ip_len) gostx__ike_mgr_ike_addr(&from->at, &ours);
  int c = memcmp(ours.ip, peer->ip, ours.ip_len);
  return c > 0 || (c == 0 && ours.port > peer->port);
}

/* Our IKE_SA_INIT request again now, not at the timer's next turn (up
 * to 8 s away once backed off): the peer has just shown it is up. */
static void resend_init(gostx__ike_mgr *k) {
  if (!k->init || k->init->state != GOSTX_IKE_S_INIT_SENT || !k->init->tx_len) return;
  memcpy(k->out, k->init->tx, k->init->tx_len);
  send_to(k, &k->init_to, k->init->tx_len); /* where start_init sent it */
}

/* The peer's IKE_SA_INIT while ours is out: 1 when ours leads (the
 * peer's is dropped), 0 when ours was given up for it. */
static int collision(gostx__ike_mgr *k, const gostx__ike_mgr_to *from, int64_t now) {
  const int lead = we_lead(k, from);
  if (!k->collision_said) {
    say("both sides initiate: the exchange of the higher address goes on (%s)",
        lead ? "ours" : "the peer's");
    /* the peer is up now: our request, likely sent before its socket
     * was, goes again at once rather than at the timer's next turn */
    if (lead) resend_init(k);
  }
  k->collision_said = 1;
  if (lead) return 1;
  gostx__ike_engine_clear(k->init);
  k->init_on = 0;
  k->init_next_ms = now + GOSTX_IKE_MGR_YIELD_MS;
  return 0;
}

/* A new responder IKE SA for the request, past the cookie gate (RFC 7296
 * 2.6: nothing is kept for a request without a valid COOKIE from
 * GOSTX_IKE_MGR_COOKIE_AT half-open SAs of its source on, or
 * GOSTX_IKE_MGR_COOKIE_ALL_AT of all) and the bound on open SAs. */
static void new_responder(gostx__ike_mgr *k, size_t len, const gostx__ike_mgr_to *from,
                          int64_t now) {
  size_t mine;
  const size_t open = half_open(k, &from->addr, &mine);
  const int loaded = mine >= GOSTX_IKE_MGR_COOKIE_AT || open >= GOSTX_IKE_MGR_COOKIE_ALL_AT;
  gostx_ike_addr remote;
  size_t n = 0;
  gostx__ike_mgr_ike_addr(&from->addr, &remote);
  int rc = gostx__ike_cookie_gate(k->cookie_secret, 1, (size_t)loaded, 1, k->in, len, remote.ip,
                                  remote.ip_len, k->out, GOSTX_IKE_MSG_MAX, &n);
  char at[56];
  if (rc == 1) {
    say("COOKIE asked of %s (%zu half-open IKE SAs from it, %zu in all)",
        addr_text(&from->addr, at), mine, open);
    send_to(k, from, n);
    return;
  }
  if (rc != GOSTX_OK) return;
  int i = 0;
  while (i < GOSTX_IKE_MGR_SLOTS && k->resp[i].used) i++;
  if (i == GOSTX_IKE_MGR_SLOTS) {
    say("IKE_SA_INIT from %s dropped: %d IKE SAs open (the most)", addr_text(&from->addr, at),
        GOSTX_IKE_MGR_SLOTS);
    return;
  }
  struct gostx__ike_slot *s = &k->resp[i];
  /* NAT detection hashes where the request came to: the caller's word
   * (from->at) when it knows it, else the port's address of the settings */
  gostx_ike_addr local = from->encap ? k->data_local : k->local;
  if (from->at.ip_len) gostx__ike_mgr_ike_addr(&from->at, &local);
  gostx_ike_engine *e = slot_engine(s);
  if (!e || gostx__ike_engine_init(e, &k->cf_r) || gostx__ike_engine_addrs(e, &local, &remote))
    return;
  s->used = 1;
  s->born_ms = now;
  s->src = from->addr;
  say("IKE_SA_INIT from %s (responder)", addr_text(&from->addr, at));
  if (feed(k, e, len, from, now) || e->state == GOSTX_IKE_S_IDLE) drop_slot(s);
}

/* An IKE_SA_INIT request: a retransmission to its responder, or (past
 * the collision rule) a new one. */
static void init_request(gostx__ike_mgr *k, size_t len, const gostx__ike_mgr_to *from,
                         int64_t now) {
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].used && !memcmp(k->resp[i].e->spi_i, k->in, 8)) {
      if (feed(k, k->resp[i].e, len, from, now)) drop_slot(&k->resp[i]);
      return;
    }
  /* with an SA up: the peer restarted (it replaces ours once established) */
  if (k->init_on && !init_installed(k) && collision(k, from, now)) return;
  new_responder(k, len, from, now);
}

/* msg is of e's IKE SA, current or left by a rekey until deleted */
static int sa_owns(const gostx_ike_engine *e, const uint8_t *msg) {
  if (!memcmp(msg, e->spi_i, 8) && !memcmp(msg + 8, e->spi_r, 8)) return 1;
  for (int i = 0; i < 2; i++) {
    const gostx_ike_old_sa *o = &e->old_sa[i];
    if ((o->valid || o->closed) && !memcmp(msg, o->spi_i, 8) && !memcmp(msg + 8, o->spi_r, 8))
      return 1;
  }
  return 0;
}

/* e's keys (its current SPIs and those a rekey left, as sa_owns takes
 * them) into out from n on: the new n. */
static size_t keys_of(const gostx_ike_engine *e, const gostx__ike_mgr_addr *src, int half_open,
                      gostx__ike_mgr_sa_key *out, size_t n) {
  gostx__ike_mgr_sa_key *o = &out[n++];
  memcpy(o->spi_i, e->spi_i, 8);
  memcpy(o->spi_r, e->spi_r, 8);
  o->src = *src;
  o->half_open = half_open;
  for (int i = 0; i < 2 && !half_open; i++) {
    const gostx_ike_old_sa *old = &e->old_sa[i];
    if (!old->valid && !old->closed) continue;
    o = &out[n++];
    memcpy(o->spi_i, old->spi_i, 8);
    memcpy(o->spi_r, old->spi_r, 8);
    o->src = *src;
    o->half_open = 0;
  }
  return n;
}

size_t gostx__ike_mgr_sas(const gostx__ike_mgr *k, gostx__ike_mgr_sa_key *out) {
  size_t n = 0;
  /* the installed SA where its peer's IKE is now (a NAT's move followed) */
  if (k->sa) n = keys_of(k->sa, &k->sa_to.addr, 0, out, n);
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++) {
    const struct gostx__ike_slot *s = &k->resp[i];
    if (s->used && s->e && s->e != k->sa)
      n = keys_of(s->e, &s->src, s->e->state != GOSTX_IKE_S_ESTABLISHED, out, n);
  }
  if (k->init_on && k->init && !init_installed(k))
    n = keys_of(k->init, &k->init_to.addr, 0, out, n);
  return n;
}

/* A new IKE SA of ours in k->init: its IKE_SA_INIT out. */
static void start_init(gostx__ike_mgr *k, int64_t now) {
  gostx_ike_addr remote;
  size_t n = 0;
  peer_ike(k, &k->init_to); /* moved to the data port once answered (init_answered) */
  gostx__ike_mgr_ike_addr(&k->init_to.addr, &remote);
  /* holding no IKE SA (after a start, or once the last one is gone), this
   * one will be the only one: INITIAL_CONTACT tells the peer that what
   * it holds of us is dead (RFC 7296 3.10.1), so it need not wait */
  if (k->cf_i) k->cf_i->initial_contact = !k->sa;
  if (!k->init) k->init = new_engine();
  if (!k->cf_i || !k->init || gostx__ike_engine_init(k->init, k->cf_i) ||
      gostx__ike_engine_addrs(k->init, &k->local, &remote) ||
      gostx__ike_start(k->init, now, k->out, GOSTX_IKE_MSG_MAX, &n)) {
    say("cannot start an IKE SA");
    if (k->init) gostx__ike_engine_clear(k->init); /* what it allocated before failing */
    k->init_next_ms = now + GOSTX_IKE_MGR_RETRY_MS;
    return;
  }
  k->init_on = 1;
  k->collision_said = 0;
  say("IKE_SA_INIT to %s (initiator)", k->set.peer_text);
  if (!k->sa) show(k, 1, NULL, now); /* else the installed SA stays shown until replaced */
  send_to(k, &k->init_to, n);
}

/* A request for an IKE SA not known here (we restarted; the peer did
 * not): INVALID_IKE_SPI, unprotected (RFC 7296 2.21.4), so that the peer
 * starts anew now rather than once its retransmissions give up. */
static void unknown_sa(gostx__ike_mgr *k, size_t len, const gostx__ike_mgr_to *from,
                       int64_t now) {
  size_t n = 0;
  if (now - k->outside_ms < GOSTX_IKE_MGR_OUTSIDE_GAP_MS) return; /* never a reflector of floods */
  if (gostx__ike_invalid_ike_spi(k->in, len, k->out, GOSTX_IKE_MSG_MAX, &n) != 1) return;
  k->outside_ms = now;
  say("a request for an IKE SA not known here: INVALID_IKE_SPI sent");
  send_to(k, from, n); /* the way it came: the IKE port, or the data port behind the marker */
}

/* k->init holds the installed SA: moved into a free responder slot so
 * that k->init can start a new one beside it (the engine holds no pointer
 * into itself; its buffers go with it). 0: no slot free. */
static int free_init(gostx__ike_mgr *k, int64_t now) {
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (!k->resp[i].used && slot_engine(&k->resp[i])) {
      *k->resp[i].e = *k->init;
      k->resp[i].used = 1;
      k->resp[i].born_ms = now;
      k->sa = k->resp[i].e;
      gostx_memzero(k->init, sizeof *k->init); /* moved: its buffers are the slot's */
      k->init_on = 0;
      return 1;
    }
  return 0;
}

/* The peer does not know the SA of our request or of our ESP: likely it
 * restarted. Unprotected, so nothing is changed (2.21.4); an initiator
 * starts a new IKE SA, which replaces the installed one only once
 * authenticated (replace_sa), or sends its IKE_SA_INIT out again now. */
static void hint(gostx__ike_mgr *k, const char *what, int64_t now) {
  if (now - k->hint_ms < GOSTX_IKE_MGR_HINT_GAP_MS) return;
  k->hint_ms = now;
  const int init = k->set.initiate;
  say("the peer does not know our %s (unprotected: a hint)%s", what,
      !init ? "" : k->init_on && !init_installed(k) ? ": our IKE_SA_INIT again"
                                                   : ": a new IKE SA beside the installed one");
  if (!init) return;
  if (k->init_on && !init_installed(k)) resend_init(k);
  else if (!init_installed(k) || free_init(k, now)) start_init(k, now);
}

/* An unprotected INVALID_IKE_SPI (about our IKE SA) or INVALID_SPI (our
 * outbound ESP SPI) from the peer: acted on as a hint. 1 when it is
 * either (never answered, RFC 7296 1.5), 0 for anything else. */
static int outside_hint(gostx__ike_mgr *k, size_t len, int64_t now) {
  gostx_ike_hdr h;
  uint32_t spi = 0;
  const int kind = gostx__ike_outside_hint(k->in, len, &h, &spi);
  if (kind == GOSTX_IKE_HINT_IKE_SPI && k->sa && sa_owns(k->sa, k->in)) hint(k, "IKE SA", now);
  if (kind == GOSTX_IKE_HINT_ESP_SPI && spi && spi == k->spi_out) hint(k, "ESP SPI", now);
  return kind != 0;
}

static void input(gostx__ike_mgr *k, const uint8_t *msg, size_t len,
                  const gostx__ike_mgr_to *from_, int64_t now) {
  const gostx__ike_mgr_to from = *from_;
  reap(k);
  if (k->recheck) gostx__ike_mgr_recheck(k, now); /* a revoked peer's message goes nowhere */
  /* the peer's address only: a point-to-point tunnel has one peer */
  if (len < 28 || len > GOSTX_IKE_MSG_MAX ||
      (!k->set.any_source && !gostx__ike_mgr_same_host(&from.addr, &k->set.peer)))
    return;
  memcpy(k->in, msg, len);
  static const uint8_t zero[8];
  const int response = k->in[19] & 0x20, sa_init = k->in[18] == GOSTX_IKE_SA_INIT;
  if (k->in[16] == GOSTX_IKE_PT_NOTIFY && !sa_init && outside_hint(k, len, now)) return;
  if (k->sa && sa_owns(k->sa, k->in)) {
    feed(k, k->sa, len, &from, now);
    return;
  }
  if (response) {
    if (k->init_on && !memcmp(k->in, k->init->spi_i, 8) && feed(k, k->init, len, &from, now)) {
      gostx__ike_engine_clear(k->init);
      k->init_on = 0;
      k->init_next_ms = now + GOSTX_IKE_MGR_RETRY_MS;
    }
    return;
  }
  if (sa_init && !memcmp(k->in + 8, zero, 8)) {
    init_request(k, len, &from, now);
    return;
  }
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].used && !memcmp(k->resp[i].e->spi_i, k->in, 8) &&
        !memcmp(k->resp[i].e->spi_r, k->in + 8, 8)) {
      if (feed(k, k->resp[i].e, len, &from, now)) drop_slot(&k->resp[i]);
      return;
    }
  unknown_sa(k, len, &from, now);
}

/* ike_initiate = yes: ours started when due (none installed), resent when
 * its timer says (also one started on a hint beside the installed SA) */
static void initiator_tick(gostx__ike_mgr *k, int64_t now) {
  if (!k->set.initiate) return;
  if (!k->init_on || init_installed(k)) {
    if (!k->sa && now >= k->init_next_ms) start_init(k, now);
    return;
  }
  size_t n = 0;
  if (gostx__ike_timer(k->init, now, k->out, GOSTX_IKE_MSG_MAX, &n) == GOSTX_OK)
    send_to(k, &k->init_to, n);
  if (k->init->state == GOSTX_IKE_S_FAILED) {
    gostx__ike_mgr_refused(k, k->init);
    gostx__ike_engine_clear(k->init);
    k->init_on = 0;
    k->init_next_ms = now + GOSTX_IKE_MGR_RETRY_MS;
  }
}

/* ESP under an SPI of no SA while we hold no IKE SA: we lost our state
 * (restarted) and the peer seals on under the old Child SA. RFC 7296 1.5
 * allows an unprotected INVALID_SPI notice to where the ESP came from
 * (here where peer_ike says: the peer's IKE port, or its data port behind
 * the marker with ike_port = local's port; without an SA no NAT mapping is
 * known): a hint for the peer, which starts anew at once instead of when
 * its requests over the old IKE SA (backed off up to 8 s apart) reach us.
 * It starts nothing here: a responder-only end stays one. */
static void esp_unknown(gostx__ike_mgr *k, uint32_t spi, int64_t now) {
  gostx__ike_mgr_to to;
  size_t n = 0;
  if (!spi || k->sa || now - k->notice_ms < GOSTX_IKE_MGR_NOTICE_GAP_MS) return;
  if (gostx__ike_invalid_spi(spi, k->out, GOSTX_IKE_MSG_MAX, &n)) return;
  k->notice_ms = now;
  say("ESP under SPI 0x%08x, of no SA here: INVALID_SPI sent to the peer", spi);
  peer_ike(k, &to);
  send_to(k, &to, n);
}

static void expire(gostx__ike_mgr *k, int64_t now) {
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].used && k->resp[i].e != k->sa &&
        now - k->resp[i].born_ms > GOSTX_IKE_MGR_HALF_OPEN_MS) {
      say("half-open IKE SA from %s dropped after %d s", k->set.peer_text,
          GOSTX_IKE_MGR_HALF_OPEN_MS / 1000);
      drop_slot(&k->resp[i]);
    }
}

/* Until our request's timer or our next try is due, at most TICK_MS (the
 * half-open expiry is looked at that often). */
int gostx__ike_mgr_next_ms(const gostx__ike_mgr *k, int64_t now) {
  int64_t due = now + GOSTX_IKE_MGR_TICK_MS;
  const gostx_ike_state st = k->init_on ? k->init->state : GOSTX_IKE_S_IDLE;
  if (st == GOSTX_IKE_S_INIT_SENT || st == GOSTX_IKE_S_AUTH_SENT)
    due = k->init->next_tx_ms; /* a request out (not once ESTABLISHED: no timer then) */
  if (!k->init_on && k->set.initiate && !k->sa) due = k->init_next_ms;
  if (k->switch_spi && k->switch_by_ms < due) due = k->switch_by_ms;
  const int64_t d = due - now;
  return d < 0 ? 0 : d > GOSTX_IKE_MGR_TICK_MS ? GOSTX_IKE_MGR_TICK_MS : (int)d;
}

/* At shutdown: the installed IKE SA deleted (RFC 7296 1.4.1), so the peer
 * drops it and its Child SA at once rather than after its DPD gives up.
 * A request of ours still out is let finish first (the engine's timer
 * resends), the peer's requests meanwhile answered. */
static int bye_turn(gostx__ike_mgr *k, int64_t now) {
  if (!k->bye_begun) {
    k->bye_begun = 1;
    k->bye_sa = k->sa;
  }
  gostx_ike_engine *e = k->bye_sa;
  if (!e || k->sa != e) return 0;
  size_t n = 0;
  if (!k->bye && e->pend == GOSTX_IKE_X_NONE &&
      gostx__ike_delete(e, GOSTX_IKE_DEL_IKE, now, k->out, GOSTX_IKE_MSG_MAX, &n) == GOSTX_OK) {
    k->bye = 1;
    send_to(k, &k->sa_to, n);
  }
  if (gostx__ike_timer(e, now, k->out, GOSTX_IKE_MSG_MAX, &n) == GOSTX_OK)
    send_to(k, &k->sa_to, n);
  gostx__ike_mgr_live_events(k, e, now);
  return k->sa == e;
}

void gostx__ike_mgr_bye_end(gostx__ike_mgr *k, int ms) {
  if (k->bye_sa && k->sa == k->bye_sa)
    say("IKE SA with %s: %s in %d ms at shutdown", k->set.peer_id_text,
                       k->bye ? "no answer to our Delete"
                              : "our last request unanswered, no Delete sent",
                       ms);
}

void gostx__ike_mgr_configure(gostx__ike_mgr *k, const gostx__ike_mgr_settings *s) {
  k->set = *s;
  make_confs(k, s);
  gostx__ike_mgr_ike_addr(&s->local, &k->local);
  gostx__ike_mgr_ike_addr(&s->data_local, &k->data_local);
}

void gostx__ike_mgr_set_crls(gostx__ike_mgr *k, const gostx_x509_crl *crls, size_t n) {
  k->set.crls = crls;
  k->set.n_crls = n;
  k->cf_r.revocation.crls = crls;
  k->cf_r.revocation.n_crls = n;
  if (k->cf_i) k->cf_i->revocation.crls = crls, k->cf_i->revocation.n_crls = n;
  k->recheck |= GOSTX_IKE_MGR_RECHECK_CRLS; /* with the caller's clock, at its next call */
}

gostx__ike_mgr *gostx__ike_mgr_new(const gostx__ike_mgr_settings *s, const gostx__ike_mgr_dp *dp) {
  /* through lib/ike's allocator: the tests count what a peer costs */
  gostx__ike_mgr *k = (gostx__ike_mgr *)gostx__ike_alloc(sizeof *k);
  if (!k) return NULL;
  memset(k, 0, sizeof *k);
  k->dp = *dp;
  gostx__ike_mgr_configure(k, s);
  if (gostx_random_bytes(k->cookie_secret, sizeof k->cookie_secret)) {
    gostx__ike_free((uint8_t *)k, sizeof *k);
    return NULL;
  }
  return k;
}

void gostx__ike_mgr_free(gostx__ike_mgr *k) {
  if (!k) return;
  if (k->init) gostx__ike_engine_clear(k->init);
  gostx__ike_free((uint8_t *)k->init, sizeof *k->init);
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++)
    if (k->resp[i].e) {
      gostx__ike_engine_clear(k->resp[i].e);
      gostx__ike_free((uint8_t *)k->resp[i].e, sizeof *k->resp[i].e);
    }
  gostx__ike_mgr_unpark_all(k); /* never linked */
  gostx__ike_mgr_queue_free(k);
  gostx__ike_mgr_bufs_done(k);
  gostx__ike_free((uint8_t *)k->cf_i, sizeof *k->cf_i); /* wiped: they point at the PSK */
  gostx__ike_free((uint8_t *)k->cf_psk, sizeof *k->cf_psk);
  gostx__ike_free((uint8_t *)k, sizeof *k); /* wiped: the cookie secret */
}

static void tick(gostx__ike_mgr *k, int64_t now) {
  reap(k);
  if (k->recheck) gostx__ike_mgr_recheck(k, now);
  initiator_tick(k, now);
  gostx__ike_mgr_live_tick(k, now);
  gostx__ike_mgr_keepalive_tick(k, now);
  expire(k, now);
}

/* The API's calls that take a datagram or may send one: k->in and k->out
 * only while they run (an idle manager holds neither). */
void gostx__ike_mgr_input(gostx__ike_mgr *k, const uint8_t *msg, size_t len,
                          const gostx__ike_mgr_to *from, int64_t now) {
  if (gostx__ike_mgr_bufs(k)) return; /* out of memory: dropped, as lost on the way */
  input(k, msg, len, from, now);
  gostx__ike_mgr_bufs_done(k);
}

void gostx__ike_mgr_tick(gostx__ike_mgr *k, int64_t now) {
  if (gostx__ike_mgr_bufs(k)) return; /* the next tick does it */
  tick(k, now);
  gostx__ike_mgr_bufs_done(k);
}

void gostx__ike_mgr_esp_unknown(gostx__ike_mgr *k, uint32_t spi, int64_t now) {
  if (gostx__ike_mgr_bufs(k)) return; /* a hint only: none sent */
  esp_unknown(k, spi, now);
  gostx__ike_mgr_bufs_done(k);
}

int gostx__ike_mgr_bye(gostx__ike_mgr *k, int64_t now) {
  if (gostx__ike_mgr_bufs(k)) return k->bye_sa && k->sa == k->bye_sa; /* tried again next turn */
  const int waiting = bye_turn(k, now);
  gostx__ike_mgr_bufs_done(k);
  return waiting;
}
