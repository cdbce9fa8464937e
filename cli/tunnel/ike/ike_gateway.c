/* gostx tunnel as a gateway: its IKEv2 sites ([peer NAME] sections of
 * keying = ikev2, docs/TUNNEL.md "An IKEv2 site") and its [pool]
 * section's remote users ("Remote users"), keyed by IKEv2 on the data port.
 *
 * A site is a slot of its own (of the first nsites; ike_sites.c makes
 * them: their settings, SIGHUP's plans), its manager made by an
 * IKE_SA_INIT from its peer address when it has none, or, with
 * ike_initiate = yes in its section, here as soon as it has none
 * (sites_start: it then starts the IKE SA); its Child SAs come and go in
 * the tables as a user's do. The rest is the users':
 *
 * One thread, and one lib/ike manager per user (per outer address and
 * port: many users behind one NAT are told apart by their ports), each a
 * responder that takes an IDi matching the pool's remote_id patterns,
 * authenticated by a certificate of its CA, and answers its CFG_REQUEST
 * with an address of the pool (its TSi narrowed to it). A datagram goes to
 * the user whose IKE SA its header names (lib/ike's table of every
 * manager's SAs, gostx__ike_table: by SPI pair, from any address, an
 * IKE_SA_INIT request by SPIi and source); where a user's IKE comes from
 * moves only when its manager took a new authenticated message from
 * elsewhere (a NAT's new mapping: dp_peer_set), never on the SPIs alone,
 * which anyone can copy. An IKE_SA_INIT request of no SA takes a free
 * slot, past the cookie gate over all users (lib/ike's
 * gostx__ike_mgr_gate: COOKIEs from 2 half-open SAs of a source address
 * on, or half the slots half-open, as the table counts them). What the
 * managers do to the data path lands in the
 * gateway's tables (tunnel_gw.h): the Child SA's inbound SPI in the index,
 * the user's address as a /32 route, its outbound SA and its outer
 * address; they leave them when its IKE SA is gone. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tunnel_gw.h"
#include "ike_gateway.h"

/* a user whose IKE SA never came up (a half-open one the manager dropped,
 * a refused IKE_AUTH) gives its slot back after this long */
#define RA_HALF_OPEN_MS 35000

/* ---- the data path of one user (the manager's calls) ---- */

static void *dp_add_child(void *ctx, const gostx__ike_mgr_child *c) {
  struct ra_user *u = ctx;
  struct tunnel *t = u->ra->t;
  struct tunnel_sa *in = tunnel_ike_child_sa(t, c, TUNNEL_SA_IN),
                   *out = tunnel_ike_child_sa(t, c, TUNNEL_SA_OUT);
  if (in && out && !tunnel_gw_user_add_in(t, u->idx, in)) return out;
  if (in && out)
    ike_say("remote user %s at %s: its Child SA not installed: inbound SPI 0x%08x taken, or "
            "%d inbound SAs live",
            u->id, u->at, (unsigned)c->spi_in, TUNNEL_SA_IN_MAX);
  tunnel_sa_free(in);
  tunnel_sa_free(out);
  return NULL;
}

static int dp_switch_out(void *ctx, void *out, const gostx__ike_mgr_child *c) {
  struct ra_user *u = ctx;
  (void)c;
  tunnel_gw_user_switch(u->ra->t, u->idx, out);
  return 0;
}

static void dp_free_out(void *ctx, void *out) {
  (void)ctx;
  tunnel_sa_free(out);
}

static void dp_retire_in(void *ctx, uint32_t spi) {
  struct ra_user *u = ctx;
  (void)tunnel_gw_user_retire_in(u->ra->t, u->idx, spi);
}

static void dp_stop_out(void *ctx) {
  struct ra_user *u = ctx;
  tunnel_gw_user_switch(u->ra->t, u->idx, NULL);
}

static int dp_in_accepted(void *ctx, uint32_t spi, uint64_t *n) {
  struct ra_user *u = ctx;
  return tunnel_gw_user_in_accepted(u->ra->t, u->idx, spi, n);
}

