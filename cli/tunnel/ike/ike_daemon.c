/* gostx tunnel, keying = ikev2 (docs/TUNNEL.md, "Keying with IKEv2"): the
 * IKE daemon. One thread with its own UDP socket (ike_port) drives lib/ike's
 * manager (lib/ike/manager.h: the SA table, the cookie gate, the clocks,
 * the installed SA's rekeys, liveness checks and NAT moves) as initiator
 * (ike_initiate = yes) and as responder: it feeds the manager what the
 * sockets bring, turns its clock, and carries out what it asks: datagrams
 * on the IKE socket or on the data port behind the non-ESP marker (the
 * workers hand such datagrams over through t->ike_pair), keepalives, one
 * log line per event, and the Child SAs into the tunnel's SA interface
 * (tunnel_install.c), make-before-break. */
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

#include "ike_daemon.h"

_Static_assert(TUNNEL_IKE_MSG_MAX == GOSTX_IKE_MGR_MSG_MAX, "the workers' IKE buffers");


void ike_say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  flockfile(stderr);
  fputs("gostx tunnel: ike: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  funlockfile(stderr);
  va_end(ap);
}

int64_t ike_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* Unix time: certificates are checked at it */
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the addresses ---- */

void ike_addr_of(const struct sockaddr_storage *ss, gostx__ike_mgr_addr *a) {
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

int ike_queue_open(int pair[2]) {
  if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair)) {
    cli_err("tunnel: IKE queue: %s", strerror(errno));
    return CLI_EXIT_FAIL;
  }
  /* A socketpair's datagrams wait against the writer's send buffer (no
   * max_dgram_qlen between peers): the default 208 KiB held ~100 requests,
   * so a burst of IKE_SA_INITs met while the thread was busy with its
   * Diffie-Hellman lost the rest (CI, stop 91: 24 of a 300-source flood).
   * As deep as the data socket's receive buffer in front of it; best
   * effort, as there (tunnel_net.c). */
  int buf = 4 << 20;
  if (setsockopt(pair[1], SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf) < 0)
    setsockopt(pair[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  return 0;
}

ssize_t ike_pair_read(int fd, uint8_t *buf, size_t cap, gostx__ike_mgr_to *from) {
  struct sockaddr_storage src, dst;
  struct iovec iov[3] = {{&src, sizeof src}, {&dst, sizeof dst}, {buf, cap}};
  struct msghdr h = {.msg_iov = iov, .msg_iovlen = 3};
  memset(from, 0, sizeof *from);
  const ssize_t r = recvmsg(fd, &h, 0);
  if (r < (ssize_t)(sizeof src + sizeof dst)) return -1;
  ike_addr_of(&src, &from->addr);
  if (dst.ss_family == src.ss_family) ike_addr_of(&dst, &from->at); /* else not known */
  from->encap = 1;
  return r - (ssize_t)(sizeof src + sizeof dst);
}

int ike_sendmsg(int fd, struct msghdr *h, const gostx__ike_mgr_to *to) {
  union tunnel_pktinfo_cmsg c;
  tunnel_pktinfo_source(h, &c, to->at.ip, to->at.ip_len);
  return sendmsg(fd, h, 0) < 0 ? -1 : 0;
}

void ike_with_port(struct sockaddr_storage *ss, unsigned port) {
  if (ss->ss_family == AF_INET) ((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
  else ((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* ike_port = local's port: IKE on the data port only, behind the marker
 * from IKE_SA_INIT on (as RFC 7296 2.23 lets an initiator start on 4500) */
static int on_data_port(const struct tunnel_config *cfg) {
  gostx__ike_mgr_addr a;
  ike_addr_of(&cfg->local, &a);
  return a.port == cfg->ike_port;
}


/* Where the manager sends (always the peer's address: it takes nothing
 * from elsewhere) as a socket address: the configured peer's, its port
 * and address replaced */
static void to_sockaddr(const struct tunnel_ike *k, const gostx__ike_mgr_addr *a,
                        struct sockaddr_storage *ss) {
  *ss = k->t->cfg.peer;
  if (ss->ss_family == AF_INET && a->ip_len == 4)
    memcpy(&((struct sockaddr_in *)ss)->sin_addr, a->ip, 4);
  else if (ss->ss_family == AF_INET6 && a->ip_len == 16)
    memcpy(&((struct sockaddr_in6 *)ss)->sin6_addr, a->ip, 16);
  ike_with_port(ss, a->port);
}

/* ---- the data path (tunnel_install.c, tunnel_sa.c), as the manager calls it ---- */

static void *dp_add_child(void *t, const gostx__ike_mgr_child *c) {
  return tunnel_ike_add_child(t, c);
}

static int dp_switch_out(void *t, void *out, const gostx__ike_mgr_child *c) {
  return tunnel_ike_switch(t, out, c);
}

static void dp_free_out(void *t, void *out) {
  (void)t;
  tunnel_sa_free(out);
}

static void dp_retire_in(void *t, uint32_t spi) { (void)tunnel_sa_retire_in(t, spi); }

static void dp_stop_out(void *t) { tunnel_sa_stop_out(t); }

static int dp_in_accepted(void *t, uint32_t spi, uint64_t *n) {
  return tunnel_sa_in_accepted(t, spi, n) ? -1 : 0;
}

static void dp_usage(void *t, uint32_t spi_in, uint32_t spi_out, gostx__ike_mgr_usage *u) {
  struct tunnel_sa_usage s;
  tunnel_sa_usage(t, spi_in, spi_out, &s);
  *u = (gostx__ike_mgr_usage){s.has_in,     s.has_out,   s.bytes_in, s.bytes_out,
                              s.packets_in, s.packets_out, s.limit_in, s.limit_out};
}

static void dp_peer_set(void *t, const gostx__ike_mgr_addr *to) {
  struct tunnel *tt = t;
  struct sockaddr_storage ss;
  to_sockaddr(tt->ike, to, &ss);
  tunnel_peer_set(tt, &ss);
}

/* worker 0 sends from the data port */
static uint64_t dp_data_sent(void *t) {
  return atomic_load(&((struct tunnel *)t)->w[0].c.tx_packets);
}

/* The manager's settings: the material's and the addresses (ours at
 * ike_port and at the data port, the peer's) */
static void make_confs(struct tunnel_ike *k, const struct tunnel_config *cfg) {
  struct sockaddr_storage bound = cfg->local;
  ike_with_port(&bound, cfg->ike_port);
  ike_settings(k, cfg);
  ike_addr_of(&bound, &k->set.local);
  ike_addr_of(&cfg->local, &k->set.data_local);
  ike_addr_of(&cfg->peer, &k->set.peer);
  k->set.on_data_port = on_data_port(cfg);
  if (k->mgr) gostx__ike_mgr_configure(k->mgr, &k->set);
}

int tunnel_ike_prepare(struct tunnel *t) {
  struct tunnel_ike *k = calloc(1, sizeof *k);
  if (!k) return cli_usage("tunnel: out of memory");
  t->ike = k;
  if (!(k->io = malloc(sizeof *k->io))) return cli_usage("tunnel: out of memory");
  k->t = t;
  k->fd = -1;
  pthread_mutex_init(&k->lock, NULL);
  int rc = ike_material_load(k, &t->cfg);
  if (rc) return rc;
  make_confs(k, &t->cfg);
  const gostx__ike_mgr_dp dp = {t,           dp_add_child,   dp_switch_out, dp_free_out,
                                dp_retire_in, dp_stop_out,    dp_in_accepted, dp_usage,
                                dp_peer_set,  dp_data_sent};
  k->mgr = gostx__ike_mgr_new(&k->set, &dp);
  return k->mgr ? 0 : cli_usage("tunnel: IKE: out of memory");
}

void tunnel_ike_free(struct tunnel *t) {
  struct tunnel_ike *k = t->ike;
  if (!k) return;
  if (k->fd >= 0) close(k->fd);
  for (int i = 0; i < 2; i++)
    if (t->ike_pair[i] >= 0) close(t->ike_pair[i]);
  t->ike_pair[0] = t->ike_pair[1] = -1;
  gostx__ike_mgr_free(k->mgr); /* the SAs, the outbound SAs never linked */
  ike_material_free(k);
  if (k->io) gostx_memzero(k->io, sizeof *k->io); /* the last message in, as k's were */
  free(k->io);
  pthread_mutex_destroy(&k->lock);
  gostx_memzero(k, sizeof *k); /* PSK, private key */
  free(k);
  t->ike = NULL;
}

/* ---- the sockets ---- */

static int open_socket(struct tunnel_ike *k) {
  const struct tunnel_config *cfg = &k->t->cfg;
  k->bound = cfg->local;
  ike_with_port(&k->bound, cfg->ike_port);
  if (on_data_port(cfg)) return 0; /* no socket of its own (poll skips fd -1) */
  k->fd = socket(cfg->local.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  /* a wildcard local (as the data port's, t->pktinfo): where each
   * datagram came to, for NAT detection and the answer's address */
  if (k->fd < 0 || bind(k->fd, (const struct sockaddr *)&k->bound, cfg->local_len) < 0 ||
      (k->t->pktinfo && tunnel_pktinfo_on(k->fd, cfg->local.ss_family) < 0)) {
    cli_err("tunnel: IKE socket on port %u: %s", cfg->ike_port, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  return 0;
}

/* A wildcard local, as initiator: our IKE_SA_INIT's NAT detection hashes
 * the address the kernel sends to the peer from (the route's: what a
 * socket connected to the peer is given), not the wildcard, which the
 * peer would take for a NAT in front of us. Looked up once, at the start
 * (a gateway's site: before its first IKE_SA_INIT); as responder each
 * request's own destination is hashed. */
int ike_local_toward(gostx__ike_mgr_settings *set, const struct sockaddr_storage *peer,
                     socklen_t peer_len, const char *local_s, const char *peer_s) {
  struct sockaddr_storage a;
  socklen_t alen = sizeof a;
  const int s = socket(peer->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const int bad = s < 0 || connect(s, (const struct sockaddr *)peer, peer_len) < 0 ||
                  getsockname(s, (struct sockaddr *)&a, &alen) < 0;
  const int err = errno;
  if (s >= 0) close(s);
  if (bad) {
    ike_say("local %s: no route to %s (%s): our NAT detection hashes the wildcard address",
            local_s, peer_s, strerror(err));
    return -1;
  }
  gostx__ike_mgr_addr ip;
  ike_addr_of(&a, &ip);
  memcpy(set->local.ip, ip.ip, ip.ip_len);
  memcpy(set->data_local.ip, ip.ip, ip.ip_len);
  char at[56];
  ip.port = set->local.port;
  ike_say("local %s: our address toward %s is %s (NAT detection hashes it)", local_s, peer_s,
          gostx__ike_mgr_addr_text(&ip, at));
  return 0;
}

static void local_by_route(struct tunnel_ike *k) {
  const struct tunnel_config *cfg = &k->t->cfg;
  if (k->t->pktinfo && cfg->ike_initiate &&
      !ike_local_toward(&k->set, &cfg->peer, cfg->peer_len, cfg->local_s, cfg->peer_s))
    gostx__ike_mgr_configure(k->mgr, &k->set);
}

/* One IKE message (len octets at m) as one datagram: on the IKE socket,
 * or on the data port behind the non-ESP marker */
static void send_one(struct tunnel_ike *k, const gostx__ike_mgr_to *to, const uint8_t *m,
                     size_t len) {
  static const uint8_t marker[4];
  struct sockaddr_storage ss;
  to_sockaddr(k, &to->addr, &ss);
  struct iovec iov[2] = {{(void *)marker, 4}, {(void *)m, len}};
  struct msghdr h = {.msg_name = &ss, .msg_namelen = k->t->cfg.local_len,
                     .msg_iov = to->encap ? iov : iov + 1, .msg_iovlen = to->encap ? 2 : 1};
  if (ike_sendmsg(to->encap ? k->data_fd : k->fd, &h, to)) ike_say("send: %s", strerror(errno));
}

/* What the manager asks, done in its order; then what --status shows */
static void drain_events(struct tunnel_ike *k) {
  gostx__ike_mgr_event *ev = &k->io->ev;
  while (gostx__ike_mgr_next(k->mgr, ev)) {
    struct sockaddr_storage ss;
    if (ev->type == GOSTX_IKE_MGR_LOG) {
      ike_say("%s", (const char *)ev->data);
    } else if (ev->type == GOSTX_IKE_MGR_SEND) {
      send_one(k, &ev->to, ev->data, ev->len);
    } else if (ev->type == GOSTX_IKE_MGR_KEEPALIVE) {
      to_sockaddr(k, &ev->to.addr, &ss);
      struct iovec iov = {ev->data, ev->len};
      struct msghdr h = {.msg_name = &ss, .msg_namelen = k->t->cfg.local_len, .msg_iov = &iov,
                         .msg_iovlen = 1};
      if (ike_sendmsg(k->data_fd, &h, &ev->to)) ike_say("keepalive: %s", strerror(errno));
    }
  }
  pthread_mutex_lock(&k->lock);
  gostx__ike_mgr_shown_get(k->mgr, &k->shown);
  const gostx__ike_mgr_shown s = k->shown;
  pthread_mutex_unlock(&k->lock);
  /* request_address = yes: the address the gateway gave, said and put on
   * the device (its changes too: a new lease replaces the old address),
   * with the inner_routes into the device; before the tunnel says it
   * is up (installed), so what follows its "up" line finds them */
  if (s.inner_ip_len == 4 && memcmp(k->inner_said, s.inner_ip, 4)) {
    char a[INET_ADDRSTRLEN], err[128];
    memcpy(k->inner_said, s.inner_ip, 4);
    inet_ntop(AF_INET, s.inner_ip, a, sizeof a);
    if (tunnel_inner_address_set(&k->t->cfg, s.inner_ip, err, sizeof err))
      ike_say("the peer gave us the inner address %s, not set on %s: %s", a, k->t->cfg.tun, err);
    else
      ike_say("the peer gave us the inner address %s: on %s, with %zu inner_routes "
              "(ike_inner_address in --status)",
              a, k->t->cfg.tun, k->t->cfg.n_inner_routes);
  }
  if (gostx__ike_mgr_installed(k->mgr)) atomic_store(&k->installed, 1);
}

/* One datagram into k->io->in from the IKE socket (with where it came to,
 * when the socket gives it: a wildcard local), or from the workers (one
 * that came on the data port: ike_pair_read): its length, or -1. */
static ssize_t read_one(struct tunnel_ike *k, int fd, gostx__ike_mgr_to *from) {
  if (fd != k->fd) return ike_pair_read(fd, k->io->in, sizeof k->io->in, from);
  struct sockaddr_storage src, dst;
  union tunnel_pktinfo_cmsg c;
  struct iovec iov = {k->io->in, sizeof k->io->in};
  struct msghdr h = {.msg_name = &src, .msg_namelen = sizeof src, .msg_iov = &iov,
                     .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof c.buf};
  memset(from, 0, sizeof *from);
  memset(&src, 0, sizeof src);
  const ssize_t r = recvmsg(fd, &h, 0);
  if (r < 0) return -1;
  ike_addr_of(&src, &from->addr);
  if (tunnel_pktinfo_dest(&h, k->t->cfg.ike_port, &dst)) ike_addr_of(&dst, &from->at);
  return r;
}

int ike_crls_take(struct tunnel_ike *k, cli_crl_list **old) {
  cli_crl_list *next = atomic_exchange(&k->crls_next, NULL);
  if (!next) return 0;
  *old = k->crls;
  k->crls = next;
  k->set.crls = next->c;
  k->set.n_crls = next->n;
  ike_say("SIGHUP: %zu CRLs read again from the crl lines", next->n);
  return 1;
}

/* A SIGHUP's CRLs in place of those before, for the IKE_AUTHs checked from
 * now on (the manager's settings point at them; nothing else holds the
 * old ones). */
static void take_crls(struct tunnel_ike *k) {
  cli_crl_list *old;
  if (!ike_crls_take(k, &old)) return;
  gostx__ike_mgr_set_crls(k->mgr, k->set.crls, k->set.n_crls);
  ike_crls_free(old);
}

void ike_crls_reload(struct tunnel_ike *k, const char *crl, size_t n) {
  cli_crl_list *l;
  if (ike_crls_load(crl, n, &l)) {
    cli_err("tunnel: SIGHUP: the CRLs were not read again; those read before stay in use");
    return;
  }
  ike_crls_free(atomic_exchange(&k->crls_next, l)); /* one the IKE thread never took */
}

void tunnel_ike_reload_crls(struct tunnel *t) {
  if (!t->ike || !t->cfg.n_crl) {
    cli_err("tunnel: SIGHUP: keying = ikev2 makes its own keys, and no crl lines: nothing "
            "reloaded");
    return;
  }
  ike_crls_reload(t->ike, t->cfg.crl[0], t->cfg.n_crl);
}

static void receive(struct tunnel_ike *k, int fd, int64_t now) {
  gostx__ike_mgr_to from;
  const ssize_t r = read_one(k, fd, &from);
  if (r < 0) return;
  take_crls(k);
  gostx__ike_mgr_input(k->mgr, k->io->in, (size_t)r, &from, now);
  drain_events(k);
}

/* The manager's clocks, and an ESP SPI of no SA the workers saw */
static void ike_tick(struct tunnel_ike *k, int64_t now) {
  take_crls(k);
  gostx__ike_mgr_tick(k->mgr, now);
  gostx__ike_mgr_esp_unknown(k->mgr, atomic_exchange(&k->t->spi_unknown, 0), now);
  drain_events(k);
}

/* At most ms for a datagram (the IKE socket's, or one the workers hand
 * over), taken in when it comes. */
static void wait_receive(struct tunnel_ike *k, int ms) {
  /* the IKE socket (-1 with ike_port = local's port: skipped), and what
   * the workers hand over from the data port */
  struct pollfd p[2] = {{k->fd, POLLIN, 0}, {k->t->ike_pair[0], POLLIN, 0}};
  if (poll(p, 2, ms) <= 0) return;
  for (int i = 0; i < 2; i++)
    if (p[i].revents & POLLIN) receive(k, p[i].fd, ike_now_ms());
}

/* At shutdown: the installed IKE SA deleted (the manager's bye), its
 * answer awaited IKE_BYE_MS in all, the peer's requests meanwhile
 * answered. */
static void delete_at_shutdown(struct tunnel_ike *k) {
  const int64_t end = ike_now_ms() + IKE_BYE_MS;
  for (int64_t now = ike_now_ms(); now < end; now = ike_now_ms()) {
    const int waiting = gostx__ike_mgr_bye(k->mgr, now);
    drain_events(k);
    if (!waiting) return;
    wait_receive(k, end - now < 50 ? (int)(end - now) : 50);
  }
  gostx__ike_mgr_bye_end(k->mgr, IKE_BYE_MS);
  drain_events(k);
}

static void *ike_run(void *arg) {
  struct tunnel_ike *k = arg;
  while (!atomic_load(&k->t->stop)) {
    ike_tick(k, ike_now_ms());
    const int64_t now = ike_now_ms();
    wait_receive(k, gostx__ike_mgr_next_ms(k->mgr, now));
  }
  delete_at_shutdown(k);
  atomic_store(&k->t->ike_on, 0); /* the workers may go now */
  return NULL;
}

int tunnel_ike_start(struct tunnel *t, int data_fd) {
  struct tunnel_ike *k = t->ike;
  k->data_fd = data_fd;
  int rc = open_socket(k);
  if (!rc) local_by_route(k);
  if (!rc) rc = ike_queue_open(t->ike_pair);
  if (!rc) atomic_store(&t->ike_on, 1);
  if (!rc && pthread_create(&k->thread, NULL, ike_run, k)) {
    cli_err("tunnel: cannot start the IKE thread");
    atomic_store(&t->ike_on, 0);
    rc = CLI_EXIT_FAIL;
  }
  k->thread_on = !rc;
  if (!rc)
    ike_say("listening on port %u%s, %s%s", t->cfg.ike_port,
        on_data_port(&t->cfg) ? " (the data port: IKE behind the non-ESP marker)" : "",
        t->cfg.ike_initiate ? "initiating to " : "waiting for ", t->cfg.peer_s);
  if (!rc && k->crls)
    ike_say("revocation = %s: the peer's certificates looked up in %zu CRLs",
        t->cfg.revocation == TUNNEL_REVOCATION_WARN ? "warn" : "require", k->crls->n);
  return rc;
}

int tunnel_ike_installed(struct tunnel *t) { return t->ike && atomic_load(&t->ike->installed); }

void ike_thread_join(struct tunnel *t, struct tunnel_ike *k) {
  if (!k || !k->thread_on) return;
  atomic_store(&t->stop, 1);
  pthread_join(k->thread, NULL);
  k->thread_on = 0;
}

void tunnel_ike_stop(struct tunnel *t) { ike_thread_join(t, t->ike); }

/* ike_nat (none, local: in front of us, peer, both), ike_remote (the
 * peer's IKE address and port: a NAT's mapping), ike_encap (IKE on the
 * data port behind the marker) */
static void status_nat(const gostx__ike_mgr_shown *s, FILE *f) {
  static const char *const nat[] = {"none", "local", "peer", "both"};
  char at[56];
  fprintf(f, "ike_nat %s\nike_remote %s\nike_encap %s\n",
          nat[(s->nat_local ? 1 : 0) | (s->nat_peer ? 2 : 0)],
          gostx__ike_mgr_addr_text(&s->remote, at), s->encap ? "yes" : "no");
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
  const gostx__ike_mgr_shown s = k->shown;
  pthread_mutex_unlock(&k->lock);
  static const char *const states[] = {"waiting", "connecting", "established"};
  fprintf(f, "ike_sa %s\nike_peer_id %s\n", states[s.state], t->cfg.remote_id.text);
  if (s.state != 2) return;
  char inner[INET_ADDRSTRLEN];
  if (s.inner_ip_len == 4 && inet_ntop(AF_INET, s.inner_ip, inner, sizeof inner))
    fprintf(f, "ike_inner_address %s\n", inner);
  char si[17], sr[17];
  gostx__ike_mgr_spi_hex(s.spi_i, si);
  gostx__ike_mgr_spi_hex(s.spi_r, sr);
  const int64_t now = ike_now_ms();
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
          s.role == GOSTX_IKE_MGR_INITIATOR ? "initiator" : "responder",
          tunnel_transform_name((gostx_esp_transform)s.encr), gostx__ike_mgr_group_name(s.group),
          (long long)((now - s.since_ms) / 1000), ike_next, si, sr,
          tunnel_transform_name((gostx_esp_transform)s.encr), s.child_in, s.child_out,
          (long long)((now - s.child_since_ms) / 1000), child_next,
          (unsigned long long)u.bytes_in, (unsigned long long)u.bytes_out);
  status_nat(&s, f);
}
