/* gostx ocsp's responder: requests answered from openssl ca's index.txt,
 * signed with GOST by the CA or a delegated responder (-rsigner, -rkey),
 * over HTTP/1.1 on all cores (one thread per CPU, each an epoll loop
 * accepting on the one listening socket: cli/common/http_serve.c), or once
 * from a file (-reqin, -respout). A request
 * that does not read gets malformedRequest; an HTTP request that does not
 * gets 400; nothing a peer sends is more than REQ_MAX bytes. The index is
 * read by cli/common/ca_index.c (gostx ca's reader) and read again when the
 * file's modification time changes (looked at once a second at most; a
 * file that no longer reads keeps the old entries). */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ca_index.h"
#include "http_serve.h"
#include "ocsp_cli.h"

#define REQ_MAX (64 * 1024) /* an HTTP request, header and body */
#define RESP_CAP (64 * 1024)
#define IDLE_SECONDS 30     /* to send a whole request, from the connection's start or last reply */

/* The index as the responder sees it: swapped whole on a reload. */
typedef struct live_index {
  const char *path;
  pthread_rwlock_t lock;
  pthread_mutex_t reload;
  ca_index x;
  struct timespec mtime;
  time_t checked; /* when the file's time was last looked at (atomic) */
} live_index;

/* path read into *x with its modification time: 0, or an exit code
 * after printing why. */
static int index_load(const char *path, ca_index *x, struct timespec *mtime) {
  struct stat st;
  *x = (ca_index){NULL, 0, 0, -1, NULL, 0};
  if (stat(path, &st) == 0) *mtime = st.st_mtim; /* before the read: a change during it is seen next time */
  int rc = ca_index_read(path, 0, x);
  if (rc) ca_index_free(x);
  return rc;
}

static void index_maybe_reload(live_index *ix) {
  time_t now = time(NULL);
  if (__atomic_load_n(&ix->checked, __ATOMIC_RELAXED) == now || pthread_mutex_trylock(&ix->reload))
    return;
  struct stat st;
  if (ix->checked != now && stat(ix->path, &st) == 0 &&
      (st.st_mtim.tv_sec != ix->mtime.tv_sec || st.st_mtim.tv_nsec != ix->mtime.tv_nsec)) {
    ca_index fresh, old;
    struct timespec mt = st.st_mtim;
    if (!index_load(ix->path, &fresh, &mt)) {
      pthread_rwlock_wrlock(&ix->lock);
      old = ix->x, ix->x = fresh;
      pthread_rwlock_unlock(&ix->lock);
      ca_index_free(&old);
    }
    ix->mtime = mt; /* a file that does not read is not read again until it changes */
  }
  __atomic_store_n(&ix->checked, now, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&ix->reload);
}

/* serial's entry copied to *out: 1, or 0 when the index has none. */
static int index_lookup(live_index *ix, const uint8_t *serial, size_t len, ca_entry *out) {
  index_maybe_reload(ix);
  pthread_rwlock_rdlock(&ix->lock);
  const ca_entry *e = ca_index_find(&ix->x, serial, len);
  if (e) out->status = e->status, out->revoked_at = e->revoked_at, out->reason = e->reason;
  pthread_rwlock_unlock(&ix->lock);
  return e != NULL;
}

typedef struct responder {
  live_index ix;
  cli_cert_list ca, signer;
  gostx_gost3410_key key;
  gostx_ocsp_certid ca_id[4]; /* the CA's hashes per gostx_ocsp_hash (serial unused) */
  long next_secs;
  int by_key, no_certs;
  long nrequest;
  long served; /* atomic */
  int listen_fd;
} responder;

/* A worker's memory, taken once: nothing is allocated per request. */
typedef struct scratch {
  uint8_t dec[REQ_MAX], out[RESP_CAP]; /* a GET's request decoded; the response */
  char head[OCSP_HTTP_HEAD_MAX];
  gostx_ocsp_request req;
  gostx_ocsp_single single[GOSTX_OCSP_MAX_IDS];
} scratch;

