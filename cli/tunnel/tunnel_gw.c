/* gostx tunnel as a gateway of many peers, static ones and a [pool]'s
 * remote users (tunnel_gw.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tunnel_gw.h"

/* ---- building ---- */

static int by_spi_cmp(const void *a, const void *b) {
  const uint32_t x = ((const struct tunnel_peer_spi *)a)->spi;
  const uint32_t y = ((const struct tunnel_peer_spi *)b)->spi;
  return x < y ? -1 : x > y;
}

#define TUNNEL_GW_USERS_MAX 1024 /* a [pool]'s users at once (its slots) */

static void tab_free(struct tunnel_gw_tab *tab) {
  if (!tab) return;
  tunnel_routes_free(tab->routes);
  free(tab->by_spi);
  free(tab->out);
  free(tab->to);
  free(tab);
}

/* The tables of the static peers' remote_ts (cfg's: a reload's new ones)
 * and SAs, and IKE's slots (under gw->lock): each prefix valued by its
 * peer's index, each site by its remote_ts, each user with an address by
 * its /32. NULL after a line. */
static struct tunnel_gw_tab *tab_build(const struct tunnel *t, const struct tunnel_config *cfg) {
  const struct tunnel_gw *gw = t->gw;
  size_t n = 0, nspi = gw->npeers;
  for (size_t i = 0; i < gw->npeers; i++) n += cfg->peers[i].nts;
  for (size_t u = 0; u < gw->nusers; u++) {
    n += u < gw->nsites ? cfg->peers[gw->npeers + u].nts : (size_t)gw->users[u].has_ip;
    for (int k = 0; k < TUNNEL_SA_IN_MAX; k++) nspi += gw->users[u].in[k] != NULL;
  }
  struct tunnel_prefix *p = malloc((n ? n : 1) * sizeof *p);
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  struct tunnel_gw_tab *tab = calloc(1, sizeof *tab);
  if (tab) {
    tab->by_spi = calloc(nspi ? nspi : 1, sizeof *tab->by_spi);
    tab->out = calloc(gw->nusers ? gw->nusers : 1, sizeof *tab->out);
    tab->to = calloc(gw->nusers ? gw->nusers : 1, sizeof *tab->to);
  }
  if (p && v && tab && tab->by_spi && tab->out && tab->to) {
    size_t k = 0;
    for (size_t i = 0; i < gw->npeers; i++) {
      for (size_t j = 0; j < cfg->peers[i].nts; j++, k++) {
        p[k] = cfg->peers[i].ts[j];
        v[k] = (uint32_t)i;
      }
      tab->by_spi[tab->nspi++] = (struct tunnel_peer_spi){
          cfg->peers[i].spi_in, (uint32_t)i, atomic_load(&gw->peers[i].sf.st_in)};
    }
    for (size_t u = 0; u < gw->nusers; u++) {
      const struct tunnel_gw_user *us = &gw->users[u];
      const uint32_t idx = (uint32_t)(gw->npeers + u);
      for (size_t j = 0; u < gw->nsites && j < cfg->peers[idx].nts; j++, k++) {
        p[k] = cfg->peers[idx].ts[j]; /* a site's, routed while it is down too: dropped then */
        v[k] = idx;
      }
      if (us->has_ip) {
        p[k] = (struct tunnel_prefix){.family = 4, .len = 32};
        memcpy(p[k].addr, us->ip, 4);
        v[k++] = idx;
      }
      for (int j = 0; j < TUNNEL_SA_IN_MAX; j++)
        if (us->in[j])
          tab->by_spi[tab->nspi++] = (struct tunnel_peer_spi){us->in[j]->esp.spi, idx, us->in[j]};
      tab->out[u] = us->out;
      tab->to[u] = us->to;
    }
    qsort(tab->by_spi, tab->nspi, sizeof *tab->by_spi, by_spi_cmp);
    tab->routes = tunnel_routes_build(p, v, n);
  }
  free(p);
  free(v);
  if (!tab || !tab->routes) {
    tab_free(tab);
    cli_err("tunnel: out of memory (the gateway's routes)");
    return NULL;
  }
  return tab;
}

