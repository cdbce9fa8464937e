/* The OCSP load of bench/ocsp_speed.sh: POSTs the request files given,
 * round robin, COUNT times over CONC connections at once, one connection
 * per request (HTTP/1.0), and prints how many came back 200 with an
 * OCSPResponse that says successful. With --keep-alive first, HTTP/1.1
 * asking for persistent connections: a connection is used again while the
 * server keeps it open (Content-Length framing), opened anew when it
 * closes it. Same arguments and output as bench/ocsp_load.py; this one is
 * one thread on epoll, so on one CPU it keeps a server's accept queue full
 * (the Python load could not keep up with gostx, which then slept and woke
 * once per request: work a loaded responder does not do).
 *   usage: ocsp_load [--keep-alive] PORT COUNT CONC REQ.der... */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONC 256
#define MAX_REQS 64
#define BUF_MAX 65536
#define TIMEOUT_MS 30000

struct slot {
  int fd;
  size_t sent;    /* bytes of the request written */
  size_t got;     /* bytes of the reply read */
  const char *msg;
  size_t msg_len;
  char buf[BUF_MAX];
};

static char *msgs[MAX_REQS];
static size_t msg_lens[MAX_REQS];
static int nmsgs, keep_alive, epfd;
static struct sockaddr_in addr;
static long count, issued, ok;

static void die(const char *what) {
  perror(what);
  exit(1);
}

static void load_request(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) die(path);
  static unsigned char body[16384];
  size_t n = fread(body, 1, sizeof body, f);
  fclose(f);
  const char *version =
      keep_alive ? "HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive" : "HTTP/1.0";
  char head[256];
  int h = snprintf(head, sizeof head,
                   "POST / %s\r\nContent-Type: application/ocsp-request\r\nContent-Length: %zu\r\n\r\n",
                   version, n);
  char *m = malloc((size_t)h + n);
  if (!m) die("malloc");
  memcpy(m, head, (size_t)h);
  memcpy(m + h, body, n);
  msgs[nmsgs] = m;
  msg_lens[nmsgs++] = (size_t)h + n;
}

/* 200, and an OCSPResponse SEQUENCE (2- or 4-byte header) whose
 * responseStatus ENUMERATED is 0 */
static int successful(const char *reply, size_t len, size_t body_at) {
  if (len < 12 || (memcmp(reply, "HTTP/1.0 200", 12) && memcmp(reply, "HTTP/1.1 200", 12)))
    return 0;
  const unsigned char *b = (const unsigned char *)reply + body_at;
  size_t bl = len - body_at;
  static const unsigned char status0[3] = {0x0a, 0x01, 0x00};
  return (bl >= 5 && !memcmp(b + 2, status0, 3)) || (bl >= 7 && !memcmp(b + 4, status0, 3));
}

/* Where the body starts (after the blank line), 0 while the head is incomplete. */
static size_t body_start(const struct slot *s) {
  const char *e = memmem(s->buf, s->got, "\r\n\r\n", 4);
  return e ? (size_t)(e - s->buf) + 4 : 0;
}

static long header_value(const struct slot *s, size_t head_len, const char *name) {
  size_t nl = strlen(name);
  for (size_t i = 0; i + nl < head_len; i++)
    if ((i == 0 || s->buf[i - 1] == '\n') && !strncasecmp(s->buf + i, name, nl)) return (long)(i + nl);
  return -1;
}

/* The next request on s (a new connection when s has none); 0 when all were issued. */
static int start(struct slot *s) {
  if (issued >= count) return 0;
  s->msg = msgs[issued % nmsgs];
  s->msg_len = msg_lens[issued % nmsgs];
  issued++;
  s->sent = s->got = 0;
  if (s->fd < 0) {
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) die("socket");
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(s->fd, (struct sockaddr *)&addr, sizeof addr) && errno != EINPROGRESS) die("connect");
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = s};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &ev)) die("epoll_ctl");
  } else {
    struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = s};
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev)) die("epoll_ctl");
  }
  return 1;
}

static void drop(struct slot *s) {
  close(s->fd); /* also leaves the epoll set */
  s->fd = -1;
}

/* The reply is complete (EOF, or Content-Length reached when kept): count it,
 * then the next request. A kept connection the server closed before
 * answering is retried once on a new one, as the Python load does. */
static int finish(struct slot *s, int eof) {
  size_t at = body_start(s);
  if (keep_alive && eof && s->got == 0) { /* closed while idle: once more */
    drop(s);
    issued--;
    return start(s);
  }
  if (at && successful(s->buf, s->got, at)) ok++;
  int keep = 0;
  if (keep_alive && !eof && at) {
    long c = header_value(s, at, "connection:");
    keep = !(c >= 0 && !strncasecmp(s->buf + c + strspn(s->buf + c, " "), "close", 5));
  }
  if (!keep) drop(s);
  return start(s);
}

static int step(struct slot *s, uint32_t events) {
  if (s->sent < s->msg_len && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    ssize_t w = send(s->fd, s->msg + s->sent, s->msg_len - s->sent, MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN) return finish(s, 1);
    if (w > 0) s->sent += (size_t)w;
    if (s->sent == s->msg_len) {
      struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
      if (epoll_ctl(epfd, EPOLL_CTL_MOD, s->fd, &ev)) die("epoll_ctl");
    }
  }
  if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP))) return 1;
  for (;;) {
    if (s->got == BUF_MAX) return finish(s, 1); /* larger than any reply: counted as failed */
    ssize_t r = recv(s->fd, s->buf + s->got, BUF_MAX - s->got, 0);
    if (r == 0 || (r < 0 && errno != EAGAIN)) return finish(s, 1);
    if (r < 0) return 1;
    s->got += (size_t)r;
    if (keep_alive) {
      size_t at = body_start(s);
      long c = at ? header_value(s, at, "content-length:") : -1;
      if (c >= 0 && s->got >= at + (size_t)strtoul(s->buf + c, NULL, 10)) return finish(s, 0);
    }
  }
}

int main(int argc, char **argv) {
  int a = 1;
  if (a < argc && !strcmp(argv[a], "--keep-alive")) keep_alive = 1, a++;
  if (argc - a < 4) {
    fprintf(stderr, "usage: ocsp_load [--keep-alive] PORT COUNT CONC REQ.der...\n");
    return 2;
  }
  int port = atoi(argv[a]), conc = atoi(argv[a + 2]);
  count = atol(argv[a + 1]);
  if (conc < 1 || conc > MAX_CONC || argc - a - 3 > MAX_REQS) {
    fprintf(stderr, "ocsp_load: 1 <= CONC <= %d, at most %d requests\n", MAX_CONC, MAX_REQS);
    return 2;
  }
  for (int i = a + 3; i < argc; i++) load_request(argv[i]);
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) die("epoll_create1");
  static struct slot slots[MAX_CONC];
  int active = 0;
  for (int i = 0; i < conc; i++) {
    slots[i].fd = -1;
    active += start(&slots[i]);
  }
  struct epoll_event evs[MAX_CONC];
  while (active > 0) {
    int n = epoll_wait(epfd, evs, MAX_CONC, TIMEOUT_MS);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fprintf(stderr, "ocsp_load: no reply in %d ms\n", TIMEOUT_MS);
      break;
    }
    for (int i = 0; i < n; i++)
      if (!step(evs[i].data.ptr, evs[i].events)) active--;
  }
  printf("%ld\n", ok);
  return 0;
}
