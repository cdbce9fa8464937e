/* The IKE daemon's make-before-break (cli/tunnel/ike/ over lib/ike's
 * manager and the SA interface of tunnel_sa.c): two daemons in one thread, their IKE sockets
 * replaced by queues, each side's data path sealing ESP packets to the
 * other after every IKE step. On a veth the peer's switch always comes
 * after our install, so the net tests cannot see the orderings; here the
 * worst case is played out: ESP outruns IKE (a packet sealed after an IKE
 * step is opened before the next one), and some packets arrive a few steps
 * late. Checked, over single rekeys from each side and crossing ones (RFC
 * 7296 2.8.1, both sides' redundant SA met, each side first to read its
 * answer):
 * - whenever a daemon sends an IKE message, every inbound SA its engines
 *   hold is linked in its data path (the responder links before answering);
 * - every packet opens at the peer: no switch to an SA the peer has not
 *   linked (the initiator on its answer, the responder on the old SA's
 *   Delete, a crossing's redundant side on the Delete too), no inbound SA
 *   unlinked while late packets of it still come (retired once quiet);
 * - once quiet, each data path holds just the current Child SA.
 * Then RFC 7383 fragments through the daemon's sends (fragmented_exchange),
 * and a peer whose certificate new CRLs revoke while its IKE SA is up
 * (revoked_peer): its SAs deleted, nothing of them left in the data path. */
#define _GNU_SOURCE
#include <sys/socket.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>

static ssize_t hook_sendto(int fd, const void *buf, size_t n, int flags,
                           const struct sockaddr *to, socklen_t to_len);
static ssize_t hook_recvfrom(int fd, void *buf, size_t cap, int flags, struct sockaddr *from,
                             socklen_t *from_len);
static ssize_t hook_sendmsg(int fd, const struct msghdr *h, int flags);
static ssize_t hook_recvmsg(int fd, struct msghdr *h, int flags);
/* the daemon's log lines (one per event, hundreds here) go to daemon_log:
 * /dev/null, or stderr with GOSTX_TEST_VERBOSE set */
static FILE *daemon_log;
#include "../cli/tunnel/tunnel_sa.c"
#include "../cli/tunnel/tunnel_install.c"
#define sendto hook_sendto
#define recvfrom hook_recvfrom
#define sendmsg hook_sendmsg
#define recvmsg hook_recvmsg
#undef stderr
#define stderr daemon_log
#include "../cli/tunnel/ike/ike_material.c"
#include "../cli/tunnel/ike/ike_daemon.c"
#undef sendto
#undef recvfrom
#undef sendmsg
#undef recvmsg
#include "../cli/tunnel/tunnel_pktinfo.c"
#undef stderr
#define stderr stderr

#include "ike/mgr_int.h" /* the manager's SA table, looked into */
#include "ike_pki.h"
#include "testutil.h"
#include "tunnel_sa_stubs.h"

/* ---- what the daemon calls outside the SA interface ---- */

static const char test_psk[] = "a PSK for the daemon test, 40 bytes long";

long tunnel_read_key_file(const struct tunnel_config *cfg, const char *path, uint8_t *raw,
                          size_t cap) {
  (void)cfg, (void)path;
  if (cap < sizeof test_psk) abort();
  memcpy(raw, test_psk, sizeof test_psk - 1);
  return (long)sizeof test_psk - 1;
}
const char *tunnel_transform_name(gostx_esp_transform t) { return t ? "esp" : "?"; }
/* where ESP goes (udp_offload.c's, for the workers): no NAT here */
void tunnel_peer_set(struct tunnel *t, const struct sockaddr_storage *to) { t->peer_now = *to; }
int cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_vsay(fmt, ap);
  va_end(ap);
  return CLI_EXIT_USAGE;
}
/* no CP here: no inner address to put on a device */
int tunnel_inner_address_set(const struct tunnel_config *cfg, const uint8_t ip[4], char *err,
                             size_t cap) {
  (void)cfg, (void)ip, (void)err, (void)cap;
  abort();
}
/* certificates: not this test's (PSK only) */
int cli_secret_file_private(const char *o, const char *p, int a, const char *ao) {
  (void)o, (void)p, (void)a, (void)ao;
  abort();
}
int cli_load_key(const char *path, gostx_gost3410_key *k) { (void)path, (void)k; abort(); }
int cli_load_key_pass(const char *path, gostx_gost3410_key *k, const char *o, const char *s) {
  (void)path, (void)k, (void)o, (void)s;
  abort();
}
int cli_load_certs(const char *path, cli_cert_list *l) { (void)path, (void)l; abort(); }
void cli_cert_list_free(cli_cert_list *l) { (void)l; }
/* no crl lines here (the net tests and test_ike_engine check revocation) */
int cli_load_crls(const char *path, cli_crl_list *l) { (void)path, (void)l; abort(); }
void cli_crl_list_free(cli_crl_list *l) { (void)l; }

