/* IKE SA establishments (IKE_SA_INIT + IKE_AUTH, the first Child SA's keys
 * out) per CPU-second of the responder: lib/ike's exchange engine, an
 * initiator and a responder in one process and one thread, the messages
 * passed in memory. Only the responder's work is counted: the thread's CPU
 * clock is read around each responder call (its gostx__ike_engine_init and
 * each gostx__ike_input), the initiator's work between them left out. What
 * a daemon adds (a recvmsg and sendmsg per message, the SPI table, the
 * cookie gate) is not in it, as `gostx tls serve`'s figure beside it
 * (bench/ike_speed.sh) has its sockets in. Rows: PSK (KE 33 with Magma,
 * KE 34 with Kuznyechik) and certificates (both sides' keys of one size, a
 * leaf under a root from tests/support/ike_pki.c: 256 bits with KE 33 and
 * Magma, 512 (paramSetC) with KE 34 and Kuznyechik, as RFC 9385's scenarios
 * pair them; the curves of tls_speed.sh's 256A and 512C certificates).
 * Each handshake is checked (both established, the Child SA keys agree); a
 * failure ends the run (exit 1). Medians of RUNS runs of at least SECONDS
 * of the responder's CPU time each.
 * The gateway rows (issue 81): the same handshakes through lib/ike's
 * manager as a gateway runs a remote user (cli/tunnel/ike/ike_gateway.c: a
 * manager made for the user's first IKE_SA_INIT, each datagram in, its
 * events drained, the manager freed when the user leaves), the gateway's
 * calls alone on the CPU clock: the engine's work plus the manager's (its
 * table, cookie gate, buffers and event queue). Before/after figures of a
 * change compare these rows of two builds (bench/ike_speed.sh BASE=).
 *   usage: build/bench/ike_speed [SECONDS (1)] [RUNS (5)] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ike/engine.h"
#include "ike/manager.h"
#include "ike_mgr_dp.h"
#include "ike_pki.h"

enum { CAP = GOSTX_IKE_MSG_MAX, RUNS_MAX = 31 };

static const uint8_t psk[32] = "ike_speed: a 32-octet shared key";
static const uint8_t fqdn_i[] = "gw-i.example.test", fqdn_r[] = "gw-r.example.test";
static const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;

typedef struct row {
  const char *name;
  uint16_t encr, group;
  int cert_bits; /* 0: PSK */
} row;

/* One side's certificate and key for a row with certificates. */
typedef struct side {
  pki_key key;
  pki_cert leaf;
  const uint8_t *der[1];
  size_t len[1];
} side;

static pki_key root_key;
static pki_cert root;
static gostx_x509_store *store;

static void make_side(side *s, gostx_gost3410_curve curve, const char *subj, const char *san) {
  const char *const ext[] = {"keyUsage=digitalSignature", san, NULL};
  pki_make_key(curve, &s->key);
  pki_make_cert(&s->leaf, subj, &s->key, ext, &root, &root_key);
  s->der[0] = s->leaf.der;
  s->len[0] = s->leaf.len;
}

static void conf(gostx_ike_conf *c, int role, const row *r, side *s) {
  static const gostx_ike_ts_set any = {
      1, {{GOSTX_IKE_TS_IPV4, 0, 0, 65535, {0}, {255, 255, 255, 255}}}};
  const int init = role == GOSTX_IKE_INITIATOR;
  memset(c, 0, sizeof *c);
  c->role = role;
  c->encr = r->encr;
  c->group = r->group;
  c->id_type = c->peer_id_type = GOSTX_IKE_ID_FQDN;
  c->id = init ? fqdn_i : fqdn_r;
  c->id_len = sizeof fqdn_i - 1;
  c->peer_id = init ? fqdn_r : fqdn_i;
  c->peer_id_len = sizeof fqdn_r - 1;
  c->tsi = c->tsr = any;
  if (!r->cert_bits) {
    c->auth = GOSTX_IKE_AUTH_PSK;
    c->psk = psk;
    c->psk_len = sizeof psk;
    return;
  }
  c->auth = GOSTX_IKE_AUTH_DIGITAL_SIGNATURE;
  c->key = &s->key.k;
  c->certs = s->der;
  c->cert_lens = s->len;
  c->n_certs = 1;
  c->store = store;
}

typedef struct job {
  gostx_ike_conf ci, cr;
  gostx_ike_engine i, r;
  double responder_s; /* the responder's CPU time so far */
  uint8_t to_r[CAP], to_i[CAP];
} job;

/* The responder's call, timed on the thread's CPU clock. */
static int responder_input(job *j, size_t len, size_t *out_len) {
  const double t0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
  int rc = gostx__ike_input(&j->r, j->to_r, len, now_ms, j->to_i, CAP, out_len);
  j->responder_s += gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - t0;
  return rc;
}

