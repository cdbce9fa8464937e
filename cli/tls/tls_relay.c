/* gostx tls: the relay of one connection (tls_conn_pump) between a GOST
 * TLS side and a plain side, and the addresses both sides take. The relay
 * is driven by whoever waits for its sockets: tls_proxy.c's epoll workers
 * (serve, connect), tls_client.c's poll loop (client). A relay holds at most
 * TLS_CONN_BUF of plaintext each way and reads no more while it is unsent,
 * so a slow peer stalls only its own connection. Each direction stops only
 * on its own destination: the TLS side is read while its output waits (two
 * relays facing each other, both sending, would otherwise wait for each
 * other forever), as long as the plain side takes what is read. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include "tls_cli.h"

/* ---- addresses ---- */

int tls_addr_parse(const char *opt, const char *s, int passive, int port0_ok, struct tls_addr *a) {
  memset(a, 0, sizeof *a);
  snprintf(a->text, sizeof a->text, "%s", s);
  const char *port;
  size_t host_len;
  if (s[0] == '[') {
    const char *end = strchr(s, ']');
    if (!end || end[1] != ':')
      return cli_usage("%s '%s': an IPv6 address is written [ADDR]:PORT", opt, s);
    host_len = (size_t)(end - s - 1);
    port = end + 2;
    s++;
  } else {
    const char *colon = strrchr(s, ':');
    if (!colon) return cli_usage("%s '%s': no port (HOST:PORT)", opt, s);
    if (memchr(s, ':', (size_t)(colon - s)))
      return cli_usage("%s '%s': an IPv6 address is written [ADDR]:PORT", opt, s);
    host_len = (size_t)(colon - s);
    port = colon + 1;
  }
  if (!host_len) return cli_usage("%s '%s': no host (HOST:PORT)", opt, a->text);
  if (host_len >= sizeof a->host) return cli_usage("%s: host name too long", opt);
  memcpy(a->host, s, host_len);
  uint64_t pn;
  char what[96];
  snprintf(what, sizeof what, "%s '%.40s' port", opt, a->text);
  if (cli_uint(what, port, port0_ok ? 0 : 1, 65535, &pn)) return CLI_EXIT_USAGE;
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  char port_s[8];
  snprintf(port_s, sizeof port_s, "%u", (unsigned)pn);
  int rc = getaddrinfo(a->host, port_s, &hints, &res);
  if (rc || !res)
    return cli_usage("%s '%s': cannot resolve %s: %s", opt, a->text, a->host,
                     rc ? gai_strerror(rc) : "no address");
  memcpy(&a->sa, res->ai_addr, res->ai_addrlen);
  a->len = res->ai_addrlen;
  freeaddrinfo(res);
  return 0;
}

void tls_addr_text(const struct sockaddr *sa, char *out, size_t cap) {
  char h[INET6_ADDRSTRLEN] = "?";
  unsigned port = 0;
  if (sa->sa_family == AF_INET6) {
    const struct sockaddr_in6 *s6 = (const void *)sa;
    inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof h);
    port = ntohs(s6->sin6_port);
    snprintf(out, cap, "[%s]:%u", h, port);
    return;
  }
  if (sa->sa_family == AF_INET) {
    const struct sockaddr_in *s4 = (const void *)sa;
    inet_ntop(AF_INET, &s4->sin_addr, h, sizeof h);
    port = ntohs(s4->sin_port);
  }
  snprintf(out, cap, "%s:%u", h, port);
}

int tls_connect_nb(const struct tls_addr *a, int *pending) {
  int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  *pending = 0;
  if (connect(fd, (const struct sockaddr *)&a->sa, a->len) < 0) {
    if (errno != EINPROGRESS) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    *pending = 1;
  }
  return fd;
}

/* ---- the relay ---- */

/* --timing: the TLS side's transport, as lib/tls's own on the fd, timed. */
static ssize_t timed_read(void *user, uint8_t *buf, size_t len) {
  struct tls_conn *c = user;
  ssize_t n;
  TLS_TIMED(c->timing, sys_tls, n = read(c->tls_fd, buf, len));
  return n;
}

static ssize_t timed_write(void *user, const uint8_t *buf, size_t len) {
  struct tls_conn *c = user;
  ssize_t n;
  TLS_TIMED(c->timing, sys_tls, n = write(c->tls_fd, buf, len));
  return n;
}

void tls_conn_time(struct tls_conn *c, struct tls_timing *t) {
  c->timing = t;
  gostx_tls_set_io(c->tls, timed_read, timed_write, c);
}

void tls_conn_init(struct tls_conn *c, gostx_tls *tls, int tls_fd, int in_fd, int out_fd) {
  memset(c, 0, sizeof *c);
  c->t2p_cap = TLS_CONN_BUF;
  c->tls = tls;
  c->tls_fd = tls_fd;
  c->in_fd = in_fd;
  c->out_fd = out_fd;
}

