/* lib/tls's record protection against the raw MGM it is built on, per
 * suite and record size, in one run on the calling thread's CPU clock
 * (median of 5 runs): where the bulk path of `gostx tls` loses speed
 * against `gostx bench`'s MGM (issue 47's target: >= 0.8x).
 *   mgm     gostx_mgm_encrypt then gostx_mgm_decrypt of one record's bytes
 *           under one key (5 bytes of AAD, the full-block tag): the floor;
 *   record  gostx__tls_record_seal then gostx__tls_record_open of one
 *           record (TLSTREE, nonce, inner type, padding scan included);
 *   conn    gostx_tls_write of one record's bytes on a client connected to
 *           a server over memory pipes, then gostx_tls_read on the server
 *           until they are all in (the transport's copies included);
 *   socket  the same over a non-blocking AF_UNIX socketpair (gostx_tls_set_fd),
 *           the system calls of the transport counted too, and for 16 KiB
 *           records 64 KiB per gostx_tls_write (four records: bulk).
 * Each column is MB/s of plaintext through one seal and one open: the CPU
 * of both ends of a connection for those bytes.
 *   usage: build/bench/tls_record_speed [MIN_SECONDS_PER_RUN (0.2) [SUITE_SUBSTRING]] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gostx.h"
#include "harness.h"
#include "tls/conn.h"

enum { MAXREC = 16384, BULK = 4 * MAXREC, PIPE_CAP = 1 << 17 };

/* One direction of a memory transport: bytes at b[off, len). */
typedef struct pipe_buf {
  uint8_t b[PIPE_CAP];
  size_t off, len;
} pipe_buf;

typedef struct end {
  pipe_buf *in, *out;
} end;

static ssize_t pipe_read(void *user, uint8_t *buf, size_t len) {
  pipe_buf *p = ((end *)user)->in;
  if (p->off == p->len) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < p->len - p->off ? len : p->len - p->off;
  memcpy(buf, p->b + p->off, n);
  p->off += n;
  if (p->off == p->len) p->off = p->len = 0;
  return (ssize_t)n;
}

static ssize_t pipe_write(void *user, const uint8_t *buf, size_t len) {
  pipe_buf *p = ((end *)user)->out;
  if (p->len == PIPE_CAP) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < PIPE_CAP - p->len ? len : PIPE_CAP - p->len;
  memcpy(p->b + p->len, buf, n);
  p->len += n;
  return (ssize_t)n;
}

struct job {
  int mode; /* 0 mgm, 1 record, 2 conn, 3 socket */
  size_t len;
  const gostx__tls_suite *suite;
  gostx_cipher c;
  gostx__tls_record tx, rx;
  gostx_tls *pair[4]; /* memory pipes: 0, 1; socketpair: 2, 3 */
  uint8_t plain[BULK], got[BULK], rec[GOSTX__TLS_IN_CAP];
};

static int want(int rc) { return rc == GOSTX_TLS_WANT_READ || rc == GOSTX_TLS_WANT_WRITE; }

/* The bytes one call of run moves. */
static size_t run_bytes(const struct job *j) {
  return j->mode == 3 && j->len == MAXREC ? BULK : j->len;
}

static int run(void *arg) {
  struct job *j = arg;
  const size_t n = j->suite->iv_len;
  if (j->mode == 0) {
    uint8_t nonce[16] = {0}, tag[16];
    int rc = gostx_mgm_encrypt(&j->c, nonce, j->rec, 5, j->plain, j->len, j->rec + 5, tag, n);
    if (rc) return rc;
    return gostx_mgm_decrypt(&j->c, nonce, j->rec, 5, j->rec + 5, j->len, tag, n, j->got);
  }
  if (j->mode == 1) {
    size_t rec_len, got;
    uint8_t type;
    int rc = gostx__tls_record_seal(&j->tx, GOSTX__CT_APP, j->plain, j->len, 0, j->rec,
                                    sizeof j->rec, &rec_len);
    if (rc) return rc;
    rc = gostx__tls_record_open(&j->rx, j->rec, rec_len, j->rec + 5, rec_len - 5, &got, &type);
    return rc ? rc : got == j->len && type == GOSTX__CT_APP ? 0 : -1;
  }
  gostx_tls *cli = j->pair[j->mode == 2 ? 0 : 2], *srv = j->pair[j->mode == 2 ? 1 : 3];
  size_t put = 0, have = 0, len = run_bytes(j);
  int rc = gostx_tls_write(cli, j->plain, len, &put);
  if (rc || put != len) return rc ? rc : -1;
  while (have < len) {
    size_t got = 0;
    rc = gostx_tls_read(srv, j->got + have, len - have, &got);
    if (rc) return rc;
    have += got;
  }
  return 0;
}

/* Two clients and two servers of suite, one pair over memory pipes, one
 * over a socketpair (fds in sv), the handshakes done. */
