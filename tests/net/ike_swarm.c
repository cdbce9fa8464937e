/* ike_swarm: many IKEv2 remote users in one process, for a gateway's soak
 * (issue 81: hundreds of peers for minutes, with rekeys; the gateway's
 * memory per user read off its status). Each user is one lib/ike manager
 * as initiator (the one `gostx tunnel`'s initiator runs, driven here as
 * cli/tunnel/ike/ike_daemon.c drives it) on its own UDP socket, all from
 * one address, consecutive source ports (as users behind one NAT): IKE on
 * the data port behind the non-ESP marker from IKE_SA_INIT on, a
 * certificate of the gateway's CA made here for each (CN=uN.SUFFIX,
 * signed with the CA's key), an inner address asked for (CFG_REQUEST),
 * Child SAs and IKE SAs rekeyed on the periods given. Its data path is
 * the ESP SAs the manager hands over: with --ping, each user sends an
 * ICMP echo to that address through its Child SA every so often, and the
 * reply must open under one of its inbound SAs (one unanswered after
 * --hold ms is lost). At --seconds, SIGTERM or SIGINT every user deletes
 * its IKE SA, the answers awaited --bye-ms in all. It is a test program (built
 * beside the tests, not installed): tests/net/test_tunnel_gateway_soak.sh
 * and bench/gateway_soak.sh run it.
 *
 * It prints a line "swarm t S users N up U child_rekeys C ike_rekeys I
 * failures F distinct D pings P answered A lost L" every --every seconds
 * (0: none), "swarm all up" once when every user was up at once, and at
 * the end the same line with "swarm end" in front and "deleted N"
 * behind. A failure is a log line of a manager that says one (an IKE SA
 * failed, refused, dropped or deleted by the gateway; an SA that could
 * not be installed; INVALID_SPI; our Delete unanswered at the end): each
 * is printed on stderr. Exit 0 when
 * there was none and every user was up at the end, 1 otherwise, 2 for a
 * usage error. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gostx/esp.h"
#include "gostx/gost3410.h"
#include "gostx/x509.h"
#include "gostx/x509_write.h"
#include "ike/ike.h"
#include "ike/manager.h"

enum { IN_SAS = 4 }; /* inbound SAs a user holds: the current, those being retired */

struct in_sa {
  uint32_t spi; /* 0: free */
  gostx_esp_sa sa;
  gostx_esp_replay rp;
};

struct user {
  int i, fd;
  uint16_t port;
  gostx__ike_mgr *mgr;
  gostx__ike_mgr_settings set;
  gostx_gost3410_key key;
  uint8_t cert[1024];
  size_t cert_len;
  const uint8_t *certs[1];
  size_t cert_lens[1];
  uint8_t id[256]; /* its subject: the ID (ID_DER_ASN1_DN) */
  size_t id_len;
  char name[64];
  struct in_sa in[IN_SAS];
  gostx_esp_sa *out; /* what it seals with (NULL: nothing yet) */
  uint64_t seq, sent;
  gostx__ike_mgr_addr esp_to;
  int64_t due, ping_at, ping_sent_at;
  uint16_t ping_seq; /* the last one sent (in flight while ping_sent_at) */
  uint8_t inner[4];  /* the address the gateway gave */
  int up, started, was_up, gone;
};

static struct {
  struct user *u;
  size_t n, first;
  gostx__ike_mgr_addr from, gw;
  struct pollfd *pfd; /* one a user */
  gostx_x509_store *store;
  uint8_t gw_id[GOSTX_X509_NAME_MAX];
  size_t gw_id_len;
  uint8_t ping_to[4];
  int ping, every, rate;
  uint64_t rekey, ike_rekey, dpd;
  double seconds;
  unsigned long child_rekeys, ike_rekeys, failures, pings, answered, lost, deleted;
  gostx_esp_keycache cache; /* cleared before each use: SAs share it */
  gostx__ike_mgr_event ev;
  uint8_t buf[65536], pkt[2048];
} S;

static const uint16_t encr[] = {GOSTX_ESP_KUZNYECHIK_MGM_KTREE};
static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts); /* Unix time: certificates are checked at it */
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static _Noreturn void die(const char *what, const char *why) {
  fprintf(stderr, "ike_swarm: %s: %s\n", what, why);
  exit(2);
}

