/* The IKEv2 exchange engine (engine.c, auth.c, cookie.c): one IKE SA in the
 * initiator or responder role running IKE_SA_INIT and IKE_AUTH (RFC 7296
 * 1.2) with the RFC 9385 transforms, without sockets (its message
 * buffers on the heap, each held only while needed): the caller feeds each
 * datagram in, sends what comes out, passes the time in
 * and drives the retransmission timer. On success the first Child SA's
 * keys come out in a gostx_ike_child; NAT detection (RFC 7296 2.23) says
 * whether a NAT stands in front of either side; encrypted messages go out
 * and come in fragmented (RFC 7383) when conf and peer agree. Once
 * established (xchg.c, child.c, info.c): CREATE_CHILD_SA rekeying the
 * Child SA and the IKE SA, INFORMATIONAL Delete and liveness, either
 * side's requests with a window of 1 and a response cache; what changed
 * comes out in e->ev. */
#ifndef GOSTX_IKE_ENGINE_H
#define GOSTX_IKE_ENGINE_H

#include "ike.h"

enum {
  GOSTX_IKE_INITIATOR = 1,
  GOSTX_IKE_RESPONDER = 2,
  /* Notify types (RFC 7296 3.10.1) the engine sends or reads */
  GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD = 1,
  GOSTX_IKE_N_INVALID_SYNTAX = 7,
  GOSTX_IKE_N_NO_PROPOSAL_CHOSEN = 14,
  GOSTX_IKE_N_INVALID_KE_PAYLOAD = 17,
  GOSTX_IKE_N_AUTHENTICATION_FAILED = 24,
  GOSTX_IKE_N_NO_ADDITIONAL_SAS = 35,
  GOSTX_IKE_N_INTERNAL_ADDRESS_FAILURE = 36,
  GOSTX_IKE_N_TS_UNACCEPTABLE = 38,
  GOSTX_IKE_N_TEMPORARY_FAILURE = 43,
  GOSTX_IKE_N_CHILD_SA_NOT_FOUND = 44,
  GOSTX_IKE_N_INITIAL_CONTACT = 16384,
  GOSTX_IKE_N_REKEY_SA = 16393,
  GOSTX_IKE_N_NAT_DETECTION_SOURCE_IP = 16388,
  GOSTX_IKE_N_NAT_DETECTION_DESTINATION_IP = 16389,
  GOSTX_IKE_N_COOKIE = 16390,
  GOSTX_IKE_NAT_HASH_LEN = 20, /* SHA-1 */
  GOSTX_IKE_ESN_NO = 0,
  GOSTX_IKE_DEL_CHILD = 1,
  GOSTX_IKE_DEL_IKE = 2,
  GOSTX_IKE_MSG_MAX = 8192, /* the largest message sent or cached */
  GOSTX_IKE_INIT_MAX = 2048, /* the largest IKE_SA_INIT kept for AUTH */
  GOSTX_IKE_REDUNDANT_MS = 60000 /* how long a redundant IKE SA waits for the peer's Delete */
};

typedef enum gostx_ike_state {
  GOSTX_IKE_S_IDLE = 0,
  GOSTX_IKE_S_INIT_SENT,   /* initiator: IKE_SA_INIT request out */
  GOSTX_IKE_S_INIT_DONE,   /* responder: IKE_SA_INIT answered, IKE_AUTH awaited */
  GOSTX_IKE_S_AUTH_SENT,   /* initiator: IKE_AUTH request out */
  GOSTX_IKE_S_ESTABLISHED, /* both authenticated; the Child SA in ->child when valid */
  GOSTX_IKE_S_FAILED,      /* ->error says why; the caller discards the object */
  GOSTX_IKE_S_DELETED      /* the IKE SA deleted by either side (Delete answered) */
} gostx_ike_state;

/* What one call changed once established (e->ev, reset by each call). */
enum {
  /* ev.added is a new Child SA: install its inbound SA now (the peer may
   * use it from its next packet); ev.replaces names the one it replaces
   * (our inbound SPI, 0 for none) */
  GOSTX_IKE_EV_CHILD_NEW = 1,
  /* seal to the peer with e->child from now on (make-before-break: the
   * rekey's initiator on its answer, the responder once the old SA is
   * deleted; in a simultaneous rekey, 2.8.1, the side whose new SA is
   * redundant is the survivor's responder) */
  GOSTX_IKE_EV_CHILD_OUT = 2,
  /* ev.retired[0..n_retired) are deleted: remove both directions */
  GOSTX_IKE_EV_CHILD_RETIRE = 4,
  GOSTX_IKE_EV_IKE_REKEYED = 8,  /* the IKE SA has new SPIs and keys (e->spi_i/r) */
  GOSTX_IKE_EV_IKE_DELETED = 16, /* state DELETED: the IKE SA and its Child SAs are gone */
  GOSTX_IKE_EV_PEER_GONE = 32,   /* a request went unanswered max_tries times: FAILED */
  GOSTX_IKE_EV_ALIVE = 64        /* the answer to gostx__ike_dpd came */
};