/* The answer to one request's DER into w->out: always an OCSPResponse. */
static size_t answer(responder *rs, const uint8_t *req_der, size_t len, scratch *w) {
  gostx_ocsp_request *req = &w->req;
  gostx_ocsp_single *single = w->single;
  uint8_t *out = w->out;
  size_t n = 0, cap = sizeof w->out;
  int64_t now = (int64_t)time(NULL);
  if (gostx_ocsp_request_parse(req_der, len, req)) {
    if (gostx_ocsp_response_error(GOSTX_OCSP_RESP_MALFORMED_REQUEST, out, cap, &n)) n = 0;
    return n;
  }
  for (size_t i = 0; i < req->n; i++) {
    gostx_ocsp_single *s = &single[i];
    const gostx_ocsp_certid *id = &req->id[i], *mine = &rs->ca_id[id->hash];
    ca_entry e;
    memset(s, 0, sizeof *s);
    s->id = *id, s->status = GOSTX_OCSP_UNKNOWN, s->reason = -1;
    s->this_update = now, s->next_update = rs->next_secs ? now + rs->next_secs : 0;
    if (id->hash && !memcmp(id->name_hash, mine->name_hash, mine->hash_len) &&
        !memcmp(id->key_hash, mine->key_hash, mine->hash_len) &&
        index_lookup(&rs->ix, id->serial, id->serial_len, &e)) {
      if (e.status == 'R') {
        s->status = GOSTX_OCSP_REVOKED;
        s->revocation_time = e.revoked_at, s->reason = e.reason;
      } else {
        s->status = GOSTX_OCSP_GOOD; /* V, and E: expired is not revoked */
      }
    }
  }
  gostx_ocsp_response_spec spec = {&rs->signer.c[0], rs->by_key, now, single, req->n,
                                    req->nonce_len ? req->nonce : NULL, req->nonce_len, rs->no_certs};
  int rc = gostx_ocsp_response_write(&spec, &rs->key, out, cap, &n);
  if (rc && gostx_ocsp_response_error(GOSTX_OCSP_RESP_INTERNAL_ERROR, out, cap, &n)) n = 0;
  return n;
}

static void count_served(void *ctx) {
  responder *rs = ctx;
  long done = __atomic_add_fetch(&rs->served, 1, __ATOMIC_SEQ_CST);
  if (rs->nrequest && done >= rs->nrequest) {
    fflush(stdout);
    _exit(0);
  }
}

/* http_serve's handler: a request whole in in[0..have) answered. */
static int handle(void *ctx, void *mem, const uint8_t *in, size_t have, size_t *used, http_reply *r) {
  scratch *w = mem;
  const uint8_t *body;
  size_t body_len, n = 0;
  int keep, status;
  int p = ocsp_http_parse(in, have, REQ_MAX, used, &body, &body_len, &keep, &status, w->dec, sizeof w->dec);
  if (p == 0) return 0;
  if (p > 0) {
    n = answer(ctx, body, body_len, w);
    status = n ? 200 : 500;
  } else {
    keep = 0;
  }
  r->iov[0] = (struct iovec){w->head, ocsp_http_reply_head(w->head, status, n, keep)};
  r->iov[1] = (struct iovec){w->out, status == 200 ? n : 0};
  r->keep = keep;
  return 1;
}

static int open_listener(const char *bind_addr, const char *port) {
  struct addrinfo hints = {0}, *ai;
  hints.ai_socktype = SOCK_STREAM, hints.ai_flags = AI_PASSIVE;
  int rc = getaddrinfo(bind_addr, port, &hints, &ai);
  if (rc) {
    cli_err("ocsp: -port %s: %s", port, gai_strerror(rc));
    return -1;
  }
  /* accepted only once the request's first bytes are there: the worker
   * reads it at once, with no wait in between */
  int fd = cli_listen(ai->ai_addr, ai->ai_addrlen, 512, IDLE_SECONDS);
  if (fd < 0) cli_err("ocsp: listening on port %s: %s", port, strerror(errno));
  freeaddrinfo(ai);
  return fd;
}

/* RFC 6960 4.2.2.2: answers are signed by the CA itself or by a responder
 * it issued with id-kp-OCSPSigning. A response signed now is checked as a
 * client checks it, so that a responder whose answers every client would
 * refuse does not start: 0, or CLI_EXIT_USAGE after saying why. */
static int signer_authorized(responder *rs, const ocsp_responder_opts *o) {
  int64_t now = (int64_t)time(NULL);
  gostx_ocsp_single one = {rs->ca_id[GOSTX_OCSP_SHA1], GOSTX_OCSP_GOOD, 0, -1, now, 0};
  gostx_ocsp_response_spec spec = {&rs->signer.c[0], 0, now, &one, 1, NULL, 0, 0};
  uint8_t *der = malloc(RESP_CAP);
  size_t n = 0;
  gostx_ocsp_response r;
  gostx_ocsp_check_opts co;
  gostx_ocsp_check_opts_init(&co, now);
  co.issuer = &rs->ca.c[0];
  gostx_ocsp_status st = GOSTX_OCSP_MALFORMED;
  if (der && !gostx_ocsp_response_write(&spec, &rs->key, der, RESP_CAP, &n) &&
      !gostx_ocsp_response_parse(der, n, &r))
    st = gostx_ocsp_check(&r, &co, &one.id, 1, NULL, NULL, NULL);
  free(der);
  if (st == GOSTX_OCSP_OK) return 0;
  return cli_usage("ocsp: -rsigner %s may not answer for -CA %s: %s (RFC 6960 4.2.2.2: the CA "
                   "itself, or a responder certificate it issued with extendedKeyUsage OCSPSigning)",
                   o->rsigner, o->ca, gostx_ocsp_status_name(st));
}

