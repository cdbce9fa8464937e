/* gostx tls (cmd_tls.c the dispatch and its options, tls_config.c the
 * config they make, tls_client.c, tls_serve.c, tls_relay.c, tls_proxy.c):
 * one relay between a GOST TLS side and a plain side, driven by whoever
 * waits for the sockets (the proxy's epoll workers, the client's poll loop). */
#ifndef GOSTX_CLI_TLS_H
#define GOSTX_CLI_TLS_H

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include "cli.h"
#include "gostx/tls.h"

/* What each direction holds at most: four records' plaintext, so that one
 * read from the plain side becomes one write of four sealed records, and
 * the records one TLS read brings in go out in one write. */
#define TLS_CONN_BUF 65536
/* One record's plaintext: the room a TLS read wants. */
#define TLS_CONN_RECORD 16384
/* The client's TLS -> stdout buffer: sixteen records' plaintext, gathered
 * from as many socket reads as find data, out in one write (each write of
 * a pipe wakes its reader, the wake-up charged to the writer). */
#define TLS_CLIENT_OUT (16 * TLS_CONN_RECORD)
#define TLS_SESSIONS 16 /* connect: tickets kept for the next upstream connections */

/* What a relay waits for (tls_conn.want). */
#define TLS_WANT_TLS_RD 1u
#define TLS_WANT_TLS_WR 2u
#define TLS_WANT_PLAIN_RD 4u
#define TLS_WANT_PLAIN_WR 8u

/* tls_conn_pump's results. */
#define TLS_PUMP_WAIT 0  /* blocked: wait for c->want */
#define TLS_PUMP_AGAIN 1 /* stopped for fairness: call again soon */
#define TLS_PUMP_DONE 2  /* both directions ended cleanly */
#define TLS_PUMP_FAIL 3  /* an error: c->why says what */

struct tls_conn;
/* Called once when the handshake completes; nonzero fails the relay. */
typedef int (*tls_conn_ready_fn)(struct tls_conn *c);

struct tls_conn {
  gostx_tls *tls;
  int tls_fd;           /* the socket carrying TLS */
  int in_fd, out_fd;    /* the plain side (one socket, or stdin and stdout) */
  int tls_connecting;   /* a non-blocking connect of tls_fd in progress */
  int plain_connecting; /* the same for in_fd (== out_fd) */
  int plain_blocking;   /* in_fd/out_fd blocking (the client's stdin/stdout) */
  int plain_rd_ready;   /* blocking in_fd: the driver saw it readable */
  /* A read of that side found nothing: not tried again until the driver
   * sees the socket readable (one system call saved per record). */
  int tls_rd_idle, plain_rd_idle;
  int handshaken;
  int exit_on_peer_close; /* the client: the peer's close ends both ways */
  int hold_close;         /* the plain side's end sends close_notify only once the
                             peer has closed (the client without --close-on-eof) */
  int tls_eof, plain_eof, plain_shut, close_sent, flush_pending;
  unsigned want;
  tls_conn_ready_fn on_ready;
  void *user;
  uint64_t to_plain, to_tls; /* bytes relayed */
  char why[256];             /* after TLS_PUMP_FAIL */
  size_t p2t_off, p2t_len, t2p_off, t2p_len;
  /* The plaintext each way (TLS_CONN_BUF), allocated when a read needs it
   * and given back when the relay waits with it empty: an idle relay holds
   * none. t2p may instead be a larger one the driver lends (t2p_lent). */
  uint8_t *p2t, *t2p;
  size_t t2p_cap; /* at least TLS_CONN_RECORD */
  int t2p_lent;
  struct tls_timing *timing; /* --timing: its worker's counters; NULL: not timed */
};

/* serve/connect --timing: a worker's CPU time (its thread's clock, so a
 * worker preempted inside a call is not charged for the wait) in the
 * system calls of each side, in epoll, and in the TLS calls (the handshake,
 * sealing and opening records, with the TLS side's system calls inside
 * them counted apart), since its last line (tls_proxy.c prints one as each
 * connection ends). A clock read is a system call: --timing only. */
struct tls_timing {
  uint64_t mark;                  /* the thread's CPU time at the last line */
  uint64_t sys_plain, sys_tls, sys_epoll;
  uint64_t tls_calls;             /* gostx_tls_*, the sys_tls inside them included */
};
/* TLS_TIMED(c->timing, sys_plain, n = read(...)): the call, and with
 * --timing its CPU time added to that counter. */