/* The next tables in place (gw->lock held), the old ones freed once no
 * worker holds them: 0, or -1 (no memory: the old ones stay). */
static int publish(struct tunnel *t, const struct tunnel_config *cfg) {
  struct tunnel_gw_tab *tab = tab_build(t, cfg);
  if (!tab) return -1;
  struct tunnel_gw_tab *old = atomic_exchange(&t->gw->tab, tab);
  tunnel_sa_grace(t);
  tab_free(old);
  return 0;
}

/* Peer p's SA pair from its key files, linked into its state. */
static int peer_sas(struct tunnel *t, struct tunnel_peer *p) {
  static struct tunnel_config pc; /* big; the main thread only */
  tunnel_config_of_peer(&t->cfg, p->cfg, &pc);
  gostx_esp_sa out = {0}, in = {0};
  int rc = tunnel_load_keys(&pc, &out, &in);
  if (!rc) {
    p->sf.st_out = tunnel_sa_from_esp(&out, TUNNEL_SA_OUT, t->cfg.threads);
    p->sf.st_in = tunnel_sa_from_esp(&in, TUNNEL_SA_IN, t->cfg.threads);
    if (!p->sf.st_out || !p->sf.st_in) {
      cli_err("tunnel: out of memory");
      rc = CLI_EXIT_FAIL;
    }
  }
  gostx_esp_sa_clear(&out);
  gostx_esp_sa_clear(&in);
  if (!rc) rc = tunnel_fingerprints(&p->sf);
  return rc;
}

/* Two peers under one key (whatever their salts, their SPIs): refused, as
 * a key of two SAs would be numbered twice from 1. */
static int keys_shared(const struct tunnel *t) {
  const struct tunnel_gw *gw = t->gw;
  for (size_t j = 0; j < gw->npeers; j++)
    for (size_t i = 0; i < j; i++) {
      const struct tunnel_peer *a = &gw->peers[i], *b = &gw->peers[j];
      const uint8_t *ka[2] = {a->sf.st_out->esp.key, a->sf.st_in->esp.key},
                    *kb[2] = {b->sf.st_out->esp.key, b->sf.st_in->esp.key};
      for (int x = 0; x < 4; x++)
        if (!gostx_memeq_ct(ka[x / 2], kb[x % 2], GOSTX_ESP_KEY_LEN)) {
          cli_err("%s:%u: [peer %s]: its %s is the key of peer %s's %s: every SA of the "
                  "gateway needs a key of its own",
                  t->cfg.path, b->cfg->line, b->cfg->name, x % 2 ? "key_in" : "key_out",
                  a->cfg->name, x / 2 ? "key_in" : "key_out");
          return CLI_EXIT_USAGE;
        }
    }
  return 0;
}

/* A [pool]'s user slots: its hosts (no network, no broadcast) and its
 * address lines, at most TUNNEL_GW_USERS_MAX. */
static size_t user_slots(const struct tunnel_config *cfg) {
  if (!cfg->pool) return 0;
  const size_t hosts = ((size_t)1 << (32 - cfg->pool_net.len)) - 2 + cfg->n_user_addr;
  return hosts < TUNNEL_GW_USERS_MAX ? hosts : TUNNEL_GW_USERS_MAX;
}

