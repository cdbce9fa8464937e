/* gostx tunnel, keying = ikev2 (docs/TUNNEL.md, "Keying with IKEv2"): the
 * IKE daemon. One thread with its own UDP socket (ike_port) drives lib/ike's
 * exchange engine (lib/ike/engine.h) as initiator (ike_initiate = yes) and
 * as responder, with the engine's retransmission timer, the cookie gate in
 * front of new responders and a bounded number of half-open IKE SAs. The
 * first Child SA established goes to the data path through
 * tunnel_ike_install (tunnel_install.c); then the installed IKE SA's
 * rekeys (rekey_seconds), liveness checks (dpd_seconds) and the engine's
 * events drive the tunnel's SA interface, make-before-break. With a NAT
 * detected (or encap = yes) IKE moves to the data port behind the non-ESP
 * marker (the workers hand such datagrams over through t->ike_pair), ESP
 * follows the NAT's mapping of the peer, and the side behind the NAT sends
 * keepalives (RFC 7296 2.23, RFC 3948). One log line per event. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ike/engine.h"
#include "tunnel.h"
#include "tunnel_sa.h"

_Static_assert(TUNNEL_IKE_MSG_MAX == GOSTX_IKE_MSG_MAX, "the workers' IKE buffers");

#define IKE_SLOTS 8          /* responder IKE SAs at once (half-open ones bounded by it) */
#define IKE_COOKIE_AT 2      /* half-open SAs from which a COOKIE is asked (RFC 7296 2.6) */
#define IKE_RETRY_MS 2000    /* an initiator's new try after one that failed */
#define IKE_YIELD_MS 10000   /* ours given up for the peer's (collision): when to try again */
#define IKE_HALF_OPEN_MS 30000 /* a responder with no IKE_AUTH in this long is dropped */
#define IKE_CERTS 4
#define IKE_TICK_MS 200      /* the longest sleep of the IKE thread */
#define IKE_QUIET_MS 500     /* a retired inbound SA stays until quiet this long */
#define IKE_LINGER_MS 3000   /* and no longer than this (a peer still sealing with it) */
#define IKE_PARKED 3         /* outbound SAs made, waiting for their switch */
#define IKE_RETIRING 3
#define IKE_BYE_MS 1000      /* at shutdown, our Delete of the IKE SA awaits its answer this long */
/* a rekey for what the Child SA carried, refused (not TEMPORARY_FAILURE): not again before */
#define IKE_USAGE_HOLD_MS 10000
/* unprotected messages (RFC 7296 2.21.4: rate-limited both ways): our
 * INVALID_IKE_SPI answers at most one each IKE_OUTSIDE_GAP_MS; a hint
 * from the peer acted on at most once each IKE_HINT_GAP_MS */
#define IKE_OUTSIDE_GAP_MS 250
#define IKE_HINT_GAP_MS 3000
#define IKE_NOTICE_GAP_MS 1000 /* our INVALID_SPI notices (ESP of no SA) */
/* a replacing SA's responder seals with it at the initiator's first packet
 * under it, or after this long */
#define IKE_SWITCH_MS 300

/* Where an IKE message goes or came from: the peer's address, and whether
 * over the data port behind the non-ESP marker (RFC 3948 2.2) or the IKE
 * socket */
struct ike_to {
  struct sockaddr_storage addr;
  int encap;
};

struct ike_slot {
  int used;
  int64_t born_ms;
  gostx_ike_engine e;
};

/* What the status shows of the installed IKE SA (keys never) */
struct ike_shown {
  int state; /* 0 waiting, 1 connecting, 2 established */
  int role;
  uint16_t encr, group;
  uint8_t spi_i[8], spi_r[8];
  uint32_t child_in, child_out;
  int64_t since_ms, child_since_ms; /* the IKE SA's SPIs, the Child SA's, since */
  int64_t rekey_ms, ike_rekey_ms;   /* the next rekeys (0: none due) */
  uint8_t nat_local, nat_peer;
  struct sockaddr_storage remote; /* where the peer's IKE is (a NAT's mapping) */
  int encap;                      /* IKE on the data port */
};