/* ---- two sides and the network between them ---- */

enum { QUEUE = 8, FLIGHT = 64, LATE_MAX = 3, PAYLOAD = 32, PKT_MAX = 96 };

struct side {
  struct tunnel t;
  int fd; /* what its daemon's socket calls are told apart by */
  struct {
    uint8_t m[GOSTX_IKE_MSG_MAX];
    size_t len;
  } q[QUEUE]; /* IKE datagrams to this side */
  size_t nq;
};
static struct side A, B;

/* ESP packets on their way, opened when their step comes */
static struct {
  struct side *to;
  uint8_t pkt[PKT_MAX];
  size_t len;
  unsigned due;
} flight[FLIGHT];
static size_t nflight;
static unsigned step_no, sealed, opened;
static int rekeying; /* packets are counted from the first rekey on */
/* a restarted (restart): b's outbound SPI before, whether b has answered
 * the new IKE_AUTH, and b's packets sealed after that under the old SA */
static uint32_t b_old_out;
static int b_answered;
static unsigned b_stale, b_after;
static unsigned unlinked_sends, lost; /* the two orderings broken */

static struct side *by_fd(int fd) { return fd == A.fd ? &A : &B; }
static struct side *peer_of(const struct side *s) { return s == &A ? &B : &A; }

static int linked(struct side *s, uint32_t spi) {
  int slot;
  return in_lookup(&s->t, spi, &slot) != NULL;
}

/* An inbound SPI that one of s's engines holds but its data path has not
 * linked (0: none). */
static uint32_t unlinked_held(struct side *s) {
  gostx__ike_mgr *k = s->t.ike->mgr;
  gostx_ike_engine *e[GOSTX_IKE_MGR_SLOTS + 2] = {k->sa, k->init_on ? k->init : NULL};
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS; i++) e[i + 2] = k->resp[i].used ? k->resp[i].e : NULL;
  for (int i = 0; i < GOSTX_IKE_MGR_SLOTS + 2; i++) {
    const gostx_ike_child *c[3] = {e[i] ? &e[i]->child : NULL, e[i] ? &e[i]->old : NULL,
                                   e[i] ? &e[i]->twin : NULL};
    for (int j = 0; j < 3; j++)
      if (c[j] && c[j]->valid && !linked(s, c[j]->spi_in)) return c[j]->spi_in;
  }
  return 0;
}

/* Once a message is out the peer may act on it at once: every inbound SA
 * the sender's engines hold must be in its data path by then. */
static ssize_t hook_sendto(int fd, const void *buf, size_t n, int flags,
                           const struct sockaddr *to, socklen_t to_len) {
  (void)flags, (void)to, (void)to_len;
  struct side *s = by_fd(fd), *p = peer_of(s);
  const uint32_t spi = unlinked_held(s);
  if (spi && unlinked_sends++ < 3)
    CHECK(0, "%s sent an IKE message before linking its inbound SA 0x%08x",
          s == &A ? "a" : "b", spi);
  if (p->nq == QUEUE || n > GOSTX_IKE_MSG_MAX) abort();
  const uint8_t *m = buf;
  if (s == &B && b_old_out && n > 19 && m[18] == GOSTX_IKE_AUTH && (m[19] & GOSTX_IKE_FLAG_R))
    b_answered = 1;
  memcpy(p->q[p->nq].m, buf, n);
  p->q[p->nq++].len = n;
  return (ssize_t)n;
}

/* send_one's sendmsg (the IKE socket's: no marker here), gathered into
 * one datagram for hook_sendto */
static ssize_t hook_sendmsg(int fd, const struct msghdr *h, int flags) {
  uint8_t m[GOSTX_IKE_MSG_MAX + 4];
  size_t n = 0;
  for (size_t i = 0; i < (size_t)h->msg_iovlen; i++) {
    if (n + h->msg_iov[i].iov_len > sizeof m) abort();
    memcpy(m + n, h->msg_iov[i].iov_base, h->msg_iov[i].iov_len);
    n += h->msg_iov[i].iov_len;
  }
  return hook_sendto(fd, m, n, flags, (const struct sockaddr *)h->msg_name, h->msg_namelen);
}

