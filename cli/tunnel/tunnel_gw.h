/* gostx tunnel as a gateway (docs/TUNNEL.md, "Gateway (many peers)"): one
 * TUN device, many peers, each with its own static SA pair, state file and
 * inner prefixes (remote_ts). Outbound, a packet's inner destination picks
 * its peer (the longest-prefix table of tunnel_routes.h); inbound, the
 * SPI picks the peer (a sorted index), and the inner source must be one of
 * that peer's prefixes. What has no peer is dropped and counted, never sent
 * in clear.
 *
 * The workers reach the peers and the table without a lock, inside the
 * span of tunnel_sa_enter / tunnel_sa_leave: a new table (a reload) is
 * swapped in whole and the old one freed after tunnel_sa_grace. The peers
 * themselves are fixed while the gateway runs (adding and removing them,
 * and IKEv2 peers, are for later: they plug in as a new peers array
 * published the same way). */
#ifndef GOSTX_CLI_TUNNEL_GW_H
#define GOSTX_CLI_TUNNEL_GW_H

#include "tunnel.h"

struct tunnel_peer {
  const struct tunnel_peer_config *cfg; /* t->cfg.peers[its index] */
  struct tunnel_state sf;               /* its SA pair and state file */
  /* what it carried and what of it was dropped (each worker adds once a
   * burst); last_seen: the wall-clock second of its last packet accepted */
  _Alignas(64) _Atomic uint64_t tx_packets, tx_bytes, rx_packets, rx_bytes;
  _Atomic uint64_t rx_replay, rx_auth, rx_selector;
  _Atomic int64_t last_seen;
};

struct tunnel_peer_spi {
  uint32_t spi, peer; /* an inbound SPI and its peer's index */
};

struct tunnel_gw {
  size_t npeers;
  struct tunnel_peer *peers;
  struct tunnel_peer_spi *by_spi; /* npeers, sorted by spi */
  _Atomic(struct tunnel_routes *) routes;
};

/* t->gw from t->cfg.peers: each peer's SA pair from its key files, its
 * state file's path and fingerprints, the SPI index and the routes. 0, or
 * CLI_EXIT_USAGE / CLI_EXIT_FAIL after one line. */
int tunnel_gw_prepare(struct tunnel *t);
/* Everything of t->gw wiped and freed (the workers have stopped). */
void tunnel_gw_free(struct tunnel *t);
/* The workers: b[0..n) from the TUN device sealed, each under the SA of
 * the peer its destination picks, and sent to it; b[0..n) of one SPI
 * opened under its peer's inbound SA, the inner sources checked. */
void tunnel_gw_seal_and_send(struct tunnel_worker *w, gostx_esp_packet *b, unsigned n);
void tunnel_gw_open(struct tunnel_worker *w, gostx_esp_packet *b, size_t n);
/* SIGHUP (main thread): the config read again; new remote_ts of the same
 * peers become the new table. Anything else changed is refused (one line:
 * a restart takes it). */
void tunnel_gw_reload(struct tunnel *t);
/* One "peer NAME ADDRESS key value ..." line per peer into f. */
void tunnel_gw_status(struct tunnel *t, FILE *f);

#endif
