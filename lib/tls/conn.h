/* lib/tls's connection: the config and the connection behind
 * include/gostx/tls.h, shared by io.c (buffers, transport, records out),
 * config.c (the config), conn.c (the API, records in, application data,
 * alerts) and the handshakes (hs.h's files: TLS 1.3's and TLS 1.2's
 * messages and state machines). Internal. */
#ifndef GOSTX_TLS_CONN_H
#define GOSTX_TLS_CONN_H

#include "gostx/hash.h"
#include "gostx/tls.h"
#include "rec.h"

/* The largest handshake message body taken or built (a certificate chain
 * of several GOST certificates is a few KiB): larger ones are refused
 * (decode_error) before they are buffered. */
#define GOSTX__TLS_HS_MAX 24576u
#define GOSTX__TLS_MAX_CHAIN 8
#define GOSTX__TLS_IN_CAP (GOSTX__TLS_HDR_LEN + GOSTX__TLS_MAX_CIPHERTEXT)
/* Records in: room for four of the largest, so one read from the
 * transport brings several records in bulk (a relay opens them all before
 * it writes once) and the bytes after a record move down only when the
 * next does not fit. */
#define GOSTX__TLS_IN_BUF (4 * GOSTX__TLS_IN_CAP)
/* A whole flight (ServerHello to Finished, the chain in records of 2^14),
 * or up to four full application records (and a KeyUpdate and an alert):
 * a large gostx_tls_write goes out in one transport write per four. */
#define GOSTX__TLS_OUT_CAP (4 * GOSTX__TLS_IN_CAP + 256u)
/* The message being built: a record's worth of pending messages and the
 * next one. */
#define GOSTX__TLS_MSG_CAP (GOSTX__TLS_MAX_PLAINTEXT + GOSTX__TLS_HS_MAX + 4)
/* The refused early data a server skips (RFC 8446 4.2.10 leaves it to
 * the server): a full record's worth; more is unexpected_message (4.6.1). */
#define GOSTX__TLS_EARLY_SKIP_MAX 16384u

/* RFC 8446 section 6: the alerts this implementation sends or names. */
enum {
  GOSTX__ALERT_CLOSE_NOTIFY = 0,
  GOSTX__ALERT_UNEXPECTED_MESSAGE = 10,
  GOSTX__ALERT_BAD_RECORD_MAC = 20,
  GOSTX__ALERT_RECORD_OVERFLOW = 22,
  GOSTX__ALERT_HANDSHAKE_FAILURE = 40,
  GOSTX__ALERT_BAD_CERTIFICATE = 42,
  GOSTX__ALERT_UNSUPPORTED_CERTIFICATE = 43,
  GOSTX__ALERT_CERTIFICATE_EXPIRED = 45,
  GOSTX__ALERT_CERTIFICATE_UNKNOWN = 46,
  GOSTX__ALERT_ILLEGAL_PARAMETER = 47,
  GOSTX__ALERT_UNKNOWN_CA = 48,
  GOSTX__ALERT_DECODE_ERROR = 50,
  GOSTX__ALERT_DECRYPT_ERROR = 51,
  GOSTX__ALERT_PROTOCOL_VERSION = 70,
  GOSTX__ALERT_INTERNAL_ERROR = 80,
  GOSTX__ALERT_USER_CANCELED = 90,
  GOSTX__ALERT_NO_RENEGOTIATION = 100,
  GOSTX__ALERT_MISSING_EXTENSION = 109,
  GOSTX__ALERT_UNSUPPORTED_EXTENSION = 110,
  GOSTX__ALERT_UNRECOGNIZED_NAME = 112,
  GOSTX__ALERT_CERTIFICATE_REQUIRED = 116,
  GOSTX__ALERT_NO_APPLICATION_PROTOCOL = 120
};

/* Content types (RFC 8446 section 5.1). */
enum { GOSTX__CT_CCS = 20, GOSTX__CT_ALERT = 21, GOSTX__CT_HANDSHAKE = 22, GOSTX__CT_APP = 23 };