/* What one side is: everything points into the caller's memory, which
 * outlives the engine. */
typedef struct gostx_ike_conf {
  int role;
  uint16_t encr;  /* ENCR_KUZNYECHIK_MGM_KTREE or ENCR_MAGMA_MGM_KTREE: IKE SA and ESP */
  /* initiator: the ENCRs its IKE SA proposal offers, in this order (as RFC
   * 9385 A.1.1 offers both); NULL: encr alone. The IKE SA and the Child SA
   * then use the one the responder chose. */
  const uint16_t *encr_offer;
  size_t n_encr_offer;
  uint16_t group; /* the initiator's first KE method; the responder takes 33 and 34 */
  uint8_t auth;   /* GOSTX_IKE_AUTH_PSK or GOSTX_IKE_AUTH_DIGITAL_SIGNATURE */
  const uint8_t *psk;
  size_t psk_len;
  const gostx_gost3410_key *key;       /* signatures: our private key */
  const uint8_t *const *certs;         /* ours, the end-entity first */
  const size_t *cert_lens;
  size_t n_certs;
  const gostx_x509_store *store;       /* the CAs the peer's chain must reach */
  gostx_ike_revocation revocation;     /* the CRLs its path is looked up in, the policy */
  uint8_t id_type;                     /* our ID */
  const uint8_t *id;
  size_t id_len;
  uint8_t peer_id_type;                /* the ID the peer must present */
  const uint8_t *peer_id;
  size_t peer_id_len;
  gostx_ike_ts_set tsi, tsr;           /* the traffic selectors (initiator's view) */
  /* NAT_DETECTION_SOURCE_IP of zeros: the peer sees a NAT before us and
   * both sides use UDP encapsulation (RFC 9385 A.2's initiator does so) */
  int force_encap;
  /* initiator: N(INITIAL_CONTACT) in the IKE_AUTH request (RFC 7296
   * 3.10.1: this IKE SA is the only one between the two identities: the
   * caller holds no other, as after a start), where RFC 9385 A.1.1 and
   * A.2.1 put it (after AUTH) */
  int initial_contact;
  /* IKE fragmentation (RFC 7383): the largest encrypted message sent
   * whole, in octets of IKE message (the caller takes off IP, UDP and the
   * non-ESP marker: 576-octet IPv4 datagrams on 4500 give 544, RFC 9385
   * A.2.1); larger ones go as fragments of at most this size when the peer
   * announced IKEV2_FRAGMENTATION_SUPPORTED. 0: never fragment. */
  size_t frag_size;
  uint32_t rto_ms;                     /* the first retransmission timeout (doubles) */
  unsigned max_tries;                  /* sends of one request before giving up */
  /* A gateway's responder (issue 81): the conf to go on with for the
   * peer's IDi (its type and data as sent), chosen when IKE_AUTH comes,
   * before anything of it is checked (its PSK, CA, pool are the peer's);
   * NULL refuses it (AUTHENTICATION_FAILED). The conf returned is a
   * responder's; with peer_id NULL the ID stands as pick accepted it (a
   * remote-access template's pattern), else it must be peer_id. The
   * IKE_SA_INIT answered before is this conf's. NULL: no choice. */
  const struct gostx_ike_conf *(*pick)(void *ctx, uint8_t id_type, const uint8_t *id,
                                       size_t len);
  /* initiator: a CFG_REQUEST for an INTERNAL_IP4_ADDRESS in IKE_AUTH (RFC
   * 7296 3.15.1); the address the reply gives in e->inner_ip */
  int cp_request;
  /* responder: the peer's CFG_REQUEST answered: reply (CFG_REPLY, no
   * attributes yet) filled for the peer of that ID, GOSTX_OK; an error
   * leaves the IKE SA without a Child SA (INTERNAL_ADDRESS_FAILURE, RFC
   * 7296 3.10.1). Its INTERNAL_IP4_ADDRESS narrows TSi to that address.
   * NULL: a CFG_REQUEST is ignored (3.15). */
  int (*cp_assign)(void *ctx, uint8_t id_type, const uint8_t *id, size_t len,
                   const gostx_ike_cp *req, gostx_ike_cp *reply);
  void *ctx; /* pick's and cp_assign's */
} gostx_ike_conf;

