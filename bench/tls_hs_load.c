/* The handshake load of bench/tls_speed.sh: THREADS threads each make full
 * GOST TLS 1.3 handshakes with HOST:PORT one after another for SECONDS, or
 * with count:N for N handshakes each (a test's fixed amount of work,
 * however slow the machine), (connect, handshake without verifying the
 * server, close_notify, close) and the total is printed. What the server
 * spends on them is measured by the script (its CPU time), so this side
 * only has to keep it busy. With "resume CA", each thread resumes with the
 * ticket its last connection brought (read to the server's close_notify
 * after its own, so that the tickets are in), and of the handshakes that
 * offered a session (all but a thread's first, which has none), fewer than
 * 95 % resumed fails (exit 1), as does a run where none could offer one.
 * The library keeps no session of a server it did not verify
 * (gostx_tls_get_session), so resumption verifies the server's chain
 * against CA (PEM) and its name, localhost.
 *   usage: tls_hs_load HOST PORT SECONDS|count:N THREADS [SUITES [GROUPS [resume CA]]] */
#define _GNU_SOURCE
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gostx/tls.h"
#include "harness.h"

static struct addrinfo *target;
static gostx_tls_config *cfg;
static double until;
static unsigned long per_thread; /* count:N, or 0: until `until` */
static atomic_ulong done, failed, kept, offered, resumed;
static int resume;
static char first_error[256];
/* The server name verified (and each session kept for): the test PKI's
 * leaves have DNS:localhost. */
#define SERVERNAME "localhost"
#define RESUMED_MIN_PERCENT 95

static void *run(void *arg) {
  (void)arg;
  uint8_t sess[GOSTX_TLS_SESSION_MAX];
  size_t sess_len = 0;
  for (unsigned long i = 0; per_thread ? i < per_thread : gostx_bench_now(GOSTX_BENCH_WALL) < until;
       i++) {
    int fd = socket(target->ai_family, SOCK_STREAM, 0);
    gostx_tls *c = gostx_tls_new(cfg);
    int ok = fd >= 0 && c && connect(fd, target->ai_addr, target->ai_addrlen) == 0;
    if (ok && resume) ok = gostx_tls_set_servername(c, SERVERNAME) == 0;
    int offer = ok && sess_len;
    if (offer) ok = gostx_tls_set_session(c, sess, sess_len) == 0;
    if (ok) {
      gostx_tls_set_fd(c, fd);
      int rc = gostx_tls_handshake(c);
      ok = rc == 0 && gostx_tls_close(c) == 0;
      if (ok && resume) {
        uint8_t b[256];
        size_t got;
        while (gostx_tls_read(c, b, sizeof b, &got) == 0) {
        }
        if (offer) atomic_fetch_add(&offered, 1);
        if (gostx_tls_session_reused(c)) atomic_fetch_add(&resumed, 1);
        if (gostx_tls_get_session(c, sess, sizeof sess, &sess_len)) sess_len = 0;
        else atomic_fetch_add(&kept, 1);
      }
      if (!ok && !first_error[0])
        snprintf(first_error, sizeof first_error, "%s", gostx_tls_error(c));
    }
    atomic_fetch_add(ok ? &done : &failed, 1);
    gostx_tls_free(c);
    if (fd >= 0) close(fd);
  }
  return NULL;
}

/* The trust anchors of CA (PEM), or NULL after saying why. */
static gostx_x509_store *load_store(const char *path) {
  gostx_x509_store *store = gostx_x509_store_new();
  char err[256] = "";
  if (store && gostx_x509_store_add_path(store, path, err, sizeof err) == 0) return store;
  fprintf(stderr, "tls_hs_load: CA %s: %s\n", path, *err ? err : "out of memory");
  gostx_x509_store_free(store);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr,
            "usage: tls_hs_load HOST PORT SECONDS|count:N THREADS [SUITES [GROUPS [resume CA]]]\n");
    return 2;
  }
  struct addrinfo hints = {0};
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo(argv[1], argv[2], &hints, &target)) {
    fprintf(stderr, "tls_hs_load: cannot resolve %s\n", argv[1]);
    return 1;
  }
  double secs = 0;
  char *end;
  if (!strncmp(argv[3], "count:", 6)) {
    per_thread = strtoul(argv[3] + 6, &end, 10);
    if (*end || argv[3][6] < '1' || argv[3][6] > '9') per_thread = 0;
  } else {
    secs = strtod(argv[3], &end);
    if (*end) secs = 0;
  }
  int threads = atoi(argv[4]);
  if ((secs <= 0 && !per_thread) || threads < 1 || threads > 256) {
    fprintf(stderr, "tls_hs_load: bad SECONDS (or count:N) or THREADS\n");
    return 2;
  }
  cfg = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  resume = argc > 7 && !strcmp(argv[7], "resume");
  if (resume && argc != 9) {
    fprintf(stderr, "tls_hs_load: resume needs CA, the server's trust anchors (PEM)\n");
    return 2;
  }
  gostx_x509_store *store = resume ? load_store(argv[8]) : NULL;
  if (resume && !store) return 2;
  gostx_tls_config_set_store(cfg, store);
  gostx_tls_config_set_verify(cfg, resume ? GOSTX_TLS_VERIFY_PEER : GOSTX_TLS_VERIFY_NONE);
  if ((argc > 5 && gostx_tls_config_set_suites(cfg, argv[5])) ||
      (argc > 6 && gostx_tls_config_set_groups(cfg, argv[6]))) {
    fprintf(stderr, "tls_hs_load: %s\n", gostx_tls_config_error(cfg));
    return 2;
  }
  pthread_t t[256];
  double t0 = gostx_bench_now(GOSTX_BENCH_WALL);
  until = t0 + secs;
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, NULL);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  double el = gostx_bench_now(GOSTX_BENCH_WALL) - t0;
  printf("handshakes %lu failed %lu seconds %.3f resumed %lu\n", atomic_load(&done),
         atomic_load(&failed), el, atomic_load(&resumed));
  if (first_error[0]) fprintf(stderr, "tls_hs_load: first failure: %s\n", first_error);
  unsigned long n = atomic_load(&done), o = atomic_load(&offered), r = atomic_load(&resumed);
  if (resume)
    fprintf(stderr, "tls_hs_load: %lu of %lu handshakes resumed (%lu offered a session)\n", r, n, o);
  /* a resumed row that resumes little measures full handshakes under the
   * wrong name; each thread's first handshake, with no session to offer,
   * is full however well resumption works, so the share is of the rest
   * (a slow machine fits few handshakes in SECONDS: 2 threads' 29 would
   * have been 27 of 29, under 95 %, counted over all) */
  int too_few = resume && (o == 0 || r * 100 < o * RESUMED_MIN_PERCENT);
  if (too_few && o == 0 && !atomic_load(&kept))
    fprintf(stderr, "tls_hs_load: FAILED: 0 of %lu handshakes could resume: no ticket came\n", n);
  else if (too_few && o == 0)
    fprintf(stderr,
            "tls_hs_load: FAILED: no thread made a second handshake to resume in (%lu in all)\n",
            n);
  else if (too_few)
    fprintf(stderr,
            "tls_hs_load: FAILED: %lu of %lu handshakes that offered a session resumed, under "
            "%d %%\n",
            r, o, RESUMED_MIN_PERCENT);
  gostx_tls_config_free(cfg);
  gostx_x509_store_free(store);
  freeaddrinfo(target);
  return n && !too_few ? 0 : 1;
}
