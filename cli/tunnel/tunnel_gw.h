/* gostx tunnel as a gateway (docs/TUNNEL.md, "Gateway (many peers)"): one
 * TUN device, many peers, each with its own static SA pair, state file and
 * inner prefixes (remote_ts). Outbound, a packet's inner destination picks
 * its peer (the longest-prefix table of tunnel_routes.h); inbound, the
 * SPI picks the peer (a sorted index), and the inner source must be one of
 * that peer's prefixes. What has no peer is dropped and counted, never sent
 * in clear.
 *
 * The IKEv2 peers (sites) and a [pool] section's remote users (both
 * keyed by ike/ike_gateway.c) take the slots after the static peers:
 * their SAs and their outer address come and go as IKE says; a site's
 * routes are its remote_ts always (while it holds its slot: a SIGHUP
 * adds and removes sites), a user's its inner address (a /32 from the
 * pool) while it holds it.
 *
 * The workers reach the peers and the tables without a lock, inside the
 * span of tunnel_sa_enter / tunnel_sa_leave: the tables (the routes, the
 * SPI index, the users' outbound SAs and addresses) are built anew on
 * every change (a reload, a user's Child SA added, switched, retired, its
 * address moved), swapped in whole, and the old ones freed after
 * tunnel_sa_grace, with the SAs they alone held. The static peers have
 * slots of their own (those of the config at the start and
 * TUNNEL_GW_PEERS_SPARE more): a SIGHUP fills a free slot before the
 * tables that reach it are swapped in, and empties a removed peer's only
 * after the swap's grace period, when no worker can reach it. */
#ifndef GOSTX_CLI_TUNNEL_GW_H
#define GOSTX_CLI_TUNNEL_GW_H

#include "tunnel.h"

#define TUNNEL_GW_PEERS_SPARE 64 /* static peers a SIGHUP may add beyond the start's */
/* IKEv2 sites a SIGHUP may add beyond the start's (a gateway with an IKE
 * thread: IKEv2 [peer] sections or a [pool]) */
#define TUNNEL_GW_SITES_SPARE 16

struct tunnel_peer {
  /* its entry of t->cfg.peers (NULL: a free slot, or a remote user's):
   * repointed by a SIGHUP (a new address), read by the workers */
  _Atomic(const struct tunnel_peer_config *) cfg;
  struct tunnel_state sf;               /* its SA pair and state file */
  /* what it carried and what of it was dropped (each worker adds once a
   * burst); last_seen: the wall-clock second of its last packet accepted */
  _Alignas(64) _Atomic uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
  _Atomic uint64_t rx_replay, rx_auth, rx_selector;
  _Atomic int64_t last_seen;
};

struct tunnel_peer_spi {
  uint32_t spi, peer; /* an inbound SPI and its peer's index */
  struct tunnel_sa *sa;
};

/* What the workers read, replaced whole: the routes, the inbound SPIs
 * sorted, and per remote user its outbound SA (NULL: none) and address. */
struct tunnel_gw_tab {
  struct tunnel_routes *routes;
  size_t nspi;
  struct tunnel_peer_spi *by_spi;
  struct tunnel_sa **out;        /* nusers */
  struct sockaddr_storage *to;   /* nusers */
  struct tunnel_src *from;       /* nusers */
};

/* A remote user's slot (the IKE thread's, under gw->lock): what the next
 * tables are built of. */
struct tunnel_gw_user {
  int used, has_ip;
  uint8_t ip[4];
  struct tunnel_sa *out;
  struct tunnel_sa *in[TUNNEL_SA_IN_MAX];
  struct sockaddr_storage to;
  struct tunnel_src from; /* the address its IKE came to (a wildcard local's) */
  uint64_t rekeys; /* outbound switches after the first */
  char id[256];    /* its ID as text (status) */
  /* a site's slot: its [peer] section (the IKE side's copy, alive until
   * tunnel_gw_site_set takes it out), routed by its remote_ts; NULL: a
   * free site slot, or a remote user's */
  const struct tunnel_peer_config *site;
};

struct tunnel_gw {
  size_t npeers; /* the static peers' slots, used or free (fixed) */
  /* IKE's slots: peers[npeers + i]; the first nsites the IKEv2 peers'
   * (those of the config at the start and TUNNEL_GW_SITES_SPARE more,
   * used or free: users[i].site), then the [pool]'s remote users' */
  size_t nusers, nsites;
  struct tunnel_peer *peers;
  struct tunnel_gw_user *users;
  pthread_mutex_t lock; /* the tables' writers: the IKE thread, SIGHUP */
  _Atomic(struct tunnel_gw_tab *) tab;
};

