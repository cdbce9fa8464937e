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
  free(tab->from);
  free(tab);
}

/* A reload's changes to the slots the next tables are built of: per slot,
 * the inbound SA where it is not the slot's own yet (new keys), and
 * whether the slot is left out (a peer removed, emptied once no worker
 * reaches it). */
struct tab_edit {
  struct tunnel_sa *const *in_of;
  const unsigned char *kept;
};

/* Slot i's config entry as the next tables take it: NULL when free or left
 * out. */
static const struct tunnel_peer_config *slot_cfg(const struct tunnel_gw *gw, size_t i,
                                                 const struct tab_edit *ed) {
  return ed && !ed->kept[i] ? NULL : atomic_load(&gw->peers[i].cfg);
}

/* The tables of the static peers' slots in use (each slot's entry of the
 * config: a reload's new ones once repointed) and the users' slots (under
 * gw->lock): each prefix valued by its peer's index, each user with an
 * address by its /32; ed (NULL: none) a reload's changes. NULL after a
 * line. */
static struct tunnel_gw_tab *tab_build(const struct tunnel *t, const struct tab_edit *ed) {
  const struct tunnel_gw *gw = t->gw;
  size_t n = 0, nspi = 0;
  for (size_t i = 0; i < gw->npeers; i++) {
    const struct tunnel_peer_config *c = slot_cfg(gw, i, ed);
    if (c) n += c->nts, nspi++;
  }
  for (size_t u = 0; u < gw->nusers; u++) {
    n += gw->users[u].site ? gw->users[u].site->nts : (size_t)gw->users[u].has_ip;
    for (int k = 0; k < TUNNEL_SA_IN_MAX; k++) nspi += gw->users[u].in[k] != NULL;
  }
  struct tunnel_prefix *p = malloc((n ? n : 1) * sizeof *p);
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  struct tunnel_gw_tab *tab = calloc(1, sizeof *tab);
  if (tab) {
    tab->by_spi = calloc(nspi ? nspi : 1, sizeof *tab->by_spi);
    tab->out = calloc(gw->nusers ? gw->nusers : 1, sizeof *tab->out);
    tab->to = calloc(gw->nusers ? gw->nusers : 1, sizeof *tab->to);
    tab->from = calloc(gw->nusers ? gw->nusers : 1, sizeof *tab->from);
  }
  if (p && v && tab && tab->by_spi && tab->out && tab->to && tab->from) {
    size_t k = 0;
    for (size_t i = 0; i < gw->npeers; i++) {
      const struct tunnel_peer_config *c = slot_cfg(gw, i, ed);
      if (!c) continue;
      for (size_t j = 0; j < c->nts; j++, k++) {
        p[k] = c->ts[j];
        v[k] = (uint32_t)i;
      }
      struct tunnel_sa *in = atomic_load(&gw->peers[i].sf.st_in);
      if (ed && ed->in_of[i]) in = ed->in_of[i];
      tab->by_spi[tab->nspi++] = (struct tunnel_peer_spi){c->spi_in, (uint32_t)i, in};
    }
    for (size_t u = 0; u < gw->nusers; u++) {
      const struct tunnel_gw_user *us = &gw->users[u];
      const uint32_t idx = (uint32_t)(gw->npeers + u);
      const struct tunnel_peer_config *site = us->site;
      for (size_t j = 0; site && j < site->nts; j++, k++) {
        p[k] = site->ts[j]; /* a site's, routed while it is down too: dropped then */
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
      tab->from[u] = us->from;
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

/* tab in place of the tables (gw->lock held), the old ones freed once no
 * worker holds them (nor anything unlinked before: the grace period). */
static void swap_in(struct tunnel *t, struct tunnel_gw_tab *tab) {
  struct tunnel_gw_tab *old = atomic_exchange(&t->gw->tab, tab);
  tunnel_sa_grace(t);
  tab_free(old);
}

/* The next tables in place (gw->lock held): 0, or -1 (no memory: the old
 * ones stay). */
static int publish(struct tunnel *t) {
  struct tunnel_gw_tab *tab = tab_build(t, NULL);
  if (!tab) return -1;
  swap_in(t, tab);
  return 0;
}

/* The SA pair of peer c's key files (not linked): 0, or CLI_EXIT_* after
 * one line. */
static int peer_pair(struct tunnel *t, const struct tunnel_peer_config *c, struct tunnel_sa **o,
                     struct tunnel_sa **i) {
  static struct tunnel_config pc; /* big; the main thread only */
  tunnel_config_of_peer(&t->cfg, c, &pc);
  return tunnel_pair_load(t, &pc, o, i);
}

/* Slot p taken by peer c (its path is the state file's; not reachable
 * until a table names it): its SA pair from its key files and their
 * fingerprints. */
static int slot_fill(struct tunnel *t, struct tunnel_peer *p, const struct tunnel_peer_config *c) {
  atomic_store(&p->cfg, c);
  snprintf(p->sf.path, sizeof p->sf.path, "%s.peer.%s", t->cfg.state, c->name);
  struct tunnel_sa *o, *i;
  int rc = peer_pair(t, c, &o, &i);
  atomic_store(&p->sf.st_out, o);
  atomic_store(&p->sf.st_in, i);
  return rc ? rc : tunnel_fingerprints(&p->sf);
}

/* Slot p free again (no worker reaches it): its SAs wiped and freed, its
 * fingerprints and counters zeroed. */
static void slot_empty(struct tunnel_peer *p) {
  tunnel_sa_free(atomic_load(&p->sf.st_out));
  tunnel_sa_free(atomic_load(&p->sf.st_in));
  pthread_mutex_destroy(&p->sf.lock);
  gostx_memzero(p, sizeof *p);
  atomic_store(&p->cfg, NULL);
  pthread_mutex_init(&p->sf.lock, NULL);
}

/* Whether a peer's SA pair (a: out, in) shares a key with b's: said in one
 * line as [peer B]'s fault (pre: "reload refused: " or ""), as a key of two
 * SAs would be numbered twice from 1. a == b by name: b's new keys are its
 * keys of now (the same numbers again). */
static int keys_clash(const struct tunnel *t, const char *pre, const struct tunnel_peer_config *a,
                      struct tunnel_sa *const ka[2], const struct tunnel_peer_config *b,
                      struct tunnel_sa *const kb[2]) {
  for (int x = 0; x < 4; x++)
    if (!gostx_memeq_ct(ka[x / 2]->esp.key, kb[x % 2]->esp.key, GOSTX_ESP_KEY_LEN)) {
      if (!strcmp(a->name, b->name))
        cli_err("%s%s:%u: [peer %s]: its new %s is its %s of now (its numbers would "
                "start again at 1: nonces reused): give it new key files",
                pre, t->cfg.path, b->line, b->name, x % 2 ? "key_in" : "key_out",
                x / 2 ? "key_in" : "key_out");
      else
        cli_err("%s%s:%u: [peer %s]: its %s is the key of peer %s's %s: every SA of "
                "the gateway needs a key of its own",
                pre, t->cfg.path, b->line, b->name, x % 2 ? "key_in" : "key_out", a->name,
                x / 2 ? "key_in" : "key_out");
      return CLI_EXIT_USAGE;
    }
  return 0;
}

/* Slot p's pair, as keys_clash takes it. */
static void pair_of(struct tunnel_peer *p, struct tunnel_sa *k[2]) {
  k[0] = atomic_load(&p->sf.st_out);
  k[1] = atomic_load(&p->sf.st_in);
}

/* Two peers under one key (whatever their salts, their SPIs): refused. */
static int keys_shared(const struct tunnel *t) {
  struct tunnel_gw *gw = t->gw;
  for (size_t j = 0; j < gw->npeers; j++)
    for (size_t i = 0; i < j && atomic_load(&gw->peers[j].cfg); i++) {
      struct tunnel_sa *ka[2], *kb[2];
      if (!atomic_load(&gw->peers[i].cfg)) continue;
      pair_of(&gw->peers[i], ka);
      pair_of(&gw->peers[j], kb);
      if (keys_clash(t, "", atomic_load(&gw->peers[i].cfg), ka, atomic_load(&gw->peers[j].cfg),
                     kb))
        return CLI_EXIT_USAGE;
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
  /* with an IKE thread (sites or a [pool]), slots for sites a SIGHUP adds */
  const size_t ns = t->cfg.nsites + (t->cfg.nsites || t->cfg.pool ? TUNNEL_GW_SITES_SPARE : 0);
  const size_t n = t->cfg.npeers - t->cfg.nsites, nu = ns + user_slots(&t->cfg);
  /* a gateway of static peers keeps slots to add more by SIGHUP */
  const size_t slots = n ? n + TUNNEL_GW_PEERS_SPARE : 0;
  struct tunnel_gw *gw = calloc(1, sizeof *gw);
  const size_t bytes = ((slots + nu) * sizeof *gw->peers + 63) / 64 * 64;
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
  memset(gw->peers, 0, (slots + nu) * sizeof *gw->peers);
  for (size_t i = 0; i < slots; i++) pthread_mutex_init(&gw->peers[i].sf.lock, NULL);
  pthread_mutex_init(&gw->lock, NULL);
  gw->npeers = slots;
  gw->nusers = nu;
  gw->nsites = ns;
  t->gw = gw;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) rc = slot_fill(t, &gw->peers[i], &t->cfg.peers[i]);
  if (!rc) rc = keys_shared(t);
  struct tunnel_gw_tab *tab = rc ? NULL : tab_build(t, NULL);
  if (!rc && !tab) rc = CLI_EXIT_FAIL;
  atomic_store(&gw->tab, tab);
  return rc;
}

size_t tunnel_gw_peers(const struct tunnel *t) {
  size_t n = 0;
  for (size_t i = 0; t->gw && i < t->gw->npeers; i++)
    n += atomic_load(&t->gw->peers[i].cfg) != NULL;
  return n;
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
  const struct tunnel_src *from; /* NULL: the kernel's choice */
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
      u->from = &tab->from[peer[i] - gw->npeers];
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
    tunnel_send_sealed(w, b + u->i, u->n, u->got, u->to, u->to_len, u->from);
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

/* What a reload does with each [peer] of the new config. */
enum { PEER_KEEP, PEER_REKEY, PEER_ADD };

/* Whether a and b key the same SA pair (their address and remote_ts aside). */
static int same_keys(const struct tunnel_peer_config *a, const struct tunnel_peer_config *b) {
  return a->transform == b->transform && a->spi_out == b->spi_out && a->spi_in == b->spi_in &&
         !strcmp(a->key_out, b->key_out) && !strcmp(a->key_in, b->key_in);
}

/* cfg's settings but the [peer] sections (and what is only where the
 * reader stood: line numbers, a section's remote_ts) into n, copied byte
 * for byte (the reader zeroes a config whole: two compare with memcmp). */
static void settings_of(const struct tunnel_config *cfg, struct tunnel_config *n) {
  memcpy(n, cfg, sizeof *n);
  n->peers = NULL;
  n->npeers = n->nsites = 0;
  n->pool = NULL;
  memset(n->ts, 0, sizeof n->ts);
  n->nts = 0;
  n->pool_line = 0;
  for (size_t i = 0; i < TUNNEL_POOL_PSKS; i++) n->user_addr[i].line = 0;
}

/* Whether a and b differ only in their [peer] sections. */
static int same_settings(const struct tunnel_config *a, const struct tunnel_config *b) {
  static struct tunnel_config x, y; /* big; the main thread only */
  settings_of(a, &x);
  settings_of(b, &y);
  if (memcmp(&x, &y, sizeof x) || !a->pool != !b->pool) return 0;
  if (!a->pool) return 1;
  settings_of(a->pool, &x);
  settings_of(b->pool, &y);
  return !memcmp(&x, &y, sizeof x);
}

/* The static [peer] sections of c: its first ones (the IKEv2 ones last). */
static size_t statics(const struct tunnel_config *c) {
  return c->npeers - c->nsites;
}

/* A reload's plan (gw->lock held): for each static peer of the new config, its
 * slot, what is done, and its new SA pair (PEER_REKEY: staged here;
 * PEER_ADD: in its slot already). */
struct reload_plan {
  size_t *slot;
  int *kind;
  struct tunnel_sa **next; /* [2 * j]: out, [2 * j + 1]: in (PEER_REKEY) */
  struct tunnel_sa **in_of; /* per slot: the inbound SA the new table links */
  unsigned char *kept;      /* per slot: a peer of the new config's */
};

/* The slot of the peer named name, or npeers. */
static size_t slot_named(const struct tunnel_gw *gw, const char *name) {
  for (size_t i = 0; i < gw->npeers; i++) {
    const struct tunnel_peer_config *c = atomic_load(&gw->peers[i].cfg);
    if (c && !strcmp(c->name, name)) return i;
  }
  return gw->npeers;
}

/* Whether spi is a remote user's inbound SPI now (a static peer's new
 * spi_in must not be one; the config reader checked the static ones). */
static int spi_of_user(const struct tunnel_gw *gw, uint32_t spi) {
  const struct tunnel_gw_tab *tab = atomic_load(&gw->tab);
  for (size_t i = 0; i < tab->nspi; i++)
    if (tab->by_spi[i].spi == spi && tab->by_spi[i].peer >= gw->npeers) return 1;
  return 0;
}

/* Each new peer's slot and kind, the added ones' slots filled and their
 * state files read, the changed ones' pairs staged, every new key checked
 * against the keys in use and the other new ones: 0, or nonzero after one
 * line (undo_plan then frees what was made). */
static int make_plan(struct tunnel *t, const struct tunnel_config *next, struct reload_plan *pl) {
  struct tunnel_gw *gw = t->gw;
  const char *pre = "tunnel: reload refused: ";
  size_t free_slot = 0;
  for (size_t j = 0; j < statics(next); j++) {
    const struct tunnel_peer_config *c = &next->peers[j];
    size_t i = slot_named(gw, c->name);
    pl->kind[j] = i == gw->npeers ? PEER_ADD : same_keys(atomic_load(&gw->peers[i].cfg), c)
                                                   ? PEER_KEEP : PEER_REKEY;
    if (pl->kind[j] == PEER_ADD) {
      while (free_slot < gw->npeers && (atomic_load(&gw->peers[free_slot].cfg) ||
                                        atomic_load(&gw->peers[free_slot].sf.st_out)))
        free_slot++;
      if (free_slot == gw->npeers) {
        cli_err("%s%s:%u: [peer %s]: no free slot (a gateway takes up to %d peers "
                "more than it started with: a restart makes room)",
                pre, t->cfg.path, c->line, c->name, TUNNEL_GW_PEERS_SPARE);
        return CLI_EXIT_USAGE;
      }
      i = free_slot;
    }
    pl->slot[j] = i;
    pl->kept[i] = 1;
    if (pl->kind[j] != PEER_KEEP && spi_of_user(gw, c->spi_in)) {
      cli_err("%s%s:%u: [peer %s]: spi_in 0x%08x is a remote user's now", pre,
              t->cfg.path, c->line, c->name, (unsigned)c->spi_in);
      return CLI_EXIT_USAGE;
    }
    int rc = pl->kind[j] == PEER_ADD ? slot_fill(t, &gw->peers[i], c)
             : pl->kind[j] == PEER_REKEY ? peer_pair(t, c, &pl->next[2 * j], &pl->next[2 * j + 1])
                                         : 0;
    if (rc) return rc;
    if (pl->kind[j] == PEER_REKEY) pl->in_of[i] = pl->next[2 * j + 1];
  }
  /* every new pair against each pair in use (a removed peer's too: its
   * keys must not start again at 1 under another name) and the new ones
   * before it */
  for (size_t j = 0; j < statics(next); j++) {
    if (pl->kind[j] == PEER_KEEP) continue;
    struct tunnel_sa *kb[2], *ka[2];
    const struct tunnel_peer_config *b = &next->peers[j];
    if (pl->kind[j] == PEER_ADD) pair_of(&gw->peers[pl->slot[j]], kb);
    else kb[0] = pl->next[2 * j], kb[1] = pl->next[2 * j + 1];
    for (size_t i = 0; i < gw->npeers; i++) {
      const struct tunnel_peer_config *a = atomic_load(&gw->peers[i].cfg);
      if (!a || a == b) continue; /* free, or b itself (added) */
      pair_of(&gw->peers[i], ka);
      if (keys_clash(t, pre, a, ka, b, kb)) return CLI_EXIT_USAGE;
    }
    for (size_t k = 0; k < j; k++)
      if (pl->kind[k] == PEER_REKEY &&
          keys_clash(t, pre, &next->peers[k], pl->next + 2 * k, b, kb))
        return CLI_EXIT_USAGE;
  }
  for (size_t j = 0; j < statics(next); j++)
    if (pl->kind[j] == PEER_ADD) {
      int rc = tunnel_state_add(t, &gw->peers[pl->slot[j]].sf);
      if (rc) return rc;
    }
  return 0;
}

/* The staged pairs freed (PEER_REKEY: the new ones unused, or after the
 * swap the old ones). */
static void free_staged(const struct tunnel_config *next, struct reload_plan *pl) {
  for (size_t j = 0; j < 2 * statics(next); j++) {
    tunnel_sa_free(pl->next[j]);
    pl->next[j] = NULL;
  }
}

/* What make_plan made, freed: the added peers' slots emptied (no table
 * names them), the staged pairs. */
static void undo_plan(struct tunnel *t, const struct tunnel_config *next, struct reload_plan *pl) {
  for (size_t j = 0; j < statics(next); j++)
    if (pl->kind[j] == PEER_ADD && pl->slot[j] < t->gw->npeers)
      slot_empty(&t->gw->peers[pl->slot[j]]);
  free_staged(next, pl);
}

/* The plan carried out: each kept or changed slot pointed at its new
 * entry, the new tables built (the changed peers' new inbound SAs in them),
 * the changed peers' state files moved to their new keys and their SAs
 * switched, the tables swapped in; after the grace period (no worker
 * reaches the old tables, entries or SAs), the changed peers' old SAs and
 * the removed peers' slots freed (their exact numbers written first), and
 * next's entries made t->cfg's. 0, or -1 (no memory: nothing changed). */
static int carry_out(struct tunnel *t, struct tunnel_config *next, struct reload_plan *pl,
                     size_t counts[4]) {
  struct tunnel_gw *gw = t->gw;
  const struct tunnel_peer_config **was = calloc(gw->npeers ? gw->npeers : 1, sizeof *was);
  if (!was) return -1;
  for (size_t i = 0; i < gw->npeers; i++) was[i] = atomic_load(&gw->peers[i].cfg);
  for (size_t j = 0; j < statics(next); j++)
    atomic_store(&gw->peers[pl->slot[j]].cfg, &next->peers[j]);
  const struct tab_edit ed = {pl->in_of, pl->kept};
  struct tunnel_gw_tab *tab = tab_build(t, &ed);
  if (!tab) {
    for (size_t i = 0; i < gw->npeers; i++) atomic_store(&gw->peers[i].cfg, was[i]);
    free(was);
    return -1;
  }
  for (size_t j = 0; j < statics(next); j++) {
    struct tunnel_peer *p = &gw->peers[pl->slot[j]];
    if (pl->kind[j] != PEER_REKEY) continue;
    struct tunnel_sa *o = atomic_load(&p->sf.st_out), *i = atomic_load(&p->sf.st_in);
    /* the new keys' file, then their SAs (the state's lock: the workers
     * reserve under the pair they sealed or opened with) */
    if (tunnel_state_rekey(&p->sf, pl->next[2 * j], pl->next[2 * j + 1])) {
      /* its file cannot be written (the line said why): the old pair
       * keeps sealing and numbering, and its inbound SA goes into the
       * table in place of the new one (a disk error: the rest goes on) */
      struct tunnel_peer_config *c = &next->peers[j];
      const struct tunnel_peer_config *w = was[pl->slot[j]];
      c->transform = w->transform;
      c->spi_out = w->spi_out;
      c->spi_in = w->spi_in;
      memcpy(c->key_out, w->key_out, sizeof c->key_out);
      memcpy(c->key_in, w->key_in, sizeof c->key_in);
      for (size_t k = 0; k < tab->nspi; k++)
        if (tab->by_spi[k].sa == pl->next[2 * j + 1])
          tab->by_spi[k] = (struct tunnel_peer_spi){c->spi_in, (uint32_t)pl->slot[j], i};
      qsort(tab->by_spi, tab->nspi, sizeof *tab->by_spi, by_spi_cmp);
      pl->kind[j] = PEER_KEEP;
      fprintf(stderr, "gostx tunnel: reload: [peer %s] keeps its keys of before\n", c->name);
      continue;
    }
    /* the old pair, freed after the swap below */
    pl->next[2 * j] = o;
    pl->next[2 * j + 1] = i;
  }
  swap_in(t, tab);
  memset(counts, 0, 4 * sizeof *counts);
  for (size_t j = 0; j < statics(next); j++) {
    const struct tunnel_peer_config *w = was[pl->slot[j]];
    counts[pl->kind[j]]++;
    if (pl->kind[j] == PEER_KEEP && (w->peer_len != next->peers[j].peer_len ||
                                     memcmp(&w->peer, &next->peers[j].peer, w->peer_len)))
      counts[3]++; /* moved */
  }
  for (size_t i = 0; i < gw->npeers; i++)
    if (was[i] && !pl->kept[i]) { /* removed: its exact numbers, as at a stop */
      tunnel_state_stop(&gw->peers[i].sf);
      slot_empty(&gw->peers[i]);
    }
  free(was);
  free_staged(next, pl); /* the changed peers' old pairs */
  /* (the IKEv2 sections too: the IKE thread's sites are copies of them) */
  struct tunnel_peer_config *old = t->cfg.peers;
  const size_t nold = t->cfg.npeers, sold = t->cfg.nsites;
  t->cfg.peers = next->peers;
  t->cfg.npeers = next->npeers;
  t->cfg.nsites = next->nsites;
  next->peers = old;
  next->npeers = nold;
  next->nsites = sold;
  return 0;
}

int tunnel_gw_reload_read(struct tunnel *t, struct tunnel_config *next) {
  if (tunnel_config_read(t->cfg.path, next)) {
    cli_err("tunnel: reload refused: %s (above): the running peers kept", t->cfg.path);
    return CLI_EXIT_USAGE;
  }
  if (next->nsites && !t->ra) /* no IKE thread to run them */
    cli_err("tunnel: reload refused: %s: IKEv2 [peer] sections in a gateway started with "
            "neither those nor a [pool] take a restart",
            t->cfg.path);
  else if (!same_settings(&t->cfg, next))
    cli_err("tunnel: reload refused: %s changed more than its [peer] sections (a gateway's "
            "other settings and its [pool] take a restart)",
            t->cfg.path);
  else return 0;
  tunnel_config_free(next);
  return CLI_EXIT_USAGE;
}

int tunnel_gw_reload(struct tunnel *t, struct tunnel_config *next, size_t counts[4]) {
  struct tunnel_gw *gw = t->gw;
  const size_t n = statics(next);
  struct reload_plan pl = {
      calloc(n ? n : 1, sizeof *pl.slot), calloc(n ? n : 1, sizeof *pl.kind),
      calloc(2 * n + 1, sizeof *pl.next), calloc(gw->npeers + 1, sizeof *pl.in_of),
      calloc(gw->npeers + 1, 1)};
  size_t c[4], before = tunnel_gw_peers(t); /* c: by kind, then moved */
  pthread_mutex_lock(&gw->lock);
  int rc = !pl.slot || !pl.kind || !pl.next || !pl.in_of || !pl.kept ? -1 : 0;
  if (rc) cli_err("tunnel: reload refused: out of memory");
  for (size_t j = 0; !rc && j < n; j++) pl.slot[j] = gw->npeers; /* none yet */
  if (!rc && (rc = make_plan(t, next, &pl))) undo_plan(t, next, &pl);
  if (!rc && (rc = carry_out(t, next, &pl, c))) {
    cli_err("tunnel: reload refused: out of memory");
    undo_plan(t, next, &pl);
  }
  pthread_mutex_unlock(&gw->lock);
  const size_t said[4] = {c[PEER_ADD], c[PEER_REKEY], c[3], before - (n - c[PEER_ADD])};
  if (!rc) memcpy(counts, said, sizeof said);
  free(pl.slot), free(pl.kind), free(pl.next), free(pl.in_of), free(pl.kept);
  return rc;
}

void tunnel_gw_reload_say(const struct tunnel *t, const size_t counts[4], const size_t sites[3]) {
  char ike[96] = "";
  if (t->cfg.nsites || sites[0] || sites[2])
    snprintf(ike, sizeof ike, "; IKEv2: %zu added, %zu changed, %zu removed", sites[0],
             sites[1], sites[2]);
  fprintf(stderr,
          "gostx tunnel: reload: %zu peers (%zu added, %zu with new keys, %zu moved, %zu "
          "removed%s), their routes anew\n",
          t->cfg.npeers, counts[0], counts[1], counts[2], counts[3], ike);
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
    if (publish(t)) us->in[k] = NULL, rc = -1;
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
  if (publish(t)) { /* no memory for the tables: the old SA stays reachable */
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
      if (publish(t)) us->in[k] = sa, sa = NULL;
    }
  pthread_mutex_unlock(&gw->lock);
  tunnel_sa_free(sa);
  return sa ? 0 : -1;
}

void tunnel_gw_user_set_to(struct tunnel *t, size_t u, const struct sockaddr_storage *to,
                           const struct tunnel_src *from) {
  pthread_mutex_lock(&t->gw->lock);
  struct tunnel_gw_user *us = &t->gw->users[u];
  us->to = *to;
  us->from = *from;
  /* the tables anew only when the workers send to it (an IKE_SA_INIT's
   * new slot waits for its first SA: a flood of them costs no grace) */
  if (us->out) (void)publish(t);
  pthread_mutex_unlock(&t->gw->lock);
}

void tunnel_gw_user_set(struct tunnel *t, size_t u, const uint8_t ip[4], const char *id) {
  pthread_mutex_lock(&t->gw->lock);
  struct tunnel_gw_user *us = &t->gw->users[u];
  us->used = 1;
  us->has_ip = 1;
  memcpy(us->ip, ip, 4);
  snprintf(us->id, sizeof us->id, "%s", id);
  (void)publish(t);
  pthread_mutex_unlock(&t->gw->lock);
}

/* A user's counters zeroed, for the next one in its slot. */
static void peer_zero(struct tunnel_peer *p) {
  atomic_store(&p->tx_packets, 0), atomic_store(&p->tx_bytes, 0);
  atomic_store(&p->rx_packets, 0), atomic_store(&p->rx_bytes, 0);
  atomic_store(&p->rx_replay, 0), atomic_store(&p->rx_auth, 0);
  atomic_store(&p->rx_selector, 0), atomic_store(&p->last_seen, 0);
}

void tunnel_gw_site_set(struct tunnel *t, size_t u, const struct tunnel_peer_config *site,
                        const char *id) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  gw->users[u].site = site;
  snprintf(gw->users[u].id, sizeof gw->users[u].id, "%s", site ? id : "");
  gw->users[u].rekeys = 0;
  peer_zero(&gw->peers[gw->npeers + u]);
  /* no memory for the tables: the old routes stay (they hold no pointer
   * to the section) until the next change */
  (void)publish(t);
  pthread_mutex_unlock(&gw->lock);
}

void tunnel_gw_user_clear(struct tunnel *t, size_t u) {
  struct tunnel_gw *gw = t->gw;
  pthread_mutex_lock(&gw->lock);
  struct tunnel_gw_user old = gw->users[u];
  memset(&gw->users[u], 0, sizeof gw->users[u]);
  const int site = u < gw->nsites; /* the same peer when it comes back: its counts go on */
  if (site) {
    gw->users[u].rekeys = old.rekeys, gw->users[u].site = old.site;
    memcpy(gw->users[u].id, old.id, sizeof old.id);
  }
  if (publish(t)) { /* still reachable: kept, unused */
    memset(&old, 0, sizeof old);
  }
  if (!site) peer_zero(&gw->peers[gw->npeers + u]);
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
    const struct tunnel_peer_config *c = atomic_load(&p->cfg);
    if (!c) continue; /* a free slot */
    fprintf(f, "peer %s %s spi_out 0x%08x spi_in 0x%08x", c->name, c->peer_s,
            (unsigned)c->spi_out, (unsigned)c->spi_in);
    peer_counters(p, f);
    fputc('\n', f);
  }
  for (size_t u = 0; t->gw && u < t->gw->nusers; u++) {
    struct tunnel_gw *gw = t->gw;
    pthread_mutex_lock(&gw->lock); /* a site's section lives while it holds the slot */
    const struct tunnel_gw_user *us = &gw->users[u];
    const struct tunnel_peer_config *site = us->site;
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
              us->id);
    }
    pthread_mutex_unlock(&gw->lock);
  }
}