int tunnel_gw_prepare(struct tunnel *t) {
  const size_t n = t->cfg.npeers - t->cfg.nsites, nu = t->cfg.nsites + user_slots(&t->cfg);
  struct tunnel_gw *gw = calloc(1, sizeof *gw);
  const size_t bytes = ((n + nu) * sizeof *gw->peers + 63) / 64 * 64;
  if (gw) {
    gw->peers = aligned_alloc(64, bytes ? bytes : 64);
    gw->users = calloc(nu ? nu : 1, sizeof *gw->users);
  }
  if (!gw || !gw->peers || !gw->users) {
    if (gw) free(gw->peers), free(gw->users);
    free(gw);
    cli_err("tunnel: out of memory");
    return CLI_EXIT_FAIL;
  }
  memset(gw->peers, 0, (n + nu) * sizeof *gw->peers);
  pthread_mutex_init(&gw->lock, NULL);
  gw->nusers = nu;
  gw->nsites = t->cfg.nsites;
  t->gw = gw;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    struct tunnel_peer *p = &gw->peers[i];
    p->cfg = &t->cfg.peers[i];
    snprintf(p->sf.path, sizeof p->sf.path, "%s.peer.%s", t->cfg.state, p->cfg->name);
    pthread_mutex_init(&p->sf.lock, NULL);
    gw->npeers++;
    rc = peer_sas(t, p);
  }
  if (!rc) rc = keys_shared(t);
  struct tunnel_gw_tab *tab = rc ? NULL : tab_build(t, &t->cfg);
  if (!rc && !tab) rc = CLI_EXIT_FAIL;
  atomic_store(&gw->tab, tab);
  return rc;
}

void tunnel_gw_free(struct tunnel *t) {
  struct tunnel_gw *gw = t->gw;
  if (!gw) return;
  for (size_t i = 0; i < gw->npeers; i++) {
    tunnel_sa_free(gw->peers[i].sf.st_out);
    tunnel_sa_free(gw->peers[i].sf.st_in);
    pthread_mutex_destroy(&gw->peers[i].sf.lock);
  }
  for (size_t u = 0; u < gw->nusers; u++) {
    tunnel_sa_free(gw->users[u].out);
    for (int k = 0; k < TUNNEL_SA_IN_MAX; k++) tunnel_sa_free(gw->users[u].in[k]);
  }
  gostx_memzero(gw->peers, gw->npeers * sizeof *gw->peers); /* fingerprints */
  free(gw->peers);
  free(gw->users);
  tab_free(atomic_load(&gw->tab));
  pthread_mutex_destroy(&gw->lock);
  free(gw);
  t->gw = NULL;
}

/* ---- the workers ---- */

/* The inner address of an IP packet the family says (4: IPv4, 6: IPv6) at
 * off (IPv4's source 12, destination 16; IPv6's 8 and 24), or 0 when it is
 * no IP packet (tunnel_next_header_of's test). */
static int inner_addr(const uint8_t *p, size_t len, int dst, const uint8_t **a) {
  switch (tunnel_next_header_of(p, len)) {
  case 4: *a = p + (dst ? 16 : 12); return 4;
  case 41: *a = p + (dst ? 24 : 8); return 6;
  default: return 0;
  }
}

/* b[0..n) grouped by key[], each group's packets in the order they came.
 * The groups in the order their first packets came, but the last packet's
 * group last: a flow whose packets run on into the next burst stays at
 * the burst's edges (the TUN writes join a flow's segments across
 * bursts). Insertion sort: stable, and a burst is mostly one peer's. */
static void group_by(gostx_esp_packet *b, uint32_t *key, unsigned n) {
  uint32_t seen[TUNNEL_BURST], rank[TUNNEL_BURST];
  unsigned ns = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned r = 0;
    while (r < ns && seen[r] != key[i]) r++;
    if (r == ns) seen[ns++] = key[i];
    rank[i] = r;
  }
  const uint32_t last = n ? rank[n - 1] : 0;
  for (unsigned i = 0; i < n; i++)
    if (rank[i] == last) rank[i] = TUNNEL_BURST;
  for (unsigned i = 1; i < n; i++) {
    const gostx_esp_packet x = b[i];
    const uint32_t kx = key[i], rx = rank[i];
    unsigned j = i;
    for (; j && rank[j - 1] > rx; j--) {
      b[j] = b[j - 1];
      key[j] = key[j - 1];
      rank[j] = rank[j - 1];
    }
    b[j] = x;
    key[j] = kx;
    rank[j] = rx;
  }
}

/* A peer's packets of a burst: b[i, i + n), the first got of them numbered
 * under sa (NULL: none to seal with). */
