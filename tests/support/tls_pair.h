/* In-process TLS pairs for the tests of lib/tls (test_tls.c for TLS 1.3,
 * test_tls12.c for TLS 1.2): our client and our server over memory pipes
 * the test controls (chunked transport, a record tampered with on the
 * way), keys per curve, and the handshake and transfer loops. Static: each
 * test includes it once. */
#ifndef GOSTX_TESTS_TLS_PAIR_H
#define GOSTX_TESTS_TLS_PAIR_H

#include <errno.h>
#include <stdlib.h>

#include "testutil.h"
#include "key_compat.h"
#include "tls/conn.h"

/* ---------------- memory pipes ---------------- */

typedef struct pipe_buf {
  uint8_t *b;
  size_t len, cap;
  /* The records written are counted; the one numbered tamper (when
   * tamper_fn is set) is passed to it before the reader sees it. */
  size_t scan; /* where the next record starts in b */
  int nrec, tamper;
  void (*tamper_fn)(uint8_t *rec, size_t len, size_t arg);
  size_t tamper_arg;
  int tampered;
  int eof; /* once empty, reads see the end of the stream */
  int writes; /* the transport writes made into it */
} pipe_buf;

typedef struct end {
  pipe_buf *in, *out;
  size_t chunk; /* the most bytes one read or write moves (0: all) */
} end;

static ssize_t pipe_read(void *user, uint8_t *buf, size_t len) {
  end *e = user;
  if (e->in->len == 0 && e->in->eof) return 0;
  if (e->in->len == 0) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < e->in->len ? len : e->in->len;
  if (e->chunk && n > e->chunk) n = e->chunk;
  memcpy(buf, e->in->b, n);
  memmove(e->in->b, e->in->b + n, e->in->len - n);
  e->in->len -= n;
  e->in->scan = e->in->scan > n ? e->in->scan - n : 0;
  return (ssize_t)n;
}

static ssize_t pipe_write(void *user, const uint8_t *buf, size_t len) {
  end *e = user;
  size_t room = e->out->cap - e->out->len;
  if (room == 0) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < room ? len : room;
  if (e->chunk && n > e->chunk) n = e->chunk;
  memcpy(e->out->b + e->out->len, buf, n);
  e->out->len += n;
  e->out->writes++;
  pipe_buf *w = e->out;
  while (w->len - w->scan >= 5) {
    size_t rl = 5 + ((size_t)w->b[w->scan + 3] << 8 | w->b[w->scan + 4]);
    if (w->len - w->scan < rl) break;
    if (w->tamper_fn && w->nrec == w->tamper) {
      w->tamper_fn(w->b + w->scan, rl, w->tamper_arg);
      w->tampered = 1;
    }
    w->nrec++;
    w->scan += rl;
  }
  return (ssize_t)n;
}

/* ---------------- a client and a server ---------------- */

typedef struct pair {
  gostx_tls_config *ccfg, *scfg;
  gostx_tls *c, *s;
  pipe_buf c2s, s2c;
  end ce, se;
  int crc, src;
} pair;

typedef struct keypair {
  gostx_gost3410_curve curve;
  uint8_t priv[64], pub[128];
} keypair;

static keypair keys[7]; /* one per scheme 0x0709.. */
static const uint8_t fake_der[] = {0x30, 0x03, 0x02, 0x01, 0x01}; /* carried, not parsed */

static void pin(gostx_tls_config *cfg, const keypair *k) {
  gostx__tls_test_hooks *t = gostx__tls_config_test(cfg);
  t->pin_curve = k->curve;
  memcpy(t->pin_pub, k->pub, 2 * gostx_gost3410_size(k->curve));
}

static void set_identity(gostx_tls_config *cfg, const keypair *k) {
  const uint8_t *der[1] = {fake_der};
  size_t len[1] = {sizeof fake_der};
  gostx__tls_config_test(cfg)->raw_chain = 1;
  CHECK_RC(gostx_tls_config_set_chain(cfg, der, len, 1), 0, "set_chain");
  CHECK_RC(tk_tls_set_key(cfg, k->curve, k->priv, gostx_gost3410_size(k->curve)), 0,
           "set_key");
}

/* When not 0: the configs made by pair_init (and only_version's callers)
 * take this TLS version only. */
static unsigned pair_only_version;

static void only_version(gostx_tls_config *cfg) {
  if (pair_only_version)
    CHECK_RC(gostx_tls_config_set_versions(cfg, pair_only_version, pair_only_version), 0, "version");
}

/* Session tickets per handshake of pair_init's server (lib/tls's default
 * is 2): 0 unless a test sets it, so the flows the tests count record by
 * record end with the handshake (test_resumption runs them with tickets). */
static unsigned pair_tickets;