/* read_one's recvmsg on the IKE socket: hook_recvfrom's datagram, no
 * cmsg (local is an address here, not a wildcard) */
static ssize_t hook_recvmsg(int fd, struct msghdr *h, int flags) {
  socklen_t fl = h->msg_namelen;
  if (h->msg_iovlen != 1) abort(); /* the workers' hand-off is not run here */
  const ssize_t r = hook_recvfrom(fd, h->msg_iov[0].iov_base, h->msg_iov[0].iov_len, flags,
                                  (struct sockaddr *)h->msg_name, &fl);
  h->msg_namelen = fl;
  h->msg_controllen = 0;
  h->msg_flags = 0;
  return r;
}

/* The oldest datagram to this side, from the peer's IKE port. */
static ssize_t hook_recvfrom(int fd, void *buf, size_t cap, int flags, struct sockaddr *from,
                             socklen_t *from_len) {
  (void)flags;
  struct side *s = by_fd(fd);
  if (!s->nq) return errno = EAGAIN, -1;
  const size_t n = s->q[0].len < cap ? s->q[0].len : cap;
  memcpy(buf, s->q[0].m, n);
  memmove(s->q, s->q + 1, --s->nq * sizeof s->q[0]);
  struct sockaddr_storage ss = peer_of(s)->t.cfg.local;
  ike_with_port(&ss, TUNNEL_IKE_PORT);
  memcpy(from, &ss, sizeof(struct sockaddr_in));
  *from_len = sizeof(struct sockaddr_in);
  return (ssize_t)n;
}

static void addr(struct sockaddr_storage *ss, uint8_t last) {
  struct sockaddr_in *a = (struct sockaddr_in *)ss;
  memset(ss, 0, sizeof *ss);
  a->sin_family = AF_INET;
  a->sin_port = htons(4500);
  a->sin_addr.s_addr = htonl(0x0a000000u | last);
}

static void side_init(struct side *s, int fd, uint8_t me, uint8_t peer, int initiate,
                      const char *id, const char *peer_id) {
  struct tunnel_config *c = &s->t.cfg;
  memset(s, 0, sizeof *s);
  s->fd = fd;
  c->keying = TUNNEL_KEYING_IKEV2;
  c->ike_auth = TUNNEL_IKE_PSK;
  c->threads = 1;
  c->encr[0] = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE;
  c->n_encr = 1;
  c->group = TUNNEL_KE_256;
  c->ike_initiate = initiate;
  c->ike_port = TUNNEL_IKE_PORT;
  addr(&c->local, me);
  addr(&c->peer, peer);
  c->local_len = c->peer_len = sizeof(struct sockaddr_in);
  struct tunnel_ike_id *ids[2] = {&c->local_id, &c->remote_id};
  const char *names[2] = {id, peer_id};
  for (int i = 0; i < 2; i++) {
    ids[i]->type = TUNNEL_ID_FQDN;
    ids[i]->len = strlen(names[i]);
    memcpy(ids[i]->data, names[i], ids[i]->len);
    snprintf(ids[i]->text, sizeof ids[i]->text, "%s", names[i]);
  }
  s->t.nworkers = 1;
  s->t.ike_pair[0] = s->t.ike_pair[1] = -1; /* no workers' hand-off here */
  s->t.w[0].t = &s->t;
  pthread_mutex_init(&s->t.sa_lock, NULL);
  CHECK_RC(tunnel_ike_prepare(&s->t), 0, "the daemon prepared");
  s->t.ike->fd = fd; /* no socket: the hooks stand in */
}

/* The manager's clocks, what they ask carried out: all of them, or only
 * the installed SA's (its retransmissions, rekeys, switch, retirements) */
static void tick(struct side *s, int64_t now) {
  gostx__ike_mgr_tick(s->t.ike->mgr, now);
  drain_events(s->t.ike);
}

static void live_tick(struct side *s, int64_t now) {
  /* the manager's buffers, as its own calls take them around this one */
  if (gostx__ike_mgr_bufs(s->t.ike->mgr)) abort();
  gostx__ike_mgr_live_tick(s->t.ike->mgr, now);
  gostx__ike_mgr_bufs_done(s->t.ike->mgr);
  drain_events(s->t.ike);
}

/* ---- the data path: one packet each way after every IKE step ---- */

static void open_at(struct side *to, uint8_t *pkt, size_t len) {
  uint8_t plain[PKT_MAX];
  gostx_esp_packet b = {.in = pkt, .len = len, .out = plain, .cap = PKT_MAX};
  tunnel_sa_open(&to->t.w[0], &b, 1);
  if (!b.status) {
    opened++;
  } else if (rekeying && lost++ < 3) {
    CHECK(0, "a packet under SPI 0x%08x found no SA at %s (step %u)", tunnel_spi_of(pkt),
          to == &A ? "a" : "b", step_no);
  }
}

