/* Bulk through one GOST TLS connection, library end to library end, over
 * TCP on loopback: the server (this process, pinned to CPU 0) seals MIB MiB
 * from memory in WRITE-byte gostx_tls_write calls and sends close_notify;
 * the client (a forked process, pinned to CPU 1 when there is one) opens
 * every record into memory and compares it with what was sent. Each side
 * counts its own CPU time (the process CPU clock, user + system: the TCP
 * socket's system calls included) from the end of the handshake to the end of the
 * data, and the bytes are divided by it: what one busy core of an
 * application that embeds libgostx seals or opens per second. The relay
 * `gostx tls serve` moves each byte through a second socket as well: that
 * is measured by bench/tls_speed.sh beside this. SUITE "plain" sends the
 * same bytes the same way without TLS (send and recv): what the socket
 * alone costs each side. SUITE "mgm-kuznyechik" or "mgm-magma" sends the
 * same bytes as the TLS rows' records without TLS: each 16 KiB piece
 * sealed with gostx_mgm_encrypt (a counter nonce, 5 bytes of AAD, the full
 * tag), four pieces a send, and opened with gostx_mgm_decrypt: the cipher
 * and the socket alone, what no TLS over TCP can beat.
 *   usage: tls_bulk CHAIN.pem KEY.pem SUITE|plain|mgm-CIPHER [MIB (256) [WRITE (65536)]]
 *   prints: SUITE bytes B wall_MBps W send_MB_per_cpu_s S recv_MB_per_cpu_s R
 * (the server seals and sends, the client receives and opens). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gostx.h"
#include "gostx/tls.h"
#include "harness.h"

enum { PATTERN = 1 << 18, MAXCERTS = 8, MAXDER = 1 << 14 };

static uint8_t pattern[PATTERN];

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (cpu < CPU_SETSIZE && sysconf(_SC_NPROCESSORS_ONLN) > cpu)
    sched_setaffinity(0, sizeof set, &set); /* best effort: the figures are CPU time */
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *b = malloc(1 << 20);
  *len = b ? fread(b, 1, (1 << 20) - 1, f) : 0;
  fclose(f);
  return b;
}

static int die(const char *what, const char *why) {
  fprintf(stderr, "tls_bulk: %s: %s\n", what, why);
  return 1;
}

/* mgm-CIPHER: the cipher (0 when SUITE is not one of these), keyed and
 * with its block length in *n. */
enum { PIECE = 16384 };
static int mgm_mode(const char *suite, gostx_cipher *c, size_t *n) {
  static const uint8_t key[32] = {7, 1, 2, 3};
  int alg = !strcmp(suite, "mgm-kuznyechik") ? GOSTX_ALG_KUZNYECHIK
            : !strcmp(suite, "mgm-magma")    ? GOSTX_ALG_MAGMA
                                             : 0;
  if (!alg || gostx_cipher_init(c, alg, key)) return 0;
  *n = alg == GOSTX_ALG_MAGMA ? 8 : 16;
  return 1;
}

/* Each piece's additional data: a TLS record header's 5 bytes, as the TLS
 * rows authenticate. */
static const uint8_t piece_aad[5] = {0x17, 3, 3, 0x40, 0};

/* Piece i's nonce: i in the last 8 bytes, the top bit clear. */
static void piece_nonce(uint8_t *nonce, size_t n, unsigned long long i) {
  memset(nonce, 0, n);
  for (int b = 0; b < 8; b++) nonce[n - 1 - b] = (uint8_t)(i >> (8 * b));
}

/* mgm-CIPHER's receiving loop: pieces of PIECE + n bytes opened into buf
 * and compared with the pattern; returns the bytes opened, or -1. */
static long long mgm_receive(int fd, const gostx_cipher *c, size_t n, uint8_t *buf) {
  static uint8_t in[8 * (PIECE + 16)];
  size_t have = 0, piece = PIECE + n;
  unsigned long long total = 0, i = 0;
  uint8_t nonce[16];
  for (;;) {
    ssize_t r = recv(fd, in + have, sizeof in - have, 0);
    if (r < 0) return -1;
    if (r == 0) return have ? -1 : (long long)total;
    have += (size_t)r;
    size_t at = 0;
    for (; have - at >= piece; at += piece, i++) {
      piece_nonce(nonce, n, i);
      if (gostx_mgm_decrypt(c, nonce, piece_aad, 5, in + at, PIECE, in + at + PIECE, n, buf)) return -1;
      size_t off = (size_t)(total % PATTERN);
      if (memcmp(buf, pattern + off, PIECE)) return -1; /* PATTERN is a multiple of PIECE */
      total += PIECE;
    }
    memmove(in, in + at, have - at);
    have -= at;
  }
}