static void dp_usage(void *ctx, uint32_t spi_in, uint32_t spi_out, gostx__ike_mgr_usage *m) {
  struct ra_user *u = ctx;
  struct tunnel_sa_usage s;
  tunnel_gw_user_usage(u->ra->t, u->idx, spi_in, spi_out, &s);
  *m = (gostx__ike_mgr_usage){s.has_in,     s.has_out,     s.bytes_in, s.bytes_out,
                              s.packets_in, s.packets_out, s.limit_in, s.limit_out};
}

static void sockaddr_of(const gostx__ike_mgr_addr *a, struct sockaddr_storage *ss) {
  struct sockaddr_in *s = (struct sockaddr_in *)ss;
  memset(ss, 0, sizeof *ss);
  s->sin_family = AF_INET; /* a [pool]'s users are IPv4 (tunnel_config.c) */
  memcpy(&s->sin_addr, a->ip, 4);
  s->sin_port = htons(a->port);
}

/* Where the user's ESP goes: its manager's word, at its IKE SA's
 * establishment and when an authenticated new message came from another
 * address (a NAT's new mapping, mgr_live.c's peer_moved), in that
 * message's input: its IKE is there too (its log lines' address), and the
 * ESP leaves from where the message came to (a wildcard local's address:
 * a NAT in front of the user passes only answers from there). */
static void dp_peer_set(void *ctx, const gostx__ike_mgr_addr *to) {
  struct ra_user *u = ctx;
  u->src = *to;
  gostx__ike_mgr_addr_text(to, u->at);
  struct sockaddr_storage ss;
  sockaddr_of(to, &ss);
  struct tunnel_src from = {.len = u->ra->in_at.ip_len};
  memcpy(from.ip, u->ra->in_at.ip, sizeof from.ip);
  tunnel_gw_user_set_to(u->ra->t, u->idx, &ss, &from);
}

static uint64_t dp_data_sent(void *ctx) {
  struct ra_user *u = ctx;
  return atomic_load(&u->ra->t->w[0].c.tx_packets);
}

/* ---- the users ---- */

static int same_addr(const gostx__ike_mgr_addr *a, const gostx__ike_mgr_addr *b) {
  return a->port == b->port && a->ip_len == b->ip_len && !memcmp(a->ip, b->ip, a->ip_len);
}

static void user_free(struct ra_user *u, const char *why) {
  struct tunnel_ra *ra = u->ra;
  if (!u->mgr) return;
  if (why)
    ike_say("%s %s at %s: %s", u->idx < ra->t->gw->nsites ? "peer" : "remote user", u->id, u->at,
            why);
  gostx__ike_mgr_free(u->mgr); /* its outbound SAs never switched to */
  u->mgr = NULL;
  (void)gostx__ike_table_set(ra->tab, u->idx, NULL, 0);
  tunnel_gw_user_clear(ra->t, u->idx);
  if (u->key_len && !u->fixed) (void)gostx__ike_mgr_pool_release(ra->pool, u->key, u->key_len);
  u->key_len = 0;
  u->up = 0;
}

/* The user's IDi authenticated, its CFG_REQUEST: the pool's address for
 * it (the one it held last, when it comes back), the DNS servers; any
 * other slot of the same ID (it reconnected from elsewhere: what that one
 * holds is dead, as INITIAL_CONTACT says) let go first. */