static void seal_from(struct side *s, unsigned late) {
  uint8_t payload[PAYLOAD] = {0x45};
  if (nflight == FLIGHT) abort();
  gostx_esp_packet b = {.in = payload, .len = PAYLOAD, .out = flight[nflight].pkt,
                       .cap = PKT_MAX, .next_header = 4};
  if (tunnel_sa_seal(&s->t.w[0], &b, 1) != 1 || b.status) return; /* nothing to seal with yet */
  sealed++;
  if (s == &B && b_answered) {
    b_after++;
    b_stale += tunnel_spi_of(flight[nflight].pkt) == b_old_out;
  }
  flight[nflight].to = peer_of(s);
  flight[nflight].len = b.out_len;
  flight[nflight++].due = step_no + late;
}

/* One IKE step done: each side seals a packet opened at once and one opened
 * 1 to LATE_MAX steps later; what is due is opened. */
static void esp_round(void) {
  const unsigned late = 1 + step_no % LATE_MAX;
  seal_from(&A, 0);
  seal_from(&A, late);
  seal_from(&B, 0);
  seal_from(&B, late);
  for (size_t i = 0; i < nflight;)
    if (flight[i].due <= step_no) {
      open_at(flight[i].to, flight[i].pkt, flight[i].len);
      flight[i] = flight[--nflight];
    } else {
      i++;
    }
  step_no++;
}

static int64_t clock_ms;

/* first's timers, then second's; first's datagram in, then second's */
static void step(struct side *first, struct side *second) {
  clock_ms += 20;
  live_tick(first, clock_ms);
  esp_round();
  live_tick(second, clock_ms);
  esp_round();
  if (first->nq) receive(first->t.ike, first->t.ike->fd, clock_ms);
  esp_round();
  if (second->nq) receive(second->t.ike, second->t.ike->fd, clock_ms);
  esp_round();
}

static int settled(struct side *s) {
  const gostx__ike_mgr *k = s->t.ike->mgr;
  const gostx_ike_engine *e = k->sa;
  int retiring = 0;
  for (int i = 0; i < GOSTX_IKE_MGR_RETIRING; i++) retiring |= k->retiring[i].spi != 0;
  return e && e->pend == GOSTX_IKE_X_NONE && !e->old.valid && !e->twin.valid && !s->nq &&
         !retiring;
}

/* Steps until both sides settled: 1, or 0 when not in 1000 steps. */
static int run(struct side *first, struct side *second) {
  for (int i = 0; i < 1000; i++) {
    step(first, second);
    if (settled(&A) && settled(&B)) return 1;
  }
  return 0;
}

/* Each data path: only the current Child SA, sealing with it. */
static int only_current(struct side *s) {
  const gostx_ike_child *c = &s->t.ike->mgr->sa->child;
  const struct tunnel_sa *out = atomic_load(&s->t.sa_out);
  int n = 0;
  for (int i = 0; i < TUNNEL_SA_IN_MAX; i++) n += atomic_load(&s->t.sa_in[i]) != NULL;
  return n == 1 && linked(s, c->spi_in) && out && out->esp.spi == c->spi_out;
}

/* The first Child SA is no rekey: the responder seals with it before the
 * initiator has it (there is no SA before it to seal with instead); the
 * packets are counted from the first rekey on. */
static void establish(void) {
  side_init(&A, 1001, 1, 2, 1, "a.gostx.test", "b.gostx.test");
  side_init(&B, 1002, 2, 1, 0, "b.gostx.test", "a.gostx.test");
  clock_ms = ike_now_ms();
  tick(&A, clock_ms);
  CHECK(run(&A, &B) && A.t.ike->mgr->sa && B.t.ike->mgr->sa, "established");
  CHECK(only_current(&A) && only_current(&B), "the first Child SA installed on both sides");
  sealed = opened = 0;
  rekeying = 1;
}

/* Rekeys from a, from b and crossing, each side first to read in turn,
 * until each side's redundant SA of a crossing has met the worst order
 * (its answer read before the peer's) twice. */
