/* gostx: GOST TLS 1.3 (RFC 8446 with the RFC 9367 suites) and TLS 1.2
 * (RFC 5246 with the RFC 9189 suites), client and server, one config
 * serving both versions (1.3 preferred). Part of the public API.
 *
 * The connection API the handshake (lib/tls, docs/TLS.md) implements and
 * `gostx tls` uses (issue 47). A config holds what many connections share (chain,
 * key, trust anchors, suites, groups, ALPN) and is read-only once the
 * first connection uses it, so threads may share it. A connection is one
 * gostx_tls, used by one thread at a time; it allocates once, at
 * gostx_tls_new, never per record, and wipes its secrets at free.
 *
 * I/O goes through the caller: a file descriptor (blocking or not) or two
 * callbacks. A call that needs I/O the transport cannot do now returns
 * GOSTX_TLS_WANT_READ or GOSTX_TLS_WANT_WRITE: call it again when the
 * transport is ready. Errors are negative gostx codes; gostx_tls_error()
 * then says what failed in words and gostx_tls_alert() which alert was
 * sent or received. No application data is released before its record is
 * authenticated. */
#ifndef GOSTX_TLS_H
#define GOSTX_TLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common.h"
#include "gost3410.h"
#include "x509.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Non-error results (positive). */
#define GOSTX_TLS_WANT_READ 1
#define GOSTX_TLS_WANT_WRITE 2
#define GOSTX_TLS_CLOSED 3 /* the peer sent close_notify: no more data */

/* Protocol versions (gostx_tls_config_set_versions, gostx_tls_version_id). */
#define GOSTX_TLS_VERSION_1_2 0x0303
#define GOSTX_TLS_VERSION_1_3 0x0304

typedef enum gostx_tls_role { GOSTX_TLS_CLIENT = 1, GOSTX_TLS_SERVER = 2 } gostx_tls_role;

/* Peer verification. Client: PEER (default) verifies the server's chain
 * against the store and the servername; NONE skips it (insecure, for
 * tests). Server: NONE (default) asks no certificate, PEER requests one and
 * verifies it if sent, REQUIRE refuses a client without one. */
typedef enum gostx_tls_verify {
  GOSTX_TLS_VERIFY_NONE = 0,
  GOSTX_TLS_VERIFY_PEER = 1,
  GOSTX_TLS_VERIFY_REQUIRE = 2
} gostx_tls_verify;

typedef struct gostx_tls_config gostx_tls_config;
typedef struct gostx_tls gostx_tls;

GOSTX_API gostx_tls_config *gostx_tls_config_new(gostx_tls_role role);
GOSTX_API void gostx_tls_config_free(gostx_tls_config *cfg);
/* The certificate chain this side presents, leaf first (DER each), and its
 * private key (a key object with its private part, copied: for an external
 * key, gostx_gost3410_key_set_external, its ops and ctx, which must outlive
 * the config and every connection made from it); the key must match the
 * leaf (GOSTX_EINVAL otherwise). A failing callback fails the handshake
 * with its code (gostx_tls_handshake's result). */
GOSTX_API int gostx_tls_config_set_chain(gostx_tls_config *cfg, const uint8_t *const *der,
                                         const size_t *der_len, size_t n);
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_config_set_key(gostx_tls_config *cfg,
                                                        const gostx_gost3410_key *key);
/* An external PSK (RFC 8446 section 4.2.11), one per config, always with
 * an ephemeral key exchange (psk_dhe_ke): identity 1..255 bytes, key 32
 * bytes (both copied). A client offers it in every ClientHello; a server
 * takes it when the client names the identity and its binder verifies
 * (no certificates are then sent or asked for), falls back to its
 * certificate when the identity is not its own, and refuses a wrong
 * binder with decrypt_error. GOSTX_ELEN for other lengths. */
GOSTX_API int gostx_tls_config_set_psk(gostx_tls_config *cfg, const uint8_t *identity,
                                       size_t id_len, const uint8_t *key, size_t key_len);
/* Session tickets (RFC 8446 section 4.6.1), server: n NewSessionTicket
 * messages (0..8; 0: none) after each TLS 1.3 handshake with a client that
 * takes psk_dhe_ke, each good for lifetime seconds (1..604800). Default: 2
 * tickets, 7200 s. A ticket resumes the session with a fresh ECDHE (no
 * certificate sent, no signature, forward secrecy kept; no early data) for
 * the same server name, from any of our suites; where client
 * certificates are required, only a session whose client showed one.
 * GOSTX_EINVAL for other values or a client config. */