struct gw_run {
  unsigned i, n, got;
  struct tunnel_peer *p;
  struct tunnel_sa *sa;
  const struct sockaddr_storage *to;
  socklen_t to_len;
};

void tunnel_gw_seal_and_send(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n) {
  struct tunnel_gw *gw = w->t->gw;
  uint32_t peer[TUNNEL_BURST];
  struct gw_run run[TUNNEL_BURST];
  const gostx_esp_sa *esp[TUNNEL_BURST];
  gostx_esp_keycache *kc[TUNNEL_BURST];
  unsigned k = 0, nr = 0;
  tunnel_sa_enter(w);
  const struct tunnel_gw_tab *tab = atomic_load(&gw->tab);
  const struct tunnel_routes *r = tab->routes;
  /* each packet's peer; the ones of none dropped (the burst compacted) */
  for (unsigned i = 0; i < n; i++) {
    const uint8_t *dst = NULL;
    const int fam = inner_addr(b[i].in, b[i].len, 1, &dst); /* IP: checked when read */
    const uint32_t p = fam ? tunnel_routes_find(r, fam, dst) : TUNNEL_ROUTE_NONE;
    if (p == TUNNEL_ROUTE_NONE) {
      TUNNEL_ADD(w->c.tx_noroute, 1);
      continue;
    }
    b[k] = b[i];
    peer[k++] = p;
  }
  /* grouped by peer, for its numbers and its sends (one address each) */
  group_by(b, peer, k);
  /* each peer's run numbered under its SA, in the order read (inside the
   * span: the SA and the peer's address are read from it) */
  for (unsigned i = 0, j; i < k; i = j) {
    for (j = i + 1; j < k && peer[j] == peer[i]; j++) {}
    struct gw_run *u = &run[nr++];
    *u = (struct gw_run){.i = i, .n = j - i, .p = &gw->peers[peer[i]]};
    u->sa = u->p->sf.st_out;
    u->to = u->p->cfg ? &u->p->cfg->peer : NULL;
    u->to_len = u->p->cfg ? u->p->cfg->peer_len : sizeof(struct sockaddr_in);
    if (peer[i] >= gw->npeers) { /* a remote user's (its SAs from IKE) */
      u->sa = tab->out[peer[i] - gw->npeers];
      u->to = &tab->to[peer[i] - gw->npeers];
    }
    uint64_t first = 0;
    if (u->sa) first = tunnel_sa_number(u->sa, &u->p->sf, u->n, &u->got);
    for (unsigned x = i; x < j; x++) { /* those without a number: refused by the call */
      esp[x] = x - i < u->got ? &u->sa->esp : NULL;
      kc[x] = x - i < u->got ? tunnel_sa_kc(u->sa, w) : NULL;
      b[x].seq = first + (x - i);
    }
  }
  /* the whole burst in one call: the packets of all the peers' SAs share
   * the cipher calls (lib/esp: gostx_esp_seal_mixed) */
  TUNNEL_TIMED(w, ns_seal, (void)gostx_esp_seal_mixed(esp, kc, b, k));
  for (unsigned q = 0; q < nr; q++) {
    const struct gw_run *u = &run[q];
    if (!u->sa) { /* a user between its Child SAs: nothing to seal with */
      TUNNEL_ADD(w->c.tx_noroute, u->n);
      continue;
    }
    unsigned ok = 0;
    uint64_t bytes = 0;
    tunnel_sa_sealed(u->sa, b + u->i, u->got);
    for (unsigned x = u->i; x < u->i + u->got; x++)
      if (!b[x].status) ok++, bytes += b[x].len;
    TUNNEL_ADD(u->p->tx_packets, ok);
    TUNNEL_ADD(u->p->tx_bytes, bytes);
    tunnel_send_sealed(w, b + u->i, u->n, u->got, u->to, u->to_len);
  }
  tunnel_sa_leave(w);
}

