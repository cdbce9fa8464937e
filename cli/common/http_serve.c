/* HTTP services' connections: one epoll loop per worker (http_serve.h).
 * Before this, each worker served one connection at a time with blocking
 * reads, so as many silent connections as workers stopped the service for
 * the read timeout, and a worker slept and woke for each request of a
 * kept connection. Here a connection's bytes are read when they come and
 * the handler answers once a request is whole.
 * The fast path of a request on its own connection (what OCSP clients
 * send): accept, read (the listening socket defers the accept until the
 * request's bytes are in), answer, write, close: no epoll_ctl, no
 * allocation. */
#define _GNU_SOURCE
#include "http_serve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CONN_MAX 4096   /* a worker's connections at once; more wait in the backlog */
#define ACCEPT_BATCH 64 /* accepts per wake-up before other connections get a turn */
#define EVENTS 64
#define CONN_BUF_MIN 2048
#define SPARE_MAX 64    /* connection records kept for reuse */

typedef struct conn {
  int fd;
  uint32_t events; /* the interest registered; 0: not in the epoll set */
  uint8_t *buf;    /* an incomplete request's bytes (cap 0: none held) */
  size_t have, cap;
  uint8_t *out; /* a reply the socket did not take at once */
  size_t out_off, out_len;
  int close_after; /* close once out is sent */
  time_t deadline; /* closed at this second unless a request completes */
  size_t slot;     /* in the worker's table */
} conn;

typedef struct worker {
  const http_server *s;
  int ep, listening;
  void *scratch;
  uint8_t *rbuf; /* request_max bytes: where a connection without a buffer reads */
  conn **conns;  /* open, for the sweep */
  size_t n;
  conn *spare[SPARE_MAX];
  size_t nspare;
  time_t now;
} worker;

/* epoll data for the two sockets that are not connections */
static char listen_tag, stop_tag;

static time_t now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return t.tv_sec;
}

/* The worker's own buffers, at its start: without them it cannot serve. A
 * connection's allocations are not made through it: one that fails drops
 * that connection, and the others are served on. */
static void *must(void *p) {
  if (!p) {
    cli_err("out of memory");
    exit(CLI_EXIT_FAIL);
  }
  return p;
}

static void conn_close(worker *w, conn *c) {
  close(c->fd); /* also leaves the epoll set */
  free(c->buf), free(c->out);
  w->conns[c->slot] = w->conns[--w->n];
  w->conns[c->slot]->slot = c->slot;
  if (w->nspare < SPARE_MAX) w->spare[w->nspare++] = c;
  else free(c);
}

static conn *conn_open(worker *w, int fd) {
  conn *c = w->nspare ? w->spare[--w->nspare] : malloc(sizeof *c);
  if (!c) {
    close(fd);
    return NULL;
  }
  *c = (conn){.fd = fd, .deadline = w->now + w->s->request_seconds, .slot = w->n};
  w->conns[w->n++] = c;
  return c;
}

/* Registers the interest c needs now: 0, or -1 (then c is closed). */
static int want(worker *w, conn *c, uint32_t events) {
  if (c->events == events) return 0;
  struct epoll_event ev = {.events = events, .data.ptr = c};
  if (epoll_ctl(w->ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev)) {
    conn_close(w, c);
    return -1;
  }
  c->events = events;
  return 0;
}

/* The listening socket in (on) or out of the worker's epoll set. */
static void accepting(worker *w, int on) {
  struct epoll_event ev = {.events = EPOLLIN | EPOLLEXCLUSIVE, .data.ptr = &listen_tag};
  if (on != w->listening && !epoll_ctl(w->ep, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, w->s->listen_fd, &ev))
    w->listening = on;
}

/* Shuts the write side after a last reply (its FIN in the reply's segment,
 * held back by MSG_MORE) and closes. */
static void conn_finish(worker *w, conn *c) {
  shutdown(c->fd, SHUT_WR);
  conn_close(w, c);
}

static void replied(worker *w) {
  if (w->s->replied) w->s->replied(w->s->ctx);
}

/* 0 sent whole, 1 the rest held in c->out, -1 failed. */
static int send_reply(conn *c, const http_reply *r) {
  struct msghdr m = {.msg_iov = (struct iovec *)r->iov, .msg_iovlen = 2};
  size_t total = r->iov[0].iov_len + r->iov[1].iov_len;
  ssize_t sent;
  do sent = sendmsg(c->fd, &m, MSG_NOSIGNAL | (r->keep ? 0 : MSG_MORE));
  while (sent < 0 && errno == EINTR);
  if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
  size_t done = sent < 0 ? 0 : (size_t)sent;
  if (done == total) return 0;
  c->out = malloc(total - done);
  if (!c->out) return -1;
  c->out_len = total - done, c->out_off = 0, c->close_after = !r->keep;
  size_t at = 0;
  for (int i = 0; i < 2; i++) { /* what the socket did not take, of each part */
    size_t len = r->iov[i].iov_len, skip = done < len ? done : len;
    if (len > skip) memcpy(c->out + at, (const uint8_t *)r->iov[i].iov_base + skip, len - skip);
    at += len - skip, done -= skip;
  }
  return 1;
}

/* The requests in base[0..have) answered while they are whole; what is
 * left stays in c->buf. Returns 0, or -1 when c was closed. */