static int assign(void *ctx, uint8_t type, const uint8_t *id, size_t len, uint8_t ip[4],
                  uint8_t dns[2][4], size_t *n_dns) {
  struct ra_user *u = ctx;
  struct tunnel_ra *ra = u->ra;
  const struct tunnel_config *cfg = &ra->t->cfg;
  if (len > TUNNEL_ID_MAX) return -1;
  uint8_t key[1 + TUNNEL_ID_MAX];
  key[0] = type;
  memcpy(key + 1, id, len);
  for (size_t i = 0; i < ra->t->gw->nusers; i++) {
    struct ra_user *o = &ra->users[i];
    if (o != u && o->mgr && o->key_len == len + 1 && !memcmp(o->key, key, len + 1))
      user_free(o, "replaced by its new IKE SA");
  }
  if (u->key_len && !u->fixed && (u->key_len != len + 1 || memcmp(u->key, key, len + 1)))
    (void)gostx__ike_mgr_pool_release(ra->pool, u->key, u->key_len); /* another ID before */
  gostx__ike_mgr_id_text(type, id, len, u->id, sizeof u->id);
  u->fixed = 0;
  for (size_t i = 0; i < cfg->n_user_addr; i++) { /* an address line's: its own, always */
    const struct tunnel_ike_id *w = &cfg->user_addr[i].id;
    if (w->type == type && w->len == len && !memcmp(w->data, id, len)) {
      memcpy(ip, cfg->user_addr[i].ip, 4);
      u->fixed = 1;
    }
  }
  if (!u->fixed && gostx__ike_mgr_pool_lease(ra->pool, key, len + 1, ip)) {
    u->key_len = 0;
    ike_say("remote user %s at %s: pool %s exhausted: no inner address", u->id, u->at,
            cfg->pool_name);
    return -1;
  }
  memcpy(u->key, key, len + 1);
  u->key_len = len + 1;
  memcpy(dns, cfg->dns, sizeof cfg->dns);
  *n_dns = cfg->n_dns;
  char a[INET_ADDRSTRLEN];
  ike_say("remote user %s at %s: inner address %s", u->id, u->at,
          inet_ntop(AF_INET, ip, a, sizeof a) ? a : "?");
  tunnel_gw_user_set(ra->t, u->idx, ip, u->id);
  return 0;
}

/* A psk line's user: its PSK, by its ID exactly. */
static int peer_psk(void *ctx, uint8_t type, const uint8_t *id, size_t len, const uint8_t **psk,
                    size_t *psk_len) {
  struct ra_user *u = ctx;
  const struct tunnel_config *cfg = &u->ra->t->cfg;
  for (size_t i = 0; i < cfg->n_user_psk; i++) {
    const struct tunnel_ike_id *w = &cfg->user_psk[i].id;
    if (w->type == type && w->len == len && !memcmp(w->data, id, len)) {
      *psk = u->ra->psk[i];
      *psk_len = u->ra->psk_len[i];
      return 0;
    }
  }
  return -1;
}

/* The site slot of the site whose peer address is a, or nsites. */
static size_t site_at(const struct tunnel_ra *ra, const gostx__ike_mgr_addr *a) {
  size_t i = 0;
  while (i < ra->t->gw->nsites && !(ra->sites[i] && same_addr(&ra->sites[i]->at, a))) i++;
  return i;
}

/* A user in slot i for a first IKE_SA_INIT from src: 0, or -1 (no memory). */
static int user_new(struct tunnel_ra *ra, size_t i, const gostx__ike_mgr_addr *src,
                    int64_t now) {
  struct ra_user *u = &ra->users[i];
  memset(u, 0, sizeof *u);
  u->ra = ra;
  u->idx = i;
  u->src = *src;
  u->born_ms = now;
  gostx__ike_mgr_addr_text(src, u->at);
  snprintf(u->id, sizeof u->id, "(no ID yet)");
  /* the pool's (or the site's) settings with the user's own: the manager keeps its copy */
  const int site = i < ra->t->gw->nsites;
  gostx__ike_mgr_settings set = site ? ra->sites[i]->k.set : ra->k.set;
  if (site) snprintf(u->id, sizeof u->id, "%s", ra->sites[i]->p.name);
  set.peer = *src;
  set.peer_text = u->at;
  if (!site) set.peer_id_text = u->id; /* the log lines name it once known */
  set.assign_ctx = u;
  const gostx__ike_mgr_dp dp = {u,          dp_add_child,   dp_switch_out, dp_free_out,
                                dp_retire_in, dp_stop_out,  dp_in_accepted, dp_usage,
                                dp_peer_set,  dp_data_sent};
  u->mgr = gostx__ike_mgr_new(&set, &dp);
  if (!u->mgr) return -1;
  dp_peer_set(u, src);
  return 0;
}