/* The remote users' side (ike/ike_gateway.c calls them, one thread): user
 * u's inbound SA linked (0, or -1: TUNNEL_SA_IN_MAX live, or its SPI an
 * inbound SPI of the gateway's already; sa then the caller's), its outbound SA switched to (NULL: none; the one before
 * freed), an inbound SA retired (-1: none of spi), its outer address (and
 * ours it sends from: from), its inner address from the next table on; clear: all of it gone, its
 * counters zeroed for the next user. */
int tunnel_gw_user_add_in(struct tunnel *t, size_t u, struct tunnel_sa *sa);
void tunnel_gw_user_switch(struct tunnel *t, size_t u, struct tunnel_sa *out);
int tunnel_gw_user_retire_in(struct tunnel *t, size_t u, uint32_t spi);
void tunnel_gw_user_set_to(struct tunnel *t, size_t u, const struct sockaddr_storage *to,
                           const struct tunnel_src *from);
void tunnel_gw_user_set(struct tunnel *t, size_t u, const uint8_t ip[4], const char *id);
void tunnel_gw_user_clear(struct tunnel *t, size_t u);
/* Site slot u (the IKE thread, its SAs cleared) taken by the section
 * site of remote ID id (text, for --status; NULL, NULL: free again): its
 * routes from the next table on, its counters zeroed; once it returns no
 * worker or status reaches the one before. */
void tunnel_gw_site_set(struct tunnel *t, size_t u, const struct tunnel_peer_config *site,
                        const char *id);
/* The packets accepted under user u's inbound SA of spi: 0, or -1 (none). */
int tunnel_gw_user_in_accepted(struct tunnel *t, size_t u, uint32_t spi, uint64_t *n);
void tunnel_gw_user_usage(struct tunnel *t, size_t u, uint32_t spi_in, uint32_t spi_out,
                          struct tunnel_sa_usage *us);

/* t->gw from t->cfg.peers: each peer's SA pair from its key files, its
 * state file's path and fingerprints, the SPI index and the routes. 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. */
int tunnel_gw_prepare(struct tunnel *t);
/* Everything of t->gw wiped and freed (the workers have stopped). */
void tunnel_gw_free(struct tunnel *t);
/* The workers: b[0..n) from the TUN device sealed, each under the SA of
 * the peer its destination picks, and sent to it; b[0..n) of any SPIs
 * opened, each under its peer's inbound SA, the inner sources checked.
 * Either burst is one lib/esp call across the SAs (gostx_esp_seal_mixed,
 * gostx_esp_open_mixed). */
void tunnel_gw_seal_and_send(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n);
void tunnel_gw_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n);
/* SIGHUP (main thread; cmd_tunnel.c runs it with the IKEv2 sites'
 * tunnel_ra_sites_*). reload_read: the config read again into next and
 * checked against the running one (only [peer] sections changed; IKEv2
 * ones only with an IKE thread): 0, or nonzero after one line (next
 * freed). reload: next's static [peer] sections added, changed (new keys,
 * address, remote_ts) and removed, swapped in with new tables at once,
 * the other peers untouched, and next's sections made t->cfg's (next
 * then holds those before, for tunnel_config_free): 0 with counts (added,
 * with new keys, moved, removed), or nonzero after one line, the running
 * peers kept. reload_say: the line of a reload taken, sites (added,
 * changed, removed) the IKEv2 sites' counts. */
int tunnel_gw_reload_read(struct tunnel *t, struct tunnel_config *next);
int tunnel_gw_reload(struct tunnel *t, struct tunnel_config *next, size_t counts[4]);
void tunnel_gw_reload_say(const struct tunnel *t, const size_t counts[4], const size_t sites[3]);
/* The static peers in use (of the npeers slots). */
size_t tunnel_gw_peers(const struct tunnel *t);
/* One "peer NAME ADDRESS key value ..." line per peer into f (a remote
 * user's: NAME the pool's and its slot, its ID last: "id TEXT"); with a
 * [pool], "remote_users N" (connected) and "remote_user_slots N" first. */
void tunnel_gw_status(struct tunnel *t, FILE *f);

#endif