static size_t read_file(const char *path, uint8_t *out, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path, strerror(errno));
  const size_t n = fread(out, 1, cap, f);
  fclose(f);
  if (n == cap) die(path, "too large");
  return n;
}

/* the first certificate of a PEM file, parsed (pointing into der) */
static void read_cert(const char *path, uint8_t *der, size_t cap, size_t *len,
                      gostx_x509_cert *c) {
  size_t pos = 0;
  const size_t n = read_file(path, S.buf, sizeof S.buf);
  if (gostx_x509_pem_next((const char *)S.buf, n, &pos, der, cap, len) != 1 ||
      gostx_x509_parse(der, *len, c, NULL) != GOSTX_OK)
    die(path, "no certificate read");
}

/* ---- each user's PKI: a key, a certificate of the CA's ---- */

static void make_cert(struct user *u, const gostx_x509_cert *ca, const gostx_gost3410_key *ca_key,
                      const char *suffix, int64_t now) {
  uint8_t d[32], q[64], spki[GOSTX_GOST3410_DER_MAX], aki[64];
  size_t spki_len = 0, aki_len = 0;
  char subj[160], err[256];
  gostx_x509_name name;
  if (gostx_gost3410_keygen(GOSTX_GOST3410_256_A, d, 32, q, 64) ||
      gostx_gost3410_key_set_private(&u->key, GOSTX_GOST3410_256_A, d, 32, NULL) ||
      gostx_gost3410_key_write(&u->key, GOSTX_GOST3410_KEY_PUBLIC, GOSTX_GOST3410_DER, NULL,
                               spki, sizeof spki, &spki_len))
    die("a user's key", "not made");
  gostx_memzero(d, sizeof d);
  snprintf(u->name, sizeof u->name, "u%zu.%s", S.first + (size_t)u->i, suffix);
  snprintf(subj, sizeof subj, "/C=RU/O=gostx test/CN=%s", u->name);
  if (gostx_x509_name_parse(subj, &name, err, sizeof err) || name.len > sizeof u->id)
    die(subj, err);
  if (gostx_x509_cert_key_id(ca, aki, sizeof aki, &aki_len)) aki_len = 0;
  /* serials from the port and the clock: a later run's differ */
  const uint32_t sn = (uint32_t)(now / 1000) ^ ((uint32_t)u->port << 20) ^ (uint32_t)u->i;
  const uint8_t serial[5] = {0x01, (uint8_t)(sn >> 24), (uint8_t)(sn >> 16), (uint8_t)(sn >> 8),
                             (uint8_t)sn};
  const gostx_x509_cert_spec s = {serial,    sizeof serial, ca->subject, name.der,
                                  ca->subject_len, name.len, now / 1000 - 3600,
                                  now / 1000 + 7 * 86400, spki, spki_len, NULL,
                                  aki_len ? aki : NULL, aki_len};
  if (gostx_x509_cert_write(&s, ca_key, u->cert, sizeof u->cert, &u->cert_len))
    die(subj, "its certificate not written");
  memcpy(u->id, name.der, u->id_len = name.len);
}

/* ---- the data path, as the manager calls it ---- */

static struct in_sa *in_of(struct user *u, uint32_t spi) {
  for (int k = 0; k < IN_SAS; k++)
    if (u->in[k].spi == spi) return &u->in[k];
  return NULL;
}

static void *dp_add_child(void *ctx, const gostx__ike_mgr_child *c) {
  struct user *u = ctx;
  struct in_sa *in = in_of(u, 0);
  gostx_esp_sa *out = malloc(sizeof *out);
  if (!in || !out || gostx_esp_sa_init(&in->sa, (gostx_esp_transform)c->encr, c->spi_in,
                                       c->key_in, c->key_len) ||
      gostx_esp_sa_init(out, (gostx_esp_transform)c->encr, c->spi_out, c->key_out, c->key_len) ||
      gostx_esp_sa_set_esn(&in->sa, c->esn) || gostx_esp_sa_set_esn(out, c->esn)) {
    free(out);
    return NULL;
  }
  in->spi = c->spi_in;
  gostx_esp_replay_init(&in->rp);
  return out;
}