static void rekeys(void) {
  unsigned crossings = 0, worst[2] = {0, 0}, rounds = 0, failed = 0;
  for (; rounds < 200 && (worst[0] < 2 || worst[1] < 2 || rounds < 12); rounds++) {
    const int mode = rounds % 3, b_first = rounds / 3 % 2;
    struct side *first = b_first ? &B : &A, *second = b_first ? &A : &B;
    if (mode != 1) A.t.ike->mgr->rekey_ms = clock_ms;
    if (mode != 0) B.t.ike->mgr->rekey_ms = clock_ms;
    const int ok = run(first, second);
    if (!ok || !only_current(&A) || !only_current(&B)) {
      if (failed++ < 3)
        CHECK(0, "round %u (mode %d): settled %d, a holds only the current SA %d, b %d", rounds,
              mode, ok, only_current(&A), only_current(&B));
      continue;
    }
    if (mode != 2) continue;
    crossings++;
    /* the survivor's creator: its ours flag; the other side's SA was redundant */
    const int a_redundant = !A.t.ike->mgr->sa->child.ours;
    if (a_redundant == !b_first) worst[a_redundant ? 0 : 1]++;
  }
  printf("%u rounds, %u crossings (worst order: a's redundant %u, b's %u), %u packets sealed, "
         "%u opened\n",
         rounds, crossings, worst[0], worst[1], sealed, opened);
  CHECK(failed == 0, "%u rekey rounds settled with only the current SA installed", rounds);
  CHECK(worst[0] >= 2 && worst[1] >= 2,
        "%u crossings: a's redundant SA first to settle %u times, b's %u", crossings, worst[0],
        worst[1]);
  CHECK(unlinked_sends == 0, "every IKE message sent with the inbound SAs linked (%u not)",
        unlinked_sends);
  CHECK(lost == 0 && sealed > 2000, "%u packets sealed, %u opened, %u found no SA", sealed,
        opened, lost);
}

static void done(struct side *s);

/* a killed and started again while b holds the SAs (b's liveness check not
 * yet due): a's new IKE SA replaces them at b. With INITIAL_CONTACT (what
 * a restarted daemon sends: it holds no IKE SA) b seals with the new Child
 * SA from its IKE_AUTH answer on; without it (contact 0: as from a peer
 * that keeps the old SAs) b waits for a's first packet under the new SA or
 * GOSTX_IKE_MGR_SWITCH_MS, sealing meanwhile with the old SA, which a restarted a
 * cannot open. */
static void restart(int contact) {
  done(&A);
  side_init(&A, 1001, 1, 2, 1, "a.gostx.test", "b.gostx.test");
  nflight = 0; /* what was on its way to the old a */
  rekeying = 0;
  b_old_out = atomic_load(&B.t.sa_out)->esp.spi;
  b_answered = 0;
  b_stale = b_after = 0;
  tick(&A, clock_ms);
  CHECK(A.t.ike->mgr->cf_i->initial_contact == 1, "a restarted (no IKE SA) asks for INITIAL_CONTACT");
  A.t.ike->mgr->cf_i->initial_contact = contact; /* read when its IKE_AUTH request is written */
  const int ok = run(&A, &B);
  CHECK(ok && only_current(&A) && only_current(&B) &&
            A.t.ike->mgr->sa->child.spi_out == B.t.ike->mgr->sa->child.spi_in,
        "INITIAL_CONTACT %d: the restarted a's SAs replace the old ones at b", contact);
  CHECK(B.t.ike->mgr->sa->peer_initial_contact == contact, "b noted INITIAL_CONTACT %d",
        B.t.ike->mgr->sa->peer_initial_contact);
  if (contact)
    CHECK(b_answered && b_after > 0 && b_stale == 0,
          "INITIAL_CONTACT: none of b's %u packets after its answer under the old SA (%u)",
          b_after, b_stale);
  else
    CHECK(b_answered && b_stale > 0,
          "no INITIAL_CONTACT: b seals %u of %u packets after its answer under the old SA "
          "(make-before-break, the switch's timeout)", b_stale, b_after);
  b_old_out = 0;
}

static void done(struct side *s) {
  s->t.ike->fd = -1; /* not a socket */
  tunnel_ike_free(&s->t);
  tunnel_sa_clear_all(&s->t);
  pthread_mutex_destroy(&s->t.sa_lock);
}

/* RFC 7383's bound as the daemon sets it: fragment_size less IP (20 or
 * 40), UDP (8) and the non-ESP marker (4), whichever port IKE is on;
 * fragmentation = no: 0 (never fragmented) */
