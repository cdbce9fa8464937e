/* The IKE manager (manager.c, mgr_live.c, mgr_out.c): everything above
 * one IKE SA, without sockets, threads or clocks of its own. It holds the
 * SA table (ours as initiator, the responders' slots), the cookie gate and
 * the bound on half-open SAs, the collision rule, the rekey, liveness,
 * keepalive and half-open clocks, NAT detection's moves and the installed
 * SA's lifecycle (make-before-break over the caller's data path). The
 * caller feeds each datagram in (gostx__ike_mgr_input), turns the clock
 * (gostx__ike_mgr_tick, as often as gostx__ike_mgr_next_ms says), and
 * drains what is to be done (gostx__ike_mgr_next: datagrams, keepalives,
 * log lines, each a copied struct). The data path (linking and switching
 * the Child SAs' ESP SAs, and what they carried) is the caller's, reached
 * through the calls in gostx__ike_mgr_dp.
 *
 * Internal (not installed): cli/tunnel/ike/ is its one user, and this is
 * the one header of lib/ike it includes (scripts/layers.py). */
#ifndef GOSTX_IKE_MANAGER_H
#define GOSTX_IKE_MANAGER_H

#include <stddef.h>
#include <stdint.h>

#include "gostx/gost3410.h"
#include "gostx/x509.h"
#include "gostx/x509_crl.h"

enum {
  GOSTX_IKE_MGR_MSG_MAX = 8192, /* the largest IKE message (the engine's) */
  GOSTX_IKE_MGR_INITIATOR = 1,  /* gostx__ike_mgr_shown.role */
  GOSTX_IKE_MGR_RESPONDER = 2,
  GOSTX_IKE_MGR_AUTH_PSK = 2, /* gostx__ike_mgr_settings.auth (RFC 7296 3.8) */
  GOSTX_IKE_MGR_AUTH_SIGNATURE = 14,
  /* gostx__ike_mgr_settings.revocation: a certificate of the peer's path
   * without a status from the CRLs is not looked up (OFF), accepted with a
   * warning (WARN) or refused (REQUIRE); a revoked one is refused by WARN
   * and REQUIRE (lib/ike/ike.h, GOSTX_IKE_REVOCATION_*) */
  GOSTX_IKE_MGR_REVOCATION_OFF = 0,
  GOSTX_IKE_MGR_REVOCATION_WARN = 1,
  GOSTX_IKE_MGR_REVOCATION_REQUIRE = 2
};

/* An endpoint: the IP address in network order (4 octets IPv4, 16 IPv6)
 * and the UDP port. */
typedef struct gostx__ike_mgr_addr {
  uint8_t ip[16];
  uint8_t ip_len;
  uint16_t port;
} gostx__ike_mgr_addr;

/* Where an IKE message goes or came from: the peer's address, and whether
 * over the data port behind the non-ESP marker (RFC 3948 2.2) or the IKE
 * port. at: our end, when the caller knows it (ip_len 0: not known).
 * Given with a datagram: the address and port it came to (a socket bound
 * to a wildcard address learns it per datagram); NAT detection hashes it
 * in place of the settings' local or data_local, which a wildcard never
 * matches. On an event: the address to send from, the one the peer's IKE
 * last came to (answers, requests and keepalives alike), so that a host
 * of several addresses answers from the one it was asked on. */
typedef struct gostx__ike_mgr_to {
  gostx__ike_mgr_addr addr;
  int encap;
  gostx__ike_mgr_addr at;
} gostx__ike_mgr_to;

/* An IP prefix: the address in network order (4 octets IPv4, 16 IPv6)
 * and its length in bits. */
typedef struct gostx__ike_mgr_prefix {
  uint8_t ip[16];
  uint8_t ip_len;
  uint8_t len;
} gostx__ike_mgr_prefix;

/* One side's settings: the pointers into the caller's memory, which
 * outlives the manager. */
