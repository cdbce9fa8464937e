/* What the manager's files share (manager.h says what it does): its
 * struct, its bounds and clocks, and the calls between manager.c (the SA
 * table, the exchanges' starts, the API), mgr_live.c (the installed SA's
 * life) and mgr_out.c (the events out, names, addresses). */
#ifndef GOSTX_IKE_MGR_INT_H
#define GOSTX_IKE_MGR_INT_H

#include "engine.h"
#include "manager.h"

enum {
  GOSTX_IKE_MGR_SLOTS = 8,       /* responder IKE SAs at once (half-open ones bounded by it) */
  /* a COOKIE is asked (RFC 7296 2.6) of a source address with this many
   * half-open SAs, and of every source once this many are half-open in
   * all: one source's flood costs the others no round trip until the
   * table itself fills */
  GOSTX_IKE_MGR_COOKIE_AT = 2,
  GOSTX_IKE_MGR_COOKIE_ALL_AT = GOSTX_IKE_MGR_SLOTS / 2,
  GOSTX_IKE_MGR_RETRY_MS = 2000, /* an initiator's new try after one that failed */
  GOSTX_IKE_MGR_YIELD_MS = 10000, /* ours given up for the peer's (collision): when to try again */
  GOSTX_IKE_MGR_HALF_OPEN_MS = 30000, /* a responder with no IKE_AUTH in this long is dropped */
  GOSTX_IKE_MGR_TICK_MS = 200,   /* the longest wait between ticks */
  GOSTX_IKE_MGR_QUIET_MS = 500,  /* a retired inbound SA stays until quiet this long */
  GOSTX_IKE_MGR_LINGER_MS = 3000, /* and no longer than this (a peer still sealing with it) */
  GOSTX_IKE_MGR_PARKED = 3,      /* outbound SAs made, waiting for their switch */
  GOSTX_IKE_MGR_RETIRING = 3,
  /* a rekey for what the Child SA carried, refused (not TEMPORARY_FAILURE): not again before */
  GOSTX_IKE_MGR_USAGE_HOLD_MS = 10000,
  /* unprotected messages (RFC 7296 2.21.4: rate-limited both ways): our
   * INVALID_IKE_SPI answers at most one each OUTSIDE_GAP_MS; a hint from
   * the peer acted on at most once each HINT_GAP_MS */
  GOSTX_IKE_MGR_OUTSIDE_GAP_MS = 250,
  GOSTX_IKE_MGR_HINT_GAP_MS = 3000,
  GOSTX_IKE_MGR_NOTICE_GAP_MS = 1000, /* our INVALID_SPI notices (ESP of no SA) */
  /* a replacing SA's responder seals with it at the initiator's first
   * packet under it, or after this long */
  GOSTX_IKE_MGR_SWITCH_MS = 300,
  /* the events waiting to be drained (the caller drains them after each
   * call): their count and their datagrams' and lines' octets, room for
   * four engine outputs (each up to MSG_MAX octets, up to 64 fragments)
   * and the lines beside them */
  GOSTX_IKE_MGR_QUEUE = 4 * 64 + 64,
  GOSTX_IKE_MGR_QUEUE_BYTES = 5 * GOSTX_IKE_MGR_MSG_MAX
};

/* One queued event's head in k->q; its len octets of data follow,
 * padded to the head's alignment. */
struct gostx__ike_mgr_qent {
  int type;
  gostx__ike_mgr_to to;
  size_t len;
};

/* A responder's slot: its engine on the heap, made when the slot is
 * taken and freed at the next input or tick after it is let go (the
 * calls that let it go may still read the cleared engine), so an idle
 * manager holds no engine but its own initiator's. */
struct gostx__ike_slot {
  int used;
  int64_t born_ms;
  gostx__ike_mgr_addr src; /* where its IKE_SA_INIT came from (half-open per source) */
  gostx_ike_engine *e;     /* NULL until taken */
};