static void fragment_bound(void) {
  struct tunnel_config c;
  memset(&c, 0, sizeof c);
  c.fragmentation = 1;
  c.fragment_size = 1280;
  c.local.ss_family = AF_INET;
  CHECK(ike_frag_size(&c) == 1248, "IPv4 at 1280: %zu", ike_frag_size(&c));
  c.local.ss_family = AF_INET6;
  CHECK(ike_frag_size(&c) == 1228, "IPv6 at 1280: %zu", ike_frag_size(&c));
  c.fragment_size = 576;
  c.local.ss_family = AF_INET;
  CHECK(ike_frag_size(&c) == 544, "IPv4 at 576 (RFC 9385 A.2.1's 544): %zu", ike_frag_size(&c));
  c.fragmentation = 0;
  CHECK(ike_frag_size(&c) == 0, "fragmentation = no: %zu", ike_frag_size(&c));
  /* both of the daemon's confs carry it (side_init's config is made by
   * hand, not by tunnel_config_read: its defaults set here) */
  A.t.cfg.fragmentation = 1;
  A.t.cfg.fragment_size = 1280;
  make_confs(A.t.ike, &A.t.cfg);
  CHECK(A.t.ike->mgr->cf_i->frag_size == 1248 && A.t.ike->mgr->cf_r.frag_size == 1248,
        "both confs: %zu %zu", A.t.ike->mgr->cf_i->frag_size, A.t.ike->mgr->cf_r.frag_size);
}

/* What was queued to a side, kept to compare with what comes again */
struct queued {
  uint8_t m[QUEUE][GOSTX_IKE_MSG_MAX];
  size_t len[QUEUE], n;
};

/* s's queue, each datagram at most max octets, into was (then emptied:
 * all lost) */
static void take_queue(struct side *s, struct queued *was, size_t max, const char *what) {
  for (size_t i = 0; i < s->nq; i++) {
    CHECK(s->q[i].len <= max, "%s: datagram %zu of %zu octets", what, i + 1, s->q[i].len);
    memcpy(was->m[i], s->q[i].m, s->q[i].len);
    was->len[i] = s->q[i].len;
  }
  was->n = s->nq;
  s->nq = 0;
}

static int same_queue(const struct side *s, const struct queued *was) {
  int same = s->nq == was->n;
  for (size_t i = 0; same && i < s->nq; i++)
    same = s->q[i].len == was->len[i] && !memcmp(s->q[i].m, was->m[i], was->len[i]);
  return same;
}

static void drain(struct side *s) {
  while (s->nq) receive(s->t.ike, s->t.ike->fd, clock_ms);
}

static void small_fragments(struct side *s) {
  s->t.cfg.fragmentation = 1;
  s->t.cfg.fragment_size = 200; /* under the config's least: a PSK IKE_AUTH fragments */
  make_confs(s->t.ike, &s->t.cfg);
}

/* The manager's sends over the engine's back-to-back fragments (RFC 7383): each its
 * own datagram within the bound, on the first send, on the timer's
 * retransmission and for the responder's cached answer (fragment 1 of
 * the request again, 2.6.1); the SA comes up. */
static void fragmented_exchange(void) {
  static struct queued req, resp;
  const size_t max = 200 - 20 - 8 - 4;
  side_init(&A, 1001, 1, 2, 1, "a.gostx.test", "b.gostx.test");
  side_init(&B, 1002, 2, 1, 0, "b.gostx.test", "a.gostx.test");
  small_fragments(&A);
  small_fragments(&B);
  clock_ms = ike_now_ms();
  tick(&A, clock_ms); /* IKE_SA_INIT */
  drain(&B);
  drain(&A); /* its answer: IKE_AUTH out */
  take_queue(&B, &req, max, "IKE_AUTH request");
  CHECK(req.n >= 2, "the request in %zu datagrams", req.n);
  clock_ms += 10000;
  tick(&A, clock_ms);
  CHECK(same_queue(&B, &req), "the retransmission: the same %zu datagrams (%zu)", req.n, B.nq);
  drain(&B);
  take_queue(&A, &resp, max, "IKE_AUTH response");
  CHECK(resp.n >= 2 && B.t.ike->mgr->sa, "the responder up, its answer in %zu datagrams", resp.n);
  memcpy(B.q[0].m, req.m[0], req.len[0]); /* fragment 1 again */
  B.q[0].len = req.len[0];
  B.nq = 1;
  drain(&B);
  CHECK(same_queue(&A, &resp), "the cached answer: the same %zu datagrams (%zu)", resp.n, A.nq);
  drain(&A);
  CHECK(A.t.ike->mgr->sa != NULL, "the initiator up");
  done(&A);
  done(&B);
}

/* ---- a peer revoked while its IKE SA is up ---- */