GOSTX_API int gostx_tls_config_set_tickets(gostx_tls_config *cfg, unsigned n, uint32_t lifetime);
/* The key that seals the tickets (32 bytes, secret): servers that share it
 * take each other's tickets. Default: random, this config's own. */
GOSTX_API int gostx_tls_config_set_ticket_key(gostx_tls_config *cfg, const uint8_t *key,
                                              size_t len);
/* Trust anchors for the peer's chain (not copied: must outlive cfg). */
GOSTX_API void gostx_tls_config_set_store(gostx_tls_config *cfg, const gostx_x509_store *store);
GOSTX_API void gostx_tls_config_set_verify(gostx_tls_config *cfg, gostx_tls_verify mode);
/* Lists, ':' or ',' separated, in preference order; GOSTX_EINVAL names the
 * unknown entry in gostx_tls_config_error(). Suites by RFC name
 * (TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_L) or short (KUZNYECHIK_MGM_L):
 * TLS 1.3's KUZNYECHIK_MGM_L/S, MAGMA_MGM_L/S and TLS 1.2's
 * KUZNYECHIK_CTR_OMAC, MAGMA_CTR_OMAC, 28147_CNT_IMIT (RFC 9189), one
 * list for both versions (each takes its own; default: all seven);
 * groups GC256A..GC256D, GC512A..GC512C; ALPN protocol names. */
GOSTX_API int gostx_tls_config_set_suites(gostx_tls_config *cfg, const char *list);
GOSTX_API int gostx_tls_config_set_groups(gostx_tls_config *cfg, const char *list);
GOSTX_API int gostx_tls_config_set_alpn(gostx_tls_config *cfg, const char *list);
/* Versions accepted, GOSTX_TLS_VERSION_1_2 (0x0303) to _1_3 (0x0304);
 * default both, 1.3 preferred (a version is spoken when the suite list
 * has a suite of it too). A server that settles on 1.2 while it
 * accepts 1.3 marks its random as RFC 8446 4.1.3 says, and a client that
 * offered 1.3 refuses a 1.2 answer so marked (illegal_parameter). TLS 1.2
 * takes no PSK or KeyUpdate; it requires extended_master_secret
 * (RFC 7627) and refuses renegotiation (no_renegotiation). */
GOSTX_API int gostx_tls_config_set_versions(gostx_tls_config *cfg, unsigned min, unsigned max);
/* SSLKEYLOGFILE lines (NSS key log format), one per call, without '\n'. */
GOSTX_API void gostx_tls_config_set_keylog(gostx_tls_config *cfg,
                                           void (*cb)(void *user, const char *line),
                                           void *user);
GOSTX_API const char *gostx_tls_config_error(const gostx_tls_config *cfg);

/* A connection of cfg (which must outlive it). NULL on allocation failure. */
GOSTX_API gostx_tls *gostx_tls_new(const gostx_tls_config *cfg);
GOSTX_API void gostx_tls_free(gostx_tls *c);
/* Client: the name sent as SNI and verified against the server's chain
 * (a DNS name or an IP literal; an IP is verified, not sent; anything
 * else, a trailing dot included, is GOSTX_EINVAL). Without one
 * the chain is verified to the store but for no name: set it. */
GOSTX_API int gostx_tls_set_servername(gostx_tls *c, const char *name);

/* Client sessions. get: the newest ticket the server sent (they come after
 * the handshake, with the data read) as bytes to keep: secret (they hold
 * the resumption PSK), one use each (RFC 8446 C.4: take a fresh one from
 * each connection). GOSTX_ESTATE when none came, or when this connection
 * did not verify the server (GOSTX_TLS_VERIFY_NONE: a resumed session is
 * trusted as its first handshake was verified); GOSTX_ELEN when cap is
 * short (*len says how much is needed). set, before the handshake: offer
 * that session (under any TLS 1.3 suite of the list: all hash with
 * Streebog-256); it is offered only for the same server name, within its
 * lifetime, and with no external PSK set, else dropped, and the server may
 * decline it: the handshake is then a full one, the chain verified as
 * ever. GOSTX_EFORMAT for bytes that are not a session. reused: 1 when
 * the handshake resumed a session. */
#define GOSTX_TLS_SESSION_MAX 1336 /* the most bytes get writes (a ticket of 1 KiB kept) */
GOSTX_API int gostx_tls_get_session(const gostx_tls *c, uint8_t *out, size_t cap, size_t *len);
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_set_session(gostx_tls *c, const uint8_t *in, size_t len);
GOSTX_API int gostx_tls_session_reused(const gostx_tls *c);

