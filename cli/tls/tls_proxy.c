/* gostx tls serve / connect: the workers that run many relays
 * (tls_relay.c) at once. Each worker is an epoll loop over non-blocking
 * sockets; the listening socket is in every worker's set (EPOLLEXCLUSIVE:
 * one worker wakes per connection). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "tls_cli.h"

/* ---- the workers ---- */

struct pconn {
  struct tls_conn c;
  struct pconn *prev, *next; /* the worker's live list (timeouts, stop) */
  struct pconn *again_next;  /* the ready list, then the dead list */
  int in_again, dead;
  unsigned ev_tls, ev_plain; /* epoll events registered (0: not in the set) */
  time_t deadline;           /* handshake (and backend connect) deadline; 0 none */
  struct tls_cfg_ref *cfg;   /* the config its gostx_tls reads, held until it is freed */
  char peer[64];
};

struct worker {
  struct tls_proxy *p;
  pthread_t thread;
  int ep;
  struct pconn *conns, *again, *dead;
  struct tls_timing timing; /* --timing */
};

static const char *proxy_form(const struct tls_proxy *p);

/* The worker's counters when --timing, else NULL (for TLS_TIMED). */
static struct tls_timing *timing_of(struct worker *w) {
  return w->p->timing ? &w->timing : NULL;
}

/* --timing: the worker's split since its last line, as a connection ends
 * (one connection at a time, as a benchmark runs them: that connection's
 * cost); the counters start again. */
static void timing_line(struct worker *w, const struct tls_conn *c) {
  struct tls_timing *t = &w->timing;
  const uint64_t now = cli_thread_cpu_ns(), all = now - t->mark;
  const uint64_t sys = t->sys_plain + t->sys_tls + t->sys_epoll;
  const uint64_t tls = t->tls_calls - t->sys_tls; /* the TLS side's calls counted as system calls */
  const uint64_t rest = all > sys + tls ? all - sys - tls : 0;
  fprintf(stderr,
          "gostx tls %s: %s%s%stiming: worker %u, since its last line: thread CPU %.0f us = system "
          "calls %.0f us (plain %.0f, TLS %.0f, epoll %.0f) + TLS %.0f us (handshakes, records) + "
          "the rest %.0f us; the connection relayed %llu bytes\n",
          proxy_form(w->p), w->p->name ? "[" : "", w->p->name ? w->p->name : "",
          w->p->name ? "] " : "", (unsigned)(w - w->p->ws), all / 1e3, sys / 1e3,
          t->sys_plain / 1e3, t->sys_tls / 1e3, t->sys_epoll / 1e3, tls / 1e3, rest / 1e3,
          (unsigned long long)(c->to_tls + c->to_plain));
  memset(t, 0, sizeof *t);
  t->mark = cli_thread_cpu_ns();
}

/* Markers for the epoll data of the listening socket and the wake fd
 * (aligned like a connection's, their low bit clear). */
static _Alignas(8) char mark_listen, mark_wake;

/* One failure line per connection, at most LOG_PER_SEC a second (a flood
 * of bad handshakes is counted, not printed). */
#define LOG_PER_SEC 20
static void log_fail(const char *peer, const char *why) {
  static atomic_long second;
  static atomic_int count;
  long now = (long)time(NULL);
  if (atomic_exchange(&second, now) != now) atomic_store(&count, 0);
  if (atomic_fetch_add(&count, 1) < LOG_PER_SEC) cli_err("tls: %s: %s", peer, why);
}

/* A connection's two sockets share its epoll data, the plain one's with
 * the low bit set (struct pconn is aligned): the worker knows which side
 * became ready. */
#define EV_PLAIN 1u

