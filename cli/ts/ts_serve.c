/* gostx ts serve: the TSA over HTTP (RFC 3161 section 3.4): HTTP/1.1
 * POST of an application/timestamp-query, answered with an
 * application/timestamp-reply (a token or a rejection: a query the TSA
 * refuses still gets a TimeStampResp), one request per connection. The
 * workers are epoll loops accepting on one listening socket
 * (cli/common/http_serve.c: clients that send slowly or nothing hold no
 * worker); a request's size and the time its bytes may take are bounded;
 * SIGTERM or SIGINT stops them (a request being answered is finished,
 * connections still sending theirs are closed). The serial file is
 * shared under its lock (ts_serial_next), with other processes too. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_serve.h"
#include "ts_cli.h"

#define IO_SECONDS 10   /* to send a whole request, from the connection's start */
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

/* A worker's memory (http_serve takes it once). */
typedef struct ts_scratch {
  char reply_head[320];
  uint8_t out[TS_REPLY_MAX];
} ts_scratch;

/* An HTTP error reply (the connection closes after it); 1, so that
 * handle can `return http_error(...)`. */
static int http_error(ts_scratch *m, http_reply *r, int code, const char *why) {
  int n = snprintf(m->reply_head, sizeof m->reply_head,
                   "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n%s\n",
                   code, why, strlen(why) + 1, why);
  r->iov[0] = (struct iovec){m->reply_head, (size_t)n};
  r->iov[1] = (struct iovec){NULL, 0};
  r->keep = 0;
  return 1;
}

int ts_http_parse(const uint8_t *in, size_t have, const uint8_t **query, size_t *len, const char **why) {
  static const http_rules rules = {HTTP_POST, "application/timestamp-query", TS_REQUEST_MAX, TS_QUERY_MAX};
  http_req q;
  int st = http_req_parse(in, have, &rules, &q);
  if (st == 1 && q.used < have) st = 413, q.why = "Payload Too Large"; /* one request a connection */
  if (st == 405) q.why = "Method Not Allowed (POST a query)";
  if (st == 415) q.why = "Unsupported Media Type (application/timestamp-query)";
  *why = q.why, *query = q.body, *len = q.body_len;
  return st;
}

/* http_serve's handler: one request per connection, answered once whole. */
static int handle(void *ctx, void *mem, const uint8_t *in, size_t have, size_t *used, http_reply *r) {
  server *s = ctx;
  ts_scratch *m = mem;
  const uint8_t *query;
  const char *why;
  size_t len, out_len;
  uint32_t fail = 0;
  *used = have;
  int st = ts_http_parse(in, have, &query, &len, &why);
  if (st != 1) return st ? http_error(m, r, st, why) : 0;
  if (ts_answer(&s->tsa, query, len, m->out, sizeof m->out, &out_len, &fail))
    return http_error(m, r, 500, "Internal Server Error");
  if (fail && !s->quiet) cli_err("ts serve: a query refused: %s", gostx_tsa_fail_name(fail));
  int n = snprintf(m->reply_head, sizeof m->reply_head,
                   "HTTP/1.1 200 OK\r\nContent-Type: application/timestamp-reply\r\n"
                   "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                   out_len);
  r->iov[0] = (struct iovec){m->reply_head, (size_t)n};
  r->iov[1] = (struct iovec){m->out, out_len};
  r->keep = 0;
  return 1;
}

static int start_listening(server *s, const char *bind_addr, uint64_t port) {
  struct sockaddr_in6 a6 = {0};
  struct sockaddr_in a4 = {0};
  int v6 = strchr(bind_addr, ':') != NULL;
  if (v6 ? inet_pton(AF_INET6, bind_addr, &a6.sin6_addr) != 1 : inet_pton(AF_INET, bind_addr, &a4.sin_addr) != 1)
    return cli_usage("ts serve: -bind '%s' is no IP address", bind_addr);
  a6.sin6_family = AF_INET6, a6.sin6_port = htons((uint16_t)port);
  a4.sin_family = AF_INET, a4.sin_port = htons((uint16_t)port);
  struct sockaddr *sa = v6 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
  socklen_t sl = v6 ? sizeof a6 : sizeof a4;
  s->fd = cli_listen(sa, sl, 128, 0);
  if (s->fd < 0 || getsockname(s->fd, sa, &sl)) {
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
  if ((rc = start_listening(&s, a.bind, port)) || pipe(s.stop)) {
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
  static http_server hs;
  hs = (http_server){s.fd, s.stop[0], IO_SECONDS, TS_REQUEST_MAX, sizeof(ts_scratch), handle, NULL, &s};
  while (tid && started < threads && !pthread_create(&tid[started], NULL, http_serve_worker, &hs)) started++;
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
