/* gostx ts serve: the TSA over HTTP (RFC 3161 section 3.4): HTTP/1.1
 * POST of an application/timestamp-query, answered with an
 * application/timestamp-reply (a token or a rejection: a query the TSA
 * refuses still gets a TimeStampResp), one request per connection. The
 * workers accept on one listening socket each in turn; a request's size
 * and the time its bytes may take are bounded; SIGTERM or SIGINT stops
 * them (the requests in progress are finished). The serial file is
 * shared under its lock (ts_serial_next), with other processes too. */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ts_cli.h"

#define HEAD_MAX 8192   /* the request line and headers */
#define IO_SECONDS 10   /* a client slower than this is dropped */
#define THREADS_MAX 256

typedef struct server {
  ts_tsa tsa;
  int fd;           /* listening */
  int stop[2];      /* a pipe: readable once the workers are to stop */
  int quiet;
} server;

static const cli_opt serve_opts[] = {
    {"port", 0, CLI_ARG, 1},    {"bind", 0, CLI_ARG, 2},     {"inkey", 0, CLI_PATH, 3},
    {"signer", 0, CLI_PATH, 4}, {"chain", 0, CLI_PATH, 5},   {"serial", 0, CLI_PATH, 6},
    {"policy", 0, CLI_ARG, 7},  {"accuracy", 0, CLI_ARG, 8}, {"threads", 0, CLI_ARG, 9},
    {"passin", 0, CLI_ARG, 10}, {"tsa_name", 0, CLI_NOARG, 11}, {"quiet", 'q', CLI_NOARG, 12},
    {"help", 'h', CLI_NOARG, 13}, {NULL, 0, 0, 0},
};

static void serve_help(void) {
  printf("Usage: gostx ts serve -port N [-bind ADDR] -signer CERT -inkey KEY [-passin ARG]\n"
         "                      [-chain CERTS] -serial FILE [-policy OID] [-accuracy SPEC]\n"
         "                      [-tsa_name] [-threads N] [-quiet]\n"
         "\n"
         "A TSA over HTTP (RFC 3161 section 3.4): POST with Content-Type\n"
         "application/timestamp-query, answered 200 with an application/timestamp-reply\n"
         "(a token, or a rejection naming the failure). -bind 127.0.0.1 by default;\n"
         "-port 0 takes a free port, said on stderr (\"listening on ADDR:PORT\").\n"
         "-threads: workers (default: one per CPU). Queries over %d bytes get 413;\n"
         "other methods 405, other content types 415. SIGTERM or SIGINT stops it.\n",
         TS_QUERY_MAX);
}

static int send_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    c += w, n -= (size_t)w;
  }
  return 0;
}

/* An HTTP error reply; 0, so that handle can `return http_error(...)`. */
static int http_error(int fd, int code, const char *why) {
  char msg[256];
  int n = snprintf(msg, sizeof msg,
                   "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n%s\n",
                   code, why, strlen(why) + 1, why);
  (void)send_all(fd, msg, (size_t)n);
  return 0;
}

/* The value of header name in the head (lines after the request line),
 * its length in *len; NULL when absent. */
static const char *header(const char *head, const char *name, size_t *len) {
  size_t nl = strlen(name);
  for (const char *l = strstr(head, "\r\n"); l && l[2]; l = strstr(l + 2, "\r\n")) {
    const char *h = l + 2;
    if (!strncasecmp(h, name, nl) && h[nl] == ':') {
      h += nl + 1;
      while (*h == ' ' || *h == '\t') h++;
      *len = strcspn(h, "\r");
      while (*len && (h[*len - 1] == ' ' || h[*len - 1] == '\t')) (*len)--;
      return h;
    }
  }
  return NULL;
}

/* Reads the head into buf (NUL-terminated); the body bytes read with it
 * are at *body, *have of them. 0, or the HTTP status to refuse with (0
 * with *have SIZE_MAX: the client went away). */
/* Past the connection's deadline: a client that sends a byte now and
 * then is dropped as one that sends nothing. */