/* One IKE SA established (arg: a job); nonzero when it was not. */
static int handshake(void *arg) {
  job *j = arg;
  size_t li = 0, lr = 0;
  double t0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
  int rc = gostx__ike_engine_init(&j->r, &j->cr);
  j->responder_s += gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - t0;
  if (rc == GOSTX_OK) rc = gostx__ike_engine_init(&j->i, &j->ci);
  if (rc == GOSTX_OK) rc = gostx__ike_start(&j->i, now_ms, j->to_r, CAP, &li);
  for (int step = 0; rc == GOSTX_OK && li && step < 2; step++) {
    rc = responder_input(j, li, &lr);
    li = 0;
    if (rc == GOSTX_OK && lr) rc = gostx__ike_input(&j->i, j->to_i, lr, now_ms, j->to_r, CAP, &li);
  }
  const gostx_ike_child *a = &j->i.child, *b = &j->r.child;
  const int ok = rc == GOSTX_OK && j->i.state == GOSTX_IKE_S_ESTABLISHED &&
                 j->r.state == GOSTX_IKE_S_ESTABLISHED && a->valid && b->valid &&
                 !memcmp(a->key_out, b->key_in, a->key_len);
  if (!ok) return 1; /* the states kept for main's message */
  gostx__ike_engine_clear(&j->i);
  gostx__ike_engine_clear(&j->r);
  return 0;
}

/* Establishments per second of one side's CPU time (*side_s, which each
 * establish(j) adds to) over at least secs of it; -1 when one failed. */
static double per_cpu_s(int (*establish)(void *), void *j, double *side_s, double secs) {
  unsigned long n = 0;
  *side_s = 0;
  while (*side_s < secs || n == 0) {
    if (establish(j)) return -1;
    n++;
  }
  return n / *side_s;
}

/* ---- the gateway rows: a manager per user ---- */

static const uint16_t gw_encr[2][1] = {{GOSTX_IKE_ENCR_MAGMA_MGM_KTREE},
                                       {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE}};

/* A manager's settings for one side of a row: the engine's conf of the
 * row (conf above) in the manager's terms. */
static void gw_side(gostx__ike_mgr_settings *m, int initiator, const row *r, side *s,
                    gostx__ike_mgr_addr me, gostx__ike_mgr_addr peer) {
  gostx_ike_conf c;
  conf(&c, initiator ? GOSTX_IKE_INITIATOR : GOSTX_IKE_RESPONDER, r, s);
  memset(m, 0, sizeof *m);
  m->encr = gw_encr[r->encr == GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE];
  m->n_encr = 1;
  m->group = c.group, m->auth = c.auth;
  m->psk = c.psk, m->psk_len = c.psk_len;
  m->key = c.key, m->certs = c.certs, m->cert_lens = c.cert_lens, m->n_certs = c.n_certs;
  m->store = c.store;
  m->id_type = c.id_type, m->id = c.id, m->id_len = c.id_len;
  m->peer_id_type = c.peer_id_type, m->peer_id = c.peer_id, m->peer_id_len = c.peer_id_len;
  m->peer_id_text = m->peer_text = "peer";
  m->local = m->data_local = me;
  m->peer = peer;
  m->initiate = initiator;
  m->any_source = !initiator; /* a gateway's: its users from anywhere */
}

typedef struct gw_job {
  gostx__ike_mgr_settings si, sr;
  double gw_s; /* the gateway's CPU time so far */
  gostx__ike_mgr_event ev;
  uint8_t m[CAP];
} gw_job;

/* One user's IKE SA established at a gateway manager made for it and
 * freed after (arg: a gw_job); nonzero when it was not. */
static int gw_handshake(void *arg) {
  gw_job *j = arg;
  double t0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
  gostx__ike_mgr *gw = gostx__ike_mgr_new(&j->sr, &ike_null_dp);
  j->gw_s += gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - t0;
  gostx__ike_mgr *y = gostx__ike_mgr_new(&j->si, &ike_null_dp);
  if (!gw || !y) return 1;
  const gostx__ike_mgr_to from_y = {.addr = j->si.local, .encap = 0},
                          from_gw = {.addr = j->sr.local, .encap = 0};
  gostx__ike_mgr_tick(y, now_ms);
  for (int moved = 1, round = 0; moved && round < 8; round++) {
    moved = 0;
    while (gostx__ike_mgr_next(y, &j->ev)) {
      if (j->ev.type != GOSTX_IKE_MGR_SEND) continue;
      const size_t n = j->ev.len;
      memcpy(j->m, j->ev.data, n);
      t0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
      gostx__ike_mgr_input(gw, j->m, n, &from_y, now_ms);
      size_t got = 0; /* the gateway's answers, drained as it sends them */
      while (gostx__ike_mgr_next(gw, &j->ev))
        if (j->ev.type == GOSTX_IKE_MGR_SEND && !got) memcpy(j->m, j->ev.data, got = j->ev.len);
      j->gw_s += gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - t0;
      if (got) gostx__ike_mgr_input(y, j->m, got, &from_gw, now_ms);
      moved = 1;
    }
  }
  gostx__ike_mgr_shown a, b;
  gostx__ike_mgr_shown_get(y, &a);
  gostx__ike_mgr_shown_get(gw, &b);
  const int ok = a.state == 2 && b.state == 2 && a.child_in == b.child_out;
  gostx__ike_mgr_free(y);
  t0 = gostx_bench_now(GOSTX_BENCH_THREAD_CPU);
  gostx__ike_mgr_free(gw); /* the user left */
  j->gw_s += gostx_bench_now(GOSTX_BENCH_THREAD_CPU) - t0;
  return !ok;
}