static int dp_switch_out(void *ctx, void *out, const gostx__ike_mgr_child *c) {
  struct user *u = ctx;
  (void)c;
  free(u->out);
  u->out = out;
  u->seq = 0;
  return 0;
}

static void dp_free_out(void *ctx, void *out) {
  (void)ctx;
  free(out);
}

static void dp_retire_in(void *ctx, uint32_t spi) {
  struct in_sa *in = in_of(ctx, spi);
  if (in) memset(in, 0, sizeof *in);
}

static void dp_stop_out(void *ctx) {
  struct user *u = ctx;
  free(u->out);
  u->out = NULL;
}

static int dp_in_accepted(void *ctx, uint32_t spi, uint64_t *n) {
  const struct in_sa *in = in_of(ctx, spi);
  *n = in ? in->rp.top : 0;
  return in ? 0 : -1;
}

static void dp_usage(void *ctx, uint32_t spi_in, uint32_t spi_out, gostx__ike_mgr_usage *u) {
  const struct user *us = ctx;
  const struct in_sa *in = in_of(ctx, spi_in);
  memset(u, 0, sizeof *u);
  u->has_in = in != NULL;
  u->has_out = us->out && us->out->spi == spi_out;
  /* the packets as far as the sequence numbers went; the limits the SAs' */
  u->packets_in = in ? in->rp.top : 0;
  u->packets_out = u->has_out ? us->seq : 0;
  u->limit_in = in ? in->sa.limit : 0;
  u->limit_out = u->has_out ? us->out->limit : 0;
}

static void dp_peer_set(void *ctx, const gostx__ike_mgr_addr *to) {
  ((struct user *)ctx)->esp_to = *to;
}

static uint64_t dp_data_sent(void *ctx) { return ((struct user *)ctx)->sent; }

static const gostx__ike_mgr_dp dp_calls = {NULL,          dp_add_child, dp_switch_out,
                                           dp_free_out,   dp_retire_in, dp_stop_out,
                                           dp_in_accepted, dp_usage,    dp_peer_set,
                                           dp_data_sent};

/* ---- the sockets ---- */

static void send_to(struct user *u, const gostx__ike_mgr_addr *a, const void *m, size_t len,
                    int marker) {
  static const uint8_t zero[4];
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(a->port)};
  memcpy(&to.sin_addr, a->ip, 4);
  struct iovec iov[2] = {{(void *)zero, 4}, {(void *)m, len}};
  struct msghdr h = {.msg_name = &to, .msg_namelen = sizeof to, .msg_iov = marker ? iov : iov + 1,
                     .msg_iovlen = marker ? 2 : 1};
  if (sendmsg(u->fd, &h, 0) < 0)
    fprintf(stderr, "ike_swarm: %s: send: %s\n", u->name, strerror(errno));
  else
    u->sent++;
}

/* a log line that says something went wrong */
static int is_failure(const char *l) {
  static const char *const words[] = {"failed",  "refused", "dropped",   "could not", "cannot",
                                      "INVALID", "deleted:", "warning", "no answer", "unanswered"};
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (strstr(l, words[k])) return 1;
  return 0;
}

static void drain(struct user *u) {
  gostx__ike_mgr_event *ev = &S.ev;
  while (gostx__ike_mgr_next(u->mgr, ev)) {
    if (ev->type == GOSTX_IKE_MGR_SEND) {
      send_to(u, &ev->to.addr, ev->data, ev->len, ev->to.encap);
    } else if (ev->type == GOSTX_IKE_MGR_KEEPALIVE) {
      send_to(u, &ev->to.addr, ev->data, ev->len, 0);
    } else if (ev->type == GOSTX_IKE_MGR_LOG) {
      const char *l = (const char *)ev->data;
      if (strstr(l, "Child SA rekeyed")) S.child_rekeys++;
      if (strstr(l, "IKE SA rekeyed")) S.ike_rekeys++;
      /* our own delete at the end is no failure (its answer missing is) */
      if (is_failure(l) && !(stop && strstr(l, "(shutdown)"))) {
        S.failures++;
        fprintf(stderr, "ike_swarm: %s: %s\n", u->name, l);
      }
    }
  }
  gostx__ike_mgr_shown s;
  gostx__ike_mgr_shown_get(u->mgr, &s);
  u->up = s.state == 2 && s.inner_ip_len == 4 && u->out;
  if (u->up) memcpy(u->inner, s.inner_ip, 4);
}