static void send_one(struct tunnel_ra *ra, const gostx__ike_mgr_event *ev) {
  static const uint8_t marker[4];
  struct sockaddr_storage ss;
  sockaddr_of(&ev->to.addr, &ss);
  /* IKE behind the marker on the data port; a keepalive as it is */
  const int ike = ev->type == GOSTX_IKE_MGR_SEND;
  struct iovec iov[2] = {{(void *)marker, 4}, {(void *)ev->data, ev->len}};
  struct msghdr h = {.msg_name = &ss, .msg_namelen = sizeof(struct sockaddr_in),
                     .msg_iov = ike ? iov : iov + 1, .msg_iovlen = ike ? 2 : 1};
  /* from the address the user's IKE came to (local a wildcard: the
   * manager's word), so that a gateway of several answers from the one
   * it was asked on */
  if (ike_sendmsg(ra->data_fd, &h, &ev->to)) ike_say("send: %s", strerror(errno));
}

/* Whether slot i is a site's that we start (ike_initiate = yes in its
 * section). */
static int starts(const struct tunnel_ra *ra, size_t i) {
  return i < ra->t->gw->nsites && ra->sites[i] && ra->sites[i]->k.set.initiate;
}

/* What u's manager asks, done; its IKE SAs as the table's keys of u (a
 * rekey's new SPIs, a source its manager moved to); then whether its IKE
 * SA is gone, or it holds none yet (an IKE_SA_INIT refused, IKE_AUTH
 * failed, a half-open SA expired: its slot free at once). */
static void drain(struct ra_user *u, int64_t now) {
  struct tunnel_ra *ra = u->ra;
  gostx__ike_mgr_event *ev = &ra->ev;
  while (gostx__ike_mgr_next(u->mgr, ev)) {
    /* each line led by whose it is, as --status names it (a site's name,
     * a user's POOL.SLOT), since many of the manager's lines name no peer
     * ("Child SA rekeyed", "the peer's NAT mapping moved") */
    if (ev->type == GOSTX_IKE_MGR_LOG && u->idx < ra->t->gw->nsites)
      ike_say("[%s] %s", u->id, (const char *)ev->data);
    else if (ev->type == GOSTX_IKE_MGR_LOG)
      ike_say("[%s.%zu] %s", ra->t->cfg.pool_name, u->idx - ra->t->gw->nsites,
              (const char *)ev->data);
    else send_one(ra, ev);
  }
  const size_t n = gostx__ike_mgr_sas(u->mgr, ra->keys);
  if (gostx__ike_table_set(ra->tab, u->idx, ra->keys, n)) {
    user_free(u, "out of memory for its IKE SAs' keys");
    return;
  }
  gostx__ike_mgr_shown_get(u->mgr, &u->shown);
  if (u->shown.state == 2) u->up = 1;
  if (u->up && u->shown.state != 2) user_free(u, "its IKE SA is gone: out of the tables");
  else if (!u->up && !starts(ra, u->idx) && (!n || now - u->born_ms > RA_HALF_OPEN_MS))
    user_free(u, NULL); /* a site that we start keeps trying: its manager's clocks */
}