static void pair_init(pair *p, const keypair *server_key, size_t chunk) {
  memset(p, 0, sizeof *p);
  p->c2s.cap = p->s2c.cap = 1u << 20;
  p->c2s.b = malloc(p->c2s.cap);
  p->s2c.b = malloc(p->s2c.cap);
  p->ce = (end){&p->s2c, &p->c2s, chunk};
  p->se = (end){&p->c2s, &p->s2c, chunk};
  p->ccfg = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  p->scfg = gostx_tls_config_new(GOSTX_TLS_SERVER);
  gostx_tls_config_set_verify(p->ccfg, GOSTX_TLS_VERIFY_NONE);
  pin(p->ccfg, server_key);
  set_identity(p->scfg, server_key);
  only_version(p->ccfg);
  only_version(p->scfg);
  CHECK_RC(gostx_tls_config_set_tickets(p->scfg, pair_tickets, 7200), 0, "tickets");
}

static void pair_start(pair *p) {
  p->c = gostx_tls_new(p->ccfg);
  p->s = gostx_tls_new(p->scfg);
  gostx_tls_set_io(p->c, pipe_read, pipe_write, &p->ce);
  gostx_tls_set_io(p->s, pipe_read, pipe_write, &p->se);
}

static void pair_free(pair *p) {
  gostx_tls_free(p->c);
  gostx_tls_free(p->s);
  gostx_tls_config_free(p->ccfg);
  gostx_tls_config_free(p->scfg);
  free(p->c2s.b);
  free(p->s2c.b);
}

static int want(int rc) { return rc == GOSTX_TLS_WANT_READ || rc == GOSTX_TLS_WANT_WRITE; }

/* Runs both handshakes until neither can move; 0 when both completed. */
static int pair_handshake(pair *p) {
  p->crc = p->src = GOSTX_TLS_WANT_READ;
  for (int i = 0; i < 1000000 && (want(p->crc) || want(p->src)); i++) {
    if (want(p->crc)) p->crc = gostx_tls_handshake(p->c);
    if (want(p->src)) p->src = gostx_tls_handshake(p->s);
    if (want(p->crc) && want(p->src) && p->c2s.len == 0 && p->s2c.len == 0) break;
  }
  return p->crc == 0 && p->src == 0 ? 0 : -1;
}

/* Both handshakes over the fds (a socketpair, non-blocking) given to the
 * client and the server: 0 when both completed. (inline: not every test
 * that includes this uses it) */
static inline int pair_handshake_fds(pair *p, int cfd, int sfd) {
  gostx_tls_set_fd(p->c, cfd);
  gostx_tls_set_fd(p->s, sfd);
  p->crc = p->src = GOSTX_TLS_WANT_READ;
  for (int i = 0; i < 100000 && (want(p->crc) || want(p->src)); i++) {
    if (want(p->crc)) p->crc = gostx_tls_handshake(p->c);
    if (want(p->src)) p->src = gostx_tls_handshake(p->s);
  }
  return p->crc == 0 && p->src == 0 ? 0 : -1;
}

/* Sends len bytes from a to b and reads them there, both non-blocking. */
static inline int transfer(pair *p, gostx_tls *a, gostx_tls *b, const uint8_t *data, size_t len) {
  uint8_t *got = malloc(len + 1);
  size_t sent = 0, recvd = 0;
  int ok = 1, wrc = 0;
  for (int i = 0; i < 10000000 && recvd < len && ok; i++) {
    if (sent < len || wrc) {
      size_t put = 0;
      wrc = gostx_tls_write(a, data + sent, len - sent, &put); /* len 0: flushes */
      sent += put;
      if (wrc != 0 && !want(wrc)) ok = 0;
    }
    size_t n = 0;
    int rc = gostx_tls_read(b, got + recvd, len - recvd, &n);
    recvd += n;
    if (rc != 0 && !want(rc)) ok = 0;
  }
  (void)p;
  if (getenv("TLS_DEBUG"))
    fprintf(stderr, "transfer: ok %d sent %zu recvd %zu of %zu: %s / %s\n", ok, sent, recvd, len,
            gostx_tls_error(a) ? gostx_tls_error(a) : "-", gostx_tls_error(b) ? gostx_tls_error(b) : "-");
  ok = ok && recvd == len && memcmp(got, data, len) == 0;
  free(got);
  return ok ? 0 : -1;
}

/* keys[]: one fresh key per TLS 1.3 signature scheme's curve. */
static void make_keys(void) {
  for (int k = 0; k < 7; k++) {
    keys[k].curve = gostx__tls_scheme_curve(0x0709 + (unsigned)k);
    size_t l = gostx_gost3410_size(keys[k].curve);
    CHECK_RC(gostx_gost3410_keygen(keys[k].curve, keys[k].priv, l, keys[k].pub, 2 * l), 0, "keygen");
  }
}

#endif