/* An endpoint as NAT detection hashes it (RFC 7296 2.23): the IP address
 * in network order (4 octets IPv4, 16 IPv6) and the UDP port. */
typedef struct gostx_ike_addr {
  uint8_t ip[16];
  uint8_t ip_len;
  uint16_t port;
} gostx_ike_addr;

/* The first Child SA (ESP) as the data path takes it: in = what the peer
 * seals to us (our SPI), out = what we seal to the peer (its SPI). Keys
 * from KEYMAT (RFC 7296 2.17): the initiator-to-responder SA first. */
typedef struct gostx_ike_child {
  int valid;
  uint16_t encr;
  int esn; /* 0: the engine offers and accepts no ESN only */
  uint32_t spi_in, spi_out;
  uint8_t key_in[44], key_out[44]; /* key | salt */
  size_t key_len;
  int ours; /* created by an exchange we initiated (RFC 7296 2.8.1's creator) */
} gostx_ike_child;

#ifdef GOSTX_IKE_TEST_HOOKS
/* What RFC 9385 Appendix A's replays fix in place of the engine's random
 * draws: built into gostx_test only (the tests link it); libgostx has no
 * such field and always draws. */
typedef struct gostx__ike_test_hooks {
  int set;
  uint8_t spi[8];    /* our IKE SPI */
  uint8_t nonce[32]; /* our nonce */
  uint8_t priv[64];  /* our ephemeral private key, big-endian, its curve's size */
  uint32_t esp_spi;  /* our new inbound ESP SPI in CREATE_CHILD_SA (0: drawn) */
} gostx__ike_test_hooks;
/* The octets the engines' buffers hold on the heap now, all engines
 * together (the tests' measure of what an IKE SA costs). */
size_t gostx__ike_heap_bytes(void);
#endif

typedef struct gostx_ike_events {
  unsigned flags; /* GOSTX_IKE_EV_* */
  gostx_ike_child added;
  uint32_t replaces;
  size_t n_retired;
  gostx_ike_child retired[3];
} gostx_ike_events;

/* An IKE SA a rekey left beside the current one, kept until its Delete is
 * answered (RFC 7296 2.18: the old SA, deleted over itself by the rekey's
 * initiator; 2.8.2: the redundant new SA of a simultaneous rekey). */
typedef struct gostx_ike_old_sa {
  int valid;
  uint8_t orig_init;
  uint8_t spi_i[8], spi_r[8];
  gostx_ike_sk sk_in, sk_out;
  uint64_t iv_out;
  uint32_t req_id, peer_req;
  uint8_t tx_cached; /* e->tx still holds its last response (the new SA has sent none) */
  /* answered the peer's Delete: keys wiped, the answer kept for its
   * retransmissions (valid 0 then) */
  uint8_t closed;
  uint8_t bye[96];
  size_t bye_len;
  /* old_sa[1] when the peer is to delete it: forgotten at this time if its
   * Delete never comes (a peer that saw our Delete of the old SA before
   * our answer to its rekey forgets that rekey, 2.8.2) */
  int64_t expire_ms;
} gostx_ike_old_sa;

/* A new IKE SA agreed by a rekey, before it becomes the current one (a
 * simultaneous rekey's, 2.8.2, waits so in e->ike_twin). */
typedef struct gostx_ike_new_sa {
  int ready;
  uint8_t orig_init; /* we initiated the exchange that made it */
  uint8_t spi_i[8], spi_r[8];
  gostx_ike_keys k;
  uint8_t low[256]; /* the lower of the exchange's two nonces */
  size_t low_len;
} gostx_ike_new_sa;

/* Our outstanding request once established (window 1: at most one). */
enum {
  GOSTX_IKE_X_NONE = 0,
  GOSTX_IKE_X_REKEY_CHILD,
  GOSTX_IKE_X_REKEY_IKE,
  GOSTX_IKE_X_DELETE_CHILD, /* after our rekey: the replaced or the redundant SA */
  GOSTX_IKE_X_DELETE_IKE,
  GOSTX_IKE_X_DELETE_OLD_IKE, /* over the old IKE SA, after our IKE SA rekey */
  GOSTX_IKE_X_DPD
};