static pki_key ca_key, a_key, b_key, c_key;
static pki_cert ca, a_cert, b_cert, c_cert;

/* s signs with key and cert, takes a peer of peer's subject through st,
 * its path looked up in crls under REQUIRE (the settings made by hand:
 * the stubs above load no files) */
static void use_certs(struct side *s, const pki_key *key, const pki_cert *cert,
                      const pki_cert *peer, const gostx_x509_store *st,
                      const gostx_x509_crl *crls) {
  struct tunnel_ike *k = s->t.ike;
  gostx__ike_mgr_settings *set = &k->set;
  k->certs[0] = cert->der;
  k->cert_lens[0] = cert->len;
  set->auth = GOSTX_IKE_MGR_AUTH_SIGNATURE;
  set->psk = NULL;
  set->psk_len = 0;
  set->key = &key->k;
  set->n_certs = 1;
  set->store = st;
  set->crls = crls;
  set->n_crls = 1;
  set->revocation = GOSTX_IKE_MGR_REVOCATION_REQUIRE;
  set->id_type = set->peer_id_type = GOSTX_IKE_ID_DER_ASN1_DN;
  set->id = cert->c.subject;
  set->id_len = cert->c.subject_len;
  set->peer_id = peer->c.subject;
  set->peer_id_len = peer->c.subject_len;
  gostx__ike_mgr_configure(k->mgr, set);
}

/* what a's daemon logs during f(), into log (cap) as well */
static void a_logs(void (*f)(void), char *log, size_t cap) {
  FILE *was = daemon_log;
  daemon_log = tmpfile();
  if (!daemon_log) abort();
  f();
  rewind(daemon_log);
  const size_t n = fread(log, 1, cap - 1, daemon_log);
  log[n] = 0;
  fclose(daemon_log);
  daemon_log = was;
  fputs(log, was); /* where they would have gone */
}

static void a_tick(void) {
  clock_ms += 20;
  tick(&A, clock_ms);
}

/* nothing of b's Child SAs left in a's data path: no inbound SA, none
 * outbound (what b seals finds no SA, nothing is sealed to b) */
static int a_cut_off(void) {
  int n = 0;
  for (int i = 0; i < TUNNEL_SA_IN_MAX; i++) n += atomic_load(&A.t.sa_in[i]) != NULL;
  return !A.t.ike->mgr->sa && n == 0 && !atomic_load(&A.t.sa_out);
}

/* a and b up with certificates, CRLs listing neither; a's new CRLs
 * revoking a third party keep the SA; revoking b, at a's next tick: the
 * IKE SA deleted (b told by INFORMATIONAL Delete), its Child SAs out of
 * a's data path, the line naming b's serial and the reason. Then a's SA
 * with b again up, under a CRL that goes stale: under require the IKE
 * SA's rekey finds b without a status and cuts it off the same way. */