static const struct tunnel_peer_spi *spi_find(const struct tunnel_gw_tab *tab, uint32_t spi) {
  size_t lo = 0, hi = tab->nspi;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tab->by_spi[mid].spi < spi) lo = mid + 1;
    else hi = mid;
  }
  return lo < tab->nspi && tab->by_spi[lo].spi == spi ? &tab->by_spi[lo] : NULL;
}

/* The checks after opening of a peer's run b[0..n) (its inner sources
 * inside its routes), and its counters. */
static void gw_checked(const struct tunnel_routes *r, uint32_t me, struct tunnel_peer *p,
                       gostx_esp_packet *b, size_t n) {
  uint64_t packets = 0, bytes = 0, replay = 0, auth = 0, selector = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *src;
    int fam;
    /* an inner packet that is no IP packet of its next header is the
     * worker's to drop (malformed); dummies carry no source */
    if (!b[i].status && b[i].next_header != GOSTX_ESP_NH_NONE &&
        (fam = inner_addr(b[i].out, b[i].out_len, 0, &src)) &&
        tunnel_routes_find(r, fam, src) != me)
      b[i].status = TUNNEL_ESP_SELECTOR;
    switch (b[i].status) {
    case 0: packets++, bytes += b[i].out_len; break;
    case GOSTX_ESTATE: replay++; break;
    case GOSTX_EAUTH: auth++; break;
    case TUNNEL_ESP_SELECTOR: selector++; break;
    default: break;
    }
  }
  if (packets) {
    TUNNEL_ADD(p->rx_packets, packets);
    TUNNEL_ADD(p->rx_bytes, bytes);
    atomic_store_explicit(&p->last_seen, (int64_t)time(NULL), memory_order_relaxed);
  }
  if (replay) TUNNEL_ADD(p->rx_replay, replay);
  if (auth) TUNNEL_ADD(p->rx_auth, auth);
  if (selector) TUNNEL_ADD(p->rx_selector, selector);
}

void tunnel_gw_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n) {
  struct tunnel_gw *gw = w->t->gw;
  uint32_t at[TUNNEL_BURST]; /* each packet's entry in by_spi (UINT32_MAX: none) */
  gostx_esp_replay window[TUNNEL_BURST];
  const gostx_esp_sa *esp[TUNNEL_BURST];
  gostx_esp_keycache *kc[TUNNEL_BURST];
  const gostx_esp_replay *rp[TUNNEL_BURST];
  tunnel_sa_enter(w);
  const struct tunnel_gw_tab *tab = atomic_load(&gw->tab);
  for (size_t i = 0; i < n; i++) {
    const struct tunnel_peer_spi *e = spi_find(tab, tunnel_spi_of(b[i].in));
    at[i] = e ? (uint32_t)(e - tab->by_spi) : UINT32_MAX;
  }
  /* grouped by SA: a window snapshot each, and each SA's packets accepted
   * together (its lock and state file once a burst) */
  group_by(b, at, (unsigned)n);
  size_t nw = 0;
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && at[j] == at[i]; j++) {}
    struct tunnel_sa *sa = at[i] != UINT32_MAX ? tab->by_spi[at[i]].sa : NULL;
    if (sa) tunnel_sa_window(sa, &window[nw]);
    for (size_t x = i; x < j; x++) { /* an unknown SPI: refused by the call (GOSTX_EINVAL) */
      esp[x] = sa ? &sa->esp : NULL;
      kc[x] = sa ? tunnel_sa_kc(sa, w) : NULL;
      rp[x] = sa ? &window[nw] : NULL;
    }
    nw += sa != NULL;
  }
  /* every SA's packets in one call (lib/esp: gostx_esp_open_mixed); the
   * verdicts are per packet, the first returned */
  const int first = gostx_esp_open_mixed(esp, kc, rp, b, n);
  (void)first;
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && at[j] == at[i]; j++) {}
    if (at[i] == UINT32_MAX) continue;
    const struct tunnel_peer_spi *e = &tab->by_spi[at[i]];
    struct tunnel_peer *p = &gw->peers[e->peer];
    tunnel_sa_accept(e->sa, &p->sf, b + i, j - i);
    gw_checked(tab->routes, e->peer, p, b + i, j - i);
  }
  tunnel_sa_leave(w);
}