static const struct {
  int num;
  const char *name;
} alerts[] = {{0, "close_notify"}, {10, "unexpected_message"}, {20, "bad_record_mac"},
              {22, "record_overflow"}, {40, "handshake_failure"}, {42, "bad_certificate"},
              {43, "unsupported_certificate"}, {44, "certificate_revoked"},
              {45, "certificate_expired"}, {46, "certificate_unknown"},
              {47, "illegal_parameter"}, {48, "unknown_ca"}, {49, "access_denied"},
              {50, "decode_error"}, {51, "decrypt_error"}, {70, "protocol_version"},
              {71, "insufficient_security"}, {80, "internal_error"},
              {86, "inappropriate_fallback"}, {90, "user_canceled"}, {100, "no_renegotiation"},
              {109, "missing_extension"}, {110, "unsupported_extension"},
              {112, "unrecognized_name"}, {113, "bad_certificate_status_response"},
              {115, "unknown_psk_identity"}, {116, "certificate_required"},
              {120, "no_application_protocol"}};

void tls_alert_text(const gostx_tls *tls, char *out, size_t cap) {
  int sent = 0, a = gostx_tls_alert(tls, &sent);
  *out = 0;
  if (a < 0) return;
  const char *name = "unknown";
  for (size_t i = 0; i < sizeof alerts / sizeof alerts[0]; i++)
    if (alerts[i].num == a) name = alerts[i].name;
  snprintf(out, cap, "alert %s (%d) %s", name, a, sent ? "sent" : "received");
}

static int fail(struct tls_conn *c, const char *fmt, const char *detail) {
  snprintf(c->why, sizeof c->why, fmt, detail);
  return TLS_PUMP_FAIL;
}

/* A TLS call's result: progress (1), waiting (0, c->want set) or failure
 * (-1, c->why set). */
static int tls_result(struct tls_conn *c, int rc, const char *what) {
  if (rc == 0) return 1;
  if (rc == GOSTX_TLS_WANT_READ) {
    c->want |= TLS_WANT_TLS_RD;
    return 0;
  }
  if (rc == GOSTX_TLS_WANT_WRITE) {
    c->want |= TLS_WANT_TLS_WR;
    return 0;
  }
  char alert[96];
  tls_alert_text(c->tls, alert, sizeof alert);
  const char *err = gostx_tls_error(c->tls);
  snprintf(c->why, sizeof c->why, "%s failed: %s%s%s", what,
           err && *err ? err : gostx_strerror(rc), *alert ? "; " : "", alert);
  return -1;
}

/* Whether a non-blocking connect of fd finished: 1 yes, 0 not yet, -1
 * failed (errno). */
static int connect_done(int fd) {
  struct pollfd p = {fd, POLLOUT, 0};
  if (poll(&p, 1, 0) <= 0) return 0;
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) return -1;
  if (err) {
    errno = err;
    return -1;
  }
  return 1;
}

/* The buffer at *buf (cap bytes) allocated when absent: 0, or -1 (c->why). */
static int need_buf(struct tls_conn *c, uint8_t **buf, size_t cap) {
  if (!*buf && !(*buf = malloc(cap))) {
    fail(c, "%s", "out of memory");
    return -1;
  }
  return 0;
}

static void drop_buf(uint8_t **buf, size_t cap, int lent) {
  if (!*buf) return;
  gostx_memzero(*buf, cap); /* plaintext */
  if (lent) return;
  free(*buf);
  *buf = NULL;
}

void tls_conn_free_buffers(struct tls_conn *c) {
  drop_buf(&c->p2t, TLS_CONN_BUF, 0);
  drop_buf(&c->t2p, c->t2p_cap, c->t2p_lent);
}

/* The relay waits: the buffers that hold nothing go back (thousands of idle
 * connections hold no plaintext buffers). */
static int pump_wait(struct tls_conn *c) {
  if (c->p2t_off == c->p2t_len) drop_buf(&c->p2t, TLS_CONN_BUF, 0);
  if (c->t2p_off == c->t2p_len && !c->t2p_lent) drop_buf(&c->t2p, c->t2p_cap, 0);
  return TLS_PUMP_WAIT;
}

/* Rounds of progress one pump makes before it lets the others run. */
#define PUMP_ROUNDS 32