typedef struct gostx__ike_mgr_settings {
  const uint16_t *encr; /* the ENCRs offered, in order; the responder takes encr[0] */
  size_t n_encr;
  uint16_t group; /* the KE method sent first (33 or 34; both are taken) */
  uint8_t auth;   /* GOSTX_IKE_MGR_AUTH_* */
  const uint8_t *psk;
  size_t psk_len;
  const gostx_gost3410_key *key; /* signatures: our key, certificates, CAs */
  const uint8_t *const *certs;
  const size_t *cert_lens;
  size_t n_certs;
  const gostx_x509_store *store;
  const gostx_x509_crl *crls; /* the peer's path looked up in these (any issuers') */
  size_t n_crls;
  int revocation; /* GOSTX_IKE_MGR_REVOCATION_* */
  uint8_t id_type, peer_id_type; /* ours, the one the peer must present */
  const uint8_t *id, *peer_id;
  size_t id_len, peer_id_len;
  const char *peer_id_text; /* for the log lines: the peer's ID, its address */
  const char *peer_text;
  size_t frag_size; /* RFC 7383: the largest IKE message sent whole (0: never cut) */
  /* ours at the IKE port and at the data port; the peer's at the data
   * port; on_data_port: the IKE port is the data port (IKE behind the
   * marker from IKE_SA_INIT on) */
  gostx__ike_mgr_addr local, data_local, peer;
  int on_data_port;
  int initiate; /* this side starts the exchange (both may) */
  /* IKE datagrams from any address taken, not only the peer's (a
   * gateway's first step, issue 81: its cookie gate counts half-open SAs
   * per source); the installed SA and its ESP still go to `peer`, or to
   * the peer's NAT mapping where one is in front of it, followed when it
   * moves whatever our own NAT detection says (a gateway is the outside
   * end, even behind a fixed port forward, or with a wildcard local whose
   * datagrams' destinations its caller does not give: gostx__ike_mgr_to.at) */
  int any_source;
  int encap;    /* IKE on the data port from IKE_AUTH on, NAT or not */
  /* A gateway's remote users (issue 81), as responder: with peer_id NULL,
   * the IDi must match one of these patterns (gostx__ike_mgr_id_match);
   * one that matches none is refused (AUTHENTICATION_FAILED), its ID said.
   * From IKE_AUTH on the log lines name the peer by the ID it gave. */
  const char *const *peer_patterns;
  size_t n_peer_patterns;
  /* responder: the peer's CFG_REQUEST (RFC 7296 3.15) answered with an
   * inner IPv4 address and at most two DNS servers for its ID (as
   * authenticated): 0, or -1 (none: INTERNAL_ADDRESS_FAILURE). Its TSi is
   * narrowed to that address. NULL: a CFG_REQUEST is ignored. */
  int (*assign)(void *ctx, uint8_t id_type, const uint8_t *id, size_t len, uint8_t ip[4],
                uint8_t dns[2][4], size_t *n_dns);
  /* responder: a remote user's own PSK, by its IDi exactly (before the
   * patterns: such an ID authenticates by that PSK both ways): 0 with *psk
   * set (the caller's memory), or -1 (none: the patterns decide). */
  int (*peer_psk)(void *ctx, uint8_t id_type, const uint8_t *id, size_t len, const uint8_t **psk,
                  size_t *psk_len);
  void *assign_ctx; /* assign's and peer_psk's */
  /* responder: the peer's TSi narrowed to these prefixes, any protocol
   * and port (a gateway's site, issue 81: its remote_ts; RFC 7296 2.9),
   * when the peer asked for them or more; its TSr taken as asked. n 0:
   * both taken as asked. */
  const gostx__ike_mgr_prefix *peer_ts;
  size_t n_peer_ts;
  int cp_request; /* initiator: an inner address asked of the peer (CFG_REQUEST) */
  /* the Child SA's lifetimes (time, bytes either way), the IKE SA's, the
   * liveness check's interval, the keepalives' behind a NAT; 0: never */
  uint64_t rekey_seconds, rekey_bytes, ike_rekey_seconds, dpd_seconds, nat_keepalive_seconds;
} gostx__ike_mgr_settings;

/* A Child SA as the data path takes it: in = what the peer seals to us
 * (our SPI), out = what we seal to the peer; keys from KEYMAT, key | salt.
 * encr is the RFC 9227 transform ID. */
typedef struct gostx__ike_mgr_child {
  uint16_t encr;
  int esn;
  uint32_t spi_in, spi_out;
  uint8_t key_in[44], key_out[44];
  size_t key_len;
} gostx__ike_mgr_child;

/* What a Child SA carried so far (has_in / has_out: its SAs found; the
 * outbound only while it seals); limit_*: their last sequence number. */
typedef struct gostx__ike_mgr_usage {
  int has_in, has_out;
  uint64_t bytes_in, bytes_out, packets_in, packets_out, limit_in, limit_out;
} gostx__ike_mgr_usage;