/* ---- the main thread ---- */

/* Whether a and b are the same peer but for its remote_ts. */
static int same_peer(const struct tunnel_peer_config *a, const struct tunnel_peer_config *b) {
  return !strcmp(a->name, b->name) && a->peer_len == b->peer_len &&
         !memcmp(&a->peer, &b->peer, a->peer_len) && a->transform == b->transform &&
         a->spi_out == b->spi_out && a->spi_in == b->spi_in && !strcmp(a->key_out, b->key_out) &&
         !strcmp(a->key_in, b->key_in) && !a->ike == !b->ike &&
         /* an IKEv2 peer's remote_ts too: its IKE thread reads them */
         (!a->ike || (!memcmp(a->ike, b->ike, sizeof *a->ike) && a->nts == b->nts &&
                      !memcmp(a->ts, b->ts, sizeof a->ts)));
}

void tunnel_gw_reload(struct tunnel *t) {
  static struct tunnel_config next; /* big; the main thread only */
  if (tunnel_config_read(t->cfg.path, &next)) return;
  struct tunnel_config a = t->cfg, b = next;
  a.peers = b.peers = NULL;
  a.pool = b.pool = NULL;
  int same = a.npeers == b.npeers && !memcmp(&a, &b, sizeof a) && !t->cfg.pool == !next.pool &&
             (!next.pool || !memcmp(t->cfg.pool, next.pool, sizeof *next.pool));
  for (size_t i = 0; same && i < next.npeers; i++)
    same = same_peer(&t->cfg.peers[i], &next.peers[i]);
  if (!same) {
    cli_err("tunnel: reload refused: %s changed more than the peers' remote_ts (a gateway's "
            "peers, their keys and its other settings take a restart for now)",
            t->cfg.path);
    tunnel_config_free(&next);
    return;
  }
  pthread_mutex_lock(&t->gw->lock);
  /* the new table whole, then the old one freed once no worker holds it */
  if (!publish(t, &next)) {
    for (size_t i = 0; i < next.npeers; i++) { /* for --status and the next reload */
      memcpy(t->cfg.peers[i].ts, next.peers[i].ts, sizeof next.peers[i].ts);
      t->cfg.peers[i].nts = next.peers[i].nts;
      t->cfg.peers[i].ts_line = next.peers[i].ts_line;
    }
    fprintf(stderr, "gostx tunnel: reload: the routes of %zu peers anew\n", next.npeers);
  }
  pthread_mutex_unlock(&t->gw->lock);
  tunnel_config_free(&next);
}

/* ---- the remote users (the IKE thread) ---- */

/* Whether spi is an inbound SPI of the gateway's already (a static peer's
 * or a user's: each user's manager draws its own at random). */
static int spi_taken(const struct tunnel_gw *gw, uint32_t spi) {
  const struct tunnel_gw_tab *tab = atomic_load(&gw->tab); /* gw->lock held: no other writer */
  for (size_t i = 0; i < tab->nspi; i++)
    if (tab->by_spi[i].spi == spi) return 1;
  return 0;
}

int tunnel_gw_user_add_in(struct tunnel *t, size_t u, struct tunnel_sa *sa) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  struct tunnel_gw_user *us = &gw->users[u];
  int k = 0;
  while (k < TUNNEL_SA_IN_MAX && us->in[k]) k++;
  int rc = k < TUNNEL_SA_IN_MAX && !spi_taken(gw, sa->esp.spi) ? 0 : -1;
  if (!rc) {
    us->in[k] = sa;
    if (publish(t, &t->cfg)) us->in[k] = NULL, rc = -1;
  }
  pthread_mutex_unlock(&gw->lock);
  return rc;
}