int tls_conn_pump(struct tls_conn *c) {
  c->want = 0;
  if (c->tls_connecting) {
    int r = connect_done(c->tls_fd);
    if (r < 0) return fail(c, "connect: %s", strerror(errno));
    if (!r) {
      c->want = TLS_WANT_TLS_WR;
      return pump_wait(c);
    }
    c->tls_connecting = 0;
  }
  for (int round = 0; round < PUMP_ROUNDS; round++) {
    int progress = 0, r;
    c->want = 0;
    if (!c->handshaken) {
      int hs;
      TLS_TIMED(c->timing, tls_calls, hs = gostx_tls_handshake(c->tls));
      r = tls_result(c, hs, "handshake");
      if (r < 0) return TLS_PUMP_FAIL;
      if (!r) return pump_wait(c);
      c->handshaken = 1;
      if (c->on_ready && c->on_ready(c)) return TLS_PUMP_FAIL;
      progress = 1;
    }
    if (c->plain_connecting) {
      r = connect_done(c->in_fd);
      if (r < 0) return fail(c, "backend connect: %s", strerror(errno));
      if (!r) {
        /* the TLS side waits: nothing to relay to yet */
        c->want = TLS_WANT_PLAIN_WR;
        return pump_wait(c);
      }
      c->plain_connecting = 0;
    }
    /* TLS -> plain: what was opened goes out first */
    if (c->t2p_off < c->t2p_len) {
      ssize_t n;
      TLS_TIMED(c->timing, sys_plain, n = write(c->out_fd, c->t2p + c->t2p_off, c->t2p_len - c->t2p_off));
      if (n > 0) {
        c->t2p_off += (size_t)n;
        c->to_plain += (uint64_t)n;
        progress = 1;
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        c->want |= TLS_WANT_PLAIN_WR;
      } else if (n < 0 && errno != EINTR) {
        return fail(c, "write to the plain side: %s", strerror(errno));
      }
    }
    if (c->t2p_off == c->t2p_len && !c->tls_eof && c->tls_rd_idle) {
      c->want |= TLS_WANT_TLS_RD;
    } else if (c->t2p_off == c->t2p_len && !c->tls_eof) {
      /* the records received, opened into one buffer while it has room for
       * one more and the socket has data: one write for them (the socket
       * is read until it has nothing, then not before the driver says) */
      c->t2p_off = c->t2p_len = 0;
      if (need_buf(c, &c->t2p, c->t2p_cap)) return TLS_PUMP_FAIL;
      do {
        size_t got = 0;
        int rc;
        TLS_TIMED(c->timing, tls_calls,
                  rc = gostx_tls_read(c->tls, c->t2p + c->t2p_len, c->t2p_cap - c->t2p_len, &got));
        if (rc == GOSTX_TLS_CLOSED) {
          c->tls_eof = 1;
          progress = 1;
          break;
        }
        r = tls_result(c, rc, "read");
        if (r < 0) return TLS_PUMP_FAIL;
        if (!r) {
          c->tls_rd_idle = rc == GOSTX_TLS_WANT_READ;
          break;
        }
        c->t2p_len += got;
        progress = 1;
      } while (c->t2p_cap - c->t2p_len >= TLS_CONN_RECORD);
    }
    if (c->tls_eof && c->t2p_off == c->t2p_len && !c->plain_shut) {
      /* the peer's close_notify: the plain side sees end of data */
      if (!c->plain_blocking) shutdown(c->out_fd, SHUT_WR);
      c->plain_shut = 1;
      if (c->exit_on_peer_close) c->plain_eof = 1, c->p2t_off = c->p2t_len;
      progress = 1;
    }
    /* plain -> TLS, and what a read left queued (records the socket did
     * not take, a KeyUpdate's answer): reading never waits for it, so it
     * is sent here and waited for (EPOLLOUT) beside the reads */
    if (c->p2t_off < c->p2t_len || c->flush_pending || gostx_tls_unsent(c->tls)) {
      size_t put = 0;
      int wr;
      TLS_TIMED(c->timing, tls_calls,
                wr = gostx_tls_write(c->tls, c->p2t + c->p2t_off, c->p2t_len - c->p2t_off, &put));
      r = tls_result(c, wr, "write");
      if (r < 0) return TLS_PUMP_FAIL;
      c->p2t_off += put;
      c->to_tls += put;
      /* all taken but not all sent: a later call (of length 0) flushes */
      c->flush_pending = !r;
      if (put || r) progress = 1;
    }
    if (c->p2t_off == c->p2t_len && !c->plain_eof && !c->plain_rd_idle &&
        (!c->plain_blocking || c->plain_rd_ready)) {
      if (need_buf(c, &c->p2t, TLS_CONN_BUF)) return TLS_PUMP_FAIL;
      ssize_t n;
      TLS_TIMED(c->timing, sys_plain, n = read(c->in_fd, c->p2t, TLS_CONN_BUF));
      c->plain_rd_ready = 0;
      if (n > 0) {
        c->p2t_off = 0;
        c->p2t_len = (size_t)n;
        progress = 1;
      } else if (n == 0) {
        c->plain_eof = 1;
        progress = 1;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        c->want |= TLS_WANT_PLAIN_RD;
        c->plain_rd_idle = 1;
      } else if (errno != EINTR) {
        return fail(c, "read from the plain side: %s", strerror(errno));
      }
    } else if (c->p2t_off == c->p2t_len && !c->plain_eof) {
      c->want |= TLS_WANT_PLAIN_RD; /* after the driver's poll */
    }
    if (c->plain_eof && c->p2t_off == c->p2t_len && !c->flush_pending && !c->close_sent &&
        (!c->hold_close || c->tls_eof)) {
      int cl;
      TLS_TIMED(c->timing, tls_calls, cl = gostx_tls_close(c->tls));
      r = tls_result(c, cl, "close_notify");
      if (r < 0) return TLS_PUMP_FAIL;
      if (r) {
        c->close_sent = 1;
        shutdown(c->tls_fd, SHUT_WR);
        progress = 1;
      }
    }
    if (c->close_sent && c->plain_shut) return TLS_PUMP_DONE;
    if (!progress) return pump_wait(c);
  }
  return TLS_PUMP_AGAIN;
}