struct gostx__ike_mgr {
  gostx__ike_mgr_settings set;
  gostx__ike_mgr_dp dp;
  gostx_ike_conf cf_r;
  gostx_ike_conf *cf_i;   /* ours as initiator: set.initiate's (make_confs) */
  gostx_ike_conf *cf_psk; /* a remote user of a PSK of its own: cf_r with it (pick_peer) */
  char peer_id_seen[256]; /* a remote user's IDi as text: the log lines' name from IKE_AUTH on */
  gostx_ike_addr local, data_local; /* ours at the IKE port, at the data port */
  uint8_t cookie_secret[32];
  /* ours, when init_on: on the heap (lib/ike's allocator) from our first
   * IKE_SA_INIT on, so that a responder-only manager (a gateway's remote
   * user) holds none */
  gostx_ike_engine *init;
  gostx__ike_mgr_to init_to; /* where ours goes: the IKE port, the data port from IKE_AUTH on */
  int init_on, collision_said;
  int64_t init_next_ms;
  int64_t outside_ms, hint_ms; /* our last INVALID_IKE_SPI, the last hint acted on */
  int64_t notice_ms;           /* our last INVALID_SPI notice */
  struct gostx__ike_slot resp[GOSTX_IKE_MGR_SLOTS];
  gostx_ike_engine *sa;    /* the IKE SA whose Child SA is installed */
  gostx__ike_mgr_to sa_to; /* where its peer's IKE is */
  uint32_t spi_out;        /* the Child SA we seal with (the peer's SPI) */
  int64_t keepalive_ms;    /* behind a NAT: when the next keepalive goes (0: none) */
  uint64_t keepalive_tx;   /* the data port's sends when the last one was due */
  int64_t sa_since_ms;
  int64_t rekey_ms, ike_rekey_ms; /* when we rekey next (0: never) */
  int64_t usage_after_ms; /* no rekey for rekey_bytes or the packet guard before this */
  int bye;                /* our Delete of the IKE SA is out (shutdown) */
  int bye_begun;
  gostx_ike_engine *bye_sa; /* the SA the shutdown deletes */
  int asked; /* our rekey out on sa: ASKED_CHILD or ASKED_IKE, else 0 */
  uint32_t switch_spi; /* a replacing SA's outbound SA, parked (switch_due) */
  int64_t switch_by_ms;
  /* a rekey's outbound SAs (the data path's, by the peer's SPI), made with
   * their inbound ones, until the engine says to switch */
  struct {
    void *sa;
    uint32_t spi;
  } parked[GOSTX_IKE_MGR_PARKED];
  /* inbound SAs the engine retired, unlinked once quiet (make-before-break:
   * what the peer sealed before switching still arrives) */
  struct {
    uint32_t spi;
    uint64_t seen;
    int64_t quiet_since, since;
  } retiring[GOSTX_IKE_MGR_RETIRING];
  int installed;
  /* the established IKE SAs' peers to be looked up again in the CRLs at
   * the next input or tick: RECHECK_CRLS, RECHECK_REKEY (bits) */
  int recheck;
  gostx__ike_mgr_shown shown;
  /* the events not yet drained, back to back from q_head (each a
   * struct gostx__ike_mgr_qent and its data) in q_used of q_cap octets:
   * on the heap while any is queued, freed once the caller drains the last
   * (an idle manager holds none); q_n of them */
  uint8_t *q;
  size_t q_head, q_n, q_used, q_cap;
  /* the datagram in and the engine's output: GOSTX_IKE_MSG_MAX octets
   * each, on the heap only during the call that uses them (wire octets,
   * public: freed unwiped) */
  uint8_t *in, *out;
};

enum { GOSTX_IKE_MGR_ASKED_CHILD = 1, GOSTX_IKE_MGR_ASKED_IKE = 2 };
enum { GOSTX_IKE_MGR_RECHECK_CRLS = 1, GOSTX_IKE_MGR_RECHECK_REKEY = 2 };

/* ---- manager.c ---- */
/* k->in and k->out for one call of the API (GOSTX_OK, or GOSTX_ENOMEM:
 * the call does nothing), given back at its end. */
int gostx__ike_mgr_bufs(gostx__ike_mgr *k);
void gostx__ike_mgr_bufs_done(gostx__ike_mgr *k);

/* ---- mgr_out.c ---- */
/* The event queue freed (the manager's end). */
void gostx__ike_mgr_queue_free(gostx__ike_mgr *k);
/* One log line. */
void gostx__ike_mgr_say(gostx__ike_mgr *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* k->out's n octets to the peer: the engine's output, one message or RFC
 * 7383 fragments back to back, each fragment its own datagram. */
void gostx__ike_mgr_send(gostx__ike_mgr *k, const gostx__ike_mgr_to *to, size_t n);
/* One 0xFF keepalive to `to`. */
void gostx__ike_mgr_keepalive(gostx__ike_mgr *k, const gostx__ike_mgr_addr *to);
void gostx__ike_mgr_ike_addr(const gostx__ike_mgr_addr *a, gostx_ike_addr *out);
int gostx__ike_mgr_same_host(const gostx__ike_mgr_addr *a, const gostx__ike_mgr_addr *b);
/* "WHAT 192.0.2.1 port 40123": where a NAT maps the peer */
void gostx__ike_mgr_say_mapping(gostx__ike_mgr *k, const char *what,
                                const gostx__ike_mgr_addr *a);
const char *gostx__ike_mgr_notify_name(uint16_t n);
const char *gostx__ike_mgr_encr_name(uint16_t encr);
/* The status: its state, and e's SAs (NULL: kept as they are). */
void gostx__ike_mgr_show(gostx__ike_mgr *k, int state, const gostx_ike_engine *e, int64_t now);

/* ---- mgr_live.c ---- */
/* A datagram (k->in) into e, its answer out to `from` (ours: to
 * k->init_to). 1 when e has FAILED (the caller drops it), else 0. */
int gostx__ike_mgr_feed(gostx__ike_mgr *k, gostx_ike_engine *e, size_t len,
                        const gostx__ike_mgr_to *from, int64_t now);
/* What the last call on the installed SA e changed, done in the data path. */
void gostx__ike_mgr_live_events(gostx__ike_mgr *k, gostx_ike_engine *e, int64_t now);
/* The installed SA's clocks: retirements, the switch, its timer, its
 * rekeys and liveness checks; the keepalives. */
void gostx__ike_mgr_live_tick(gostx__ike_mgr *k, int64_t now);
void gostx__ike_mgr_keepalive_tick(gostx__ike_mgr *k, int64_t now);
/* e failed: said. */
void gostx__ike_mgr_refused(gostx__ike_mgr *k, const gostx_ike_engine *e);
/* The parked outbound SAs freed (never switched to). */
void gostx__ike_mgr_unpark_all(gostx__ike_mgr *k);
/* e, done with: cleared; k->init, or its responder slot, let go. */
void gostx__ike_mgr_let_go(gostx__ike_mgr *k, gostx_ike_engine *e);
/* k->recheck: every established IKE SA's peer looked up again in the
 * CRLs; one revoked, or without a status under REQUIRE, deleted. */
void gostx__ike_mgr_recheck(gostx__ike_mgr *k, int64_t now);

#endif