static void receive_one(struct tunnel_ra *ra, int64_t now) {
  /* from.at: where it came to (a wildcard local's NAT detection hashes it) */
  gostx__ike_mgr_to from;
  const ssize_t r = ike_pair_read(ra->t->ike_pair[0], ra->in, sizeof ra->in, &from);
  if (r < 28 || from.addr.ip_len != 4) return;
  const size_t len = (size_t)r;
  ra->in_at = from.at;
  const long v = gostx__ike_table_checkout(ra->tab, ra->in, len, &from.addr);
  struct ra_user *u = v >= 0 && ra->users[v].mgr ? &ra->users[v] : NULL;
  static const uint8_t zero[8];
  /* an IKE_SA_INIT request (exchange 34, no R flag, no SPIr) from a new source */
  if (!u && ra->in[18] == 34 && !(ra->in[19] & 0x20) && !memcmp(ra->in + 8, zero, 8)) {
    char at[56];
    size_t mine;
    const size_t open = gostx__ike_table_half_open(ra->tab, &from.addr, &mine);
    const int gate = gostx__ike_mgr_gate_check(ra->gate, ra->in, len, &from, open, mine, &ra->ev);
    if (gate == GOSTX_IKE_MGR_GATE_COOKIE) { /* nothing kept until it comes back with it */
      ike_say("COOKIE asked of %s (%zu half-open IKE SAs from it, %zu in all)",
              gostx__ike_mgr_addr_text(&from.addr, at), mine, open);
      send_one(ra, &ra->ev);
      return;
    }
    if (gate != GOSTX_IKE_MGR_GATE_GO) return;
    /* a site's slot for its peer address; else a free user's */
    const size_t nsites = ra->t->gw->nsites;
    size_t i = site_at(ra, &from.addr);
    if (i == nsites)
      while (i < ra->t->gw->nusers && ra->users[i].mgr) i++;
    if (i < nsites && ra->users[i].mgr) { /* its manager's (a NAT moved it): from here now */
      u = &ra->users[i];
      u->src = from.addr;
      gostx__ike_mgr_addr_text(&from.addr, u->at);
    } else if (i == ra->t->gw->nusers && !ra->t->cfg.pool) {
      ike_say("IKE_SA_INIT from %s dropped: no IKEv2 peer there (and no [pool])",
              gostx__ike_mgr_addr_text(&from.addr, at));
      return;
    }
    if (i == ra->t->gw->nusers) {
      ike_say("IKE_SA_INIT from %s dropped: all %zu remote users' slots taken",
              gostx__ike_mgr_addr_text(&from.addr, at), ra->t->gw->nusers - nsites);
      return;
    }
    if (!u && user_new(ra, i, &from.addr, now)) {
      ike_say("IKE_SA_INIT from %s dropped: out of memory",
              gostx__ike_mgr_addr_text(&from.addr, at));
      return;
    }
    u = &ra->users[i];
  }
  /* of no SA in the table, from a site's address: its manager's, when it
   * has one (the answer to our IKE_SA_INIT, whose SPIr the table does not
   * know yet; the site's word that it lost our SA), which takes what is
   * its own as the point-to-point tunnel's takes all from its peer */
  const size_t site = u ? ra->t->gw->nsites : site_at(ra, &from.addr);
  if (site < ra->t->gw->nsites && ra->users[site].mgr) u = &ra->users[site];
  if (!u) return; /* of no user here: nothing to tell (the managers answer their own) */
  gostx__ike_mgr_input(u->mgr, ra->in, len, &from, now);
  drain(u, now);
}

static void receive(struct tunnel_ra *ra, int64_t now) {
  receive_one(ra, now);
  ra->in_at.ip_len = 0; /* dp_peer_set outside a datagram's input: not known */
}

/* At shutdown: each user's IKE SA deleted (the manager's bye), the
 * answers awaited IKE_BYE_MS in all (the workers stay until then: t->ike_on),
 * so that users learn at once, not by their liveness checks. */
static void bye_all(struct tunnel_ra *ra) {
  const size_t n = ra->t->gw->nusers;
  const int64_t end = ike_now_ms() + IKE_BYE_MS;
  int waiting = 1;
  for (int64_t now = ike_now_ms(); waiting && now < end; now = ike_now_ms()) {
    waiting = 0;
    for (size_t i = 0; i < n; i++) {
      struct ra_user *u = &ra->users[i];
      if (!u->mgr || !u->up) continue;
      waiting |= gostx__ike_mgr_bye(u->mgr, now);
      drain(u, now);
    }
    struct pollfd p = {ra->t->ike_pair[0], POLLIN, 0};
    if (waiting && poll(&p, 1, 50) > 0 && (p.revents & POLLIN)) receive(ra, ike_now_ms());
  }
  for (size_t i = 0; i < n; i++)
    if (ra->users[i].mgr && ra->users[i].up) {
      gostx__ike_mgr_bye_end(ra->users[i].mgr, IKE_BYE_MS);
      drain(&ra->users[i], ike_now_ms());
    }
}