typedef struct gostx_ike_engine {
  const gostx_ike_conf *cf;
  gostx_ike_state state;
  uint16_t error;    /* FAILED: the notify sent or received; 0: a timeout, or why says */
  /* a static text for logs: why the peer's IKE_SA_INIT (no proposal of
   * ours, a KE off the curve) or IKE_AUTH was refused ("the peer's ID is
   * not the one configured", lib/x509's status name, ...), or
   * why we failed for a reason of ours no notify names (the peer takes no
   * hash our key signs with); NULL otherwise */
  const char *why;
  uint8_t spi_i[8], spi_r[8];
  uint16_t group;
  uint16_t encr; /* the IKE SA's and Child SA's: cf->encr or the responder's choice */
  uint8_t priv[64], pub[128];
  uint8_t ni[256], nr[256];
  size_t ni_len, nr_len;
  uint8_t cookie[64];
  size_t cookie_len;
  unsigned init_tries; /* COOKIE and INVALID_KE_PAYLOAD restarts */
  gostx_ike_keys k;
  gostx_ike_sk sk_in, sk_out;
  uint64_t iv_out; /* one IV counter per direction and SA (docs/IKE.md) */
  /* The buffers below are on the heap, each sized to what it holds and
   * held only while needed (an established IKE SA is a few KiB, docs/IKE.md):
   * m1, m2: the IKE_SA_INIT messages AUTH signs, until IKE_AUTH ends */
  uint8_t *m1, *m2;
  size_t m1_len, m2_len;
  uint32_t msg_id;  /* initiator: the request out; responder: the next one expected */
  /* before IKE_AUTH's end: our last message (the initiator's request out,
   * the responder's last response); after it the last response we sent
   * (RFC 7296 2.1: a retransmitted request gets it again) */
  uint8_t *tx;
  size_t tx_len;
  int64_t next_tx_ms;
  uint32_t rto_ms;
  unsigned tries;
  uint32_t esp_spi; /* ours */
  gostx_ike_child child;
  /* the INTERNAL_IP4_ADDRESS of IKE_AUTH's CP: the initiator's, given by
   * the responder; the one the responder gave (inner_ip_len 0: none) */
  uint8_t inner_ip[4];
  uint8_t inner_ip_len;
  uint8_t picked; /* responder: cf is the one cf->pick chose for the peer's IDi */
  /* NAT detection (gostx__ike_engine_addrs): the addresses this SA's
   * datagrams leave from (local) and go to (remote), and what the peer's
   * IKE_SA_INIT said of them. nat_local: a NAT in front of us (the peer's
   * DESTINATION_IP is not our address: we send the keepalives); nat_peer: a
   * NAT in front of the peer (no SOURCE_IP is where its datagram came from).
   * Either one: the daemon moves to port 4500 and UDP encapsulation. */
  gostx_ike_addr local, remote;
  uint8_t nat_detection; /* the peer sent both notifies */
  uint8_t nat_local, nat_peer;
  size_t peer_cas; /* the CA hashes the peer's CERTREQ listed (RFC 7296 3.7) */
  /* why the peer's certificate was refused (AUTHENTICATION_FAILED):
   * lib/x509's verdict, gostx_x509_status_name says it; OK otherwise */
  gostx_x509_status peer_cert;
  /* the revocation check's word on the peer's path (gostx__ike_path_verify):
   * which certificate was revoked or had no status; "" when none */
  char cert_note[GOSTX_IKE_NOTE_MAX];
  /* the peer's certificates as its accepted IKE_AUTH carried them (DER
   * back to back, peer_cert_lens[i] octets each, peer_certs_len in all:
   * within one message, so within GOSTX_IKE_MSG_MAX) and when their path was judged (Unix
   * seconds): looked up again in later CRLs (gostx__ike_peer_recheck) */
  uint8_t *peer_certs;
  size_t peer_certs_len;
  uint16_t peer_cert_lens[GOSTX_IKE_MAX_CERTS];
  uint8_t n_peer_certs;
  int64_t peer_certs_at;
  /* the peer's SIGNATURE_HASH_ALGORITHMS (RFC 7427 4): bit id for each
   * identifier below 32 it listed, when peer_hashes_sent */
  uint32_t peer_hashes;
  uint8_t peer_hashes_sent;
  /* responder: the initiator's IKE_AUTH request carried INITIAL_CONTACT:
   * it holds no other IKE SA with us (any older one is dead to it) */
  uint8_t peer_initial_contact;
  /* the peer asked for a Child SA beside the one we hold (a CREATE_CHILD_SA
   * without REKEY_SA), refused with NO_ADDITIONAL_SAS: one pair per IKE
   * SA. Set for the manager's log line, which clears it. */
  uint8_t refused_child;
  /* RFC 7383: the peer announced IKEV2_FRAGMENTATION_SUPPORTED; the set
   * of fragments being gathered (fragio.c) and what it holds
   * (GOSTX_IKE_MSG_MAX octets while a set is gathered, else NULL) */
  uint8_t peer_frag;
  gostx_ike_reasm reasm;
  uint8_t *reasm_buf;
  int64_t reasm_since_ms; /* when the set's first fragment came (2.6: its timeout) */
  /* established (xchg.c, child.c, ikesa.c, info.c) */
  gostx_ike_ts_set ts_i, ts_r; /* e->child's selectors (the IKE_AUTH initiator's view) */
  uint8_t orig_init;  /* we are the current IKE SA's original initiator (I flag, 2.18) */
  uint32_t req_id;    /* our next (or outstanding) request's Message ID */
  uint32_t peer_req;  /* the peer's next request's Message ID; peer_req - 1 is cached in tx */
  uint8_t pend;       /* GOSTX_IKE_X_* of our outstanding request */
  uint8_t pend_pfs;
  uint8_t pend_nonce[32];  /* our nonce in it */
  uint8_t pend_ike_spi[8]; /* IKE SA rekey: our new SPI */
  uint32_t pend_spi;       /* Child SA rekey: our new inbound SPI; Delete: the SPI deleted */
  uint8_t *req; /* our outstanding request (retransmitted as is), while pend */
  size_t req_len;
  int64_t last_heard_ms; /* the last authenticated message from the peer (DPD) */
  gostx_ike_child old;   /* the Child SA a rekey replaces, until deleted */
  gostx_ike_child twin;  /* simultaneous rekey (2.8.1): the one the peer's request made */
  uint8_t twin_low[256]; /* the lowest nonce of the peer's rekey exchange */
  size_t twin_low_len;
  gostx_ike_old_sa old_sa[2]; /* [0] the SA a rekey replaced, [1] a redundant new one */
  uint8_t pend_slot;          /* X_DELETE_OLD_IKE: over old_sa[pend_slot] */
  gostx_ike_new_sa ike_twin;  /* simultaneous IKE SA rekey: the peer's new SA */
  gostx_ike_events ev;
#ifdef GOSTX_IKE_TEST_HOOKS
  gostx__ike_test_hooks test; /* set after gostx__ike_engine_init */
#endif
} gostx_ike_engine;

