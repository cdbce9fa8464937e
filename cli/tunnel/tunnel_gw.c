/* gostx tunnel as a gateway of many static peers (tunnel_gw.h). */
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

/* The table of the peers' remote_ts (cfg's), each prefix valued by its
 * peer's index; NULL after a line. */
static struct tunnel_routes *routes_of(const struct tunnel_config *cfg) {
  size_t n = 0;
  for (size_t i = 0; i < cfg->npeers; i++) n += cfg->peers[i].nts;
  struct tunnel_prefix *p = malloc((n ? n : 1) * sizeof *p);
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  struct tunnel_routes *r = NULL;
  if (p && v) {
    size_t k = 0;
    for (size_t i = 0; i < cfg->npeers; i++)
      for (size_t j = 0; j < cfg->peers[i].nts; j++, k++) {
        p[k] = cfg->peers[i].ts[j];
        v[k] = (uint32_t)i;
      }
    r = tunnel_routes_build(p, v, n);
  }
  free(p);
  free(v);
  if (!r) cli_err("tunnel: out of memory (the gateway's routes)");
  return r;
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

int tunnel_gw_prepare(struct tunnel *t) {
  const size_t n = t->cfg.npeers;
  struct tunnel_gw *gw = calloc(1, sizeof *gw);
  if (gw) {
    gw->peers = aligned_alloc(64, n * sizeof *gw->peers);
    gw->by_spi = calloc(n, sizeof *gw->by_spi);
  }
  if (!gw || !gw->peers || !gw->by_spi) {
    if (gw) free(gw->peers), free(gw->by_spi);
    free(gw);
    cli_err("tunnel: out of memory");
    return CLI_EXIT_FAIL;
  }
  memset(gw->peers, 0, n * sizeof *gw->peers);
  t->gw = gw;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    struct tunnel_peer *p = &gw->peers[i];
    p->cfg = &t->cfg.peers[i];
    snprintf(p->sf.path, sizeof p->sf.path, "%s.peer.%s", t->cfg.state, p->cfg->name);
    pthread_mutex_init(&p->sf.lock, NULL);
    gw->npeers++;
    gw->by_spi[i] = (struct tunnel_peer_spi){p->cfg->spi_in, (uint32_t)i};
    rc = peer_sas(t, p);
  }
  if (!rc) rc = keys_shared(t);
  qsort(gw->by_spi, n, sizeof *gw->by_spi, by_spi_cmp);
  struct tunnel_routes *r = rc ? NULL : routes_of(&t->cfg);
  if (!rc && !r) rc = CLI_EXIT_FAIL;
  atomic_store(&gw->routes, r);
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
  gostx_memzero(gw->peers, gw->npeers * sizeof *gw->peers); /* fingerprints */
  free(gw->peers);
  free(gw->by_spi);
  tunnel_routes_free(atomic_load(&gw->routes));
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

void tunnel_gw_seal_and_send(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n) {
  struct tunnel_gw *gw = w->t->gw;
  uint32_t peer[TUNNEL_BURST];
  unsigned k = 0;
  tunnel_sa_enter(w);
  const struct tunnel_routes *r = atomic_load(&gw->routes);
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
  /* grouped by peer, each peer's packets in the order read (insertion
   * sort: stable, and a burst is mostly one peer's already) */
  for (unsigned i = 1; i < k; i++) {
    const gostx_esp_packet x = b[i];
    const uint32_t px = peer[i];
    unsigned j = i;
    for (; j && peer[j - 1] > px; j--) {
      b[j] = b[j - 1];
      peer[j] = peer[j - 1];
    }
    b[j] = x;
    peer[j] = px;
  }
  /* each peer's run sealed under its SA and sent to it (inside the span:
   * the peer's address is read from it) */
  for (unsigned i = 0, j; i < k; i = j) {
    for (j = i + 1; j < k && peer[j] == peer[i]; j++) {}
    struct tunnel_peer *p = &gw->peers[peer[i]];
    unsigned got, ok = 0;
    uint64_t bytes = 0;
    TUNNEL_TIMED(w, ns_seal, got = tunnel_sa_seal_under(w, p->sf.st_out, &p->sf, b + i, j - i));
    for (unsigned x = i; x < i + got; x++)
      if (!b[x].status) ok++, bytes += b[x].len;
    TUNNEL_ADD(p->tx_packets, ok);
    TUNNEL_ADD(p->tx_bytes, bytes);
    tunnel_send_sealed(w, b + i, j - i, got, &p->cfg->peer, p->cfg->peer_len);
  }
  tunnel_sa_leave(w);
}

static struct tunnel_peer *peer_by_spi(struct tunnel_gw *gw, uint32_t spi) {
  size_t lo = 0, hi = gw->npeers;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (gw->by_spi[mid].spi < spi) lo = mid + 1;
    else hi = mid;
  }
  return lo < gw->npeers && gw->by_spi[lo].spi == spi ? &gw->peers[gw->by_spi[lo].peer] : NULL;
}