/* ---- pings through the Child SA ---- */

static uint16_t csum(const uint8_t *p, size_t n) {
  uint32_t s = 0;
  for (size_t k = 0; k + 1 < n; k += 2) s += (uint32_t)p[k] << 8 | p[k + 1];
  if (n & 1) s += (uint32_t)p[n - 1] << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return (uint16_t)~s;
}

/* an ICMP echo request from the user's inner address to --ping, sealed */
static void ping(struct user *u, int64_t now) {
  gostx__ike_mgr_shown s;
  gostx__ike_mgr_shown_get(u->mgr, &s);
  uint8_t ip[44] = {0x45, 0, 0, sizeof ip, 0, 0, 0x40, 0, 64, 1};
  memcpy(ip + 12, s.inner_ip, 4);
  memcpy(ip + 16, S.ping_to, 4);
  const uint16_t h = csum(ip, 20);
  ip[10] = (uint8_t)(h >> 8), ip[11] = (uint8_t)h;
  u->ping_seq = (uint16_t)(u->ping_seq + 1 ? u->ping_seq + 1 : 1);
  uint8_t *icmp = ip + 20;
  icmp[0] = 8;
  icmp[4] = (uint8_t)(u->i >> 8), icmp[5] = (uint8_t)u->i;
  icmp[6] = (uint8_t)(u->ping_seq >> 8), icmp[7] = (uint8_t)u->ping_seq;
  memcpy(icmp + 8, u->name, 16);
  const uint16_t c = csum(icmp, 24);
  icmp[2] = (uint8_t)(c >> 8), icmp[3] = (uint8_t)c;
  size_t n = 0;
  gostx_esp_keycache_clear(&S.cache);
  if (gostx_esp_seal(u->out, &S.cache, ++u->seq, 4, ip, sizeof ip, S.pkt, sizeof S.pkt, &n))
    return;
  send_to(u, &u->esp_to, S.pkt, n, 0);
  S.pings++;
  u->ping_sent_at = now;
}

/* ESP for the user: opened under one of its inbound SAs; the answer to
 * its ping counted */
static void esp_in(struct user *u, const uint8_t *m, size_t len) {
  if (len < 8) return;
  const uint32_t spi = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
  struct in_sa *in = in_of(u, spi);
  if (!spi || !in) return;
  gostx_esp_packet p = {.in = m, .len = len, .out = S.pkt, .cap = sizeof S.pkt};
  gostx_esp_keycache_clear(&S.cache);
  if (gostx_esp_open(&in->sa, &S.cache, &in->rp, &p) || gostx_esp_replay_update(&in->rp, p.seq))
    return;
  const uint8_t *ip = S.pkt;
  if (p.next_header == 4 && p.out_len >= 28 && ip[9] == 1 && ip[20] == 0 &&
      !memcmp(ip + 12, S.ping_to, 4) && (ip[24] << 8 | ip[25]) == (u->i & 0xffff) &&
      (ip[26] << 8 | ip[27]) == u->ping_seq && u->ping_sent_at) {
    S.answered++;
    u->ping_sent_at = 0;
  }
}

static void receive(struct user *u, int64_t now) {
  struct sockaddr_in from;
  socklen_t fl = sizeof from;
  const ssize_t r = recvfrom(u->fd, S.buf, sizeof S.buf, 0, (struct sockaddr *)&from, &fl);
  if (r <= 0) return;
  static const uint8_t zero[4];
  if (r == 1 && S.buf[0] == 0xff) return; /* a keepalive */
  if (r >= 4 && !memcmp(S.buf, zero, 4)) {
    gostx__ike_mgr_to f = {.encap = 1};
    memcpy(f.addr.ip, &from.sin_addr, 4);
    f.addr.ip_len = 4;
    f.addr.port = ntohs(from.sin_port);
    gostx__ike_mgr_input(u->mgr, S.buf + 4, (size_t)r - 4, &f, now);
    drain(u);
    u->due = now;
    return;
  }
  esp_in(u, S.buf, (size_t)r);
}