/* A fresh engine for cf (copied by reference), e holding nothing (new or
 * cleared). The initiator's first datagram comes from gostx__ike_start.
 * The engine allocates its message buffers as it goes (GOSTX_ENOMEM from a
 * call that could not); an engine may be moved (its struct copied, the
 * old copy forgotten), never duplicated. */
int gostx__ike_engine_init(gostx_ike_engine *e, const gostx_ike_conf *cf);
/* Its keys wiped, its buffers wiped and freed. */
void gostx__ike_engine_clear(gostx_ike_engine *e);
/* dst (holding nothing) an independent copy of src, its buffers its own
 * (a test's or fuzzer's fork of one side); GOSTX_ENOMEM: dst holds nothing. */
int gostx__ike_engine_copy(gostx_ike_engine *dst, const gostx_ike_engine *src);
/* The addresses NAT detection hashes, before gostx__ike_start (initiator)
 * or the first gostx__ike_input (responder: local the address and port the
 * request came to, remote where it came from). Without them the engine
 * sends no NAT notifies and checks none. GOSTX_EINVAL: not IPv4 or IPv6,
 * or one of each. */
int gostx__ike_engine_addrs(gostx_ike_engine *e, const gostx_ike_addr *local,
                            const gostx_ike_addr *remote);
/* Initiator: the IKE_SA_INIT request into out (cap), now the caller's
 * clock in ms (Unix time: certificates are checked at now / 1000). */