void tunnel_gw_user_switch(struct tunnel *t, size_t u, struct tunnel_sa *out) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  struct tunnel_gw_user *us = &gw->users[u];
  struct tunnel_sa *old = us->out;
  us->out = out;
  if (old && out) us->rekeys++;
  if (publish(t, &t->cfg)) { /* no memory for the tables: the old SA stays reachable */
    us->out = old;
    old = out;
  }
  pthread_mutex_unlock(&gw->lock);
  tunnel_sa_free(old);
}

int tunnel_gw_user_retire_in(struct tunnel *t, size_t u, uint32_t spi) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  struct tunnel_gw_user *us = &gw->users[u];
  struct tunnel_sa *sa = NULL;
  for (int k = 0; k < TUNNEL_SA_IN_MAX && !sa; k++)
    if (us->in[k] && us->in[k]->esp.spi == spi) {
      sa = us->in[k];
      us->in[k] = NULL;
      if (publish(t, &t->cfg)) us->in[k] = sa, sa = NULL;
    }
  pthread_mutex_unlock(&gw->lock);
  tunnel_sa_free(sa);
  return sa ? 0 : -1;
}

void tunnel_gw_user_set_to(struct tunnel *t, size_t u, const struct sockaddr_storage *to) {
  pthread_mutex_lock(&t->gw->lock);
  struct tunnel_gw_user *us = &t->gw->users[u];
  us->to = *to;
  /* the tables anew only when the workers send to it (an IKE_SA_INIT's
   * new slot waits for its first SA: a flood of them costs no grace) */
  if (us->out) (void)publish(t, &t->cfg);
  pthread_mutex_unlock(&t->gw->lock);
}

void tunnel_gw_user_set(struct tunnel *t, size_t u, const uint8_t ip[4], const char *id) {
  pthread_mutex_lock(&t->gw->lock);
  struct tunnel_gw_user *us = &t->gw->users[u];
  us->used = 1;
  us->has_ip = 1;
  memcpy(us->ip, ip, 4);
  snprintf(us->id, sizeof us->id, "%s", id);
  (void)publish(t, &t->cfg);
  pthread_mutex_unlock(&t->gw->lock);
}

void tunnel_gw_user_clear(struct tunnel *t, size_t u) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  struct tunnel_gw_user old = gw->users[u];
  memset(&gw->users[u], 0, sizeof gw->users[u]);
  const int site = u < gw->nsites; /* the same peer when it comes back: its counts go on */
  if (site) gw->users[u].rekeys = old.rekeys;
  if (publish(t, &t->cfg)) { /* still reachable: kept, unused */
    memset(&old, 0, sizeof old);
  }
  struct tunnel_peer *p = &gw->peers[gw->npeers + u];
  if (!site) {
    atomic_store(&p->tx_packets, 0), atomic_store(&p->tx_bytes, 0);
    atomic_store(&p->rx_packets, 0), atomic_store(&p->rx_bytes, 0);
    atomic_store(&p->rx_replay, 0), atomic_store(&p->rx_auth, 0);
    atomic_store(&p->rx_selector, 0), atomic_store(&p->last_seen, 0);
  }
  pthread_mutex_unlock(&gw->lock);
  tunnel_sa_free(old.out);
  for (int k = 0; k < TUNNEL_SA_IN_MAX; k++) tunnel_sa_free(old.in[k]);
}

static struct tunnel_sa *user_in(struct tunnel_gw_user *us, uint32_t spi) {
  for (int k = 0; k < TUNNEL_SA_IN_MAX; k++)
    if (us->in[k] && us->in[k]->esp.spi == spi) return us->in[k];
  return NULL;
}

int tunnel_gw_user_in_accepted(struct tunnel *t, size_t u, uint32_t spi, uint64_t *n) {
  const struct tunnel_sa *sa = user_in(&t->gw->users[u], spi); /* the IKE thread's own */
  if (sa) *n = atomic_load(&sa->accepted);
  return sa ? 0 : -1;
}

void tunnel_gw_user_usage(struct tunnel *t, size_t u, uint32_t spi_in, uint32_t spi_out,
                          struct tunnel_sa_usage *us) {
  struct tunnel_gw_user *g = &t->gw->users[u]; /* the IKE thread's own */
  tunnel_sa_usage_of(user_in(g, spi_in), g->out, spi_out, us);
}