static int answer(worker *w, conn *c, uint8_t *base, size_t have) {
  const http_server *s = w->s;
  size_t off = 0;
  while (!c->out && off < have) {
    size_t used = 0;
    http_reply r;
    if (!s->handle(s->ctx, w->scratch, base + off, have - off, &used, &r)) {
      if (have - off >= s->request_max) return conn_close(w, c), -1; /* the handler must answer there */
      break;
    }
    if (used > have - off) used = have - off;
    if (!used) r.keep = 0; /* a reply that took nothing cannot be followed */
    off += used;
    int st = send_reply(c, &r);
    if (st < 0) return replied(w), conn_close(w, c), -1;
    if (st == 0) {
      replied(w);
      if (!r.keep) return conn_finish(w, c), -1;
    }
    c->deadline = w->now + s->request_seconds;
  }
  size_t rest = c->close_after ? 0 : have - off;
  if (base == c->buf) {
    if (off && rest) memmove(c->buf, c->buf + off, rest);
  } else if (rest) { /* from the worker's buffer into one of its own */
    size_t cap = rest < CONN_BUF_MIN ? CONN_BUF_MIN : rest;
    c->buf = malloc(cap);
    if (!c->buf) return conn_close(w, c), -1;
    c->cap = cap;
    memcpy(c->buf, base + off, rest);
  }
  c->have = rest;
  if (!rest && c->cap) free(c->buf), c->buf = NULL, c->cap = 0; /* an idle connection holds nothing */
  return want(w, c, c->out ? EPOLLOUT : EPOLLIN);
}

static void on_readable(worker *w, conn *c) {
  const http_server *s = w->s;
  uint8_t *base = w->rbuf;
  size_t cap = s->request_max;
  if (c->have) {
    if (c->have == c->cap) {
      if (c->cap >= s->request_max) {
        conn_close(w, c);
        return;
      }
      size_t grown = c->cap * 2 < s->request_max ? c->cap * 2 : s->request_max;
      uint8_t *more = realloc(c->buf, grown);
      if (!more) {
        conn_close(w, c);
        return;
      }
      c->buf = more, c->cap = grown;
    }
    base = c->buf, cap = c->cap;
  }
  ssize_t r;
  do r = recv(c->fd, base + c->have, cap - c->have, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
    (void)want(w, c, EPOLLIN);
    return;
  }
  if (r <= 0) { /* gone, with or without half a request */
    conn_close(w, c);
    return;
  }
  (void)answer(w, c, base, c->have + (size_t)r);
}

static void on_writable(worker *w, conn *c) {
  ssize_t r;
  do r = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (r < 0) {
    replied(w);
    conn_close(w, c);
    return;
  }
  c->out_off += (size_t)r;
  if (c->out_off < c->out_len) return;
  free(c->out), c->out = NULL;
  replied(w);
  if (c->close_after) {
    conn_finish(w, c);
    return;
  }
  (void)answer(w, c, c->buf, c->have); /* requests that came meanwhile */
}

static void accept_some(worker *w) {
  for (int i = 0; i < ACCEPT_BATCH; i++) {
    if (w->n == CONN_MAX) { /* back at the next sweep */
      accepting(w, 0);
      return;
    }
    int fd = accept4(w->s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      /* EAGAIN: another worker took it. Out of descriptors or memory: this
       * worker stops accepting until its next sweep, a second on */
      if (errno != EAGAIN && errno != EWOULDBLOCK) accepting(w, 0);
      return;
    }
    conn *c = conn_open(w, fd);
    if (!c) { /* out of memory: as out of descriptors above */
      accepting(w, 0);
      return;
    }
    on_readable(w, c); /* its bytes are most likely there */
  }
}

/* Closes the connections past their deadline; accepting again. */
static void sweep(worker *w) {
  for (size_t i = w->n; i-- > 0;)
    if (w->conns[i]->deadline <= w->now) conn_close(w, w->conns[i]);
  if (w->n < CONN_MAX) accepting(w, 1);
}

void *http_serve_worker(void *arg) {
  worker w = {.s = arg};
  const http_server *s = w.s;
  w.ep = epoll_create1(EPOLL_CLOEXEC);
  if (w.ep < 0) {
    cli_err("epoll: %s", strerror(errno));
    exit(CLI_EXIT_FAIL);
  }
  w.scratch = must(malloc(s->scratch_size));
  w.rbuf = must(malloc(s->request_max));
  w.conns = must(malloc(CONN_MAX * sizeof *w.conns));
  w.now = now_seconds();
  accepting(&w, 1);
  if (s->stop_fd >= 0) {
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &stop_tag};
    epoll_ctl(w.ep, EPOLL_CTL_ADD, s->stop_fd, &ev);
  }
  time_t next_sweep = w.now + 1;
  for (;;) {
    struct epoll_event ev[EVENTS];
    int n = epoll_wait(w.ep, ev, EVENTS, w.n || !w.listening ? 1000 : -1);
    w.now = now_seconds();
    for (int i = 0; i < n; i++) {
      void *p = ev[i].data.ptr;
      if (p == &stop_tag) {
        while (w.n) conn_close(&w, w.conns[w.n - 1]);
        for (size_t j = 0; j < w.nspare; j++) free(w.spare[j]);
        free(w.conns), free(w.rbuf), free(w.scratch);
        close(w.ep);
        return NULL;
      }
      if (p == &listen_tag) accept_some(&w);
      else if (((conn *)p)->out) on_writable(&w, p);
      else on_readable(&w, p);
    }
    if (w.now >= next_sweep) sweep(&w), next_sweep = w.now + 1;
  }
}