/* The caller's data path, called during the manager's calls (ctx first). */
typedef struct gostx__ike_mgr_dp {
  void *ctx;
  /* c's inbound SA linked; its outbound SA made, not linked, returned
   * (NULL: failed, nothing kept) */
  void *(*add_child)(void *ctx, const gostx__ike_mgr_child *c);
  /* seal with out (made by add_child for c) from now on; 0, or -1 (out
   * freed either way) */
  int (*switch_out)(void *ctx, void *out, const gostx__ike_mgr_child *c);
  void (*free_out)(void *ctx, void *out); /* one never switched to */
  void (*retire_in)(void *ctx, uint32_t spi);
  /* nothing sealed from now on: the outbound SA retired, none in its
   * place until the next switch_out (the peer was revoked) */
  void (*stop_out)(void *ctx);
  /* packets accepted so far under the inbound SA of spi: 0, or -1 when
   * there is none */
  int (*in_accepted)(void *ctx, uint32_t spi, uint64_t *n);
  void (*usage)(void *ctx, uint32_t spi_in, uint32_t spi_out, gostx__ike_mgr_usage *u);
  void (*peer_set)(void *ctx, const gostx__ike_mgr_addr *to); /* where ESP goes */
  /* datagrams sent from the data port so far (a keepalive only when
   * none went for its interval) */
  uint64_t (*data_sent)(void *ctx);
} gostx__ike_mgr_dp;

/* What the caller does, in the order drained. */
enum {
  GOSTX_IKE_MGR_SEND = 1, /* data[0..len): one IKE datagram to `to` */
  GOSTX_IKE_MGR_KEEPALIVE, /* one 0xFF octet (RFC 3948 2.3) from the data port to to.addr */
  GOSTX_IKE_MGR_LOG        /* data: one line of text, NUL-terminated */
};
typedef struct gostx__ike_mgr_event {
  int type;
  gostx__ike_mgr_to to;
  size_t len;
  uint8_t data[GOSTX_IKE_MGR_MSG_MAX];
} gostx__ike_mgr_event;

/* What --status shows of the installed IKE SA (keys never). */
typedef struct gostx__ike_mgr_shown {
  int state; /* 0 waiting, 1 connecting, 2 established */
  int role;  /* GOSTX_IKE_MGR_INITIATOR or _RESPONDER */
  uint16_t encr, group;
  uint8_t spi_i[8], spi_r[8];
  uint32_t child_in, child_out;
  int64_t since_ms, child_since_ms; /* the IKE SA's SPIs, the Child SA's, since */
  int64_t rekey_ms, ike_rekey_ms;   /* the next rekeys (0: none due) */
  uint8_t nat_local, nat_peer;
  gostx__ike_mgr_addr remote; /* where the peer's IKE is (a NAT's mapping) */
  int encap;                  /* IKE on the data port */
  /* the inner address the responder gave by CP (ours as initiator, the
   * peer's as responder); inner_ip_len 0: none */
  uint8_t inner_ip[4];
  uint8_t inner_ip_len;
} gostx__ike_mgr_shown;

typedef struct gostx__ike_mgr gostx__ike_mgr;

/* A manager for s (copied; what it points to is the caller's) over dp:
 * NULL when out of memory or the random source fails. */
gostx__ike_mgr *gostx__ike_mgr_new(const gostx__ike_mgr_settings *s, const gostx__ike_mgr_dp *dp);
/* The SAs, their engines and the outbound SAs still parked, wiped and freed. */
void gostx__ike_mgr_free(gostx__ike_mgr *m);
/* s taken in place of the settings (for the exchanges started from now on). */
void gostx__ike_mgr_configure(gostx__ike_mgr *m, const gostx__ike_mgr_settings *s);
/* The CRLs the peer's path is looked up in from now on (a reload's; what
 * they point to is the caller's), nothing else of the settings touched.
 * At the next gostx__ike_mgr_input or _tick, each established IKE SA's
 * peer is looked up in them again: one they revoke (or, under REQUIRE,
 * leave without a status) is deleted, its Child SAs out of the data path
 * at once. */
void gostx__ike_mgr_set_crls(gostx__ike_mgr *m, const gostx_x509_crl *crls, size_t n);
/* A datagram from from (the IKE message, without the marker); now: the
 * clock in ms (Unix time: certificates are checked at it). */