/* A SIGHUP's CRLs of the [pool]'s crl lines, when one came, in every
 * user's manager (and the settings new users copy). */
/* A SIGHUP's CRLs into the managers they are for: the [pool]'s into its
 * users' (the slots past the sites), each site's own into its slot's. */
static void take_crls(struct tunnel_ra *ra) {
  const size_t ns = ra->t->gw->nsites;
  cli_crl_list *old;
  if (ike_crls_take(&ra->k, &old)) {
    for (size_t i = ns; i < ra->t->gw->nusers; i++)
      if (ra->users[i].mgr)
        gostx__ike_mgr_set_crls(ra->users[i].mgr, ra->k.set.crls, ra->k.set.n_crls);
    ike_crls_free(old);
  }
  for (size_t i = 0; i < ns; i++) {
    struct ra_site *st = ra->sites[i];
    if (!st || !ike_crls_take(&st->k, &old)) continue;
    if (ra->users[i].mgr) gostx__ike_mgr_set_crls(ra->users[i].mgr, st->k.set.crls, st->k.set.n_crls);
    ike_crls_free(old);
  }
}

/* The main thread's at SIGHUP: the [pool]'s crl lines and each running
 * site's read again, taken by the IKE thread at its next turn (a gateway
 * of IKEv2 sites alone has a thread but no [pool]). The sites stay as
 * they are until the main thread's next plan, which it waits for. */
void tunnel_ra_reload_crls(struct tunnel *t) {
  if (!t->ra) return;
  if (t->cfg.pool && t->cfg.pool->n_crl)
    ike_crls_reload(&t->ra->k, t->cfg.pool->crl[0], t->cfg.pool->n_crl);
  for (size_t i = 0; i < t->gw->nsites; i++) {
    struct ra_site *st = t->ra->sites[i];
    if (st && st->n_crl) ike_crls_reload(&st->k, st->crl[0], st->n_crl);
  }
}

/* ---- SIGHUP: the sites' changes, on the IKE thread ---- */

/* Site slot i's site ended (a SIGHUP removed or changed it): its IKE SA
 * deleted (our Delete sent where no request of ours is out; its answer is
 * not awaited), its Child SAs and routes out of the tables, its slot free. */
static void site_end(struct tunnel_ra *ra, size_t i, int64_t now, const char *why) {
  struct ra_user *u = &ra->users[i];
  struct ra_site *st = ra->sites[i];
  const int up = u->mgr && u->up;
  ike_say("[peer %s]: %s by SIGHUP: %s", st->p.name, why,
          up ? "its IKE SA deleted, out of the tables" : "it held no IKE SA");
  if (up) {
    (void)gostx__ike_mgr_bye(u->mgr, now);
    drain(u, now);
  }
  user_free(u, NULL);
  tunnel_gw_site_set(ra->t, i, NULL, NULL);
  ra->sites[i] = NULL;
  ra_site_free(st); /* no worker, status or manager reaches it now */
}

/* A SIGHUP's plan, when one came, carried out: the ended
 * sites first (a changed one's slot, or a removed one's, may be an added
 * one's), then the new ones. */