void tunnel_gw_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n) {
  struct tunnel_gw *gw = w->t->gw;
  tunnel_sa_enter(w);
  struct tunnel_peer *p = peer_by_spi(gw, tunnel_spi_of(b[0].in));
  if (!p) {
    for (size_t i = 0; i < n; i++) b[i].status = GOSTX_EINVAL;
    tunnel_sa_leave(w);
    return;
  }
  tunnel_sa_open_under(w, p->sf.st_in, &p->sf, b, n);
  const struct tunnel_routes *r = atomic_load(&gw->routes);
  const uint32_t me = (uint32_t)(p - gw->peers);
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
  tunnel_sa_leave(w);
}

/* ---- the main thread ---- */

/* Whether a and b are the same peer but for its remote_ts. */
static int same_peer(const struct tunnel_peer_config *a, const struct tunnel_peer_config *b) {
  return !strcmp(a->name, b->name) && a->peer_len == b->peer_len &&
         !memcmp(&a->peer, &b->peer, a->peer_len) && a->transform == b->transform &&
         a->spi_out == b->spi_out && a->spi_in == b->spi_in && !strcmp(a->key_out, b->key_out) &&
         !strcmp(a->key_in, b->key_in);
}

void tunnel_gw_reload(struct tunnel *t) {
  static struct tunnel_config next; /* big; the main thread only */
  if (tunnel_config_read(t->cfg.path, &next)) return;
  struct tunnel_config a = t->cfg, b = next;
  a.peers = b.peers = NULL;
  int same = a.npeers == b.npeers && !memcmp(&a, &b, sizeof a);
  for (size_t i = 0; same && i < next.npeers; i++)
    same = same_peer(&t->cfg.peers[i], &next.peers[i]);
  if (!same) {
    cli_err("tunnel: reload refused: %s changed more than the peers' remote_ts (a gateway's "
            "peers, their keys and its other settings take a restart for now)",
            t->cfg.path);
    tunnel_config_free(&next);
    return;
  }
  struct tunnel_routes *r = routes_of(&next);
  if (r) {
    /* the new table whole, then the old one freed once no worker holds it */
    struct tunnel_routes *old = atomic_exchange(&t->gw->routes, r);
    tunnel_sa_grace(t);
    tunnel_routes_free(old);
    for (size_t i = 0; i < next.npeers; i++) { /* for --status and the next reload */
      memcpy(t->cfg.peers[i].ts, next.peers[i].ts, sizeof next.peers[i].ts);
      t->cfg.peers[i].nts = next.peers[i].nts;
      t->cfg.peers[i].ts_line = next.peers[i].ts_line;
    }
    fprintf(stderr, "gostx tunnel: reload: the routes of %zu peers anew\n", next.npeers);
  }
  tunnel_config_free(&next);
}

void tunnel_gw_status(struct tunnel *t, FILE *f) {
  for (size_t i = 0; t->gw && i < t->gw->npeers; i++) {
    struct tunnel_peer *p = &t->gw->peers[i];
    fprintf(f,
            "peer %s %s spi_out 0x%08x spi_in 0x%08x tx_packets %llu tx_bytes %llu "
            "rx_packets %llu rx_bytes %llu rx_replay %llu rx_auth %llu rx_selector %llu "
            "last_seen %lld\n",
            p->cfg->name, p->cfg->peer_s, (unsigned)p->cfg->spi_out, (unsigned)p->cfg->spi_in,
            (unsigned long long)atomic_load(&p->tx_packets),
            (unsigned long long)atomic_load(&p->tx_bytes),
            (unsigned long long)atomic_load(&p->rx_packets),
            (unsigned long long)atomic_load(&p->rx_bytes),
            (unsigned long long)atomic_load(&p->rx_replay),
            (unsigned long long)atomic_load(&p->rx_auth),
            (unsigned long long)atomic_load(&p->rx_selector),
            (long long)atomic_load(&p->last_seen));
  }
}