void gostx__ike_mgr_input(gostx__ike_mgr *m, const uint8_t *msg, size_t len,
                          const gostx__ike_mgr_to *from, int64_t now);
/* The clocks: our IKE SA started or resent, the installed SA's
 * retransmissions, rekeys and liveness checks, keepalives, half-open
 * responders dropped. */
void gostx__ike_mgr_tick(gostx__ike_mgr *m, int64_t now);
/* ESP under spi, of no SA in the data path (0: none since the last call):
 * while no IKE SA is held, an INVALID_SPI notice to the peer, rate-limited. */
void gostx__ike_mgr_esp_unknown(gostx__ike_mgr *m, uint32_t spi, int64_t now);
/* How long until gostx__ike_mgr_tick is next due, in ms (at most 200). */
int gostx__ike_mgr_next_ms(const gostx__ike_mgr *m, int64_t now);
/* The oldest event into *ev: 1, or 0 when none is left. */
int gostx__ike_mgr_next(gostx__ike_mgr *m, gostx__ike_mgr_event *ev);
/* The status as it stands; whether a Child SA was ever installed. */
void gostx__ike_mgr_shown_get(const gostx__ike_mgr *m, gostx__ike_mgr_shown *s);
int gostx__ike_mgr_installed(const gostx__ike_mgr *m);
/* At shutdown, each turn: the installed IKE SA deleted (RFC 7296 1.4.1)
 * once no request of ours is out, resent by its timer. 1 while its answer
 * is awaited, 0 once it is gone (or there was none). */
int gostx__ike_mgr_bye(gostx__ike_mgr *m, int64_t now);
/* The shutdown gave up waiting after ms: said, when the SA is still up. */
void gostx__ike_mgr_bye_end(gostx__ike_mgr *m, int ms);
/* For the status and the caller's lines: a KE method's name, an address as
 * ADDRESS:PORT ([ADDRESS]:PORT for IPv6; out of 56 octets). */
const char *gostx__ike_mgr_group_name(uint16_t group);
const char *gostx__ike_mgr_addr_text(const gostx__ike_mgr_addr *a, char out[56]);
/* an IKE SPI in hex */
void gostx__ike_mgr_spi_hex(const uint8_t spi[8], char out[17]);
/* An ID (its type and data as IKE_AUTH carries them) as text: an address,
 * a name, a DN as "C=RU, O=Org, CN=name"; unprintable octets as '?'. */
const char *gostx__ike_mgr_id_text(uint8_t type, const uint8_t *id, size_t len, char *out,
                                   size_t cap);
/* Whether the ID matches a remote-access pattern (lib/ike/ike.h,
 * gostx__ike_id_match: "*.branch.example.ru", "CN=*.branch.example.ru"). */
int gostx__ike_mgr_id_match(const char *pattern, uint8_t type, const uint8_t *id, size_t len);
/* A gateway's inner address pool (lib/ike/pool.c): the hosts of an IPv4
 * net/prefix (at most 30) or an IPv6 one (64 to 127), at most cap leased
 * at once (0: all); an identity keeps its address while it holds it and
 * gets it back when it returns soon. NULL: a bad prefix, or no memory. */
typedef struct gostx__ike_mgr_pool gostx__ike_mgr_pool;
gostx__ike_mgr_pool *gostx__ike_mgr_pool_new(const uint8_t *net, size_t alen, unsigned prefix,
                                             size_t cap);
void gostx__ike_mgr_pool_free(gostx__ike_mgr_pool *p);
/* An address for the identity (any octets: its ID type and data) into out:
 * 0, or -1 when the pool is exhausted. Release: 0, or -1 when it held none. */
int gostx__ike_mgr_pool_lease(gostx__ike_mgr_pool *p, const uint8_t *id, size_t len,
                              uint8_t *out);
int gostx__ike_mgr_pool_release(gostx__ike_mgr_pool *p, const uint8_t *id, size_t len);
/* A gateway's cookie gate (RFC 7296 2.6) in front of the managers of its
 * remote users, one manager per user: each manager's own gate sees one
 * user, this one sees them all (issue 81). For a new IKE SA's IKE_SA_INIT
 * request from `from`, with half_open of the gateway's IKE SAs not yet
 * established and from_src of those from from's address (any port: a
 * NAT's users share one): GOSTX_IKE_MGR_GATE_GO (make its manager);
 * _COOKIE, *ev the COOKIE answer to send and nothing kept, from
 * GOSTX_IKE_MGR_GATE_PER_SOURCE half-open SAs of the source on, or all_at
 * of all, unless the request carries the COOKIE it was given; _DROP: not
 * a readable IKE_SA_INIT request. NULL: no memory or no random source. */