static void take_plan(struct tunnel_ra *ra, int64_t now) {
  struct ra_plan *pl = atomic_exchange(&ra->plan, NULL);
  if (!pl) return;
  const size_t ns = ra->t->gw->nsites;
  for (size_t i = 0; i < ns; i++)
    if (pl->end[i]) site_end(ra, i, now, pl->end[i] == PLAN_CHANGED ? "changed" : "removed");
  for (size_t i = 0; i < ns; i++)
    if (pl->next[i]) {
      ra->sites[i] = pl->next[i];
      pl->next[i] = NULL;
      tunnel_gw_site_set(ra->t, i, &ra->sites[i]->p, ra->sites[i]->remote_id.text);
      ra_site_say(ra->sites[i], pl->end[i] == PLAN_CHANGED ? "changed by SIGHUP: " : "added by SIGHUP: ");
    }
  atomic_store(&pl->done, 1);
}

/* How long before a site we start is tried again when its manager could
 * not be made (no memory) */
#define RA_SITE_RETRY_MS 2000

/* The sites we start (ike_initiate = yes) holding no manager (at the
 * start, once a SIGHUP added or changed one, once its IKE SA is gone)
 * given one toward their peer address: it sends its IKE_SA_INIT at its
 * first tick, and again by its own clocks as the point-to-point tunnel's
 * initiator does (its retransmissions, 2 s after one that failed, 10 s
 * after yielding to the site's own; at once once the installed one is
 * gone, or on the site's word that it lost it). With a wildcard local,
 * our address toward it looked up first (NAT detection hashes it). */
static void sites_start(struct tunnel_ra *ra, int64_t now) {
  for (size_t i = 0; i < ra->t->gw->nsites; i++) {
    struct ra_site *st = ra->sites[i];
    if (!starts(ra, i) || ra->users[i].mgr || now < st->start_ms) continue;
    if (!st->routed && ra->t->pktinfo)
      (void)ike_local_toward(&st->k.set, &st->p.peer, st->p.peer_len, ra->t->cfg.local_s,
                             st->p.peer_s);
    st->routed = 1;
    if (user_new(ra, i, &st->at, now)) {
      ike_say("[peer %s]: out of memory: its IKE SA not started (again in %d s)", st->p.name,
              RA_SITE_RETRY_MS / 1000);
      st->start_ms = now + RA_SITE_RETRY_MS;
    }
  }
}

static void *ra_run(void *arg) {
  struct tunnel_ra *ra = arg;
  while (!atomic_load(&ra->t->stop)) {
    int64_t now = ike_now_ms();
    take_crls(ra);
    take_plan(ra, now);
    sites_start(ra, now);
    int wait = 200;
    for (size_t i = 0; i < ra->t->gw->nusers; i++) {
      struct ra_user *u = &ra->users[i];
      if (!u->mgr) continue;
      gostx__ike_mgr_tick(u->mgr, now);
      drain(u, now);
      if (u->mgr) {
        const int ms = gostx__ike_mgr_next_ms(u->mgr, now);
        if (ms < wait) wait = ms;
      }
    }
    struct pollfd p = {ra->t->ike_pair[0], POLLIN, 0};
    if (poll(&p, 1, wait) > 0 && (p.revents & POLLIN)) receive(ra, ike_now_ms());
  }
  bye_all(ra);
  atomic_store(&ra->t->ike_on, 0); /* the workers may go now */
  return NULL;
}