static int late(const struct timespec *start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec - start->tv_sec > IO_SECONDS;
}

static int read_head(int fd, char *buf, size_t cap, char **body, size_t *have,
                     const struct timespec *start) {
  size_t n = 0;
  for (;;) {
    if (late(start)) return *have = SIZE_MAX, 0;
    ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return *have = SIZE_MAX, 0;
    n += (size_t)r;
    buf[n] = 0;
    char *end = strstr(buf, "\r\n\r\n");
    if (end) {
      *end = 0;
      *body = end + 4, *have = n - (size_t)(end + 4 - buf);
      return 0;
    }
    if (n == cap - 1) return 431;
  }
}

/* One connection: one request answered. */
static int handle(server *s, int fd) {
  static __thread char head[HEAD_MAX + TS_QUERY_MAX];
  static __thread uint8_t out[TS_REPLY_MAX];
  char *body = NULL;
  size_t have = 0, len, out_len;
  uint32_t fail = 0;
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  int code = read_head(fd, head, HEAD_MAX, &body, &have, &start);
  if (have == SIZE_MAX) return 0;
  if (code) return http_error(fd, code, "Request Header Fields Too Large");
  if (strncmp(head, "POST ", 5)) return http_error(fd, 405, "Method Not Allowed (POST a query)");
  const char *ct = header(head, "Content-Type", &len);
  if (!ct || len < 27 || strncasecmp(ct, "application/timestamp-query", 27) || (len > 27 && ct[27] != ';'))
    return http_error(fd, 415, "Unsupported Media Type (application/timestamp-query)");
  const char *cl = header(head, "Content-Length", &len);
  uint64_t want = 0;
  char num[24];
  if (!cl || len == 0 || len >= sizeof num) return http_error(fd, 411, "Length Required");
  memcpy(num, cl, len), num[len] = 0;
  if (strspn(num, "0123456789") != len) return http_error(fd, 400, "Bad Request (Content-Length)");
  want = strtoull(num, NULL, 10);
  if (want > TS_QUERY_MAX || have > want) return http_error(fd, 413, "Payload Too Large");
  /* the body after the head's bytes, in the same buffer */
  uint8_t *q = (uint8_t *)head + HEAD_MAX;
  memmove(q, body, have);
  while (have < want) {
    if (late(&start)) return 0;
    ssize_t r = recv(fd, q + have, want - have, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return 0;
    have += (size_t)r;
  }
  if (ts_answer(&s->tsa, q, want, out, sizeof out, &out_len, &fail))
    return http_error(fd, 500, "Internal Server Error");
  if (fail && !s->quiet) cli_err("ts serve: a query refused: %s", gostx_tsa_fail_name(fail));
  char hdr[160];
  int n = snprintf(hdr, sizeof hdr,
                   "HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\n"
                   "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                   out_len);
  if (!send_all(fd, hdr, (size_t)n)) (void)send_all(fd, out, out_len);
  return 0;
}

static void *worker(void *arg) {
  server *s = arg;
  struct pollfd p[2] = {{s->fd, POLLIN, 0}, {s->stop[0], POLLIN, 0}};
  for (;;) {
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (p[1].revents) break;
    int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0) { /* another worker took it, the client left, or no descriptor is left */
      if (errno == EMFILE || errno == ENFILE) poll(NULL, 0, 10);
      continue;
    }
    struct timeval tv = {IO_SECONDS, 0};
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    handle(s, c);
    shutdown(c, SHUT_WR);
    close(c);
  }
  return NULL;
}

static int listen_on(server *s, const char *bind_addr, uint64_t port) {
  struct sockaddr_in6 a6 = {0};
  struct sockaddr_in a4 = {0};
  int v6 = strchr(bind_addr, ':') != NULL, one = 1;
  if (v6 ? inet_pton(AF_INET6, bind_addr, &a6.sin6_addr) != 1 : inet_pton(AF_INET, bind_addr, &a4.sin_addr) != 1)
    return cli_usage("ts serve: -bind '%s' is no IP address", bind_addr);
  a6.sin6_family = AF_INET6, a6.sin6_port = htons((uint16_t)port);
  a4.sin_family = AF_INET, a4.sin_port = htons((uint16_t)port);
  s->fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  struct sockaddr *sa = v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
  socklen_t sl = v6 ? sizeof a6 : sizeof a4;
  if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
      bind(s->fd, sa, sl) || listen(s->fd, 128) || getsockname(s->fd, sa, &sl)) {
    cli_err("ts serve: %s port %llu: %s", bind_addr, (unsigned long long)port, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  fprintf(stderr, "gostx ts serve: listening on %s:%u\n", bind_addr,
          (unsigned)ntohs(v6 ? a6.sin6_port : a4.sin_port));
  return 0;
}

static int parse(int argc, char **argv, ts_args *a, uint64_t *port, uint64_t *threads, int *quiet) {
  cli_parser p;
  cli_parser_init_openssl(&p, "ts serve", argc, argv, serve_opts);
  const char *port_s = NULL, *threads_s = NULL;
  int id;
  while ((id = cli_next(&p, serve_opts)) != CLI_END) {
    const char **to[] = {NULL, &port_s, &a->bind, &a->inkey, &a->signer, &a->chain, &a->serial,
                         &a->policy, &a->accuracy, &threads_s, &a->passin};
    if (id >= 1 && id <= 10) *to[id] = p.arg;
    else if (id == 11) a->tsa_name = 1;
    else if (id == 12) *quiet = 1;
    else if (id == 13) return serve_help(), -1;
    else if (id == CLI_POS) return cli_usage("ts serve: unexpected argument '%s'", p.pos);
    else return CLI_EXIT_USAGE;
  }
  if (!port_s || !a->signer || !a->inkey || !a->serial)
    return cli_usage("ts serve: -port, -signer, -inkey and -serial are needed (see --help)");
  if (cli_uint("-port", port_s, 0, 65535, port)) return CLI_EXIT_USAGE;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  *threads = cpus > 0 ? (uint64_t)cpus : 1;
  if (threads_s && cli_uint("-threads", threads_s, 1, THREADS_MAX, threads)) return CLI_EXIT_USAGE;
  if (*threads > THREADS_MAX) *threads = THREADS_MAX;
  if (!a->bind) a->bind = "127.0.0.1";
  return 0;
}

int ts_serve(int argc, char **argv) {
  ts_args a;
  uint64_t port, threads;
  static server s;
  memset(&a, 0, sizeof a);
  int quiet = 0, rc = parse(argc, argv, &a, &port, &threads, &quiet);
  if (rc) return rc < 0 ? 0 : rc;
  s.quiet = quiet, s.fd = -1;
  if ((rc = ts_tsa_load(&a, &s.tsa))) return ts_tsa_free(&s.tsa), rc;
  if ((rc = listen_on(&s, a.bind, port)) || pipe(s.stop)) {
    if (s.fd >= 0) close(s.fd);
    ts_tsa_free(&s.tsa);
    return rc ? rc : CLI_EXIT_FAIL;
  }
  /* the workers inherit a mask without the signals: only sigwait takes them */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGTERM);
  sigaddset(&sigs, SIGINT);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  pthread_t *tid = calloc(threads, sizeof *tid);
  size_t started = 0;
  while (tid && started < threads && !pthread_create(&tid[started], NULL, worker, &s)) started++;
  if (!started) rc = (cli_err("ts serve: no worker started"), CLI_EXIT_FAIL);
  int sig = 0;
  while (!rc && sigwait(&sigs, &sig) == 0 && sig != SIGTERM && sig != SIGINT) {
  }
  (void)!write(s.stop[1], "x", 1);
  for (size_t i = 0; i < started; i++) pthread_join(tid[i], NULL);
  if (!quiet) fprintf(stderr, "gostx ts serve: stopped\n");
  free(tid);
  close(s.fd), close(s.stop[0]), close(s.stop[1]);
  ts_tsa_free(&s.tsa);
  return rc;
}