/* Handshake types (RFC 8446 section 4). */
enum {
  GOSTX__HS_HELLO_REQUEST = 0, /* TLS 1.2 */
  GOSTX__HS_CLIENT_HELLO = 1,
  GOSTX__HS_SERVER_HELLO = 2,
  GOSTX__HS_NEW_SESSION_TICKET = 4,
  GOSTX__HS_END_OF_EARLY_DATA = 5,
  GOSTX__HS_ENCRYPTED_EXTENSIONS = 8,
  GOSTX__HS_CERTIFICATE = 11,
  GOSTX__HS_CERTIFICATE_REQUEST = 13,
  GOSTX__HS_CERTIFICATE_VERIFY = 15,
  GOSTX__HS_SERVER_HELLO_DONE = 14,    /* TLS 1.2 */
  GOSTX__HS_CLIENT_KEY_EXCHANGE = 16,  /* TLS 1.2 */
  GOSTX__HS_FINISHED = 20,
  GOSTX__HS_KEY_UPDATE = 24,
  GOSTX__HS_MESSAGE_HASH = 254
};

/* Session tickets (RFC 8446 section 4.6.1; ticket.c). A client keeps the
 * newest ticket of at most GOSTX__TLS_TICKET_MAX bytes (ours are 90 +
 * the server name); a longer one is taken and not kept. */
#define GOSTX__TLS_TICKET_MAX 1024
#define GOSTX__TLS_TICKETS_MAX 8             /* a server's per handshake */
#define GOSTX__TLS_TICKET_LIFETIME_MAX 604800 /* 7 days (section 4.6.1) */

/* What a client resumes with: a ticket and what it needs beside it. */
typedef struct gostx__tls_session {
  uint16_t suite;
  uint32_t lifetime, age_add;
  uint64_t received_ms; /* Unix time, ms */
  uint8_t psk[32];
  char servername[256];
  uint8_t ticket[GOSTX__TLS_TICKET_MAX];
  size_t ticket_len;
} gostx__tls_session;

/* The states: each accepts only its messages. */
typedef enum gostx__tls_state {
  GOSTX__ST_START = 0,   /* client: ClientHello to send; server: waiting for it */
  GOSTX__ST_WAIT_SH,     /* client */
  GOSTX__ST_WAIT_EE,     /* client */
  GOSTX__ST_WAIT_CERT_CR,/* client */
  GOSTX__ST_WAIT_CERT,   /* both (the server when it asked for one) */
  GOSTX__ST_WAIT_CV,     /* both */
  GOSTX__ST_WAIT_FINISHED,
  GOSTX__ST_WAIT_CH2,    /* server, after HelloRetryRequest */
  /* TLS 1.2 (handshake12.c) */
  GOSTX__ST12_WAIT_CERT,   /* client: the server's Certificate; server: the client's */
  GOSTX__ST12_WAIT_CR_SHD, /* client: CertificateRequest or ServerHelloDone */
  GOSTX__ST12_WAIT_SHD,    /* client */
  GOSTX__ST12_WAIT_CKE,    /* server */
  GOSTX__ST12_WAIT_CV,     /* server */
  GOSTX__ST12_WAIT_CCS,    /* both: the peer's ChangeCipherSpec */
  GOSTX__ST12_WAIT_FINISHED,
  GOSTX__ST_CONNECTED,
  GOSTX__ST_FAILED
} gostx__tls_state;

/* Deterministic values for the known-answer replay of RFC 9367 Appendix A
 * (tests only; never set by the public API): the hello random, the
 * ephemeral private key (big-endian), the signature nonce k (big-endian),
 * and the switches that make our hello the RFC's. */
