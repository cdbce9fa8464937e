/* gostx tunnel as a gateway: what its IKE thread's two files share.
 * ike_gateway.c runs the thread (the managers of the sites and of the
 * remote users, the datagrams, the data path's calls into the gateway's
 * tables, the [pool]); ike_sites.c keeps the IKEv2 sites (their material
 * and settings, SIGHUP's plans for them, the managers of those it starts
 * itself). */
#ifndef GOSTX_CLI_TUNNEL_IKE_GATEWAY_H
#define GOSTX_CLI_TUNNEL_IKE_GATEWAY_H

#include "ike_daemon.h"

struct ra_user {
  struct tunnel_ra *ra;
  size_t idx; /* its slot: the gateway's users[idx] */
  gostx__ike_mgr *mgr;
  gostx__ike_mgr_addr src; /* where its IKE comes from */
  char at[56];             /* src as text */
  char id[256];            /* its ID as text once IKE_AUTH names it */
  uint8_t key[1 + TUNNEL_ID_MAX]; /* its ID type and data: the pool's lease */
  size_t key_len;
  int fixed; /* its address is an address line's, not the pool's */
  int64_t born_ms;
  int up; /* its IKE SA was established */
  gostx__ike_mgr_shown shown;
};

/* An IKEv2 site: its [peer] section and what runs of its IKE settings
 * (copies: a SIGHUP's config replaces the one they were read from, and
 * the running config keeps no IKE settings of its sites), its material and
 * the manager's settings (a responder's, an initiator's too with
 * ike_initiate = yes), its remote_ts as the manager narrows TSi to them,
 * where its IKE comes from (and goes to). */
struct ra_site {
  /* its section as read, less its IKE settings' config (p.ike NULL): of
   * that, what runs is kept, and a digest of it all (site_differs) */
  struct tunnel_peer_config p;
  uint8_t digest[32];
  struct tunnel_ike_id remote_id; /* k.set's peer ID points into it */
  uint16_t encr[2];               /* and its ENCRs */
  int ike_auth;
  char (*crl)[TUNNEL_PATH_MAX]; /* its n_crl crl lines (allocated), read again at SIGHUP */
  size_t n_crl;
  struct tunnel_ike k;
  gostx__ike_mgr_prefix ts[TUNNEL_TS_MAX];
  gostx__ike_mgr_addr at;
  /* ike_initiate = yes: k.set's local looked up toward it once (a
   * wildcard local), and when its manager may be made again (after one
   * that could not be) */
  int routed;
  int64_t start_ms;
};

/* A SIGHUP's plan for the sites (tunnel_ra_sites_stage): per site slot,
 * the site it takes (added or changed; NULL: none new) and whether the
 * site it holds ends (PLAN_REMOVED, PLAN_CHANGED; 0: it stays or there is
 * none); done once the IKE thread carried it out. */
enum { PLAN_REMOVED = 1, PLAN_CHANGED };
struct ra_plan {
  struct ra_site **next;
  unsigned char *end;
  atomic_int done;
};

struct tunnel_ra {
  struct tunnel *t;
  struct tunnel_ike k; /* the pool's material and settings (a responder's); its thread */
  /* t->gw->nsites slots (NULL: free): users[i] for i < nsites; changed by
   * the IKE thread alone, read by the main thread between two plans */
  struct ra_site **sites;
  struct ra_plan *staged;       /* the main thread's, until committed */
  _Atomic(struct ra_plan *) plan; /* handed to the IKE thread */
  /* the psk lines' users: their PSKs, by ID (cfg.user_psk[i]) */
  uint8_t psk[TUNNEL_POOL_PSKS][256];
  size_t psk_len[TUNNEL_POOL_PSKS];
  gostx__ike_mgr_pool *pool;
  gostx__ike_mgr_gate *gate; /* the cookie gate over all users (the table's counts) */
  gostx__ike_table *tab;     /* every user's IKE SAs: their SPIs and sources */
  gostx__ike_mgr_sa_key keys[GOSTX_IKE_MGR_SAS_MAX];
  const char *ids[TUNNEL_POOL_IDS];
  struct ra_user *users; /* t->gw->nusers; mgr NULL: free */
  int data_fd; /* k.thread: the thread */
  gostx__ike_mgr_event ev;
  gostx__ike_mgr_addr in_at; /* where in's datagram came to (ip_len 0: not known) */
  uint8_t in[GOSTX_IKE_MGR_MSG_MAX];
};

/* ike_sites.c: the config's sites into their slots (at the start); one
 * said; one freed, a plan freed (its sites with it). */
int ra_sites_prepare(struct tunnel_ra *ra);
void ra_site_say(const struct ra_site *st, const char *how);
void ra_site_free(struct ra_site *st);
void ra_plan_free(struct ra_plan *pl, size_t ns);

#endif