/* Transport: read/write up to len bytes; return the count, 0 at EOF (read),
 * or -1 with errno (EAGAIN/EWOULDBLOCK/EINTR mean "not now"). */
typedef ssize_t (*gostx_tls_read_fn)(void *user, uint8_t *buf, size_t len);
typedef ssize_t (*gostx_tls_write_fn)(void *user, const uint8_t *buf, size_t len);
GOSTX_API void gostx_tls_set_io(gostx_tls *c, gostx_tls_read_fn rd, gostx_tls_write_fn wr,
                                void *user);
GOSTX_API void gostx_tls_set_fd(gostx_tls *c, int fd);

/* Runs the handshake: 0 when complete, WANT_READ/WANT_WRITE, or an error. */
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_handshake(gostx_tls *c);
/* Application data (the handshake runs first if not complete). read: 0
 * with *got > 0, WANT_* (once the handshake's last flight is out, WANT_READ
 * only: it never waits on writing, see gostx_tls_unsent), CLOSED, or an error; write: 0 when all len bytes
 * are sent (*put = len), WANT_* with *put the part taken by this call
 * (sealed and queued: pass the rest next time; when *put = len, call again
 * with len 0 until 0, which sends what is queued). read opens a record
 * straight into buf when cap holds its whole content: bytes of buf past
 * *got may change (the record's inner type and padding). */
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_read(gostx_tls *c, void *buf, size_t cap, size_t *got);
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_write(gostx_tls *c, const void *buf, size_t len,
                                                size_t *put);
/* gostx_tls_read reads ahead: one transport read may bring several
 * records, kept for the next calls. Not 0: gostx_tls_read can go on
 * without the transport (the decrypted bytes ready, or when none, the
 * length of the whole record buffered next, not yet opened: data, a
 * KeyUpdate or an alert); call it before waiting on the fd (poll). 0: the
 * next record needs the transport. */
GOSTX_API size_t gostx_tls_pending(const gostx_tls *c);
/* The bytes of records queued for the peer that the transport has not
 * taken yet (0 after an error). Reading never waits on them: once the
 * handshake's last flight is out, gostx_tls_read sends what the transport
 * takes and reads on, and the rest keeps its order for the next call
 * (before anything written later). A non-blocking caller
 * waits for the fd to be readable when read said WANT_READ, and while this
 * is not 0 also writable, then calls gostx_tls_write(c, NULL, 0, &put)
 * (or read again): waiting for writable alone could wait for a peer that
 * waits for us to read. */
GOSTX_API size_t gostx_tls_unsent(const gostx_tls *c);
/* Sends KeyUpdate (request_peer: update_requested) and moves to new keys. */
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_key_update(gostx_tls *c, int request_peer);
/* Sends close_notify (0 when sent, WANT_WRITE otherwise). */
GOSTX_API GOSTX_MUST_CHECK int gostx_tls_close(gostx_tls *c);

/* After the handshake: names as the RFCs and IANA write them. */
GOSTX_API const char *gostx_tls_version(const gostx_tls *c);  /* "TLSv1.3", "TLSv1.2" */
GOSTX_API unsigned gostx_tls_version_id(const gostx_tls *c);  /* 0x0304, 0x0303; 0 before */
GOSTX_API const char *gostx_tls_suite(const gostx_tls *c);    /* RFC name */
/* group and scheme: TLS 1.3 only (NULL under TLS 1.2: its suites have no
 * ECDHE group and the server signs nothing). */
GOSTX_API const char *gostx_tls_group(const gostx_tls *c);    /* "GC256A" ... */
GOSTX_API const char *gostx_tls_scheme(const gostx_tls *c);   /* "gostr34102012_256a" ... */
GOSTX_API const char *gostx_tls_alpn(const gostx_tls *c);     /* NULL when none */
GOSTX_API const char *gostx_tls_servername(const gostx_tls *c);
/* The peer's chain as received (leaf first); count returned. */
GOSTX_API size_t gostx_tls_peer_chain(const gostx_tls *c, const gostx_x509_cert **chain);
/* After an error: what failed, and the alert (RFC 8446 number, -1 none)
 * with *sent 1 when we sent it, 0 when the peer did. */
GOSTX_API const char *gostx_tls_error(const gostx_tls *c);
GOSTX_API int gostx_tls_alert(const gostx_tls *c, int *sent);

#ifdef __cplusplus
}
#endif

#endif