static void revoked_peer(void) {
  static const char *const ext_ca[] = {"basicConstraints=critical,CA:TRUE",
                                       "keyUsage=critical,keyCertSign,cRLSign", NULL};
  static const char *const ext_ee[] = {"keyUsage=digitalSignature", NULL};
  static uint8_t der[4][4096];
  static char log[8192];
  gostx_x509_crl none, of_c, of_b, short_lived;
  const pki_cert *b_only[] = {&b_cert}, *c_only[] = {&c_cert};
  pki_make(&ca, &ca_key, GOSTX_GOST3410_512_C, "/CN=Tunnel Test CA/O=gostx/C=RU", ext_ca, NULL, NULL);
  pki_make(&a_cert, &a_key, GOSTX_GOST3410_256_A, "/CN=a/O=gostx/C=RU", ext_ee, &ca, &ca_key);
  pki_make(&b_cert, &b_key, GOSTX_GOST3410_512_A, "/CN=b/O=gostx/C=RU", ext_ee, &ca, &ca_key);
  pki_make(&c_cert, &c_key, GOSTX_GOST3410_256_A, "/CN=c/O=gostx/C=RU", ext_ee, &ca, &ca_key);
  pki_make_crl(&ca, &ca_key, NULL, 0, IKE_PKI_T1, der[0], sizeof der[0], &none);
  pki_make_crl(&ca, &ca_key, c_only, 1, IKE_PKI_T1, der[1], sizeof der[1], &of_c);
  pki_make_crl(&ca, &ca_key, b_only, 1, IKE_PKI_T1, der[2], sizeof der[2], &of_b);
  pki_make_crl(&ca, &ca_key, NULL, 0, IKE_PKI_T0 + 7200, der[3], sizeof der[3], &short_lived);
  gostx_x509_store *st = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, ca.der, ca.len), GOSTX_OK, "the CA anchored");
  char serial[48] = "serial 0x";
  for (size_t i = 0; i < b_cert.c.serial_len; i++)
    snprintf(serial + strlen(serial), sizeof serial - strlen(serial), "%02X", b_cert.c.serial[i]);

  for (int round = 0; round < 2; round++) {
    const gostx_x509_crl *crl = round ? &short_lived : &none;
    side_init(&A, 1001, 1, 2, 1, "a.gostx.test", "b.gostx.test");
    side_init(&B, 1002, 2, 1, 0, "b.gostx.test", "a.gostx.test");
    use_certs(&A, &a_key, &a_cert, &b_cert, st, crl);
    use_certs(&B, &b_key, &b_cert, &a_cert, st, &none);
    nflight = 0;
    rekeying = 0; /* packets after the cut find no SA at a: meant */
    clock_ms = (IKE_PKI_T0 + 3600) * 1000; /* in the certificates' lifetime */
    tick(&A, clock_ms);
    CHECK(run(&A, &B) && only_current(&A) && only_current(&B), "certificates: up (round %d)",
          round);
    const uint32_t b_out = atomic_load(&B.t.sa_out)->esp.spi;
    if (!round) {
      gostx__ike_mgr_set_crls(A.t.ike->mgr, &of_c, 1);
      a_logs(a_tick, log, sizeof log);
      CHECK(A.t.ike->mgr->sa && only_current(&A) && !strstr(log, "deleted"),
            "new CRLs revoking another: b's SA stands (%s)", log);
      gostx__ike_mgr_set_crls(A.t.ike->mgr, &of_b, 1);
      a_logs(a_tick, log, sizeof log);
      CHECK(a_cut_off(), "new CRLs revoking b: a's IKE SA and Child SAs gone (sa %p)",
            (void *)A.t.ike->mgr->sa);
      CHECK(strstr(log, "deleted: revocation: certificate revoked: depth 0") &&
                strstr(log, serial) && strstr(log, "keyCompromise (new CRLs)") &&
                strstr(log, "Delete sent"),
            "the line names b's certificate: %s", log);
    } else { /* the CRL stale after its nextUpdate; the rekey looks again */
      clock_ms = (IKE_PKI_T0 + 7300) * 1000;
      A.t.ike->mgr->ike_rekey_ms = clock_ms;
      a_logs(a_tick, log, sizeof log);
      for (int i = 0; i < 20 && A.t.ike->mgr->sa && !strstr(log, "deleted"); i++) {
        receive(B.t.ike, B.t.ike->fd, clock_ms); /* the rekey's answer */
        a_logs(a_tick, log, sizeof log);
        if (A.nq) receive(A.t.ike, A.t.ike->fd, clock_ms);
      }
      CHECK(a_cut_off() && strstr(log, "no revocation status") &&
                strstr(log, "(the IKE SA rekeyed)"),
            "under require, a stale CRL at the IKE SA's rekey: cut off: %s", log);
    }
    /* b learns it from the Delete (when one could go) */
    receive(B.t.ike, B.t.ike->fd, clock_ms);
    if (!round) CHECK(!B.t.ike->mgr->sa, "b's IKE SA deleted by a's Delete");
    /* ESP b still seals under the old SA finds none at a */
    uint8_t payload[PAYLOAD] = {0x45}, pkt[PKT_MAX], plain[PKT_MAX];
    gostx_esp_packet e = {.in = payload, .len = PAYLOAD, .out = pkt, .cap = PKT_MAX,
                          .next_header = 4};
    if (tunnel_sa_seal(&B.t.w[0], &e, 1) == 1 && !e.status) {
      gostx_esp_packet o = {.in = pkt, .len = e.out_len, .out = plain, .cap = PKT_MAX};
      tunnel_sa_open(&A.t.w[0], &o, 1);
      CHECK(o.status && tunnel_spi_of(pkt) == b_out, "b's packet under 0x%08x dropped at a", b_out);
    }
    done(&A);
    done(&B);
  }
  gostx_x509_store_free(st);
}

int main(void) {
  daemon_log = getenv("GOSTX_TEST_VERBOSE") ? stderr : fopen("/dev/null", "w");
  if (!daemon_log) return 99;
  establish();
  rekeys();
  restart(0);
  restart(1);
  fragment_bound();
  done(&A);
  done(&B);
  fragmented_exchange();
  revoked_peer();
  if (daemon_log != stderr) fclose(daemon_log);
  return t_done();
}