static int set_events(struct worker *w, int fd, unsigned *have, unsigned want, struct pconn *pc,
                      unsigned side) {
  if (want == *have) return 0;
  struct epoll_event ev = {.events = want, .data.u64 = (uintptr_t)pc | side};
  int op = !*have ? EPOLL_CTL_ADD : !want ? EPOLL_CTL_DEL : EPOLL_CTL_MOD, rc;
  TLS_TIMED(timing_of(w), sys_epoll, rc = epoll_ctl(w->ep, op, fd, &ev));
  if (rc < 0) return -1;
  *have = want;
  return 0;
}

/* Ends a connection: its sockets closed (which takes them out of the epoll
 * set) now, its memory freed after the batch of events that may still name
 * it. abortive: an error, so the plain peer sees a reset, not a clean end
 * of data (the TLS peer sees no close_notify). */
/* connect: the newest ticket of a connection that ends, kept for the next
 * (the oldest dropped when all TLS_SESSIONS places are taken). */
static void session_keep(struct tls_proxy *p, gostx_tls *tls) {
  uint8_t b[GOSTX_TLS_SESSION_MAX];
  size_t n = 0;
  if (gostx_tls_get_session(tls, b, sizeof b, &n)) return;
  pthread_mutex_lock(&p->sess_mu);
  if (p->nsess == TLS_SESSIONS) {
    memmove(p->sess[0], p->sess[1], sizeof p->sess[0] * (TLS_SESSIONS - 1));
    memmove(p->sess_len, p->sess_len + 1, sizeof p->sess_len[0] * (TLS_SESSIONS - 1));
    p->nsess--;
  }
  memcpy(p->sess[p->nsess], b, n);
  p->sess_len[p->nsess++] = n;
  pthread_mutex_unlock(&p->sess_mu);
  gostx_memzero(b, sizeof b);
}

/* connect: the newest ticket kept, offered by tls (and forgotten: one use). */
static void session_offer(struct tls_proxy *p, gostx_tls *tls) {
  pthread_mutex_lock(&p->sess_mu);
  if (p->nsess) {
    unsigned i = --p->nsess;
    if (gostx_tls_set_session(tls, p->sess[i], p->sess_len[i]) != GOSTX_OK) {
      /* ours, well formed; one the library will not offer: a full handshake */
    }
    gostx_memzero(p->sess[i], p->sess_len[i]);
  }
  pthread_mutex_unlock(&p->sess_mu);
}

/* serve: what to do about a failure whose reason alone leaves the
 * operator guessing, "" when nothing. */
static const char *fail_advice(const struct tls_proxy *p, const gostx_tls *tls) {
  const char *err = tls ? gostx_tls_error(tls) : NULL;
  /* openssl + gost-engine (curl, s_client): GOST suites under 1.2 only */
  if (p->serve && err && strstr(err, "offers TLS 1.3 without GOST suites"))
    return "; serve such clients with --version 1.2";
  return "";
}