struct tunnel_ike {
  struct tunnel *t;
  gostx_ike_conf cf_i, cf_r;
  uint8_t psk[256];
  size_t psk_len;
  gostx_gost3410_key key;
  uint8_t pub[128]; /* its public key, x | y big-endian (as certificates hold it) */
  size_t pub_len;
  uint8_t cert_der[IKE_CERTS][4096];
  const uint8_t *certs[IKE_CERTS];
  size_t cert_lens[IKE_CERTS], n_certs;
  gostx_x509_store *store;
  int fd;
  int data_fd; /* the data port's socket (worker 0's): IKE behind the marker, keepalives */
  struct sockaddr_storage bound;
  gostx_ike_addr local, data_local; /* ours at ike_port, at the data port */
  uint8_t cookie_secret[32];
  gostx_ike_engine init; /* ours, when init_on */
  struct ike_to init_to; /* where ours goes: the IKE port, the data port from IKE_AUTH on */
  int init_on, collision_said;
  int64_t init_next_ms;
  int64_t outside_ms, hint_ms; /* our last INVALID_IKE_SPI, the last hint acted on */
  int64_t notice_ms;           /* our last INVALID_SPI notice */
  struct ike_slot resp[IKE_SLOTS];
  gostx_ike_engine *sa; /* the IKE SA whose Child SA is installed */
  struct ike_to sa_to; /* where its peer's IKE is */
  int64_t keepalive_ms; /* behind a NAT: when the next keepalive goes (0: none) */
  uint64_t keepalive_tx; /* worker 0's tx_packets when the last one was due */
  int64_t sa_since_ms;
  int64_t rekey_ms, ike_rekey_ms; /* when we rekey next (0: never) */
  int64_t usage_after_ms; /* no rekey for rekey_bytes or the packet guard before this */
  int bye; /* our Delete of the IKE SA is out (shutdown) */
  int asked; /* our rekey out on k->sa: ASKED_CHILD or ASKED_IKE, else 0 */
  uint32_t switch_spi;  /* a replacing SA's outbound SA, parked (switch_due) */
  int64_t switch_by_ms;
  /* a rekey's outbound SAs, made with their inbound ones, until the
   * engine says to switch (by the peer's SPI) */
  struct tunnel_sa *parked[IKE_PARKED];
  /* inbound SAs the engine retired, unlinked once quiet (make-before-break:
   * what the peer sealed before switching still arrives) */
  struct {
    uint32_t spi;
    uint64_t seen;
    int64_t quiet_since, since;
  } retiring[IKE_RETIRING];
  pthread_t thread;
  int thread_on;
  atomic_int installed;
  pthread_mutex_t lock; /* shown, read by the status writer */
  struct ike_shown shown;
  uint8_t in[GOSTX_IKE_MSG_MAX], out[GOSTX_IKE_MSG_MAX];
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  flockfile(stderr);
  fputs("gostx tunnel: ike: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  funlockfile(stderr);
  va_end(ap);
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* Unix time: certificates are checked at it */
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *notify_name(uint16_t n) {
  switch (n) {
  case 0: return "no answer";
  case GOSTX_IKE_N_INVALID_SYNTAX: return "INVALID_SYNTAX";
  case GOSTX_IKE_N_NO_PROPOSAL_CHOSEN: return "NO_PROPOSAL_CHOSEN";
  case GOSTX_IKE_N_INVALID_KE_PAYLOAD: return "INVALID_KE_PAYLOAD";
  case GOSTX_IKE_N_AUTHENTICATION_FAILED: return "AUTHENTICATION_FAILED";
  case GOSTX_IKE_N_TS_UNACCEPTABLE: return "TS_UNACCEPTABLE";
  case GOSTX_IKE_N_NO_ADDITIONAL_SAS: return "NO_ADDITIONAL_SAS";
  case GOSTX_IKE_N_TEMPORARY_FAILURE: return "TEMPORARY_FAILURE";
  case GOSTX_IKE_N_CHILD_SA_NOT_FOUND: return "CHILD_SA_NOT_FOUND";
  default: return "an error notify";
  }
}

static const char *group_name(uint16_t g) {
  return g == TUNNEL_KE_512 ? "gost3410-2012-512" : g == TUNNEL_KE_256 ? "gost3410-2012-256" : "?";
}

static void spi_hex(const uint8_t spi[8], char out[17]) {
  for (int i = 0; i < 8; i++) snprintf(out + 2 * i, 3, "%02x", spi[i]);
}

/* ---- the material: PSK or key, certificates and CA, from the config ---- */

static int load_psk(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  long n = tunnel_read_key_file(cfg, cfg->psk, k->psk, sizeof k->psk);
  if (n < 0) return CLI_EXIT_FAIL;
  size_t len = (size_t)n;
  if (len && k->psk[len - 1] == '\n') len--; /* a file written by echo */
  if (len && k->psk[len - 1] == '\r') len--;
  if (len < 16 || n == (long)sizeof k->psk) {
    gostx_memzero(k->psk, sizeof k->psk);
    return cli_usage("%s: a PSK of 16 to %zu bytes (this one has %zu)", cfg->psk,
                     sizeof k->psk - 2, len);
  }
  k->psk_len = len;
  return 0;
}

static int load_key(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  cli_key ck;
  int rc = cli_secret_file_private("key", cfg->key, cfg->insecure_key_file,
                                   "insecure_key_file = true");
  if (!rc) rc = cfg->key_pass[0] ? cli_load_key_pass(cfg->key, &ck, "key_pass", cfg->key_pass)
                                 : cli_load_key(cfg->key, &ck);
  if (rc) return rc;
  if (ck.kind != GOSTX_GOST3410_KEY_PRIVATE)
    rc = cli_usage("%s: not a private key", cfg->key);
  else if (cli_key_object(&ck, &k->key))
    rc = CLI_EXIT_FAIL;
  memcpy(k->pub, ck.pub, 2 * ck.len);
  k->pub_len = 2 * ck.len;
  cli_key_clear(&ck);
  return rc;
}

/* cert: ours, the end-entity first (its key the one of `key`); the local
 * ID, when not given, its subject (strongSwan's default) */
static int load_certs(struct tunnel_ike *k, struct tunnel_config *cfg) {
  cli_cert_list *l = calloc(1, sizeof *l);
  if (!l) return cli_usage("%s: out of memory", cfg->cert);
  int rc = cli_load_certs(cfg->cert, l);
  if (!rc && l->n > IKE_CERTS) rc = cli_usage("%s: at most %d certificates", cfg->cert, IKE_CERTS);
  for (size_t i = 0; !rc && i < l->n; i++) {
    if (l->c[i].der_len > sizeof k->cert_der[i])
      rc = cli_usage("%s: certificate %zu is too big", cfg->cert, i + 1);
    else
      memcpy(k->cert_der[i], l->c[i].der, l->c[i].der_len);
    k->certs[i] = k->cert_der[i];
    k->cert_lens[i] = l->c[i].der_len;
  }
  if (!rc) {
    const gostx_x509_cert *leaf = &l->c[0];
    if (k->pub_len != leaf->pub_len || memcmp(k->pub, leaf->pub, k->pub_len))
      rc = cli_usage("%s: the first certificate is not of the key %s", cfg->cert, cfg->key);
    if (!rc && !cfg->local_id.type) {
      if (leaf->subject_len > sizeof cfg->local_id.data)
        rc = cli_usage("%s: the subject is too long for an ID", cfg->cert);
      cfg->local_id.type = TUNNEL_ID_DN;
      cfg->local_id.len = leaf->subject_len;
      memcpy(cfg->local_id.data, leaf->subject, leaf->subject_len);
      snprintf(cfg->local_id.text, sizeof cfg->local_id.text, "(the subject of %.200s)", cfg->cert);
    }
  }
  k->n_certs = rc ? 0 : l->n;
  cli_cert_list_free(l);
  free(l);
  return rc;
}

static int load_ca(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  char err[256] = "";
  k->store = gostx_x509_store_new();
  if (!k->store) return cli_usage("%s: out of memory", cfg->ca);
  int rc = gostx_x509_store_add_path(k->store, cfg->ca, err, sizeof err);
  if (!rc) return 0;
  cli_err("%s: %s", cfg->ca, *err ? err : "no certificate read");
  return rc == GOSTX_EIO ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
}

/* Every IPv4 and IPv6 address, every port and protocol: the tunnel
 * carries all of what its TUN device is routed. */
static void ts_all(gostx_ike_ts_set *s) {
  memset(s, 0, sizeof *s);
  s->n = 2;
  s->ts[0].type = GOSTX_IKE_TS_IPV4;
  s->ts[1].type = GOSTX_IKE_TS_IPV6;
  for (int i = 0; i < 2; i++) {
    s->ts[i].end_port = 65535;
    memset(s->ts[i].end, 0xff, 16);
  }
}

/* The largest IKE message sent whole (RFC 7383; 0: never fragmented):
 * fragment_size less the IP and UDP headers and the non-ESP marker. The
 * marker is taken off even on the IKE port: the conf is fixed when an
 * exchange starts, and IKE moves to the data port after IKE_SA_INIT (or
 * follows a NAT's mapping); 4 octets a fragment is all it costs. */
static size_t ike_frag_size(const struct tunnel_config *cfg) {
  const size_t ip = cfg->local.ss_family == AF_INET ? 20 : 40;
  return cfg->fragmentation ? cfg->fragment_size - ip - 8 - 4 : 0;
}

static void make_confs(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  gostx_ike_conf *c = &k->cf_i;
  memset(c, 0, sizeof *c);
  c->encr = cfg->encr[0];
  c->encr_offer = cfg->encr;
  c->n_encr_offer = cfg->n_encr;
  c->group = cfg->group;
  c->auth = cfg->ike_auth == TUNNEL_IKE_PSK ? GOSTX_IKE_AUTH_PSK : GOSTX_IKE_AUTH_DIGITAL_SIGNATURE;
  c->psk = k->psk;
  c->psk_len = k->psk_len;
  c->key = cfg->ike_auth == TUNNEL_IKE_CERT ? &k->key : NULL;
  c->certs = k->certs;
  c->cert_lens = k->cert_lens;
  c->n_certs = k->n_certs;
  c->store = k->store;
  c->id_type = cfg->local_id.type;
  c->id = cfg->local_id.data;
  c->id_len = cfg->local_id.len;
  c->peer_id_type = cfg->remote_id.type;
  c->peer_id = cfg->remote_id.data;
  c->peer_id_len = cfg->remote_id.len;
  c->force_encap = cfg->encap; /* the peer sees a NAT: both move (RFC 9385 A.2) */
  c->frag_size = ike_frag_size(cfg);
  k->cf_r = *c;
  c->role = GOSTX_IKE_INITIATOR;
  ts_all(&c->tsi);
  ts_all(&c->tsr);
  k->cf_r.role = GOSTX_IKE_RESPONDER; /* no selectors of its own: the initiator's */
}

int tunnel_ike_prepare(struct tunnel *t) {
  struct tunnel_ike *k = calloc(1, sizeof *k);
  if (!k) return cli_usage("tunnel: out of memory");
  t->ike = k;
  k->t = t;
  k->fd = -1;
  pthread_mutex_init(&k->lock, NULL);
  struct tunnel_config *cfg = &t->cfg;
  int rc = cfg->ike_auth == TUNNEL_IKE_PSK ? load_psk(k, cfg) : load_key(k, cfg);
  if (!rc && cfg->ike_auth == TUNNEL_IKE_CERT) rc = load_certs(k, cfg);
  if (!rc && cfg->ike_auth == TUNNEL_IKE_CERT) rc = load_ca(k, cfg);
  if (!rc) make_confs(k, cfg);
  return rc;
}

void tunnel_ike_free(struct tunnel *t) {
  struct tunnel_ike *k = t->ike;
  if (!k) return;
  if (k->fd >= 0) close(k->fd);
  for (int i = 0; i < 2; i++)
    if (t->ike_pair[i] >= 0) close(t->ike_pair[i]);
  t->ike_pair[0] = t->ike_pair[1] = -1;
  gostx__ike_engine_clear(&k->init);
  for (int i = 0; i < IKE_SLOTS; i++) gostx__ike_engine_clear(&k->resp[i].e);
  for (int i = 0; i < IKE_PARKED; i++) tunnel_sa_free(k->parked[i]); /* never linked */
  gostx_x509_store_free(k->store);
  pthread_mutex_destroy(&k->lock);
  gostx_memzero(k, sizeof *k); /* PSK, private key, cookie secret */
  free(k);
  t->ike = NULL;
}

/* ---- the socket ---- */

static void to_ike_addr(const struct sockaddr_storage *ss, gostx_ike_addr *a) {
  memset(a, 0, sizeof *a);
  if (ss->ss_family == AF_INET) {
    const struct sockaddr_in *s = (const struct sockaddr_in *)ss;
    memcpy(a->ip, &s->sin_addr, 4);
    a->ip_len = 4;
    a->port = ntohs(s->sin_port);
  } else {
    const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;
    memcpy(a->ip, &s->sin6_addr, 16);
    a->ip_len = 16;
    a->port = ntohs(s->sin6_port);
  }
}

static void with_port(struct sockaddr_storage *ss, unsigned port) {
  if (ss->ss_family == AF_INET) ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
  else ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* ike_port = local's port: IKE on the data port only, behind the marker
 * from IKE_SA_INIT on (as RFC 7296 2.23 lets an initiator start on 4500) */
static int on_data_port(const struct tunnel_config *cfg) {
  gostx_ike_addr a;
  to_ike_addr(&cfg->local, &a);
  return a.port == cfg->ike_port;
}

static int open_socket(struct tunnel_ike *k) {
  const struct tunnel_config *cfg = &k->t->cfg;
  k->bound = cfg->local;
  with_port(&k->bound, cfg->ike_port);
  to_ike_addr(&k->bound, &k->local);
  to_ike_addr(&cfg->local, &k->data_local);
  if (on_data_port(cfg)) return 0; /* no socket of its own (poll skips fd -1) */
  k->fd = socket(cfg->local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (k->fd < 0 || bind(k->fd, (const struct sockaddr *)&k->bound, cfg->local_len) < 0) {
    cli_err("tunnel: IKE socket on port %u: %s", cfg->ike_port, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* One IKE message (len octets at m) as one datagram: on the IKE socket,
 * or on the data port behind the non-ESP marker */
static void send_one(struct tunnel_ike *k, const struct ike_to *to, const uint8_t *m, size_t len) {
  static const uint8_t marker[4];
  struct iovec iov[2] = {{(void *)marker, 4}, {(void *)m, len}};
  struct msghdr h = {.msg_name = (void *)&to->addr, .msg_namelen = k->t->cfg.local_len,
                     .msg_iov = to->encap ? iov : iov + 1, .msg_iovlen = to->encap ? 2 : 1};
  if (sendmsg(to->encap ? k->data_fd : k->fd, &h, 0) < 0) say("send: %s", strerror(errno));
}

static const char *exchange_name(uint8_t type) {
  switch (type) {
  case GOSTX_IKE_SA_INIT: return "IKE_SA_INIT";
  case GOSTX_IKE_AUTH: return "IKE_AUTH";
  case GOSTX_IKE_CREATE_CHILD_SA: return "CREATE_CHILD_SA";
  default: return "INFORMATIONAL";
  }
}

/* k->out's n octets to the peer: the engine's output, one message or RFC
 * 7383 fragments back to back (a retransmission and a cached answer too),
 * each fragment its own datagram */
static void send_to(struct tunnel_ike *k, const struct ike_to *to, size_t n) {
  size_t at = 0, len, count = 0;
  while ((len = gostx__ike_out_next(k->out, n, &at)) != 0) {
    send_one(k, to, k->out + at - len, len);
    count++;
  }
  if (count > 1) say("%s sent in %zu fragments", exchange_name(k->out[18]), count);
}

/* Where the peer's IKE listens: its address at our ike_port (its data
 * port, behind the marker, when ours is local's port) */
static void peer_ike(const struct tunnel_ike *k, struct ike_to *to) {
  to->addr = k->t->cfg.peer;
  to->encap = on_data_port(&k->t->cfg);
  if (!to->encap) with_port(&to->addr, k->t->cfg.ike_port);
}

static int same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  gostx_ike_addr x, y;
  to_ike_addr(a, &x);
  to_ike_addr(b, &y);
  return a->ss_family == b->ss_family && x.ip_len == y.ip_len && !memcmp(x.ip, y.ip, x.ip_len);
}

/* ss as ADDRESS:PORT ([ADDRESS]:PORT for IPv6): where a datagram came
 * from, which behind a NAT or from another implementation (charon-cmd
 * sends from a port of its own) is not `peer` */
static const char *addr_text(const struct sockaddr_storage *ss, char out[INET6_ADDRSTRLEN + 8]) {
  gostx_ike_addr a;
  char ip[INET6_ADDRSTRLEN] = "?";
  to_ike_addr(ss, &a);
  inet_ntop(ss->ss_family, a.ip, ip, sizeof ip);
  snprintf(out, INET6_ADDRSTRLEN + 8, "%s%s%s:%u", a.ip_len == 16 ? "[" : "", ip,
           a.ip_len == 16 ? "]" : "", a.port);
  return out;
}

/* "WHAT 192.0.2.1 port 40123": where a NAT maps the peer */
static void say_mapping(const char *what, const struct sockaddr_storage *ss) {
  gostx_ike_addr a;
  char ip[INET6_ADDRSTRLEN] = "?";
  to_ike_addr(ss, &a);
  inet_ntop(ss->ss_family, a.ip, ip, sizeof ip);
  say("%s %s port %u", what, ip, a.port);
}

/* ---- events ---- */

/* (k->lock held) where the installed SA's peer is */
static void show_remote(struct tunnel_ike *k) {
  k->shown.remote = k->sa_to.addr;
  k->shown.encap = k->sa_to.encap;
}

static void show(struct tunnel_ike *k, int state, const gostx_ike_engine *e, int64_t now) {
  pthread_mutex_lock(&k->lock);
  k->shown.state = state;
  if (e) { /* the ages count from the SPIs' change (new keys) */
    struct ike_shown *s = &k->shown;
    if (memcmp(s->spi_i, e->spi_i, 8) || memcmp(s->spi_r, e->spi_r, 8)) s->since_ms = now;
    if (s->child_in != e->child.spi_in) s->child_since_ms = now;
    s->role = e->cf->role;
    s->encr = e->encr;
    s->group = e->group;
    memcpy(s->spi_i, e->spi_i, 8);
    memcpy(s->spi_r, e->spi_r, 8);
    s->child_in = e->child.spi_in;
    s->child_out = e->child.spi_out;
    s->nat_local = e->nat_local;
    s->nat_peer = e->nat_peer;
    show_remote(k);
  }
  pthread_mutex_unlock(&k->lock);
}

/* ---- once established: rekeys, liveness, a new SA replacing the old ---- */

static void park(struct tunnel_ike *k, struct tunnel_sa *out) {
  for (int i = 0; i < IKE_PARKED; i++)
    if (!k->parked[i]) {
      k->parked[i] = out;
      return;
    }
  tunnel_sa_free(k->parked[0]); /* the oldest: its switch never came */
  memmove(k->parked, k->parked + 1, sizeof k->parked - sizeof k->parked[0]);
  k->parked[IKE_PARKED - 1] = out;
}

/* The parked outbound SA of the peer's SPI, taken out (NULL: none). */
static struct tunnel_sa *unpark(struct tunnel_ike *k, uint32_t spi) {
  for (int i = 0; i < IKE_PARKED; i++)
    if (k->parked[i] && k->parked[i]->esp.spi == spi) {
      struct tunnel_sa *sa = k->parked[i];
      k->parked[i] = NULL;
      return sa;
    }
  return NULL;
}

static void unpark_all(struct tunnel_ike *k) {
  for (int i = 0; i < IKE_PARKED; i++) tunnel_sa_free(k->parked[i]);
  memset(k->parked, 0, sizeof k->parked);
}

/* The inbound SA of spi to go once quiet (at once when no room is left). */
static void retire_later(struct tunnel_ike *k, uint32_t spi, int64_t now) {
  uint64_t n = 0;
  if (!spi || tunnel_sa_in_accepted(k->t, spi, &n)) return;
  for (int i = 0; i < IKE_RETIRING; i++)
    if (!k->retiring[i].spi || k->retiring[i].spi == spi) {
      k->retiring[i].spi = spi;
      k->retiring[i].seen = n;
      k->retiring[i].quiet_since = k->retiring[i].since = now;
      return;
    }
  tunnel_sa_retire_in(k->t, spi);
}

static void retire_quiet(struct tunnel_ike *k, int64_t now) {
  for (int i = 0; i < IKE_RETIRING; i++) {
    uint64_t n = 0;
    const uint32_t spi = k->retiring[i].spi;
    if (!spi) continue;
    if (tunnel_sa_in_accepted(k->t, spi, &n)) { /* gone already */
      k->retiring[i].spi = 0;
      continue;
    }
    if (n != k->retiring[i].seen) {
      k->retiring[i].seen = n;
      k->retiring[i].quiet_since = now;
    }
    if (now - k->retiring[i].quiet_since >= IKE_QUIET_MS ||
        now - k->retiring[i].since >= IKE_LINGER_MS) {
      tunnel_sa_retire_in(k->t, spi);
      k->retiring[i].spi = 0;
    }
  }
}

static void wipe_keys(gostx_ike_child *c) {
  gostx_memzero(c->key_in, sizeof c->key_in); /* the data path has them */
  gostx_memzero(c->key_out, sizeof c->key_out);
}

/* Every Child SA of e: its inbound SA to go (the IKE SA is gone or replaced) */
static void retire_children(struct tunnel_ike *k, const gostx_ike_engine *e, int64_t now) {
  retire_later(k, e->child.valid ? e->child.spi_in : 0, now);
  retire_later(k, e->old.valid ? e->old.spi_in : 0, now);
  retire_later(k, e->twin.valid ? e->twin.spi_in : 0, now);
}

/* a configured interval, bounded so that its milliseconds never overflow */
static uint64_t seconds_at_most(uint64_t s) {
  const uint64_t ten_years = 315360000;
  return s > ten_years ? ten_years : s;
}

enum { ASKED_CHILD = 1, ASKED_IKE = 2 };

/* When a lifetime of `seconds` from now ends: up to a tenth early, drawn
 * each time, so the two sides seldom start together; 0 for never. */
static int64_t lifetime_end(uint64_t seconds, int64_t now) {
  const uint64_t s = seconds_at_most(seconds);
  uint8_t r[2] = {0, 0};
  (void)gostx_random_bytes(r, sizeof r); /* zeros will do on failure */
  const int64_t ms = (int64_t)(s * 1000) - (int64_t)(s * 100 * (uint64_t)(r[0] << 8 | r[1]) / 65536);
  return s ? now + ms : 0;
}

static void next_child_rekey(struct tunnel_ike *k, int64_t now) {
  k->rekey_ms = lifetime_end(k->t->cfg.rekey_seconds, now);
}

static void next_ike_rekey(struct tunnel_ike *k, int64_t now) {
  k->ike_rekey_ms = lifetime_end(k->t->cfg.ike_rekey_seconds, now);
}

/* What --status shows of the timers (the IKE thread's own otherwise). */
static void show_rekeys(struct tunnel_ike *k) {
  pthread_mutex_lock(&k->lock);
  k->shown.rekey_ms = k->rekey_ms;
  k->shown.ike_rekey_ms = k->ike_rekey_ms;
  pthread_mutex_unlock(&k->lock);
}

/* e (k->sa) is no more: its IKE SA dropped, its Child SA's inbound SA to
 * go; the outbound one seals on until a new Child SA replaces it. */
static void sa_gone(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now, const char *why) {
  say("IKE SA with %s %s: dropped%s", k->t->cfg.remote_id.text, why,
      k->bye                   ? " (shutdown)"
      : k->t->cfg.ike_initiate ? ", a new one started"
                               : ", waiting for the peer");
  retire_children(k, e, now);
  unpark_all(k);
  k->sa = NULL;
  k->rekey_ms = k->ike_rekey_ms = 0;
  k->asked = 0;
  gostx__ike_engine_clear(e);
  if (e == &k->init) k->init_on = 0;
  if (!k->init_on) k->init_next_ms = now; /* else ours, started on a hint, goes on */
  for (int i = 0; i < IKE_SLOTS; i++)
    if (&k->resp[i].e == e) k->resp[i].used = 0;
  show(k, 0, NULL, now);
}

static void child_new(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now) {
  const gostx_ike_child *c = &e->ev.added;
  struct tunnel_sa *out = tunnel_ike_add_child(k->t, c);
  if (!out) {
    say("the new Child SA in 0x%08x could not be installed", c->spi_in);
    return;
  }
  park(k, out);
  say("Child SA rekeyed (%s): in 0x%08x out 0x%08x, replacing in 0x%08x", c->ours ? "ours" :
      "the peer's", c->spi_in, c->spi_out, e->ev.replaces);
  if (!c->ours) next_child_rekey(k, now); /* the peer rekeyed: ours waits a full period */
}

static void child_out(struct tunnel_ike *k, gostx_ike_engine *e) {
  struct tunnel_sa *out = unpark(k, e->child.spi_out);
  if (out && tunnel_ike_switch(k->t, out, &e->child))
    say("cannot seal with the Child SA out 0x%08x", e->child.spi_out);
}

/* The responder of a replacing SA (replace_sa) seals with it once the
 * initiator does (its first packet under it) or after IKE_SWITCH_MS:
 * before, the initiator may not have the inbound SA yet, our IKE_AUTH
 * answer still on its way, and the old SAs still work both ways. Not when
 * the initiator said INITIAL_CONTACT: it holds no old SA (it restarted),
 * and the new one is the only one it may open. */
static void switch_due(struct tunnel_ike *k, int64_t now) {
  gostx_ike_engine *e = k->sa;
  uint64_t n = 0;
  if (!k->switch_spi) return;
  if (!e || e->child.spi_out != k->switch_spi) { /* gone, or rekeyed meanwhile */
    k->switch_spi = 0;
    return;
  }
  const int used = !tunnel_sa_in_accepted(k->t, e->child.spi_in, &n) && n;
  if (!used && now < k->switch_by_ms) return;
  k->switch_spi = 0;
  child_out(k, e);
}

/* What the last call on k->sa changed, done in the data path. */
static void live_events(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now) {
  const unsigned f = e->ev.flags;
  if (f & GOSTX_IKE_EV_CHILD_NEW) child_new(k, e, now);
  if (f & GOSTX_IKE_EV_CHILD_OUT) child_out(k, e);
  for (size_t i = 0; (f & GOSTX_IKE_EV_CHILD_RETIRE) && i < e->ev.n_retired; i++) {
    struct tunnel_sa *out = unpark(k, e->ev.retired[i].spi_out);
    tunnel_sa_free(out); /* a redundant SA never sealed with */
    retire_later(k, e->ev.retired[i].spi_in, now);
  }
  if (f & GOSTX_IKE_EV_IKE_REKEYED) {
    char si[17], sr[17];
    spi_hex(e->spi_i, si);
    spi_hex(e->spi_r, sr);
    say("IKE SA rekeyed: SPIs %s %s", si, sr);
    next_ike_rekey(k, now); /* a full period from either side's rekey */
  }
  wipe_keys(&e->ev.added);
  for (size_t i = 0; i < e->ev.n_retired; i++) wipe_keys(&e->ev.retired[i]);
  wipe_keys(&e->child);
  wipe_keys(&e->old);
  wipe_keys(&e->twin);
  if (f & GOSTX_IKE_EV_PEER_GONE) sa_gone(k, e, now, "did not answer");
  else if (f & GOSTX_IKE_EV_IKE_DELETED) /* at shutdown: ours answered, or the peer's crossed it */
    sa_gone(k, e, now, k->bye ? "deleted" : "deleted by the peer");
  else if (f) show(k, 2, e, now);
}

/* The answer to our rekey was a refusal. TEMPORARY_FAILURE (the peer had
 * an exchange of its own out, RFC 7296 2.25): again, not at once, the RFC
 * says, but not a full period later either: in 0.5-1 s. Any other (say
 * CHILD_SA_NOT_FOUND after the peer's simultaneous rekey won): the
 * schedule stands. */
static void rekey_refused(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now) {
  const char *what = k->asked == ASKED_IKE ? "IKE SA" : "Child SA";
  if (e->error != GOSTX_IKE_N_TEMPORARY_FAILURE) {
    say("the peer refused our %s rekey (%s)", what, notify_name(e->error));
    k->usage_after_ms = now + IKE_USAGE_HOLD_MS; /* not every tick while the usage stands */
    return;
  }
  uint8_t r = 0;
  (void)gostx_random_bytes(&r, 1);
  const int64_t again = now + 500 + 2 * (int64_t)r;
  say("the peer refused our %s rekey (%s): again in %d ms", what, notify_name(e->error),
      (int)(again - now));
  if (k->asked == ASKED_IKE) k->ike_rekey_ms = again;
  else k->rekey_ms = again;
  k->usage_after_ms = again;
}

/* Whether the current Child SA is to be rekeyed for what it carried (why
 * into why): rekey_bytes either way (strongSwan's rekey_bytes), or half
 * of its sequence numbers either way, whatever the settings: without ESN
 * at 2^31 packets, far before the data path's hard stop at the last. */
static int usage_due(struct tunnel_ike *k, const gostx_ike_engine *e, int64_t now, char *why,
                     size_t cap) {
  if (now < k->usage_after_ms) return 0;
  struct tunnel_sa_usage u;
  tunnel_sa_usage(k->t, e->child.spi_in, e->child.spi_out, &u);
  const uint64_t rb = k->t->cfg.rekey_bytes;
  const uint64_t bytes = u.bytes_in > u.bytes_out ? u.bytes_in : u.bytes_out;
  if (rb && bytes >= rb)
    snprintf(why, cap, "%llu bytes under it (rekey_bytes %llu)", (unsigned long long)bytes,
             (unsigned long long)rb);
  else if (u.has_out && u.packets_out >= u.limit_out / 2)
    snprintf(why, cap, "%llu packets sealed under it (half of its last sequence number %llu)",
             (unsigned long long)u.packets_out, (unsigned long long)u.limit_out);
  else if (u.has_in && u.packets_in >= u.limit_in / 2)
    snprintf(why, cap, "%llu packets opened under it (half of its last sequence number %llu)",
             (unsigned long long)u.packets_in, (unsigned long long)u.limit_in);
  else
    return 0;
  return 1;
}

/* Our own request on k->sa when one is due: the IKE SA's rekey, the Child
 * SA's (its time, or what it carried), or a liveness check after
 * dpd_seconds of silence. A rekey the
 * engine cannot start yet (GOSTX_ESTATE: the last one's old SA not yet
 * deleted) stays due and is tried again on the next tick. */
static void live_request(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now) {
  const uint64_t dpd = seconds_at_most(k->t->cfg.dpd_seconds);
  const int64_t heard = e->last_heard_ms > k->sa_since_ms ? e->last_heard_ms : k->sa_since_ms;
  char why[128] = "";
  size_t n = 0;
  int rc = GOSTX_ESTATE;
  if (e->pend != GOSTX_IKE_X_NONE) return;
  if (k->asked) { /* the answer to our rekey is in */
    if (e->error) rekey_refused(k, e, now);
    k->asked = 0;
  }
  e->error = 0;
  if (k->ike_rekey_ms && now >= k->ike_rekey_ms) {
    rc = gostx__ike_rekey_ike(e, now, k->out, sizeof k->out, &n);
    if (rc != GOSTX_ESTATE) {
      k->asked = rc == GOSTX_OK ? ASKED_IKE : 0;
      next_ike_rekey(k, now);
    }
  }
  const int child_due = k->rekey_ms && now >= k->rekey_ms;
  if (rc != GOSTX_OK && (child_due || usage_due(k, e, now, why, sizeof why))) {
    rc = gostx__ike_rekey_child(e, 1, now, k->out, sizeof k->out, &n);
    if (rc != GOSTX_ESTATE) {
      k->asked = rc == GOSTX_OK ? ASKED_CHILD : 0;
      next_child_rekey(k, now);
    }
    if (rc == GOSTX_OK && why[0]) say("Child SA rekey started: %s", why);
  }
  if (rc != GOSTX_OK && dpd && now - heard >= (int64_t)dpd * 1000)
    rc = gostx__ike_dpd(e, now, k->out, sizeof k->out, &n);
  if (rc == GOSTX_OK) send_to(k, &k->sa_to, n);
}

static void live_tick(struct tunnel_ike *k, int64_t now) {
  retire_quiet(k, now);
  switch_due(k, now);
  gostx_ike_engine *e = k->sa;
  if (!e) return;
  size_t n = 0;
  if (gostx__ike_timer(e, now, k->out, sizeof k->out, &n) == GOSTX_OK) send_to(k, &k->sa_to, n);
  live_events(k, e, now);
  if (k->sa) live_request(k, e, now);
}

/* e, established while k->sa was up (the peer restarted, or lost ours):
 * its Child SA in place of the old one, the old IKE SA forgotten. */
static int replace_sa(struct tunnel_ike *k, gostx_ike_engine *e, int64_t now) {
  gostx_ike_engine *old = k->sa;
  const int responder = e->cf->role == GOSTX_IKE_RESPONDER;
  struct tunnel_sa *out = tunnel_ike_add_child(k->t, &e->child);
  if (!out || (!responder && tunnel_ike_switch(k->t, out, &e->child))) return -1;
  say("a new IKE SA with %s replaces the one installed (the peer restarted?)",
      k->t->cfg.remote_id.text);
  retire_children(k, old, now);
  unpark_all(k);
  if (responder && e->peer_initial_contact && !tunnel_ike_switch(k->t, out, &e->child)) {
    /* the peer restarted: the old SAs are dead to it */
    say("INITIAL_CONTACT: the peer holds no older SA; sealing with the new one at once");
  } else if (responder) { /* make-before-break: switched once the initiator seals with it */
    park(k, out);
    k->switch_spi = e->child.spi_out;
    k->switch_by_ms = now + IKE_SWITCH_MS;
  }
  gostx__ike_engine_clear(old);
  if (old == &k->init) k->init_on = 0;
  for (int i = 0; i < IKE_SLOTS; i++)
    if (&k->resp[i].e == old) k->resp[i].used = 0;
  return 0;
}

/* e established: where ESP goes (with a NAT in front of the peer only,
 * where its IKE_AUTH came from on the data port: the NAT's mapping of its
 * port, RFC 7296 2.23), and our keepalives when a NAT is in front of us */
static void nat_settle(struct tunnel_ike *k, const gostx_ike_engine *e, const struct ike_to *from,
                       int64_t now) {
  const uint64_t s = seconds_at_most(k->t->cfg.nat_keepalive_seconds);
  if (e->cf->role == GOSTX_IKE_RESPONDER && (e->nat_local || e->nat_peer))
    say("NAT detection: %s%s%s", e->nat_local ? "a NAT in front of us" : "",
        e->nat_local && e->nat_peer ? ", " : "", e->nat_peer ? "a NAT in front of the peer" : "");
  const int follow = from->encap && e->nat_peer && !e->nat_local;
  tunnel_peer_set(k->t, follow ? &from->addr : &k->t->cfg.peer);
  if (follow) say_mapping("ESP goes to the peer's NAT mapping", &from->addr);
  k->keepalive_ms = e->nat_local && s ? now + (int64_t)s * 1000 : 0;
  k->keepalive_tx = atomic_load(&k->t->w[0].c.tx_packets);
}

/* Behind a NAT: one 0xFF octet (RFC 3948 2.3) to the peer's data port
 * when nothing else went from it for nat_keepalive_seconds (RFC 3948 4:
 * only then), so the NAT keeps our mapping. Worker 0 sends from the data
 * port; the other workers' ports are other mappings. */
static void keepalive_tick(struct tunnel_ike *k, int64_t now) {
  if (!k->sa || !k->keepalive_ms || now < k->keepalive_ms) return;
  static const uint8_t ff = 0xff;
  const uint64_t tx = atomic_load(&k->t->w[0].c.tx_packets);
  const struct sockaddr_storage *to = k->sa_to.encap ? &k->sa_to.addr : &k->t->cfg.peer;
  if (tx == k->keepalive_tx &&
      sendto(k->data_fd, &ff, 1, 0, (const struct sockaddr *)to, k->t->cfg.local_len) < 0)
    say("keepalive: %s", strerror(errno));
  k->keepalive_tx = tx;
  k->keepalive_ms = now + (int64_t)seconds_at_most(k->t->cfg.nat_keepalive_seconds) * 1000;
}

/* e reached ESTABLISHED: its Child SA into the data path, in place of the
 * one before if any */
static void established(struct tunnel_ike *k, gostx_ike_engine *e,
                        const struct ike_to *from, int64_t now) {
  const char *role = e->cf->role == GOSTX_IKE_INITIATOR ? "initiator" : "responder";
  char si[17], sr[17];
  spi_hex(e->spi_i, si);
  spi_hex(e->spi_r, sr);
  if (!e->child.valid) {
    say("IKE SA with %s (%s) established without a Child SA (%s): nothing installed",
        k->t->cfg.remote_id.text, role, notify_name(e->error));
    return;
  }
  if (k->sa ? replace_sa(k, e, now) : tunnel_ike_install(k->t, &e->child)) {
    say("IKE SA with %s established but its Child SA could not be installed",
        k->t->cfg.remote_id.text);
    gostx_memzero(&e->child, sizeof e->child);
    return;
  }
  k->sa = e;
  k->sa_to = *from;
  k->sa_since_ms = now;
  nat_settle(k, e, from, now);
  k->usage_after_ms = 0;
  next_child_rekey(k, now);
  next_ike_rekey(k, now);
  say("IKE SA with %s established (%s): %s, prf-hmac-streebog-512, %s, SPIs %s %s; Child SA "
      "ESP in 0x%08x out 0x%08x installed",
      k->t->cfg.remote_id.text, role, tunnel_transform_name((gostx_esp_transform)e->encr),
      group_name(e->group), si, sr, e->child.spi_in, e->child.spi_out);
  show(k, 2, e, now);
  wipe_keys(&e->child);
  if (k->init_on && e != &k->init) { /* ours is not needed now */
    gostx__ike_engine_clear(&k->init);
    k->init_on = 0;
  }
  atomic_store(&k->installed, 1);
}

static void refused(struct tunnel_ike *k, const gostx_ike_engine *e) {
  say("IKE SA with %s failed (%s): %s%s%s: nothing installed", k->t->cfg.remote_id.text,
      e->cf->role == GOSTX_IKE_INITIATOR ? "initiator" : "responder", notify_name(e->error),
      e->why ? ": " : "", e->why ? e->why : "");
}

/* Our IKE_SA_INIT answered: what NAT detection found, said once; with a
 * NAT either side (or encap = yes) ours moves to the peer's data port
 * behind the non-ESP marker for IKE_AUTH and after (RFC 7296 2.23). */
static void init_answered(struct tunnel_ike *k, const gostx_ike_engine *e) {
  const int encap = e->nat_local || e->nat_peer || k->t->cfg.encap;
  say("NAT detection: %s%s%s", e->nat_local ? "a NAT in front of us" : "",
      e->nat_local && e->nat_peer ? ", " : "",
      e->nat_peer ? "a NAT in front of the peer" : !e->nat_local ? "no NAT" : "");
  if (!encap || k->init_to.encap) return; /* or there from the start (ike_port) */
  k->init_to.addr = k->t->cfg.peer;
  k->init_to.encap = 1;
  say("IKE moves to %s (UDP encapsulation%s)", k->t->cfg.peer_s,
      e->nat_local || e->nat_peer ? "" : ", encap = yes");
}

/* A new authenticated message on the installed SA from elsewhere than its
 * peer was: with a NAT in front of the peer and none in front of us, the
 * NAT's mapping changed, and IKE and ESP follow it (RFC 7296 2.23's
 * dynamic update; never from a retransmission, which could be a replay) */
static void peer_moved(struct tunnel_ike *k, const gostx_ike_engine *e, const struct ike_to *from,
                       int fresh) {
  if (!fresh || !from->encap || !e->nat_peer || e->nat_local) return;
  gostx_ike_addr now_at, was_at;
  to_ike_addr(&from->addr, &now_at);
  to_ike_addr(&k->sa_to.addr, &was_at);
  if (same_host(&from->addr, &k->sa_to.addr) && now_at.port == was_at.port) return;
  say_mapping("the peer's NAT mapping moved: IKE and ESP follow to", &from->addr);
  k->sa_to = *from;
  tunnel_peer_set(k->t, &from->addr);
  pthread_mutex_lock(&k->lock);
  show_remote(k);
  pthread_mutex_unlock(&k->lock);
}

/* A datagram into e, its answer out to `from` (ours: to k->init_to). 1
 * when e has FAILED (the caller drops it), else 0. */
static int feed(struct tunnel_ike *k, gostx_ike_engine *e, size_t len,
                const struct ike_to *from, int64_t now) {
  const gostx_ike_state before = e->state;
  const uint16_t error = e->error;
  const size_t cookie_len = e->cookie_len;
  const uint32_t peer_req = e->peer_req;
  const uint8_t pend = e->pend;
  size_t n = 0;
  int rc = gostx__ike_input(e, k->in, len, now, k->out, sizeof k->out, &n);
  if (rc != GOSTX_OK) return 0; /* dropped by the engine: not ours, forged or malformed */
  /* the data path first, then the answer: the peer may seal with the new
   * Child SA as soon as it reads it (a rekey's or IKE_AUTH's responder) */
  if (e == k->sa) {
    peer_moved(k, e, from, e->peer_req != peer_req || e->pend != pend);
    live_events(k, e, now);
    send_to(k, from, n);
    return 0;
  }
  if (e == &k->init && before == GOSTX_IKE_S_INIT_SENT && e->state == GOSTX_IKE_S_AUTH_SENT)
    init_answered(k, e);
  if (e == &k->init && e->state == GOSTX_IKE_S_INIT_SENT && e->cookie_len != cookie_len)
    say("the peer asks for a COOKIE: IKE_SA_INIT again with it (RFC 7296 2.6)");
  if (e == &k->init && e->state == GOSTX_IKE_S_INIT_SENT && e->error && e->error != error)
    say("IKE_SA_INIT answered %s (unprotected: noted, the request goes on until its tries "
        "run out, RFC 7296 2.21.1)", notify_name(e->error));
  const int up = e->state == GOSTX_IKE_S_ESTABLISHED && before != GOSTX_IKE_S_ESTABLISHED;
  /* a responder's inbound SA in before its IKE_AUTH answer goes: the
   * initiator seals with the new SA as soon as it has the answer */
  if (up && e->cf->role == GOSTX_IKE_RESPONDER) established(k, e, from, now);
  send_to(k, e == &k->init ? &k->init_to : from, n);
  if (up && e->cf->role == GOSTX_IKE_INITIATOR) established(k, e, from, now);
  if (e->state != GOSTX_IKE_S_FAILED) return 0;
  refused(k, e);
  return 1;
}

static void drop_slot(struct ike_slot *s) {
  gostx__ike_engine_clear(&s->e);
  s->used = 0;
}

static size_t half_open(const struct tunnel_ike *k) {
  size_t n = 0;
  for (int i = 0; i < IKE_SLOTS; i++) n += k->resp[i].used && &k->resp[i].e != k->sa;
  return n;
}

/* Both sides initiating (RFC 7296 leaves it open for the first SA): the
 * exchange the side with the higher address (then port) started is the one
 * both keep, so each installs the same Child SA. 1: ours wins. */
static int we_lead(const struct tunnel_ike *k, const struct ike_to *from) {
  gostx_ike_addr peer;
  to_ike_addr(&from->addr, &peer);
  int c = memcmp(k->local.ip, peer.ip, k->local.ip_len);
  return c > 0 || (c == 0 && k->local.port > peer.port);
}

/* Our IKE_SA_INIT request again now, not at the timer's next turn (up
 * to 8 s away once backed off): the peer has just shown it is up. */
static void resend_init(struct tunnel_ike *k) {
  if (k->init.state != GOSTX_IKE_S_INIT_SENT || !k->init.tx_len) return;
  memcpy(k->out, k->init.tx, k->init.tx_len);
  send_to(k, &k->init_to, k->init.tx_len); /* where start_init sent it */
}

/* The peer's IKE_SA_INIT while ours is out: 1 when ours leads (the
 * peer's is dropped), 0 when ours was given up for it. */
static int collision(struct tunnel_ike *k, const struct ike_to *from, int64_t now) {
  const int lead = we_lead(k, from);
  if (!k->collision_said) {
    say("both sides initiate: the exchange of the higher address goes on (%s)",
        lead ? "ours" : "the peer's");
    /* the peer is up now: our request, likely sent before its socket
     * was, goes again at once rather than at the timer's next turn */
    if (lead) resend_init(k);
  }
  k->collision_said = 1;
  if (lead) return 1;
  gostx__ike_engine_clear(&k->init);
  k->init_on = 0;
  k->init_next_ms = now + IKE_YIELD_MS;
  return 0;
}

/* A new responder IKE SA for the request, past the cookie gate (RFC 7296
 * 2.6: from IKE_COOKIE_AT half-open SAs on, nothing is kept for a request
 * without a valid COOKIE) and the bound on open SAs. */
static void new_responder(struct tunnel_ike *k, size_t len, const struct ike_to *from,
                          int64_t now) {
  const size_t open = half_open(k);
  gostx_ike_addr remote;
  size_t n = 0;
  to_ike_addr(&from->addr, &remote);
  int rc = gostx__ike_cookie_gate(k->cookie_secret, 1, open, IKE_COOKIE_AT, k->in, len,
                                  remote.ip, remote.ip_len, k->out, sizeof k->out, &n);
  char at[INET6_ADDRSTRLEN + 8];
  if (rc == 1) {
    say("COOKIE asked of %s (%zu half-open IKE SAs)", addr_text(&from->addr, at), open);
    send_to(k, from, n);
    return;
  }
  if (rc != GOSTX_OK) return;
  int i = 0;
  while (i < IKE_SLOTS && k->resp[i].used) i++;
  if (i == IKE_SLOTS) {
    say("IKE_SA_INIT from %s dropped: %d IKE SAs open (the most)", addr_text(&from->addr, at),
        IKE_SLOTS);
    return;
  }
  struct ike_slot *s = &k->resp[i];
  /* NAT detection hashes where the request came to */
  const gostx_ike_addr *local = from->encap ? &k->data_local : &k->local;
  if (gostx__ike_engine_init(&s->e, &k->cf_r) || gostx__ike_engine_addrs(&s->e, local, &remote))
    return;
  s->used = 1;
  s->born_ms = now;
  say("IKE_SA_INIT from %s (responder)", addr_text(&from->addr, at));
  if (feed(k, &s->e, len, from, now) || s->e.state == GOSTX_IKE_S_IDLE) drop_slot(s);
}

/* An IKE_SA_INIT request: a retransmission to its responder, or (past
 * the collision rule) a new one. */
static void init_request(struct tunnel_ike *k, size_t len, const struct ike_to *from,
                         int64_t now) {
  for (int i = 0; i < IKE_SLOTS; i++)
    if (k->resp[i].used && !memcmp(k->resp[i].e.spi_i, k->in, 8)) {
      if (feed(k, &k->resp[i].e, len, from, now)) drop_slot(&k->resp[i]);
      return;
    }
  /* with an SA up: the peer restarted (it replaces ours once established) */
  if (k->init_on && &k->init != k->sa && collision(k, from, now)) return;
  new_responder(k, len, from, now);
}

/* msg is of e's IKE SA, current or left by a rekey until deleted */
static int sa_owns(const gostx_ike_engine *e, const uint8_t *msg) {
  if (!memcmp(msg, e->spi_i, 8) && !memcmp(msg + 8, e->spi_r, 8)) return 1;
  for (int i = 0; i < 2; i++) {
    const gostx_ike_old_sa *o = &e->old_sa[i];
    if ((o->valid || o->closed) && !memcmp(msg, o->spi_i, 8) && !memcmp(msg + 8, o->spi_r, 8))
      return 1;
  }
  return 0;
}

/* A new IKE SA of ours in k->init: its IKE_SA_INIT out. */
static void start_init(struct tunnel_ike *k, int64_t now) {
  gostx_ike_addr remote;
  size_t n = 0;
  peer_ike(k, &k->init_to); /* moved to the data port once answered (init_answered) */
  to_ike_addr(&k->init_to.addr, &remote);
  /* holding no IKE SA (after a start, or once the last one is gone), this
   * one will be the only one: INITIAL_CONTACT tells the peer that what
   * it holds of us is dead (RFC 7296 3.10.1), so it need not wait */
  k->cf_i.initial_contact = !k->sa;
  if (gostx__ike_engine_init(&k->init, &k->cf_i) ||
      gostx__ike_engine_addrs(&k->init, &k->local, &remote) ||
      gostx__ike_start(&k->init, now, k->out, sizeof k->out, &n)) {
    say("cannot start an IKE SA");
    k->init_next_ms = now + IKE_RETRY_MS;
    return;
  }
  k->init_on = 1;
  k->collision_said = 0;
  say("IKE_SA_INIT to %s (initiator)", k->t->cfg.peer_s);
  if (!k->sa) show(k, 1, NULL, now); /* else the installed SA stays shown until replaced */
  send_to(k, &k->init_to, n);
}

/* A request for an IKE SA not known here (we restarted; the peer did
 * not): INVALID_IKE_SPI, unprotected (RFC 7296 2.21.4), so that the peer
 * starts anew now rather than once its retransmissions give up. */
static void unknown_sa(struct tunnel_ike *k, size_t len, const struct ike_to *from,
                       int64_t now) {
  size_t n = 0;
  if (now - k->outside_ms < IKE_OUTSIDE_GAP_MS) return; /* never a reflector of floods */
  if (gostx__ike_invalid_ike_spi(k->in, len, k->out, sizeof k->out, &n) != 1) return;
  k->outside_ms = now;
  say("a request for an IKE SA not known here: INVALID_IKE_SPI sent");
  send_to(k, from, n); /* the way it came: the IKE port, or the data port behind the marker */
}

/* k->init holds the installed SA: moved into a free responder slot so
 * that k->init can start a new one beside it (the engine holds no pointer
 * into itself but its reassembly's, set again on its next use). 0: no
 * slot free. */
static int free_init(struct tunnel_ike *k, int64_t now) {
  for (int i = 0; i < IKE_SLOTS; i++)
    if (!k->resp[i].used) {
      k->resp[i].e = k->init;
      k->resp[i].used = 1;
      k->resp[i].born_ms = now;
      k->sa = &k->resp[i].e;
      gostx__ike_engine_clear(&k->init);
      k->init_on = 0;
      return 1;
    }
  return 0;
}

/* The peer does not know the SA of our request or of our ESP: likely it
 * restarted. Unprotected, so nothing is changed (2.21.4); an initiator
 * starts a new IKE SA, which replaces the installed one only once
 * authenticated (replace_sa), or sends its IKE_SA_INIT out again now. */
static void hint(struct tunnel_ike *k, const char *what, int64_t now) {
  if (now - k->hint_ms < IKE_HINT_GAP_MS) return;
  k->hint_ms = now;
  const int init = k->t->cfg.ike_initiate;
  say("the peer does not know our %s (unprotected: a hint)%s", what,
      !init ? "" : k->init_on && &k->init != k->sa ? ": our IKE_SA_INIT again"
                                                   : ": a new IKE SA beside the installed one");
  if (!init) return;
  if (k->init_on && &k->init != k->sa) resend_init(k);
  else if (k->sa != &k->init || free_init(k, now)) start_init(k, now);
}

/* An unprotected INVALID_IKE_SPI (about our IKE SA) or INVALID_SPI (our
 * outbound ESP SPI) from the peer: acted on as a hint. 1 when it is
 * either (never answered, RFC 7296 1.5), 0 for anything else. */
static int outside_hint(struct tunnel_ike *k, size_t len, int64_t now) {
  gostx_ike_hdr h;
  uint32_t spi = 0;
  const int kind = gostx__ike_outside_hint(k->in, len, &h, &spi);
  if (kind == GOSTX_IKE_HINT_IKE_SPI && k->sa && sa_owns(k->sa, k->in)) hint(k, "IKE SA", now);
  if (kind == GOSTX_IKE_HINT_ESP_SPI && spi && spi == k->t->cfg.spi_out) hint(k, "ESP SPI", now);
  return kind != 0;
}

/* One datagram into k->in from the IKE socket, or from the workers (one
 * that came on the data port: its source address, then the IKE message
 * behind the marker): its length, or -1. */
static ssize_t read_one(struct tunnel_ike *k, int fd, struct ike_to *from) {
  from->encap = fd != k->fd;
  if (!from->encap) {
    socklen_t fl = sizeof from->addr;
    return recvfrom(fd, k->in, sizeof k->in, 0, (struct sockaddr *)&from->addr, &fl);
  }
  struct iovec iov[2] = {{&from->addr, sizeof from->addr}, {k->in, sizeof k->in}};
  struct msghdr h = {.msg_iov = iov, .msg_iovlen = 2};
  const ssize_t r = recvmsg(fd, &h, 0);
  return r < (ssize_t)sizeof from->addr ? -1 : r - (ssize_t)sizeof from->addr;
}

static void receive(struct tunnel_ike *k, int fd, int64_t now) {
  struct ike_to from;
  memset(&from, 0, sizeof from);
  ssize_t r = read_one(k, fd, &from);
  /* the peer's address only: a point-to-point tunnel has one peer */
  if (r < 28 || !same_host(&from.addr, &k->t->cfg.peer)) return;
  const size_t len = (size_t)r;
  static const uint8_t zero[8];
  const int response = k->in[19] & 0x20, sa_init = k->in[18] == GOSTX_IKE_SA_INIT;
  if (k->in[16] == GOSTX_IKE_PT_NOTIFY && !sa_init && outside_hint(k, len, now)) return;
  if (k->sa && sa_owns(k->sa, k->in)) {
    feed(k, k->sa, len, &from, now);
    return;
  }
  if (response) {
    if (k->init_on && !memcmp(k->in, k->init.spi_i, 8) && feed(k, &k->init, len, &from, now)) {
      gostx__ike_engine_clear(&k->init);
      k->init_on = 0;
      k->init_next_ms = now + IKE_RETRY_MS;
    }
    return;
  }
  if (sa_init && !memcmp(k->in + 8, zero, 8)) {
    init_request(k, len, &from, now);
    return;
  }
  for (int i = 0; i < IKE_SLOTS; i++)
    if (k->resp[i].used && !memcmp(k->resp[i].e.spi_i, k->in, 8) &&
        !memcmp(k->resp[i].e.spi_r, k->in + 8, 8)) {
      if (feed(k, &k->resp[i].e, len, &from, now)) drop_slot(&k->resp[i]);
      return;
    }
  unknown_sa(k, len, &from, now);
}

/* ike_initiate = yes: ours started when due (none installed), resent when
 * its timer says (also one started on a hint beside the installed SA) */
static void initiator_tick(struct tunnel_ike *k, int64_t now) {
  if (!k->t->cfg.ike_initiate) return;
  if (!k->init_on || k->sa == &k->init) {
    if (!k->sa && now >= k->init_next_ms) start_init(k, now);
    return;
  }
  size_t n = 0;
  if (gostx__ike_timer(&k->init, now, k->out, sizeof k->out, &n) == GOSTX_OK)
    send_to(k, &k->init_to, n);
  if (k->init.state == GOSTX_IKE_S_FAILED) {
    refused(k, &k->init);
    gostx__ike_engine_clear(&k->init);
    k->init_on = 0;
    k->init_next_ms = now + IKE_RETRY_MS;
  }
}

/* ESP under an SPI of no SA while we hold no IKE SA: we lost our state
 * (restarted) and the peer seals on under the old Child SA. RFC 7296 1.5
 * allows an unprotected INVALID_SPI notice to where the ESP came from
 * (here where peer_ike says: the peer's IKE port, or its data port behind
 * the marker with ike_port = local's port; without an SA no NAT mapping is
 * known): a hint for the peer, which starts anew at once instead of when
 * its requests over the old IKE SA (backed off up to 8 s apart) reach us.
 * It starts nothing here: a responder-only end stays one. */
static void unknown_esp(struct tunnel_ike *k, int64_t now) {
  const uint32_t spi = atomic_exchange(&k->t->spi_unknown, 0);
  struct ike_to to;
  size_t n = 0;
  if (!spi || k->sa || now - k->notice_ms < IKE_NOTICE_GAP_MS) return;
  if (gostx__ike_invalid_spi(spi, k->out, sizeof k->out, &n)) return;
  k->notice_ms = now;
  say("ESP under SPI 0x%08x, of no SA here: INVALID_SPI sent to the peer", spi);
  peer_ike(k, &to);
  send_to(k, &to, n);
}

static void expire(struct tunnel_ike *k, int64_t now) {
  for (int i = 0; i < IKE_SLOTS; i++)
    if (k->resp[i].used && &k->resp[i].e != k->sa && now - k->resp[i].born_ms > IKE_HALF_OPEN_MS) {
      say("half-open IKE SA from %s dropped after %d s", k->t->cfg.peer_s, IKE_HALF_OPEN_MS / 1000);
      drop_slot(&k->resp[i]);
    }
}

/* How long the thread may sleep in poll: until our request's timer or our
 * next try is due, at most IKE_TICK_MS (the stop flag and the half-open
 * expiry are looked at that often). */
static int sleep_ms(const struct tunnel_ike *k, int64_t now) {
  int64_t due = now + IKE_TICK_MS;
  const gostx_ike_state st = k->init.state;
  if (k->init_on && (st == GOSTX_IKE_S_INIT_SENT || st == GOSTX_IKE_S_AUTH_SENT))
    due = k->init.next_tx_ms; /* a request out (not once ESTABLISHED: no timer then) */
  if (!k->init_on && k->t->cfg.ike_initiate && !k->sa) due = k->init_next_ms;
  if (k->switch_spi && k->switch_by_ms < due) due = k->switch_by_ms;
  const int64_t d = due - now;
  return d < 0 ? 0 : d > IKE_TICK_MS ? IKE_TICK_MS : (int)d;
}

/* At most ms for a datagram (the IKE socket's, or one the workers hand
 * over), taken in when it comes. */
static void wait_receive(struct tunnel_ike *k, int ms) {
  /* the IKE socket (-1 with ike_port = local's port: skipped), and what
   * the workers hand over from the data port */
  struct pollfd p[2] = {{k->fd, POLLIN, 0}, {k->t->ike_pair[0], POLLIN, 0}};
  if (poll(p, 2, ms) <= 0) return;
  for (int i = 0; i < 2; i++)
    if (p[i].revents & POLLIN) receive(k, p[i].fd, now_ms());
}

/* At shutdown: the installed IKE SA deleted (RFC 7296 1.4.1), so the peer
 * drops it and its Child SA at once rather than after its DPD gives up.
 * A request of ours still out is let finish first; the answer awaited
 * IKE_BYE_MS in all (the engine's timer resends), the peer's requests
 * meanwhile answered. */
static void delete_at_shutdown(struct tunnel_ike *k) {
  gostx_ike_engine *e = k->sa;
  if (!e) return;
  const int64_t end = now_ms() + IKE_BYE_MS;
  for (int64_t now = now_ms(); k->sa == e && now < end; now = now_ms()) {
    size_t n = 0;
    if (!k->bye && e->pend == GOSTX_IKE_X_NONE &&
        gostx__ike_delete(e, GOSTX_IKE_DEL_IKE, now, k->out, sizeof k->out, &n) == GOSTX_OK) {
      k->bye = 1;
      send_to(k, &k->sa_to, n);
    }
    if (gostx__ike_timer(e, now, k->out, sizeof k->out, &n) == GOSTX_OK) send_to(k, &k->sa_to, n);
    live_events(k, e, now);
    if (k->sa == e) wait_receive(k, end - now < 50 ? (int)(end - now) : 50);
  }
  if (k->sa == e)
    say("IKE SA with %s: %s in %d ms at shutdown", k->t->cfg.remote_id.text,
        k->bye ? "no answer to our Delete" : "our last request unanswered, no Delete sent",
        IKE_BYE_MS);
}

static void *ike_run(void *arg) {
  struct tunnel_ike *k = arg;
  while (!atomic_load(&k->t->stop)) {
    const int64_t now = now_ms();
    initiator_tick(k, now);
    live_tick(k, now);
    keepalive_tick(k, now);
    expire(k, now);
    unknown_esp(k, now);
    show_rekeys(k);
    wait_receive(k, sleep_ms(k, now_ms()));
  }
  delete_at_shutdown(k);
  atomic_store(&k->t->ike_on, 0); /* the workers may go now */
  return NULL;
}

int tunnel_ike_start(struct tunnel *t, int data_fd) {
  struct tunnel_ike *k = t->ike;
  k->data_fd = data_fd;
  int rc = open_socket(k);
  if (!rc && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, t->ike_pair)) {
    cli_err("tunnel: IKE queue: %s", strerror(errno));
    rc = CLI_EXIT_FAIL;
  }
  if (!rc && gostx_random_bytes(k->cookie_secret, sizeof k->cookie_secret)) rc = CLI_EXIT_FAIL;
  if (!rc) atomic_store(&t->ike_on, 1);
  if (!rc && pthread_create(&k->thread, NULL, ike_run, k)) {
    cli_err("tunnel: cannot start the IKE thread");
    atomic_store(&t->ike_on, 0);
    rc = CLI_EXIT_FAIL;
  }
  k->thread_on = !rc;
  if (!rc)
    say("listening on port %u%s, %s%s", t->cfg.ike_port,
        on_data_port(&t->cfg) ? " (the data port: IKE behind the non-ESP marker)" : "",
        t->cfg.ike_initiate ? "initiating to " : "waiting for ", t->cfg.peer_s);
  return rc;
}

int tunnel_ike_installed(struct tunnel *t) { return t->ike && atomic_load(&t->ike->installed); }

void tunnel_ike_stop(struct tunnel *t) {
  struct tunnel_ike *k = t->ike;
  if (!k || !k->thread_on) return;
  atomic_store(&t->stop, 1);
  pthread_join(k->thread, NULL);
  k->thread_on = 0;
}

/* ike_nat (none, local: in front of us, peer, both), ike_remote (the
 * peer's IKE address and port: a NAT's mapping), ike_encap (IKE on the
 * data port behind the marker) */
static void status_nat(const struct ike_shown *s, FILE *f) {
  static const char *const nat[] = {"none", "local", "peer", "both"};
  gostx_ike_addr a;
  char ip[INET6_ADDRSTRLEN] = "?";
  to_ike_addr(&s->remote, &a);
  inet_ntop(s->remote.ss_family, a.ip, ip, sizeof ip);
  fprintf(f, "ike_nat %s\nike_remote %s%s%s:%u\nike_encap %s\n",
          nat[(s->nat_local ? 1 : 0) | (s->nat_peer ? 2 : 0)], a.ip_len == 16 ? "[" : "", ip,
          a.ip_len == 16 ? "]" : "", a.port, s->encap ? "yes" : "no");
}

/* A rekey's time as --status shows it: seconds from now (0 when due),
 * "never" for none. */
static void seconds_until(int64_t at_ms, int64_t now, char out[24]) {
  if (!at_ms) snprintf(out, 24, "never");
  else snprintf(out, 24, "%lld", (long long)(at_ms > now ? (at_ms - now + 999) / 1000 : 0));
}

void tunnel_ike_status(struct tunnel *t, FILE *f) {
  struct tunnel_ike *k = t->ike;
  if (!k) return;
  pthread_mutex_lock(&k->lock);
  const struct ike_shown s = k->shown;
  pthread_mutex_unlock(&k->lock);
  static const char *const states[] = {"waiting", "connecting", "established"};
  fprintf(f, "ike_sa %s\nike_peer_id %s\n", states[s.state], t->cfg.remote_id.text);
  if (s.state != 2) return;
  char si[17], sr[17];
  spi_hex(s.spi_i, si);
  spi_hex(s.spi_r, sr);
  const int64_t now = now_ms();
  char ike_next[24], child_next[24];
  seconds_until(s.ike_rekey_ms, now, ike_next);
  seconds_until(s.rekey_ms, now, child_next);
  struct tunnel_sa_usage u;
  tunnel_sa_usage(t, s.child_in, s.child_out, &u);
  fprintf(f,
          "ike_role %s\nike_transforms %s prf-hmac-streebog-512 %s\nike_age %lld\n"
          "ike_next_rekey %s\nike_spi_i %s\nike_spi_r %s\nchild_sa esp %s\n"
          "child_spi_in 0x%08x\nchild_spi_out 0x%08x\nchild_age %lld\nchild_next_rekey %s\n"
          "child_bytes_in %llu\nchild_bytes_out %llu\n",
          s.role == GOSTX_IKE_INITIATOR ? "initiator" : "responder",
          tunnel_transform_name((gostx_esp_transform)s.encr), group_name(s.group),
          (long long)((now - s.since_ms) / 1000), ike_next, si, sr,
          tunnel_transform_name((gostx_esp_transform)s.encr), s.child_in, s.child_out,
          (long long)((now - s.child_since_ms) / 1000), child_next,
          (unsigned long long)u.bytes_in, (unsigned long long)u.bytes_out);
  status_nat(&s, f);
}