/* ---- the users ---- */

static void user_start(struct user *u, int64_t now) {
  gostx__ike_mgr_settings *s = &u->set;
  u->certs[0] = u->cert;
  u->cert_lens[0] = u->cert_len;
  s->encr = encr;
  s->n_encr = 1;
  s->group = 34;
  s->auth = GOSTX_IKE_MGR_AUTH_SIGNATURE;
  s->key = &u->key;
  s->certs = u->certs;
  s->cert_lens = u->cert_lens;
  s->n_certs = 1;
  s->store = S.store;
  s->id_type = s->peer_id_type = GOSTX_IKE_ID_DER_ASN1_DN;
  s->id = u->id;
  s->id_len = u->id_len;
  s->peer_id = S.gw_id;
  s->peer_id_len = S.gw_id_len;
  s->peer_id_text = "the gateway";
  s->peer_text = "the gateway";
  s->frag_size = 1280 - 20 - 8 - 4;
  s->local = s->data_local = S.from;
  s->local.port = s->data_local.port = u->port;
  s->peer = S.gw;
  s->on_data_port = 1;
  s->initiate = 1;
  s->cp_request = 1;
  /* staggered: user i's periods a little longer than the one before's */
  s->rekey_seconds = S.rekey ? S.rekey + (uint64_t)u->i % (S.rekey / 2 + 1) : 0;
  s->ike_rekey_seconds = S.ike_rekey ? S.ike_rekey + (uint64_t)u->i % (S.ike_rekey / 2 + 1) : 0;
  s->dpd_seconds = S.dpd;
  s->nat_keepalive_seconds = 20;
  gostx__ike_mgr_dp dp = dp_calls;
  dp.ctx = u;
  u->mgr = gostx__ike_mgr_new(s, &dp);
  if (!u->mgr) die(u->name, "no manager (out of memory?)");
  u->started = 1;
  u->due = now;
  u->ping_at = now + S.ping * 1000 + (int64_t)(u->i * 997 % 1000) * S.ping; /* spread */
}

static void open_socket(struct user *u) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(u->port)};
  memcpy(&a.sin_addr, S.from.ip, 4);
  u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (u->fd < 0 || bind(u->fd, (struct sockaddr *)&a, sizeof a)) {
    char what[64];
    snprintf(what, sizeof what, "port %u", u->port);
    die(what, strerror(errno));
  }
}

/* the users up (up: at the end, those that were), and their inner
 * addresses each counted once */
static size_t users_up(size_t *distinct) {
  size_t n = 0, d = 0;
  for (size_t k = 0; k < S.n; k++) {
    const struct user *u = &S.u[k];
    if (!(stop ? u->was_up : u->up)) continue;
    n++;
    size_t j = 0;
    while (j < k && !((stop ? S.u[j].was_up : S.u[j].up) && !memcmp(S.u[j].inner, u->inner, 4)))
      j++;
    d += j == k;
  }
  if (distinct) *distinct = d;
  return n;
}

static void summary(const char *head, int64_t t0, int64_t now, const char *tail) {
  size_t d;
  const size_t up = users_up(&d);
  printf("%s t %lld users %zu up %zu child_rekeys %lu ike_rekeys %lu failures %lu distinct %zu "
         "pings %lu answered %lu lost %lu%s\n",
         head, (long long)((now - t0) / 1000), S.n, up, S.child_rekeys, S.ike_rekeys, S.failures,
         d, S.pings, S.answered, S.lost, tail);
  fflush(stdout);
}

/* The users' sockets, at most ms for a datagram; what came taken in */
static void poll_users(int ms) {
  for (size_t k = 0; k < S.n; k++) S.pfd[k] = (struct pollfd){S.u[k].fd, POLLIN, 0};
  if (poll(S.pfd, S.n, ms) <= 0) return;
  for (size_t k = 0; k < S.n; k++)
    if (S.pfd[k].revents & POLLIN) receive(&S.u[k], now_ms());
}

/* One turn: the clocks of the users due, their pings, then the sockets
 * for at most the time until the next is due. */