#define TLS_TIMED(tm, ctr, call)              \
  do {                                        \
    if (!(tm)) {                              \
      call;                                   \
      break;                                  \
    }                                         \
    const uint64_t t0_ = cli_thread_cpu_ns(); \
    call;                                     \
    const int errno_ = errno;                 \
    (tm)->ctr += cli_thread_cpu_ns() - t0_;   \
    errno = errno_;                           \
  } while (0)
/* The relay timed into t (its worker's): its TLS side's reads and writes
 * go through callbacks that time them (gostx_tls_set_io, on tls_fd). */
void tls_conn_time(struct tls_conn *c, struct tls_timing *t);

/* Sets the relay's fields to their start (tls, fds and callbacks given). */
void tls_conn_init(struct tls_conn *c, gostx_tls *tls, int tls_fd, int in_fd, int out_fd);
/* Moves the relay as far as it goes without blocking: a TLS_PUMP_*. */
int tls_conn_pump(struct tls_conn *c);
/* The relay's buffers wiped and freed (not a lent t2p's memory: wiped only). */
void tls_conn_free_buffers(struct tls_conn *c);
/* The alert of a failed connection in words ("alert bad_certificate (42)
 * sent"), "" when none, in out[cap]. */
void tls_alert_text(const gostx_tls *tls, char *out, size_t cap);

/* HOST:PORT or [IPV6]:PORT, the host a name or a literal, resolved (the
 * first address); passive: for listening; port0_ok: port 0 allowed (the
 * system picks one). opt names the option in messages. Returns 0 or
 * CLI_EXIT_USAGE after printing. */
struct tls_addr {
  struct sockaddr_storage sa;
  socklen_t len;
  char host[256]; /* the host part as given */
  char text[300]; /* as given */
};
int tls_addr_parse(const char *opt, const char *s, int passive, int port0_ok, struct tls_addr *a);
/* sa as text ("127.0.0.1:8443", "[::1]:8443"). */
void tls_addr_text(const struct sockaddr *sa, char *out, size_t cap);
/* A non-blocking socket connecting to a: its fd (*pending 1 while the
 * connect goes on), or -1 with errno. */
int tls_connect_nb(const struct tls_addr *a, int *pending);

/* A TLS config and the store it points to, shared by the connections made
 * from it: each connection holds a reference, so that a reload (SIGHUP)
 * puts a new one in place while those in flight finish with the one they
 * started with; the last reference frees it. */
struct tls_cfg_ref {
  atomic_uint refs;
  gostx_tls_config *cfg;
  gostx_x509_store *store;
};
/* cfg and store (either may be NULL) held by a new reference, or NULL
 * (out of memory: they are freed). */
struct tls_cfg_ref *tls_cfg_ref_new(gostx_tls_config *cfg, gostx_x509_store *store);
void tls_cfg_ref_put(struct tls_cfg_ref *r);

struct worker; /* tls_proxy.c's */

/* gostx tls serve and connect: the accepting side. */
struct tls_proxy {
  int serve;                 /* 1: TLS accepted, plain to the backend; 0: the reverse */
  /* the config new connections take (under cfg_mu: tls_proxy_cfg_swap) */
  struct tls_cfg_ref *cfg;
  pthread_mutex_t cfg_mu;
  const char *name;          /* a service of a -c file, in its messages; NULL: none */
  struct tls_addr listen, target;
  const char *servername;    /* connect: the upstream's name */
  /* connect: tickets the upstream sent, each offered once (RFC 8446 C.4),
   * the newest first; resumed: handshakes (either side) that resumed */
  int resume;
  pthread_mutex_t sess_mu;
  unsigned nsess;
  size_t sess_len[TLS_SESSIONS];
  uint8_t sess[TLS_SESSIONS][GOSTX_TLS_SESSION_MAX];
  atomic_ulong resumed;
  unsigned threads;
  unsigned handshake_timeout; /* seconds */
  int listen_fd;
  int reserve_fd; /* a descriptor kept to give back when accept runs out of them */
  pthread_mutex_t reserve_mu;
  atomic_int stop;
  atomic_ulong accepted, failed, active;
  struct worker *ws; /* while running: the workers, their wake-up fd */
  unsigned started;
  int wake;
  int timing; /* --timing: a line of each worker's split as each connection ends */
};
/* The config of new connections replaced by next (taken over); those in
 * flight keep theirs. */