typedef struct gostx__tls_test_hooks {
  const uint8_t *random;   /* 32 bytes */
  const uint8_t *eph_priv; /* the curve's size */
  const uint8_t *sign_k;   /* the signing curve's size */
  const uint8_t *pms;      /* TLS 1.2 client: the preliminary secret, 32 bytes */
  const uint8_t *sid12;    /* TLS 1.2 server: the session_id of its ServerHello */
  size_t sid12_len;
  int no_ems;              /* TLS 1.2: RFC 9189 A.2.2's handshake, without RFC 7627 */
  int sig512_first;        /* TLS 1.2 client: (8,65) before (8,64), as A.2.2 lists them */
  int no_compat;           /* client: no session id, no CCS */
  /* client with a PSK: RFC 9367 A.2's hellos, no signature_algorithms and
   * no key share in the first (the server must ask by HelloRetryRequest) */
  int psk_only_hello;
  int raw_chain;           /* our chain is not parsed (not matched to the key) */
  int coalesce;            /* handshake messages share records */
  size_t frag;             /* when not 0: handshake records of at most frag bytes */
  /* Called on each handshake message (header included, *len bytes, cap
   * the room) before it goes into the transcript and out. */
  void (*mutate)(void *user, uint8_t *msg, size_t *len, size_t cap);
  void *mutate_user;
  uint64_t snmax;          /* when not 0: a KeyUpdate is due after this sequence number */
  /* A peer key to use instead of the leaf certificate's (VERIFY_NONE tests
   * before X.509 is built): curve 0 = none. */
  gostx_gost3410_curve pin_curve;
  uint8_t pin_pub[128];
  uint64_t now;            /* when not 0: the Unix time (s) tickets are issued and checked at */
  int psk_ke_hello;        /* client: psk_key_exchange_modes psk_ke, as RFC 9367 A.1's hello */
  /* client: early_data in its first ClientHello (1) or in each (2, which
   * RFC 8446 4.1.2 forbids); it sends no early data itself */
  int early_data_hello;
} gostx__tls_test_hooks;

/* The hooks a config carries where the test hooks are built (the library
 * gostx_test, which the tests link: GOSTX_TLS_TEST_HOOKS); in libgostx
 * every hook is this one's zero, a constant: the code behind each is
 * compiled out and nothing outside can set one. */
#ifdef GOSTX_TLS_TEST_HOOKS
#define GOSTX__TLS_HOOKS(cfg) (&(cfg)->test)
#else
static const gostx__tls_test_hooks gostx__tls_no_hooks;
#define GOSTX__TLS_HOOKS(cfg) ((void)(cfg), &gostx__tls_no_hooks)
#endif

struct gostx_tls_config {
  gostx_tls_role role;
  gostx_tls_verify verify;
  const gostx_x509_store *store;
  uint16_t suites[7]; /* TLS 1.3's and TLS 1.2's, in preference order */
  size_t nsuites;
  uint16_t groups[7];
  size_t ngroups;
  uint8_t alpn[256]; /* ProtocolNameList's body: 8-bit length-prefixed names */
  size_t alpn_len;
  unsigned vmin, vmax;
  uint8_t *chain; /* the chain's DER, one block */
  size_t chain_len[GOSTX__TLS_MAX_CHAIN], nchain;
  /* the certificate's key (key.curve 0: none): a copy of the caller's
   * object, d or an external key's callbacks (whose ctx the caller keeps) */
  gostx_gost3410_key key;
  uint8_t psk_id[255], psk[32]; /* the external PSK; psk_id_len 0: none */
  size_t psk_id_len;
  /* server: tickets per handshake (0: none), their lifetime (s), and the
   * Kuznyechik-MGM key that seals them */
  unsigned tickets;
  uint32_t ticket_lifetime;
  uint8_t ticket_key[32];
  void (*keylog)(void *user, const char *line);
  void *keylog_user;
#ifdef GOSTX_TLS_TEST_HOOKS
  gostx__tls_test_hooks test;
#endif
  char err[128];
};

/* The handshake's buffers: the message being taken (its fragments
 * gathered) and those being built. Allocated while a handshake message is
 * in either, freed when both are empty after the handshake (a KeyUpdate or
 * a NewSessionTicket brings them back for its time): a connection that
 * has finished its handshake does not carry them. */
typedef struct gostx__tls_hs_buf {
  uint8_t in[GOSTX__TLS_HS_MAX + 4];
  uint8_t msg[GOSTX__TLS_MSG_CAP];
} gostx__tls_hs_buf;