static void turn(int64_t now, int64_t hold) {
  int64_t next = now + 200;
  for (size_t k = 0; k < S.n; k++) {
    struct user *u = &S.u[k];
    if (!u->started) continue;
    if (u->due <= now) {
      gostx__ike_mgr_tick(u->mgr, now);
      drain(u);
      u->due = now + gostx__ike_mgr_next_ms(u->mgr, now);
    }
    if (S.ping && u->ping_sent_at && now - u->ping_sent_at > hold) { /* unanswered */
      S.lost++;
      u->ping_sent_at = 0;
    }
    if (S.ping && u->up && !stop && now >= u->ping_at && !u->ping_sent_at) {
      ping(u, now);
      u->ping_at = now + S.ping * 1000;
    }
    if (u->due < next) next = u->due;
    if (S.ping && u->ping_at < next) next = u->ping_at;
  }
  const int64_t wait = next > now ? next - now : 0;
  poll_users(wait < 50 ? (int)wait : 50);
}

/* every user's IKE SA deleted (its answer awaited at most ms) */
static void goodbye(int64_t ms) {
  const int64_t end = now_ms() + ms;
  for (int64_t now = now_ms(); now < end; now = now_ms()) {
    size_t waiting = 0;
    for (size_t k = 0; k < S.n; k++) {
      struct user *u = &S.u[k];
      if (!u->started || u->gone) continue;
      if (gostx__ike_mgr_bye(u->mgr, now)) {
        waiting++;
      } else {
        S.deleted += u->was_up ? 1 : 0;
        u->gone = 1;
      }
      drain(u);
    }
    if (!waiting) return;
    poll_users(end - now < 20 ? (int)(end - now) : 20);
  }
  for (size_t k = 0; k < S.n; k++)
    if (S.u[k].started && !S.u[k].gone) gostx__ike_mgr_bye_end(S.u[k].mgr, (int)ms), drain(&S.u[k]);
}

static void usage(void) {
  fprintf(stderr,
          "usage: ike_swarm --users N --from IPV4 --port FIRST --gw IPV4:PORT --ca CA.pem\n"
          "         --ca-key CA.key --gw-cert GW.pem [--suffix users.gostx.test] [--first K]\n"
          "         [--rekey S] [--ike-rekey S] [--dpd S] [--ping INNER_IPV4 --ping-every S]\n"
          "         [--seconds S] [--rate USERS_A_SECOND] [--every S] [--hold MS] [--bye-ms MS]\n");
  exit(2);
}

static void parse_addr(const char *v, gostx__ike_mgr_addr *a, int port) {
  char ip[64];
  const char *colon = strchr(v, ':');
  snprintf(ip, sizeof ip, "%.*s", colon ? (int)(colon - v) : (int)strlen(v), v);
  memset(a, 0, sizeof *a);
  a->ip_len = 4;
  if (inet_pton(AF_INET, ip, a->ip) != 1 || (port && !colon)) die(v, "not IPV4[:PORT]");
  if (colon) a->port = (uint16_t)atoi(colon + 1);
}