void tls_proxy_cfg_swap(struct tls_proxy *p, struct tls_cfg_ref *next);
/* Called on SIGHUP with the proxies: replaces what it can, says on stderr
 * what it could not (the old config then stays). */
typedef void (*tls_reload_fn)(void *user);
/* Listens on each proxy's address (printing it on stderr), runs their
 * workers until SIGINT or SIGTERM, calling reload (when not NULL) at each
 * SIGHUP. Returns a CLI_EXIT_* code. */
int tls_proxies_run(struct tls_proxy *const *ps, size_t n, tls_reload_fn reload, void *user);

/* The options of gostx tls (tls_opts.c), as given: on the command line
 * (cmd_tls.c), or as the keys of a -c file (tls_file.c), each through
 * tls_opt_set. */
struct tls_opts {
  const char *listen, *backend, *upstream, *target, *cert, *key, *chain, *passin, *ca;
  const char *servername, *version, *suites, *groups, *alpn, *keylog, *threads, *timeout;
  const char *psk, *psk_file, *sess_in, *sess_out, *ticket_key, *config;
  int verify_client, require_client, insecure, close_on_eof, no_tickets, insecure_key_file;
  int timing;
};
enum tls_opt_id {
  TLS_O_LISTEN = 1, TLS_O_BACKEND, TLS_O_UPSTREAM, TLS_O_CERT, TLS_O_KEY, TLS_O_CHAIN,
  TLS_O_PASSIN, TLS_O_CA, TLS_O_VERIFY, TLS_O_REQUIRE, TLS_O_SERVERNAME, TLS_O_INSECURE,
  TLS_O_VERSION, TLS_O_SUITES, TLS_O_GROUPS, TLS_O_ALPN, TLS_O_KEYLOG, TLS_O_THREADS,
  TLS_O_TIMEOUT, TLS_O_CLOSE_ON_EOF, TLS_O_PSK, TLS_O_PSK_FILE, TLS_O_SESS_IN, TLS_O_SESS_OUT,
  TLS_O_NO_TICKETS, TLS_O_TICKET_KEY, TLS_O_INSECURE_KEY_FILE, TLS_O_CONFIG, TLS_O_TIMING,
  TLS_O_HELP
};
/* Option id set to arg (a flag: arg NULL). -1: not an option that sets one. */
int tls_opt_set(struct tls_opts *o, int id, const char *arg);

/* gostx tls serve -c FILE: the file read (tls_file.c). Its text is kept:
 * the options point into it. */
struct tls_file_service {
  char name[64];
  unsigned line; /* of its [name] */
  struct tls_opts o;
};
struct tls_file {
  char *text;
  size_t text_len;
  struct tls_opts global; /* workers (as --threads), keylog */
  const char *log;        /* where stderr goes, appended; NULL: stderr as it is */
  size_t n;
  struct tls_file_service *svc;
};
/* 0, or a CLI_EXIT_* code after a message naming FILE:LINE. */
int tls_file_read(const char *path, struct tls_file *f);
void tls_file_free(struct tls_file *f);

/* The forms of gostx tls, and their names in messages (tls_opts.c, as the
 * next two). */
enum tls_mode { MODE_SERVE, MODE_CONNECT, MODE_CLIENT };
extern const char *const tls_mode_name[];
/* Which options the mode takes, and the ones it needs. */
int tls_check_opts(enum tls_mode mode, const struct tls_opts *o, const char *sub);
/* The secret files given kept from group and others, unless
 * --insecure-key-file. */
int tls_secret_files_private(const struct tls_opts *o);
/* --keylog FILE, else $SSLKEYLOGFILE, opened once for every config; closed
 * at the end (tls_config.c). */
int tls_keylog_open(const char *opt, const char *sub);
void tls_keylog_close(void);
/* The config the options say: *out and *store_out (NULL when no --ca), or
 * a CLI_EXIT_* code after printing (tls_config.c). */
int tls_build_config(enum tls_mode mode, const struct tls_opts *o, const char *sub,
                     gostx_tls_config **out, gostx_x509_store **store_out);
/* gostx tls client with its config built (tls_client.c). */
int tls_run_client(const struct tls_opts *o, const gostx_tls_config *cfg, unsigned timeout);
/* serve or connect from the command line, and serve -c FILE (tls_serve.c). */
int tls_serve_one(enum tls_mode mode, const struct tls_opts *o, const char *sub, uint64_t threads);
int tls_serve_file(const struct tls_opts *cmdline);

#endif