/* What only the handshake needs: its transcript, ephemeral key and
 * secrets, and the offers it is matching. Allocated with the connection
 * (its handshake starts there), wiped and freed when the handshake ends
 * (gostx__tls_hs_end, as BoringSSL frees SSL_HANDSHAKE): a connected
 * connection keeps only what its records, KeyUpdate and tickets need. */
typedef struct gostx__tls_hs {
  gostx_streebog_ctx th;    /* the running transcript */
  gostx_streebog_ctx th512; /* TLS 1.2: also Streebog-512 (a 512-bit CertificateVerify signs it) */
  uint8_t eph_priv[64], eph_pub[128]; /* the ephemeral key */
  uint8_t hs_secret[32], master[32], c_hs[32], s_hs[32];
  uint8_t psk_key[32];      /* the PSK offered (client) or taken (server) */
  uint8_t ms12[GOSTX__TLS12_MS_LEN]; /* TLS 1.2's master secret and key block */
  gostx__tls12_keys keys12;
  uint16_t peer_schemes[16];
  size_t npeer_schemes;
  uint8_t session_id[32];
  size_t session_id_len;
  uint8_t cookie[256];
  size_t cookie_len;
  int offered13, offered12; /* client: the versions its ClientHello offered */
  int tickets_ok;           /* server: the client takes psk_dhe_ke (tickets of use to it) */
} gostx__tls_hs;

/* A record's content once opened, for conn.c to deliver (p NULL: none,
 * the version's reader handled the record itself). */
typedef struct gostx__tls_content {
  uint8_t type;
  uint8_t *p;
  size_t n;
} gostx__tls_content;

/* A version's reading of records, one pointer (c->rl) that a read follows:
 * its headers' rules and its reader of one record. */
typedef struct gostx__tls_reader {
  /* legacy_record_version 0x0303 on every record (TLS 1.2, RFC 5246
   * 6.2.1; TLS 1.3 ignores it, RFC 8446 5.1), and the ciphertext's length
   * allowed for every type once the keys are in (TLS 1.2: all are sealed
   * alike; TLS 1.3: application_data, the outer type of every sealed
   * record) */
  int fixed_version, all_types_sealed;
  /* One whole record, header at rec and len bytes after, taken: opened
   * (through c->rrec once its keys are in) into dst when dst has room for
   * its application data (*dst_got), else its content in *out for conn.c
   * to deliver (out->p NULL: handled here). */
  int (*read)(gostx_tls *c, uint8_t *rec, size_t len, uint8_t *dst, size_t dst_cap,
              size_t *dst_got, gostx__tls_content *out);
} gostx__tls_reader;

extern const gostx__tls_reader gostx__tls13_reader; /* conn.c */
extern const gostx__tls_reader gostx__tls12_reader; /* handshake12.c */