/* mgm-CIPHER's sending loop: bytes (a multiple of PIECE) sealed piece by
 * piece, wlen / PIECE pieces (at least one) a send. */
static int mgm_send(int fd, const gostx_cipher *c, size_t n, unsigned long long bytes, size_t wlen) {
  static uint8_t out[(PATTERN / PIECE) * (PIECE + 16)];
  const size_t per = wlen / PIECE ? wlen / PIECE : 1, piece = PIECE + n;
  uint8_t nonce[16];
  unsigned long long i = 0;
  for (unsigned long long sent = 0; sent < bytes;) {
    size_t k = 0;
    for (; k < per && sent < bytes; k++, i++, sent += PIECE) {
      piece_nonce(nonce, n, i);
      if (gostx_mgm_encrypt(c, nonce, piece_aad, 5, pattern + sent % PATTERN, PIECE, out + k * piece,
                            out + k * piece + PIECE, n))
        return -1;
    }
    for (size_t off = 0; off < k * piece;) {
      ssize_t w = send(fd, out + off, k * piece - off, 0);
      if (w <= 0) return -1;
      off += (size_t)w;
    }
  }
  return 0;
}

/* The client: connect, handshake (no verification: the figures are the
 * record layer's), read and compare until close_notify; writes its byte
 * count and CPU seconds to the pipe out. */