static int connect_pair(struct job *j, end *ce, end *se, const int sv[2],
                        gostx_tls_config **ccfg, gostx_tls_config **scfg) {
  static uint8_t priv[32], pub[64];
  static const uint8_t fake_der[] = {0x30, 0x03, 0x02, 0x01, 0x01}; /* carried, not parsed */
  const uint8_t *der[1] = {fake_der};
  size_t der_len[1] = {sizeof fake_der};
  if (!pub[0] && gostx_gost3410_keygen(GOSTX_GOST3410_256_A, priv, 32, pub, 64)) return -1;
  *ccfg = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  *scfg = gostx_tls_config_new(GOSTX_TLS_SERVER);
  if (!*ccfg || !*scfg) return -1;
  gostx_tls_config_set_verify(*ccfg, GOSTX_TLS_VERIFY_NONE);
  gostx__tls_test_hooks *t = gostx__tls_config_test(*ccfg);
  t->pin_curve = GOSTX_GOST3410_256_A; /* the server's key, instead of a certificate */
  memcpy(t->pin_pub, pub, 64);
  gostx__tls_config_test(*scfg)->raw_chain = 1;
  gostx_tls_config_set_tickets(*scfg, 0, 0); /* none left unread in the pipes */
  gostx_gost3410_key key;
  if (gostx_tls_config_set_chain(*scfg, der, der_len, 1) ||
      gostx_gost3410_key_set_private(&key, GOSTX_GOST3410_256_A, priv, 32, NULL) ||
      gostx_tls_config_set_key(*scfg, &key) ||
      gostx_tls_config_set_suites(*ccfg, j->suite->name))
    return -1;
  for (int k = 0; k < 4; k++)
    if (!(j->pair[k] = gostx_tls_new(k & 1 ? *scfg : *ccfg))) return -1;
  gostx_tls_set_io(j->pair[0], pipe_read, pipe_write, ce);
  gostx_tls_set_io(j->pair[1], pipe_read, pipe_write, se);
  gostx_tls_set_fd(j->pair[2], sv[0]);
  gostx_tls_set_fd(j->pair[3], sv[1]);
  for (int k = 0; k < 4; k += 2) {
    int crc = GOSTX_TLS_WANT_READ, src = GOSTX_TLS_WANT_READ;
    for (int i = 0; i < 1000 && (want(crc) || want(src)); i++) {
      if (want(crc)) crc = gostx_tls_handshake(j->pair[k]);
      if (want(src)) src = gostx_tls_handshake(j->pair[k + 1]);
    }
    if (crc || src) return -1;
  }
  return 0;
}

static double median_mbps(struct job *j, double min_s) {
  double v[5];
  for (int r = 0; r < 5; r++) {
    uint64_t calls;
    double sec;
    if (gostx_bench_run_for(GOSTX_BENCH_THREAD_CPU, min_s, run, j, &calls, &sec)) return -1;
    v[r] = gostx_bench_mbps((double)calls * (double)run_bytes(j), sec);
  }
  return gostx_bench_median(v, 5);
}

int main(int argc, char **argv) {
  double min_s = argc > 1 ? atof(argv[1]) : 0.2;
  static struct job j;
  static pipe_buf c2s, s2c;
  static const unsigned ids[4] = {GOSTX__TLS_KUZNYECHIK_MGM_L, GOSTX__TLS_MAGMA_MGM_L,
                                  GOSTX__TLS_KUZNYECHIK_MGM_S, GOSTX__TLS_MAGMA_MGM_S};
  static const size_t sizes[2] = {16384, 1024};
  printf("# lib/tls records on %s (Kuznyechik %s, Magma %s, MGM %s)\n", gostx_cpu_features(),
         gostx_impl(GOSTX_ALG_KUZNYECHIK), gostx_impl(GOSTX_ALG_MAGMA), gostx_impl(GOSTX_ALG_MGM));
  printf("# MB/s of plaintext through one seal and one open, thread CPU time, median of 5\n");
  printf("%-17s %6s %8s %8s %8s %8s %7s %7s %7s\n", "suite", "bytes", "mgm", "record", "conn",
         "socket", "rec/mgm", "conn/m", "sock/m");
  for (int i = 0; i < 4; i++) {
    j.suite = gostx__tls_suite_by_id(ids[i]);
    if (argc > 2 && !strstr(j.suite->name, argv[2])) continue;
    uint8_t secret[32];
    for (int b = 0; b < 32; b++) secret[b] = (uint8_t)(b * 7 + 3);
    for (size_t b = 0; b < sizeof j.plain; b++) j.plain[b] = (uint8_t)(b * 31);
    end ce = {&s2c, &c2s}, se = {&c2s, &s2c};
    c2s.off = c2s.len = s2c.off = s2c.len = 0; /* the last suite's close_notify */
    gostx_tls_config *ccfg = NULL, *scfg = NULL;
    int sv[2], big = 1 << 20;
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 1;
    for (int k = 0; k < 2; k++) {
      fcntl(sv[k], F_SETFL, fcntl(sv[k], F_GETFL) | O_NONBLOCK);
      setsockopt(sv[k], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
      setsockopt(sv[k], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    }
    if (gostx_cipher_init(&j.c, j.suite->alg, secret) ||
        gostx__tls_record_init(&j.tx, ids[i], secret) ||
        gostx__tls_record_init(&j.rx, ids[i], secret) ||
        connect_pair(&j, &ce, &se, sv, &ccfg, &scfg)) {
      fprintf(stderr, "tls_record_speed: setup of %s failed\n", j.suite->name);
      return 1;
    }
    for (int s = 0; s < 2; s++) {
      double mbps[4];
      j.len = sizes[s];
      for (j.mode = 0; j.mode < 4; j.mode++) {
        mbps[j.mode] = median_mbps(&j, min_s);
        if (mbps[j.mode] < 0) {
          fprintf(stderr, "tls_record_speed: %s mode %d failed\n", j.suite->name, j.mode);
          return 1;
        }
      }
      printf("%-17s %6zu %8.0f %8.0f %8.0f %8.0f %7.2f %7.2f %7.2f\n", j.suite->name + 25, j.len,
             mbps[0], mbps[1], mbps[2], mbps[3], mbps[1] / mbps[0], mbps[2] / mbps[0],
             mbps[3] / mbps[0]);
    }
    for (int k = 0; k < 4; k++) gostx_tls_free(j.pair[k]);
    close(sv[0]);
    close(sv[1]);
    gostx_tls_config_free(ccfg);
    gostx_tls_config_free(scfg);
    gostx__tls_record_clear(&j.tx);
    gostx__tls_record_clear(&j.rx);
  }
  return 0;
}