int main(int argc, char **argv) {
  const double secs = argc > 1 ? atof(argv[1]) : 1;
  const int runs = argc > 2 ? atoi(argv[2]) : 5;
  if (secs <= 0 || runs < 1 || runs > RUNS_MAX) {
    fprintf(stderr, "usage: ike_speed [SECONDS (1)] [RUNS (5, at most %d)]\n", RUNS_MAX);
    return 2;
  }
  static const char *const ca[] = {"basicConstraints=critical,CA:TRUE",
                                   "keyUsage=critical,keyCertSign,cRLSign", NULL};
  pki_make_key(GOSTX_GOST3410_512_C, &root_key);
  pki_make_cert(&root, "/CN=ike_speed Root/O=gostx/C=RU", &root_key, ca, NULL, NULL);
  store = gostx_x509_store_new();
  if (!store || gostx_x509_store_add_der(store, root.der, root.len) != GOSTX_OK) return 1;
  static side s256[2], s512[2];
  static const char *const san_i = "subjectAltName=DNS:gw-i.example.test",
                           *const san_r = "subjectAltName=DNS:gw-r.example.test";
  make_side(&s256[0], GOSTX_GOST3410_256_A, "/CN=gw-i/O=gostx", san_i);
  make_side(&s256[1], GOSTX_GOST3410_256_A, "/CN=gw-r/O=gostx", san_r);
  make_side(&s512[0], GOSTX_GOST3410_512_C, "/CN=gw-i/O=gostx", san_i);
  make_side(&s512[1], GOSTX_GOST3410_512_C, "/CN=gw-r/O=gostx", san_r);
  static const row rows[] = {
      {"PSK, MAGMA_MGM_KTREE, KE 33 (256)", GOSTX_IKE_ENCR_MAGMA_MGM_KTREE,
       GOSTX_IKE_KE_GOST3410_2012_256, 0},
      {"PSK, KUZNYECHIK_MGM_KTREE, KE 34 (512)", GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
       GOSTX_IKE_KE_GOST3410_2012_512, 0},
      {"certificates 256 (paramSetA), MAGMA_MGM_KTREE, KE 33", GOSTX_IKE_ENCR_MAGMA_MGM_KTREE,
       GOSTX_IKE_KE_GOST3410_2012_256, 256},
      {"certificates 512 (paramSetC), KUZNYECHIK_MGM_KTREE, KE 34",
       GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512, 512},
  };
  static job j;
  printf("IKE SA establishments per responder CPU-second (lib/ike engine, in memory; "
         "medians of %d runs of %.1f s)\n", runs, secs);
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    const row *r = &rows[k];
    side *s = r->cert_bits == 512 ? s512 : s256;
    conf(&j.ci, GOSTX_IKE_INITIATOR, r, &s[0]);
    conf(&j.cr, GOSTX_IKE_RESPONDER, r, &s[1]);
    double v[RUNS_MAX];
    for (int i = 0; i < runs; i++)
      if ((v[i] = per_cpu_s(handshake, &j, &j.responder_s, secs)) < 0) {
        fprintf(stderr, "ike_speed: %s: the handshake failed (initiator %d/%u, responder %d/%u)\n",
                r->name, j.i.state, j.i.error, j.r.state, j.r.error);
        return 1;
      }
    printf("  %-60s %8.0f\n", r->name, gostx_bench_median(v, runs));
  }
  static gw_job g;
  const gostx__ike_mgr_addr at_i = {{10, 0, 0, 2}, 4, 500}, at_r = {{10, 0, 0, 1}, 4, 500};
  printf("Gateway: a remote user's IKE SA per gateway CPU-second (lib/ike manager, one per "
         "user, made and freed; medians of %d runs of %.1f s)\n", runs, secs);
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    const row *r = &rows[k];
    side *s = r->cert_bits == 512 ? s512 : s256;
    gw_side(&g.si, 1, r, &s[0], at_i, at_r);
    gw_side(&g.sr, 0, r, &s[1], at_r, at_i);
    double v[RUNS_MAX];
    for (int i = 0; i < runs; i++)
      if ((v[i] = per_cpu_s(gw_handshake, &g, &g.gw_s, secs)) < 0) {
        fprintf(stderr, "ike_speed: gateway, %s: the handshake failed\n", r->name);
        return 1;
      }
    printf("  gateway, %-60s %8.0f\n", r->name, gostx_bench_median(v, runs));
  }
  gostx_x509_store_free(store);
  return 0;
}