int gostx__ike_start(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                     size_t *out_len);
/* A received datagram. GOSTX_OK: taken (*out_len the answer to send, 0
 * for none; e->state says where it stands). Dropped, nothing changed:
 * GOSTX_ESTATE (unexpected: exchange, state, Message ID, SPIs, flags),
 * GOSTX_EFORMAT (malformed before authentication), GOSTX_EAUTH (ICV). */
int gostx__ike_input(gostx_ike_engine *e, const uint8_t *msg, size_t len, int64_t now_ms,
                     uint8_t *out, size_t cap, size_t *out_len);
/* Initiator: the request again when its timeout has passed (*out_len 0
 * when nothing is due); after max_tries sends FAILED with error 0. */
int gostx__ike_timer(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                     size_t *out_len);

/* What gostx__ike_start, _input and _timer wrote into out (out_len
 * octets): one IKE message, or with fragments several back to back, each
 * to be sent as its own datagram (its header's Length). *at: 0 for the
 * first; returns the next message's length and moves *at past it, 0 at the
 * end. */
size_t gostx__ike_out_next(const uint8_t *out, size_t out_len, size_t *at);

/* The responder's stateless gate in front of gostx__ike_engine_init for a
 * new IKE_SA_INIT request (RFC 7296 2.6). Under load (half_open >=
 * threshold) a request without a valid COOKIE as its first payload is
 * answered with one (*out_len > 0, return 1) and nothing is kept; GOSTX_OK:
 * go on (create the engine). The cookie: a version octet | the first 32
 * octets of prf(secret, Ni | IPi | SPIi). A request with a critical
 * payload of a type not known goes on without one (the engine answers
 * UNSUPPORTED_CRITICAL_PAYLOAD, no key exchange). GOSTX_EFORMAT: not a
 * readable IKE_SA_INIT request, or one whose SPIi is zero (drop). */
/* ---- once ESTABLISHED (requests: GOSTX_ESTATE before ESTABLISHED or
 * while our previous request is out; the request into out, retransmitted
 * by gostx__ike_timer; outcomes in e->ev of the call that reads the
 * answer) ---- */
/* Rekeys e->child (CREATE_CHILD_SA with REKEY_SA, RFC 7296 1.3.3), with a
 * new KE of the IKE SA's group when pfs. The initiator then deletes the
 * old SA itself. */
int gostx__ike_rekey_child(gostx_ike_engine *e, int pfs, int64_t now_ms, uint8_t *out,
                           size_t cap, size_t *out_len);
/* Rekeys the IKE SA (1.3.2, 2.18): new SPIs and keys from the old SK_d,
 * the Child SAs move over, the old IKE SA deleted (one crossing the
 * peer's: 2.8.2). */
int gostx__ike_rekey_ike(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                         size_t *out_len);
/* Deletes e->child (GOSTX_IKE_DEL_CHILD) or the IKE SA with its Child SAs
 * (GOSTX_IKE_DEL_IKE) by INFORMATIONAL (1.4.1). */
int gostx__ike_delete(gostx_ike_engine *e, int what, int64_t now_ms, uint8_t *out, size_t cap,
                      size_t *out_len);
/* An empty INFORMATIONAL (liveness, 1.4): the answer sets EV_ALIVE, no
 * answer after max_tries sends PEER_GONE. The daemon calls it when
 * now - e->last_heard_ms passes its dpd interval. */
int gostx__ike_dpd(gostx_ike_engine *e, int64_t now_ms, uint8_t *out, size_t cap,
                   size_t *out_len);

/* ---- the peer's certificates after IKE_AUTH (revoke.c) ---- */
/* The CERT payloads of c, the IKE_AUTH e accepted, kept in e with the
 * time (Unix seconds) their path was judged at; none kept when they do
 * not fit (they always do: one message). */
void gostx__ike_peer_keep(gostx_ike_engine *e, const gostx_ike_chain *c, int64_t now);
/* The peer's revocation looked up again: the path built from the kept
 * certificates as at IKE_AUTH, each certificate of it but the anchor
 * looked up at now in the CRLs e->cf->revocation holds now. The status
 * and note as gostx__ike_path_verify's (GOSTX_X509_MALFORMED: none kept). */
gostx_x509_status gostx__ike_peer_recheck(const gostx_ike_engine *e, int64_t now, char *note);

int gostx__ike_cookie_gate(const uint8_t secret[32], uint8_t version, size_t half_open,
                           size_t threshold, const uint8_t *msg, size_t len,
                           const uint8_t *peer_ip, size_t ip_len, uint8_t *out, size_t cap,
                           size_t *out_len);

#endif