int tunnel_ra_prepare(struct tunnel *t) {
  struct tunnel_config *pc = t->cfg.pool;
  if (!pc && !t->cfg.nsites) return 0;
  struct tunnel_ra *ra = calloc(1, sizeof *ra);
  if (!ra) return cli_usage("tunnel: out of memory");
  t->ra = ra;
  ra->t = t;
  ra->data_fd = -1;
  ra->k.t = t;
  ra->k.fd = -1;
  pthread_mutex_init(&ra->k.lock, NULL);
  int rc = ra_sites_prepare(ra);
  if (rc) return rc;
  ra->users = calloc(t->gw->nusers, sizeof *ra->users);
  /* every user asked for a COOKIE once half of the slots are half-open */
  ra->gate = gostx__ike_mgr_gate_new((t->gw->nusers - t->gw->nsites + t->cfg.nsites) / 2);
  ra->tab = gostx__ike_table_new(t->gw->nusers);
  if (!ra->users || !ra->gate || !ra->tab) return cli_usage("tunnel: out of memory");
  if (!pc) return 0;
  rc = ike_material_load(&ra->k, pc);
  if (rc) return rc;
  ike_settings(&ra->k, pc);
  gostx__ike_mgr_settings *s = &ra->k.set;
  ike_addr_of(&t->cfg.local, &s->local);
  s->data_local = s->local;
  s->on_data_port = 1; /* IKE behind the marker from IKE_SA_INIT on */
  s->any_source = 1;   /* the user's NAT may move it; where it is, is ours to track */
  s->initiate = 0;
  s->peer_id = NULL, s->peer_id_len = 0, s->peer_id_type = 0;
  for (size_t i = 0; i < t->cfg.n_ids; i++) ra->ids[i] = t->cfg.ids[i];
  s->peer_patterns = ra->ids;
  s->n_peer_patterns = t->cfg.n_ids;
  s->assign = assign; /* assign_ctx: each user's (user_new) */
  s->peer_psk = t->cfg.n_user_psk ? peer_psk : NULL;
  for (size_t i = 0; i < t->cfg.n_user_psk; i++)
    if ((rc = ike_psk_read(pc, t->cfg.user_psk[i].path, ra->psk[i], sizeof ra->psk[i],
                           &ra->psk_len[i])))
      return rc;
  ra->pool = gostx__ike_mgr_pool_new(t->cfg.pool_net.addr, 4, t->cfg.pool_net.len,
                                     t->gw->nusers - t->gw->nsites);
  if (!ra->pool) return cli_usage("tunnel: out of memory");
  return 0;
}

int tunnel_ra_start(struct tunnel *t, int data_fd) {
  struct tunnel_ra *ra = t->ra;
  if (!ra) return 0;
  ra->data_fd = data_fd;
  int rc = ike_queue_open(t->ike_pair);
  if (rc) return rc;
  atomic_store(&t->ike_on, 1);
  if (pthread_create(&ra->k.thread, NULL, ra_run, ra)) {
    cli_err("tunnel: cannot start the IKE thread");
    atomic_store(&t->ike_on, 0);
    return CLI_EXIT_FAIL;
  }
  ra->k.thread_on = 1;
  for (size_t i = 0; i < t->cfg.nsites; i++) ra_site_say(ra->sites[i], "");
  if (!t->cfg.pool) return 0;
  char net[64];
  tunnel_prefix_format(&t->cfg.pool_net, net, sizeof net);
  ike_say("[pool %s]: remote users on the data port, %zu patterns, %zu of a PSK each, "
          "addresses from %s",
          t->cfg.pool_name, t->cfg.n_ids, t->cfg.n_user_psk, net);
  return 0;
}

void tunnel_ra_stop(struct tunnel *t) {
  if (t->ra) ike_thread_join(t, &t->ra->k);
}

void tunnel_ra_free(struct tunnel *t) {
  struct tunnel_ra *ra = t->ra;
  if (!ra) return;
  for (size_t i = 0; ra->users && i < t->gw->nusers; i++)
    if (ra->users[i].mgr) gostx__ike_mgr_free(ra->users[i].mgr);
  free(ra->users);
  gostx__ike_mgr_pool_free(ra->pool);
  gostx__ike_mgr_gate_free(ra->gate);
  gostx__ike_table_free(ra->tab);
  for (int i = 0; i < 2; i++)
    if (t->ike_pair[i] >= 0) close(t->ike_pair[i]);
  t->ike_pair[0] = t->ike_pair[1] = -1;
  for (size_t i = 0; ra->sites && i < t->gw->nsites; i++) ra_site_free(ra->sites[i]);
  free(ra->sites);
  ra_plan_free(atomic_load(&ra->plan), t->gw->nsites); /* one the thread never took */
  ike_material_free(&ra->k);
  pthread_mutex_destroy(&ra->k.lock);
  gostx_memzero(ra, sizeof *ra); /* the private key */
  free(ra);
  t->ra = NULL;
}