static int client(const struct sockaddr_in *to, const char *suite, int out) {
  pin(1);
  gostx_cipher mc;
  size_t mn = 0;
  const int mgm = mgm_mode(suite, &mc, &mn);
  const int plain = mgm || !strcmp(suite, "plain");
  gostx_tls_config *cfg = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  if (!cfg || (!plain && gostx_tls_config_set_suites(cfg, suite))) return die("client", "bad suite");
  gostx_tls_config_set_verify(cfg, GOSTX_TLS_VERIFY_NONE);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (const struct sockaddr *)to, sizeof *to)) return die("client", "connect");
  gostx_tls *c = gostx_tls_new(cfg);
  gostx_tls_set_fd(c, fd);
  if (!plain && gostx_tls_handshake(c)) return die("client handshake", gostx_tls_error(c));
  static uint8_t buf[1 << 16];
  unsigned long long total = 0;
  double c0 = gostx_bench_now(GOSTX_BENCH_PROCESS_CPU);
  if (mgm) {
    long long got = mgm_receive(fd, &mc, mn, buf);
    if (got < 0) return die("client", "a piece failed to open, or differs from what was sent");
    total = (unsigned long long)got;
  }
  for (; !mgm;) {
    size_t got = 0;
    if (plain) {
      ssize_t r = recv(fd, buf, sizeof buf, 0);
      if (r < 0) return die("client", "recv");
      if (r == 0) break;
      got = (size_t)r;
    } else {
      int rc = gostx_tls_read(c, buf, sizeof buf, &got);
      if (rc == GOSTX_TLS_CLOSED) break;
      if (rc) return die("client read", gostx_tls_error(c));
    }
    /* compare with the pattern at this offset (it wraps) */
    for (size_t done = 0; done < got;) {
      size_t at = (size_t)((total + done) % PATTERN), n = PATTERN - at;
      if (n > got - done) n = got - done;
      if (memcmp(buf + done, pattern + at, n)) return die("client", "the data differs from what was sent");
      done += n;
    }
    total += got;
  }
  double cpu = gostx_bench_now(GOSTX_BENCH_PROCESS_CPU) - c0;
  char line[96];
  int n = snprintf(line, sizeof line, "%llu %.6f\n", total, cpu);
  if (write(out, line, (size_t)n) != n) return 1;
  gostx_tls_free(c);
  gostx_tls_config_free(cfg);
  close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: tls_bulk CHAIN.pem KEY.pem SUITE [MIB (256) [WRITE (65536)]]\n");
    return 2;
  }
  unsigned long long bytes = (argc > 4 ? strtoull(argv[4], NULL, 10) : 256) << 20;
  size_t wlen = argc > 5 ? strtoul(argv[5], NULL, 10) : 65536;
  if (!bytes || !wlen || wlen > PATTERN) return die("arguments", "MIB or WRITE out of range");
  if (gostx_random_bytes(pattern, sizeof pattern)) return die("random", "failed");
  signal(SIGPIPE, SIG_IGN); /* a peer gone is an error to report, not a silent death */

  /* the server's certificate chain and key */
  size_t pem_len = 0, key_len = 0, pos = 0, n = 0;
  char *pem = slurp(argv[1], &pem_len), *key = slurp(argv[2], &key_len);
  if (!pem || !key) return die(pem ? argv[2] : argv[1], "cannot read");
  static uint8_t der[MAXCERTS][MAXDER];
  const uint8_t *ders[MAXCERTS];
  size_t der_len[MAXCERTS];
  while (n < MAXCERTS && gostx_x509_pem_next(pem, pem_len, &pos, der[n], MAXDER, &der_len[n]) == 1) {
    ders[n] = der[n];
    n++;
  }
  gostx_gost3410_key k;
  if (!n || gostx_gost3410_key_read(&k, key, key_len, NULL, 0) || !k.has_private)
    return die(argv[1], "no certificate or key");
  gostx_tls_config *cfg = gostx_tls_config_new(GOSTX_TLS_SERVER);
  if (!cfg || gostx_tls_config_set_chain(cfg, ders, der_len, n) ||
      gostx_tls_config_set_key(cfg, &k))
    return die("server config", cfg ? gostx_tls_config_error(cfg) : "out of memory");

  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof at;
  if (ls < 0 || bind(ls, (struct sockaddr *)&at, sizeof at) || listen(ls, 1) ||
      getsockname(ls, (struct sockaddr *)&at, &alen))
    return die("listen", "failed");
  int p[2];
  if (pipe(p)) return die("pipe", "failed");
  fflush(NULL);
  pid_t kid = fork();
  if (kid == 0) {
    close(ls);
    close(p[0]);
    _exit(client(&at, argv[3], p[1]));
  }
  close(p[1]);
  pin(0);
  int fd = accept(ls, NULL, NULL);
  if (fd < 0) return die("accept", "failed");
  gostx_cipher mc;
  size_t mn = 0;
  const int mgm = mgm_mode(argv[3], &mc, &mn);
  const int plain = mgm || !strcmp(argv[3], "plain");
  if (mgm && (bytes % PIECE || PATTERN % PIECE)) return die("arguments", "MIB: whole pieces");
  gostx_tls *s = gostx_tls_new(cfg);
  gostx_tls_set_fd(s, fd);
  if (!plain && gostx_tls_handshake(s)) return die("server handshake", gostx_tls_error(s));
  double t0 = gostx_bench_now(GOSTX_BENCH_WALL), c0 = gostx_bench_now(GOSTX_BENCH_PROCESS_CPU);
  if (mgm && mgm_send(fd, &mc, mn, bytes, wlen)) return die("server", "seal or send");
  for (unsigned long long sent = mgm ? bytes : 0; sent < bytes;) {
    size_t at_off = (size_t)(sent % PATTERN), len = wlen;
    if (len > PATTERN - at_off) len = PATTERN - at_off;
    if (len > bytes - sent) len = (size_t)(bytes - sent);
    size_t put = 0;
    if (plain) {
      ssize_t w = send(fd, pattern + at_off, len, 0);
      if (w <= 0) return die("server", "send");
      put = len = (size_t)w;
    } else if (gostx_tls_write(s, pattern + at_off, len, &put) || put != len) {
      return die("server write", gostx_tls_error(s));
    }
    sent += len;
  }
  if (plain ? shutdown(fd, SHUT_WR) : gostx_tls_close(s)) return die("server close", gostx_tls_error(s));
  double scpu = gostx_bench_now(GOSTX_BENCH_PROCESS_CPU) - c0;
  char line[96] = {0};
  ssize_t got = read(p[0], line, sizeof line - 1);
  double wall = gostx_bench_now(GOSTX_BENCH_WALL) - t0;
  int st = 0;
  waitpid(kid, &st, 0);
  unsigned long long rbytes = 0;
  double ccpu = 0;
  if (got <= 0 || sscanf(line, "%llu %lf", &rbytes, &ccpu) != 2 || !WIFEXITED(st) ||
      WEXITSTATUS(st))
    return die("client", "failed");
  if (rbytes != bytes) return die("client", "received a different byte count");
  printf("%s bytes %llu wall_MBps %.1f send_MB_per_cpu_s %.1f recv_MB_per_cpu_s %.1f\n", argv[3],
         bytes, gostx_bench_mbps((double)bytes, wall), gostx_bench_mbps((double)bytes, scpu),
         gostx_bench_mbps((double)bytes, ccpu));
  gostx_tls_free(s);
  gostx_tls_config_free(cfg);
  close(fd);
  close(ls);
  free(pem);
  free(key);
  return 0;
}