struct gostx_tls {
  const gostx_tls_config *cfg;
  gostx_tls_role role;
  gostx__tls_state state;
  int rc;           /* the error that ended the connection, 0 while none */
  int alert, alert_sent;
  char err[160];
  /* transport */
  gostx_tls_read_fn rd;
  gostx_tls_write_fn wr;
  void *io_user;
  int fd;
  /* negotiated and peer's offers */
  const gostx__tls_suite *suite;
  uint16_t group, scheme;
  int hrr;          /* a HelloRetryRequest was sent / received */
  int psk;          /* a PSK was taken (psk_dhe_ke): the external one, or a ticket's */
  int resumed;      /* ... a ticket's */
  uint8_t res_master[32]; /* resumption_master_secret: the tickets' PSKs */
  int client_auth;  /* server: the client's certificate was verified (here or in the ticket's handshake) */
  /* client: the sessions, in the connection's allocation after it (a
   * server's connection has none: NULL) */
  struct gostx__tls_client_part *cl;
  uint64_t tickets_sent;    /* server: the next ticket's nonce */
  uint16_t psk_index; /* server: its place among the client's identities */
  int ccs_sent, ccs_seen_ok; /* middlebox compatibility */
  int cert_req;     /* client: asked for a certificate; server: asked one */
  uint8_t client_random[32], server_random[32];
  char servername[256];
  char alpn[256];
  /* the application traffic secrets (KeyUpdate derives the next from them) */
  uint8_t c_ap[32], s_ap[32];
  /* the records: each direction's protection (NULL class before its keys),
   * and the version's reading (TLS 1.3's until TLS 1.2 is taken) */
  gostx__tls_rec rrec, wrec;
  const gostx__tls_reader *rl;
  int renc, wenc; /* protected read / write */
  int rkey_changed; /* the message just handled changed the read key */
  int flight_out; /* connected and the handshake's last flight sent: reads no longer wait for output */
  int closed;     /* peer sent close_notify */
  int ku_due;     /* a KeyUpdate to send (the peer asked for one) */
  /* server: the client's early data is refused and skipped (RFC 8446
   * 4.2.10): after our ServerHello the records that do not open under
   * the handshake key, after a HelloRetryRequest those of type
   * application_data; skipped counts their content bytes */
  enum { GOSTX__EARLY_NONE, GOSTX__EARLY_TRIAL, GOSTX__EARLY_AFTER_HRR } early_skip;
  size_t early_skipped;
  /* TLS 1.2: the version taken and its suite */
  int v12;
  const gostx__tls12_suite *suite12;
  gostx__tls_hs *hs; /* the handshake's state while it runs, NULL after */
  /* the peer's chain */
  size_t npeer;
  gostx_x509_cert *peer_cert; /* npeer of them, at the start of peer_block */
  gostx_gost3410_curve peer_curve;
  uint8_t peer_pub[128];
  int have_peer_key;
  /* buffers: records in (read ahead), records out, the handshake's, and
   * the peer's certificates. Each is allocated when it is first needed;
   * in and out (GOSTX__TLS_IN_BUF, GOSTX__TLS_OUT_CAP) go back when a read
   * finds the transport idle with both empty, hsb when the handshake's
   * messages are done (gostx__tls_release): an idle connection holds none,
   * nor does one that never sent a byte (in_seen: the first came). */
  size_t in_off, in_have;  /* the next record (then what was read ahead) at in + in_off */
  size_t app_off, app_len; /* decrypted application data at in + app_off */
  size_t hs_have;
  size_t out_off, out_len;
  size_t pend;            /* handshake messages built, not yet in records */
  unsigned pend_version;  /* their records' legacy_record_version */
  uint8_t *in, *out;
  int in_seen;
  int in_plain; /* a record was opened in place in `in`: wiped before it goes */
  gostx__tls_hs_buf *hsb;
  /* the peer's chain, allocated when it comes: its parsed certificates,
   * then its DER (peer_der); peer_block_len bytes in all */
  uint8_t *peer_block, *peer_der;
  size_t peer_block_len;
};

/* A client connection's sessions (a server keeps none per connection). */
struct gostx__tls_client_part {
  gostx__tls_session offer; /* the session set to resume (offer.ticket_len 0: none) */
  gostx__tls_session got;   /* the newest ticket received (got.ticket_len 0: none) */
};

/* io.c */
/* The buffers, allocated when absent: GOSTX_OK or GOSTX_ENOMEM (the
 * connection failed). */
int gostx__tls_need_in(gostx_tls *c);
int gostx__tls_need_hsb(gostx_tls *c);
/* Gives back the buffers that hold nothing now (idle: the transport has
 * nothing for us), the handshake's once it has ended; _hsb that one alone. */
void gostx__tls_release(gostx_tls *c);
void gostx__tls_release_hsb(gostx_tls *c);
/* Every buffer freed, its contents wiped (gostx_tls_free). */
void gostx__tls_free_buffers(gostx_tls *c);
/* The peer's chain (certificates and DER) wiped and freed. */
void gostx__tls_drop_peer_chain(gostx_tls *c);
/* One read from the transport into buf: GOSTX_OK with *got > 0 bytes, or
 * GOSTX_TLS_WANT_READ (the empty buffers given back), or the connection
 * failed (the end of the stream, or the transport's error). */
int gostx__tls_transport_in(gostx_tls *c, uint8_t *buf, size_t cap, size_t *got);
int gostx__tls_not_now(void); /* errno says "not now" */
int gostx__tls_flush(gostx_tls *c); /* 0 when every queued byte is out */
int gostx__tls_queue_record(gostx_tls *c, uint8_t type, const uint8_t *data, size_t len,
                            unsigned legacy_version);