static void conn_end(struct worker *w, struct pconn *pc, int abortive, const char *why) {
  struct tls_conn *c = &pc->c;
  if (w->p->timing) timing_line(w, c);
  if (c->tls && gostx_tls_session_reused(c->tls)) atomic_fetch_add(&w->p->resumed, 1);
  if (c->tls && w->p->resume) session_keep(w->p, c->tls);
  if (why) {
    char line[sizeof c->why + 64];
    snprintf(line, sizeof line, "%s%s", why, fail_advice(w->p, c->tls));
    atomic_fetch_add(&w->p->failed, 1);
    log_fail(pc->peer, line);
  }
  if (pc->prev) pc->prev->next = pc->next;
  else w->conns = pc->next;
  if (pc->next) pc->next->prev = pc->prev;
  if (abortive && c->in_fd >= 0) {
    struct linger lg = {1, 0};
    setsockopt(c->in_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  }
  if (c->tls_fd >= 0) close(c->tls_fd);
  if (c->in_fd >= 0) close(c->in_fd);
  c->tls_fd = c->in_fd = c->out_fd = -1;
  gostx_tls_free(c->tls);
  c->tls = NULL;
  tls_cfg_ref_put(pc->cfg);
  pc->cfg = NULL;
  tls_conn_free_buffers(c);
  pc->dead = 1;
  if (!pc->in_again) { /* on the ready list it is skipped, then freed there */
    pc->again_next = w->dead;
    w->dead = pc;
  }
  atomic_fetch_sub(&w->p->active, 1);
}

/* serve: once the client's handshake is done, the backend connection. */
static int serve_ready(struct tls_conn *c) {
  struct pconn *pc = (struct pconn *)c;
  struct tls_proxy *p = c->user;
  int pending;
  int fd = tls_connect_nb(&p->target, &pending);
  if (fd < 0) {
    snprintf(c->why, sizeof c->why, "backend %.200s: %s", p->target.text, strerror(errno));
    return -1;
  }
  c->in_fd = c->out_fd = fd;
  c->plain_connecting = pending;
  pc->deadline = time(NULL) + p->handshake_timeout;
  return 0;
}

static void pump(struct worker *w, struct pconn *pc) {
  struct tls_conn *c = &pc->c;
  int r = tls_conn_pump(c);
  if (r == TLS_PUMP_FAIL || r == TLS_PUMP_DONE) {
    conn_end(w, pc, r == TLS_PUMP_FAIL, r == TLS_PUMP_FAIL ? c->why : NULL);
    return;
  }
  if (c->handshaken && !c->plain_connecting) pc->deadline = 0;
  unsigned et = (c->want & TLS_WANT_TLS_RD ? EPOLLIN : 0) | (c->want & TLS_WANT_TLS_WR ? EPOLLOUT : 0);
  unsigned ep = (c->want & TLS_WANT_PLAIN_RD ? EPOLLIN : 0) |
                (c->want & TLS_WANT_PLAIN_WR ? EPOLLOUT : 0);
  if (r == TLS_PUMP_AGAIN) {
    /* on the ready list instead, pumped again after this batch */
    et = ep = 0;
    if (!pc->in_again) {
      pc->in_again = 1;
      pc->again_next = w->again;
      w->again = pc;
    }
  }
  if (set_events(w, c->tls_fd, &pc->ev_tls, et, pc, 0) ||
      (c->in_fd >= 0 && set_events(w, c->in_fd, &pc->ev_plain, ep, pc, EV_PLAIN)))
    conn_end(w, pc, 1, "epoll_ctl failed");
}

/* ---- the config: shared, replaced whole ---- */

struct tls_cfg_ref *tls_cfg_ref_new(gostx_tls_config *cfg, gostx_x509_store *store) {
  struct tls_cfg_ref *r = malloc(sizeof *r);
  if (!r) {
    gostx_tls_config_free(cfg);
    gostx_x509_store_free(store);
    return NULL;
  }
  atomic_init(&r->refs, 1);
  r->cfg = cfg;
  r->store = store;
  return r;
}

void tls_cfg_ref_put(struct tls_cfg_ref *r) {
  if (!r || atomic_fetch_sub(&r->refs, 1) != 1) return;
  gostx_tls_config_free(r->cfg); /* before the store it points to */
  gostx_x509_store_free(r->store);
  free(r);
}

/* The current config, one more reference to it. Under the lock: a swap
 * between reading the pointer and counting the reference would free it. */
static struct tls_cfg_ref *cfg_get(struct tls_proxy *p) {
  pthread_mutex_lock(&p->cfg_mu);
  struct tls_cfg_ref *r = p->cfg;
  atomic_fetch_add(&r->refs, 1);
  pthread_mutex_unlock(&p->cfg_mu);
  return r;
}

void tls_proxy_cfg_swap(struct tls_proxy *p, struct tls_cfg_ref *next) {
  pthread_mutex_lock(&p->cfg_mu);
  struct tls_cfg_ref *old = p->cfg;
  p->cfg = next;
  pthread_mutex_unlock(&p->cfg_mu);
  tls_cfg_ref_put(old); /* freed here, or by the last connection that used it */
}

/* A new connection's relay, or NULL (said why). */
static struct pconn *conn_new(struct tls_proxy *p, int fd, const struct sockaddr *peer) {
  struct pconn *pc = malloc(sizeof *pc);
  struct tls_cfg_ref *cfg = pc ? cfg_get(p) : NULL;
  gostx_tls *tls = cfg ? gostx_tls_new(cfg->cfg) : NULL;
  char peer_s[64];
  tls_addr_text(peer, peer_s, sizeof peer_s);
  if (!tls) {
    tls_cfg_ref_put(cfg);
    free(pc);
    log_fail(peer_s, "out of memory");
    return NULL;
  }
  memset(&pc->prev, 0, sizeof *pc - offsetof(struct pconn, prev));
  pc->cfg = cfg;
  memcpy(pc->peer, peer_s, sizeof pc->peer);
  struct tls_conn *c = &pc->c;
  if (p->serve) {
    tls_conn_init(c, tls, fd, -1, -1);
    c->on_ready = serve_ready;
    c->user = p;
  } else {
    int pending, up = tls_connect_nb(&p->target, &pending);
    const char *why = up < 0 ? strerror(errno) : NULL;
    if (!why && p->servername && gostx_tls_set_servername(tls, p->servername))
      why = "the servername is refused";
    if (why) {
      char msg[200];
      snprintf(msg, sizeof msg, "upstream %.120s: %s", p->target.text, why);
      log_fail(peer_s, msg);
      if (up >= 0) close(up);
      gostx_tls_free(tls);
      tls_cfg_ref_put(cfg);
      free(pc);
      return NULL;
    }
    tls_conn_init(c, tls, up, fd, fd);
    c->tls_connecting = pending;
    if (p->resume) session_offer(p, tls);
  }
  gostx_tls_set_fd(tls, c->tls_fd);
  pc->deadline = time(NULL) + p->handshake_timeout;
  return pc;
}

/* Out of descriptors, the waiting connection would keep the (level-
 * triggered) listening socket ready and the workers spinning: the reserve
 * descriptor is given back for a moment to take that connection and close
 * it, and the client sees its connection closed. */
static void shed_one(struct tls_proxy *p) {
  log_fail(p->listen.text, "out of file descriptors: a new connection closed");
  pthread_mutex_lock(&p->reserve_mu);
  if (p->reserve_fd >= 0) {
    close(p->reserve_fd);
    int fd = accept4(p->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) close(fd);
    p->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  int none = p->reserve_fd < 0;
  pthread_mutex_unlock(&p->reserve_mu);
  if (none) { /* no reserve to give: at least do not spin */
    struct timespec ms10 = {0, 10000000};
    nanosleep(&ms10, NULL);
  }
}

static void accept_some(struct worker *w) {
  struct tls_proxy *p = w->p;
  for (int i = 0; i < 64; i++) {
    struct sockaddr_storage peer;
    socklen_t plen = sizeof peer;
    int fd = accept4(p->listen_fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) shed_one(p);
      return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct pconn *pc = conn_new(p, fd, (struct sockaddr *)&peer);
    if (!pc) {
      close(fd);
      continue;
    }
    if (p->timing) tls_conn_time(&pc->c, &w->timing);
    pc->next = w->conns;
    if (w->conns) w->conns->prev = pc;
    w->conns = pc;
    atomic_fetch_add(&p->accepted, 1);
    atomic_fetch_add(&p->active, 1);
    pump(w, pc);
  }
}

static void expire(struct worker *w, time_t now) {
  struct pconn *next;
  for (struct pconn *pc = w->conns; pc; pc = next) {
    next = pc->next;
    if (pc->deadline && now >= pc->deadline)
      conn_end(w, pc, 1, pc->c.handshaken ? "backend connect timed out" : "handshake timed out");
  }
}

/* The heap after connections end. cmd_tls keeps freed heap for the next
 * burst (a trim at each free cost bulk 6 %), so what a storm of connections
 * left, wanted or not (any client can open thousands), goes back here: once
 * a second after any connection was freed, the free pages returned by
 * malloc_trim. One arena for all workers (tls_proxies_run): malloc_trim
 * leaves a thread arena's top in place, and idle serve kept 150-265 MB. */
static atomic_ulong conns_freed, conns_trimmed;

static void heap_give_back(void) {
#ifdef __GLIBC__
  unsigned long n = atomic_load(&conns_freed);
  if (atomic_exchange(&conns_trimmed, n) != n) malloc_trim(0);
#endif
}

static void free_dead(struct worker *w) {
  while (w->dead) {
    struct pconn *pc = w->dead;
    w->dead = pc->again_next;
    free(pc);
    atomic_fetch_add(&conns_freed, 1);
  }
}

static void *worker_run(void *arg) {
  struct worker *w = arg;
  struct epoll_event evs[64];
  time_t last = time(NULL);
  if (w->p->timing) w->timing.mark = cli_thread_cpu_ns();
  while (!atomic_load(&w->p->stop)) {
    int n;
    TLS_TIMED(timing_of(w), sys_epoll, n = epoll_wait(w->ep, evs, 64, w->again ? 0 : 1000));
    for (int i = 0; i < n; i++) {
      void *ptr = evs[i].data.ptr;
      if (ptr == &mark_listen) {
        accept_some(w);
        continue;
      }
      if (ptr == &mark_wake) continue;
      struct pconn *pc = (struct pconn *)(uintptr_t)(evs[i].data.u64 & ~(uint64_t)EV_PLAIN);
      if (pc->dead) continue;
      /* readable, at its end or failed: the next read there is worth a try */
      if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        if (evs[i].data.u64 & EV_PLAIN) pc->c.plain_rd_idle = 0;
        else pc->c.tls_rd_idle = 0;
      }
      if (!pc->in_again) pump(w, pc);
    }
    struct pconn *list = w->again;
    w->again = NULL;
    while (list) {
      struct pconn *pc = list;
      list = pc->again_next;
      pc->in_again = 0;
      if (pc->dead) {
        pc->again_next = w->dead;
        w->dead = pc;
      } else {
        pump(w, pc);
      }
    }
    free_dead(w);
    time_t now = time(NULL);
    if (now != last) {
      last = now;
      expire(w, now);
      free_dead(w);
      heap_give_back();
    }
  }
  /* stop: the relays end now; a TLS peer gets close_notify where it can
   * take it without waiting */
  while (w->conns) {
    struct pconn *pc = w->conns;
    if (pc->c.handshaken && !pc->c.close_sent) {
      int rc = gostx_tls_close(pc->c.tls); /* best effort: the relay ends now either way */
      (void)rc;
    }
    conn_end(w, pc, 0, NULL);
  }
  struct pconn *list = w->again;
  while (list) {
    struct pconn *pc = list;
    list = pc->again_next;
    free(pc);
  }
  w->again = NULL;
  free_dead(w);
  return NULL;
}

/* As many descriptors as the hard limit allows: two per connection. */
static void raise_nofile(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static const char *proxy_form(const struct tls_proxy *p) {
  return p->serve ? "serve" : "connect";
}

/* Listens and starts the workers (the caller blocks the signals first:
 * they inherit its mask). 0, or CLI_EXIT_FAIL after printing, nothing left
 * open. */
static int proxy_start(struct tls_proxy *p) {
  p->listen_fd = cli_listen((struct sockaddr *)&p->listen.sa, p->listen.len, 1024, 0);
  if (p->listen_fd < 0) {
    cli_err("tls: --listen %s: %s", p->listen.text, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  p->reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pthread_mutex_init(&p->reserve_mu, NULL);
  pthread_mutex_init(&p->sess_mu, NULL);
  pthread_mutex_init(&p->cfg_mu, NULL);
  struct sockaddr_storage bound;
  socklen_t blen = sizeof bound;
  char bound_s[80] = "?";
  if (getsockname(p->listen_fd, (struct sockaddr *)&bound, &blen) == 0)
    tls_addr_text((struct sockaddr *)&bound, bound_s, sizeof bound_s);
  p->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  p->ws = calloc(p->threads, sizeof *p->ws);
  p->started = 0;
  if (p->wake < 0 || !p->ws) {
    cli_err("tls: out of memory");
    return CLI_EXIT_FAIL; /* proxy_stop closes what was opened */
  }
  for (unsigned i = 0; i < p->threads; i++) {
    struct worker *w = &p->ws[i];
    w->p = p;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event el = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &mark_listen};
    struct epoll_event ew = {.events = EPOLLIN, .data.ptr = &mark_wake};
    if (w->ep < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, p->listen_fd, &el) < 0 ||
        epoll_ctl(w->ep, EPOLL_CTL_ADD, p->wake, &ew) < 0 ||
        pthread_create(&w->thread, NULL, worker_run, w)) {
      cli_err("tls: cannot start worker %u: %s", i, strerror(errno));
      if (w->ep >= 0) close(w->ep);
      return CLI_EXIT_FAIL;
    }
    p->started++;
  }
  fprintf(stderr, "gostx tls %s: %s%s%slistening on %s, %s %s, %u workers\n", proxy_form(p),
          p->name ? "[" : "", p->name ? p->name : "", p->name ? "] " : "", bound_s,
          p->serve ? "backend" : "upstream", p->target.text, p->started);
  fflush(stderr);
  return 0;
}

/* Stops the workers (their connections end) and closes what proxy_start
 * opened; ok: it had started, its counts are printed. */
static void proxy_stop(struct tls_proxy *p, int ok) {
  atomic_store(&p->stop, 1);
  uint64_t one = 1;
  if (p->wake >= 0 && write(p->wake, &one, sizeof one) < 0) {
    /* the workers see stop within a second anyway */
  }
  for (unsigned i = 0; i < p->started; i++) {
    pthread_join(p->ws[i].thread, NULL);
    close(p->ws[i].ep);
  }
  if (p->wake >= 0) close(p->wake);
  close(p->listen_fd);
  if (p->reserve_fd >= 0) close(p->reserve_fd);
  pthread_mutex_destroy(&p->reserve_mu);
  pthread_mutex_destroy(&p->sess_mu);
  pthread_mutex_destroy(&p->cfg_mu);
  gostx_memzero(p->sess, sizeof p->sess);
  free(p->ws);
  p->ws = NULL;
  if (ok)
    fprintf(stderr, "gostx tls %s: %s%s%sstopped: %lu connections, %lu failed, %lu resumed\n",
            proxy_form(p), p->name ? "[" : "", p->name ? p->name : "", p->name ? "] " : "",
            (unsigned long)atomic_load(&p->accepted), (unsigned long)atomic_load(&p->failed),
            (unsigned long)atomic_load(&p->resumed));
}

int tls_proxies_run(struct tls_proxy *const *ps, size_t n, tls_reload_fn reload, void *user) {
  raise_nofile();
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1); /* before the workers: heap_give_back reaches all */
#endif
  /* the workers inherit a mask without the signals: only sigwait below
   * takes them; SIGPIPE is ignored (a peer gone shows as EPIPE) */
  signal(SIGPIPE, SIG_IGN);
  sigset_t sigs, old;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &sigs, &old);
  int rc = CLI_EXIT_OK;
  size_t up = 0;
  for (; up < n && !rc; up++) {
    ps[up]->wake = -1;
    rc = proxy_start(ps[up]);
    if (rc && ps[up]->listen_fd >= 0) proxy_stop(ps[up], 0);
  }
  if (rc) up--; /* the one that failed is stopped already */
  int sig;
  while (!rc && sigwait(&sigs, &sig) == 0 && sig != SIGINT && sig != SIGTERM)
    if (sig == SIGHUP && reload) reload(user);
  for (size_t i = 0; i < up; i++) proxy_stop(ps[i], !rc);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}