/* The counters of a peer's line, from tx_packets to last_seen. */
static void peer_counters(struct tunnel_peer *p, FILE *f) {
  fprintf(f,
          " tx_packets %llu tx_bytes %llu rx_packets %llu rx_bytes %llu rx_replay %llu "
          "rx_auth %llu rx_selector %llu last_seen %lld",
          (unsigned long long)atomic_load(&p->tx_packets),
          (unsigned long long)atomic_load(&p->tx_bytes),
          (unsigned long long)atomic_load(&p->rx_packets),
          (unsigned long long)atomic_load(&p->rx_bytes),
          (unsigned long long)atomic_load(&p->rx_replay),
          (unsigned long long)atomic_load(&p->rx_auth),
          (unsigned long long)atomic_load(&p->rx_selector),
          (long long)atomic_load(&p->last_seen));
}

void tunnel_gw_status(struct tunnel *t, FILE *f) {
  if (t->gw && t->cfg.pool) { /* a [pool]'s: those connected, of its slots */
    size_t n = 0;
    pthread_mutex_lock(&t->gw->lock);
    for (size_t u = 0; u < t->gw->nusers; u++) n += t->gw->users[u].used;
    pthread_mutex_unlock(&t->gw->lock);
    fprintf(f, "remote_users %zu\nremote_user_slots %zu\n", n, t->gw->nusers - t->gw->nsites);
  }
  for (size_t i = 0; t->gw && i < t->gw->npeers; i++) {
    struct tunnel_peer *p = &t->gw->peers[i];
    fprintf(f, "peer %s %s spi_out 0x%08x spi_in 0x%08x", p->cfg->name, p->cfg->peer_s,
            (unsigned)p->cfg->spi_out, (unsigned)p->cfg->spi_in);
    peer_counters(p, f);
    fputc('\n', f);
  }
  for (size_t u = 0; t->gw && u < t->gw->nusers; u++) {
    struct tunnel_gw *gw = t->gw;
    const struct tunnel_peer_config *site = u < gw->nsites ? &t->cfg.peers[gw->npeers + u] : NULL;
    pthread_mutex_lock(&gw->lock);
    const struct tunnel_gw_user *us = &gw->users[u];
    if (site || (us->used && us->has_ip)) { /* a site's always, down or up */
      char at[sizeof t->cfg.peer_s + 8] = "-", ip[INET_ADDRSTRLEN], name[TUNNEL_PEER_NAME_MAX + 24];
      const struct sockaddr_in *to = (const struct sockaddr_in *)&us->to;
      char a[INET_ADDRSTRLEN];
      if (to->sin_family == AF_INET && inet_ntop(AF_INET, &to->sin_addr, a, sizeof a))
        snprintf(at, sizeof at, "%s:%u", a, ntohs(to->sin_port));
      else if (site)
        snprintf(at, sizeof at, "%s", site->peer_s);
      inet_ntop(AF_INET, us->ip, ip, sizeof ip);
      uint32_t spi_in = 0;
      for (int k = 0; k < TUNNEL_SA_IN_MAX; k++)
        if (us->in[k] && us->in[k]->esp.spi > spi_in) spi_in = us->in[k]->esp.spi;
      if (site) snprintf(name, sizeof name, "%s", site->name);
      else snprintf(name, sizeof name, "%s.%zu", t->cfg.pool_name, u - gw->nsites);
      fprintf(f, "peer %s %s keying ikev2%s%s spi_out 0x%08x spi_in 0x%08x", name, at,
              site ? "" : " inner ", site ? "" : ip, us->out ? (unsigned)us->out->esp.spi : 0u,
              (unsigned)spi_in);
      peer_counters(&gw->peers[gw->npeers + u], f);
      fprintf(f, " rekeys %llu id %s\n", (unsigned long long)us->rekeys,
              site ? site->ike->remote_id.text : us->id);
    }
    pthread_mutex_unlock(&gw->lock);
  }
}