int main(int argc, char **argv) {
  const char *ca = NULL, *ca_key = NULL, *gw_cert = NULL, *suffix = "users.gostx.test";
  unsigned port = 0;
  int64_t hold = 3000, bye_ms = 5000;
  S.every = 1;
  S.rate = 1000;
  S.dpd = 30;
  for (int k = 1; k < argc; k++) {
    const char *o = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (!v) usage();
    k++;
    if (!strcmp(o, "--users")) S.n = strtoul(v, NULL, 10);
    else if (!strcmp(o, "--from")) parse_addr(v, &S.from, 0);
    else if (!strcmp(o, "--port")) port = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(o, "--gw")) parse_addr(v, &S.gw, 1);
    else if (!strcmp(o, "--ca")) ca = v;
    else if (!strcmp(o, "--ca-key")) ca_key = v;
    else if (!strcmp(o, "--gw-cert")) gw_cert = v;
    else if (!strcmp(o, "--suffix")) suffix = v;
    else if (!strcmp(o, "--first")) S.first = strtoul(v, NULL, 10);
    else if (!strcmp(o, "--rekey")) S.rekey = strtoull(v, NULL, 10);
    else if (!strcmp(o, "--ike-rekey")) S.ike_rekey = strtoull(v, NULL, 10);
    else if (!strcmp(o, "--dpd")) S.dpd = strtoull(v, NULL, 10);
    else if (!strcmp(o, "--ping")) {
      if (inet_pton(AF_INET, v, S.ping_to) != 1) usage();
    }
    else if (!strcmp(o, "--ping-every")) S.ping = atoi(v);
    else if (!strcmp(o, "--seconds")) S.seconds = atof(v);
    else if (!strcmp(o, "--rate")) S.rate = atoi(v);
    else if (!strcmp(o, "--every")) S.every = atoi(v);
    else if (!strcmp(o, "--hold")) hold = atoll(v);
    else if (!strcmp(o, "--bye-ms")) bye_ms = atoll(v);
    else usage();
  }
  if (!S.n || S.n > 1024 || !S.from.ip_len || !port || port + S.n > 65536 || !S.gw.port ||
      !ca || !ca_key || !gw_cert || S.rate <= 0 || (S.ping && !S.ping_to[0]))
    usage();
  if (S.ping && S.ping < 1) usage();

  static uint8_t ca_der[8192], gw_der[8192];
  size_t ca_len, gw_len, key_len;
  gostx_x509_cert ca_c, gw_c;
  gostx_gost3410_key cakey;
  read_cert(ca, ca_der, sizeof ca_der, &ca_len, &ca_c);
  read_cert(gw_cert, gw_der, sizeof gw_der, &gw_len, &gw_c);
  key_len = read_file(ca_key, S.buf, sizeof S.buf);
  if (gostx_gost3410_key_read(&cakey, S.buf, key_len, NULL, 0)) die(ca_key, "no key read");
  if (gw_c.subject_len > sizeof S.gw_id) die(gw_cert, "subject too long");
  memcpy(S.gw_id, gw_c.subject, S.gw_id_len = gw_c.subject_len);
  char err[256] = "";
  S.store = gostx_x509_store_new();
  if (!S.store || gostx_x509_store_add_path(S.store, ca, err, sizeof err)) die(ca, err);

  S.u = calloc(S.n, sizeof *S.u);
  S.pfd = calloc(S.n, sizeof *S.pfd);
  if (!S.u || !S.pfd) die("users", "out of memory");
  const int64_t t0 = now_ms();
  for (size_t k = 0; k < S.n; k++) {
    struct user *u = &S.u[k];
    u->i = (int)k;
    u->port = (uint16_t)(port + k);
    open_socket(u);
    make_cert(u, &ca_c, &cakey, suffix, t0);
  }
  gostx_gost3410_key_clear(&cakey);
  gostx_esp_keycache_init(&S.cache);
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);

  int64_t start = now_ms(), last = start;
  size_t started = 0;
  int all_said = 0;
  while (!stop) {
    const int64_t now = now_ms();
    if (S.seconds > 0 && now - start >= (int64_t)(S.seconds * 1000)) break;
    /* --rate users a second started */
    const size_t due = (size_t)((now - start) * S.rate / 1000) + 1;
    while (started < S.n && started < due) user_start(&S.u[started++], now);
    turn(now, hold);
    if (!all_said && users_up(NULL) == S.n) {
      printf("swarm all up in %lld ms\n", (long long)(now_ms() - start));
      fflush(stdout);
      all_said = 1;
    }
    if (S.every && now - last >= S.every * 1000) {
      summary("swarm", start, now, "");
      last = now;
    }
  }
  for (size_t k = 0; k < S.n; k++) S.u[k].was_up = S.u[k].up;
  stop = 1;
  const size_t up_at_end = users_up(NULL);
  /* the pings still in flight are neither answered nor lost */
  goodbye(bye_ms);
  char tail[64];
  snprintf(tail, sizeof tail, " deleted %lu", S.deleted);
  summary("swarm end", start, now_ms(), tail);
  for (size_t k = 0; k < S.n; k++) {
    gostx__ike_mgr_free(S.u[k].mgr);
    free(S.u[k].out);
    gostx_gost3410_key_clear(&S.u[k].key);
    close(S.u[k].fd);
  }
  free(S.u);
  free(S.pfd);
  gostx_x509_store_free(S.store);
  return S.failures || up_at_end != S.n ? 1 : 0;
}