static int setup(responder *rs, const ocsp_responder_opts *o) {
  if (!o->index || !o->ca || !o->rsigner || !o->rkey)
    return cli_usage("ocsp: a responder needs -index, -CA, -rsigner and -rkey");
  if (cli_load_certs(o->ca, &rs->ca) || cli_load_certs(o->rsigner, &rs->signer)) return CLI_EXIT_FAIL;
  int rc = o->passin ? cli_load_key_pass(o->rkey, &rs->key, "-passin", o->passin)
                      : cli_load_key(o->rkey, &rs->key);
  if (rc) return rc;
  if (!gostx_gost3410_key_is_private(&rs->key)) return cli_usage("ocsp: -rkey: not a key that signs");
  if ((rc = cli_key_2012("ocsp", o->rkey, &rs->key))) return rc;
  const gostx_x509_cert *sc = &rs->signer.c[0];
  if (sc->pub_len != 2 * rs->key.len || memcmp(sc->pub, rs->key.q, sc->pub_len))
    return cli_usage("ocsp: -rkey is not the key of -rsigner's certificate");
  static const uint8_t one = 1;
  for (int h = GOSTX_OCSP_SHA1; h <= GOSTX_OCSP_STREEBOG512; h++)
    if (gostx_ocsp_certid_make(&rs->ca.c[0], &one, 1, (gostx_ocsp_hash)h, &rs->ca_id[h])) {
      cli_err("ocsp: -CA: its name or key cannot be hashed");
      return CLI_EXIT_FAIL;
    }
  if ((rc = signer_authorized(rs, o))) return rc;
  rs->ix.path = o->index;
  if (index_load(o->index, &rs->ix.x, &rs->ix.mtime)) return CLI_EXIT_FAIL;
  rs->ix.checked = time(NULL);
  pthread_rwlock_init(&rs->ix.lock, NULL);
  pthread_mutex_init(&rs->ix.reload, NULL);
  rs->next_secs = o->nmin * 60 + o->ndays * 86400;
  rs->by_key = o->resp_key_id, rs->no_certs = o->resp_no_certs, rs->nrequest = o->nrequest;
  return 0;
}

int ocsp_responder(const ocsp_responder_opts *o) {
  static responder rs; /* large (the certificate lists); one per process */
  int rc = setup(&rs, o);
  if (rc) return rc;
  if (o->reqin) { /* once, from a file */
    cli_in in;
    uint8_t *req;
    scratch *w = malloc(sizeof *w);
    size_t len;
    if (!w || cli_in_open(&in, o->reqin)) return free(w), CLI_EXIT_FAIL;
    rc = cli_in_read_all(&in, &req, &len);
    cli_in_close(&in);
    if (rc) return free(w), rc;
    size_t n = answer(&rs, req, len, w);
    gostx_gost3410_key_clear(&rs.key); /* the signing key: wiped once used */
    free(req);
    rc = n ? cli_write_file(o->respout ? o->respout : "-", w->out, n, 0) : CLI_EXIT_FAIL;
    free(w);
    return rc;
  }
  if (!o->port) return cli_usage("ocsp: a responder needs -port (or -reqin)");
  signal(SIGPIPE, SIG_IGN);
  rs.listen_fd = open_listener(o->bind, o->port);
  if (rs.listen_fd < 0) return CLI_EXIT_FAIL;
  long n = o->threads > 0 ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) n = 1;
  if (n > 256) n = 256;
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  char port[NI_MAXSERV] = "?";
  if (!getsockname(rs.listen_fd, (struct sockaddr *)&ss, &sl))
    getnameinfo((struct sockaddr *)&ss, sl, NULL, 0, port, sizeof port, NI_NUMERICSERV);
  fprintf(stderr, "ocsp: waiting for OCSP client connections on port %s (%ld threads)\n", port, n);
  static http_server hs;
  hs = (http_server){rs.listen_fd, -1, IDLE_SECONDS, REQ_MAX, sizeof(scratch), handle, count_served, &rs};
  for (long i = 1; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, http_serve_worker, &hs)) {
      cli_err("ocsp: cannot start a thread");
      return CLI_EXIT_FAIL;
    }
    pthread_detach(t);
  }
  http_serve_worker(&hs);
  return 0;
}