enum {
  GOSTX_IKE_MGR_GATE_GO = 0,
  GOSTX_IKE_MGR_GATE_COOKIE = 1,
  GOSTX_IKE_MGR_GATE_DROP = -1,
  GOSTX_IKE_MGR_GATE_PER_SOURCE = 2
};
typedef struct gostx__ike_mgr_gate gostx__ike_mgr_gate;
gostx__ike_mgr_gate *gostx__ike_mgr_gate_new(size_t all_at);
void gostx__ike_mgr_gate_free(gostx__ike_mgr_gate *g);
int gostx__ike_mgr_gate_check(gostx__ike_mgr_gate *g, const uint8_t *msg, size_t len,
                              const gostx__ike_mgr_to *from, size_t half_open, size_t from_src,
                              gostx__ike_mgr_event *ev);

/* ---- a gateway's table of IKE SAs (lib/ike/table.c, issue 81) ----
 * One key per IKE SA a manager holds (gostx__ike_mgr_sas lists them): its
 * SPIs (spi_r zero until the responder chose it), the address its IKE
 * comes from (for a responder's half-open SA, where its IKE_SA_INIT came
 * from; for the installed one, where the manager follows it), and whether
 * it is half-open (a responder's, not yet established). */
typedef struct gostx__ike_mgr_sa_key {
  uint8_t spi_i[8], spi_r[8];
  gostx__ike_mgr_addr src;
  int half_open;
} gostx__ike_mgr_sa_key;
/* the most keys one manager lists: its responders' slots, its own SA, the
 * installed SA when outside them, and the two a rekey leaves until deleted */
enum { GOSTX_IKE_MGR_SAS_MAX = 8 + 4 };
/* m's IKE SAs into out (at most GOSTX_IKE_MGR_SAS_MAX): how many. */
size_t gostx__ike_mgr_sas(const gostx__ike_mgr *m, gostx__ike_mgr_sa_key *out);

/* The table maps those keys to the caller's values (a gateway's slots,
 * below `values`), without sockets or clocks: found by a datagram's IKE
 * header as RFC 7296 2.1 and 3.1 say (SPIr zero: by SPIi and the source
 * address and port; else by the SPI pair, from any address: a NAT may
 * have moved the peer, whose messages the manager then authenticates).
 * Hashes keyed by a random key of the table's own (SPIs and addresses
 * are the attacker's choice), the half-open SAs counted per source
 * address as they come and go. NULL: no memory or no random source. */
typedef struct gostx__ike_table gostx__ike_table;
gostx__ike_table *gostx__ike_table_new(size_t values);
/* SipHash-2-4 of m under the key k0, k1 (the key's octets 0-7 and 8-15,
 * little-endian): the table's bucket hash, exposed for its known answer. */
uint64_t gostx__ike_siphash24(uint64_t k0, uint64_t k1, const uint8_t *m, size_t len);
void gostx__ike_table_free(gostx__ike_table *t);
/* value's keys from now on exactly these n (0: none; a rekey's new SPIs
 * in, a deleted SA's out): 0, or -1 when out of memory (value then holds
 * none). */
int gostx__ike_table_set(gostx__ike_table *t, size_t value, const gostx__ike_mgr_sa_key *keys,
                         size_t n);
/* The value of the IKE SA the datagram (len octets, from src) is of, or -1. */
long gostx__ike_table_checkout(const gostx__ike_table *t, const uint8_t *msg, size_t len,
                               const gostx__ike_mgr_addr *src);
/* The half-open SAs in all, and *from_src of them from src's address (any
 * port: a NAT's peers share one). */
size_t gostx__ike_table_half_open(const gostx__ike_table *t, const gostx__ike_mgr_addr *src,
                                  size_t *from_src);
/* The keys held in all. */
size_t gostx__ike_table_size(const gostx__ike_table *t);
/* The memory t holds (its arrays: grown by doubling as entries come,
 * given back once it is empty). */
size_t gostx__ike_table_bytes(const gostx__ike_table *t);

#endif