int gostx__tls_fail(gostx_tls *c, int alert, int rc, const char *what);
/* The message at c->msg + c->pend (type, 3 length bytes, body) into the
 * transcript and out (now, or at the next gostx__tls_hs_flush). */
int gostx__tls_send_msg(gostx_tls *c, size_t body_len);
int gostx__tls_hs_flush(gostx_tls *c);
int gostx__tls_send_ccs(gostx_tls *c);
int gostx__tls_set_keys(gostx_tls *c, int write, const uint8_t secret[32]);
void gostx__tls_keylog(gostx_tls *c, const char *label, const uint8_t secret[32]);
/* The handshake's state: allocated (GOSTX_OK or GOSTX_ENOMEM), its
 * secrets wiped (a failed handshake keeps it, zeroed, until
 * gostx_tls_free), and wiped and freed once the handshake is over. */
int gostx__tls_hs_begin(gostx_tls *c);
void gostx__tls_hs_wipe(gostx_tls *c);
void gostx__tls_hs_end(gostx_tls *c);
/* The transcript: a message added (nothing once the handshake is over:
 * KeyUpdate and NewSessionTicket are outside it), its hash now. */
void gostx__tls_th_add(gostx_tls *c, const uint8_t *msg, size_t len);
void gostx__tls_th_hash(const gostx_tls *c, uint8_t out[32]);

/* ticket.c */
uint64_t gostx__tls_now_ms(const gostx_tls *c);
/* The server's tickets (cfg->tickets NewSessionTicket messages, queued
 * under the application write key): after the handshake. */
int gostx__tls_send_tickets(gostx_tls *c);
/* Client: a NewSessionTicket's body, parsed and kept (the newest). */
int gostx__tls_on_ticket(gostx_tls *c, const uint8_t *body, size_t len);
/* Server: identity a ticket of ours, sealed by cfg's key, for this server
 * name, not expired (and, where client certificates are required, from a
 * handshake that verified one): 1 with its PSK in c->psk_key, else 0.
 * (Every TLS 1.3 GOST suite hashes with Streebog-256: any of them may
 * resume any other's session.) */
int gostx__tls_ticket_open(gostx_tls *c, const uint8_t *id, size_t id_len, const char *sni);

/* handshake.c */
int gostx__tls_client_hello(gostx_tls *c);
/* One whole handshake message (header included) in c's state. */
int gostx__tls_on_message(gostx_tls *c, const uint8_t *msg, size_t len);
/* The scheme's curve (0x0709..0x070F), 0 for another. */
gostx_gost3410_curve gostx__tls_scheme_curve(unsigned scheme);
gostx_gost3410_curve gostx__tls_group_curve(unsigned group);
unsigned gostx__tls_curve_scheme(gostx_gost3410_curve curve);
/* 1 when name is an IPv4 or IPv6 literal (verified, never sent as SNI). */
int gostx__tls_is_ip_literal(const char *name);
/* 1 when name[0..len) is a host name as SNI carries it (RFC 6066 3): labels of
 * 1 to 63 letters, digits, hyphens (not first or last) and underscores, at
 * most 253 bytes, no trailing dot. */
int gostx__tls_is_host_name(const char *name, size_t len);
/* handshake12.c: TLS 1.2 taken: its records from now on. */
void gostx__tls12_take(gostx_tls *c);
#ifdef GOSTX_TLS_TEST_HOOKS
/* The test hooks of cfg (tests/test_tls.c; built into gostx_test only). */
gostx__tls_test_hooks *gostx__tls_config_test(gostx_tls_config *cfg);
#endif
/* config.c: the name of group id ("GC256A", ...), NULL when none. */
const char *gostx__tls_group_name(unsigned id);
/* The secrets of c (tests): name "hs", "master", "c hs", "s hs" (zeros
 * once the handshake is over), "c ap", "s ap". */
const uint8_t *gostx__tls_secret(const gostx_tls *c, const char *name);

#endif
