/* GOST TLS 1.2 (lib/tls/handshake12.c, RFC 5246 with the RFC 9189
 * suites): our client against our server in-process over memory pipes
 * (tests/support/tls_pair.h): every suite x every server curve, with and
 * without a client certificate, data both ways and close_notify, 1-byte
 * transport chunks and fragmented handshake records; version negotiation
 * with TLS 1.3 (one config serves both, 1.3 preferred, the downgrade
 * sentinel written and checked); then the refusals, each with its alert
 * and nothing delivered: a flipped bit in every record, a bad Finished,
 * unexpected messages, malformed and invalid ClientKeyExchange (a point
 * off the curve), hand-made ClientHellos (no extended_master_secret, a
 * renegotiation_info that is not empty, wrong versions, compression),
 * records out of place (CCS, data before the keys, oversized), and
 * renegotiation after the handshake from either side. Last, RFC 9189
 * Appendix A.1.3.1 (MAGMA_CTR_OMAC), A.1.3.2 (KUZNYECHIK_CTR_OMAC with a
 * client certificate) and A.2.2 (28147_CNT_IMIT, without extended master
 * secret: a test hook) replayed through our client and our server: the
 * randoms, keys, PMS, ephemeral scalar and signature nonce set by the test
 * hooks, every record each side writes compared with the RFC's, byte for
 * byte (tests/vectors/tls12-rfc9189.json). */
#include "tls_pair.h"

static const char *const suites12[3] = {"KUZNYECHIK_CTR_OMAC", "MAGMA_CTR_OMAC", "28147_CNT_IMIT"};
static const char *const names12[3] = {"TLS_GOSTR341112_256_WITH_KUZNYECHIK_CTR_OMAC",
                                       "TLS_GOSTR341112_256_WITH_MAGMA_CTR_OMAC",
                                       "TLS_GOSTR341112_256_WITH_28147_CNT_IMIT"};

/* A pair that speaks TLS 1.2 only (both sides), suite s. */
static void pair12(pair *p, const keypair *server_key, size_t chunk, int s) {
  pair_init(p, server_key, chunk);
  CHECK_RC(gostx_tls_config_set_versions(p->ccfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_versions(p->scfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_suites(p->ccfg, suites12[s]), 0, "suite");
}

/* Client certificate: the client presents client_key, the server asks
 * (REQUIRE) and pins it. */
static void with_client_cert(pair *p, const keypair *client_key) {
  set_identity(p->ccfg, client_key);
  pin(p->scfg, client_key);
  gostx_tls_config_set_verify(p->scfg, GOSTX_TLS_VERIFY_REQUIRE);
}

static char keylog_seen[256];
static void keylog_line(void *user, const char *line) {
  (void)user;
  snprintf(keylog_seen, sizeof keylog_seen, "%s", line);
}

static int closes(pair *p) {
  size_t got = 0;
  uint8_t b[8];
  return gostx_tls_close(p->c) == 0 && gostx_tls_read(p->s, b, sizeof b, &got) == GOSTX_TLS_CLOSED;
}

static void test_matrix(void) {
  static uint8_t data[100000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 1);
  for (int s = 0; s < 3; s++)
    for (int k = 0; k < 7; k++)
      for (int cc = 0; cc < 2; cc++) {
        pair p;
        pair12(&p, &keys[k], 0, s);
        if (cc) with_client_cert(&p, &keys[(k + 3) % 7]);
        pair_start(&p);
        int ok = pair_handshake(&p) == 0;
        ok = ok && !strcmp(gostx_tls_version(p.c), "TLSv1.2") &&
             !strcmp(gostx_tls_version(p.s), "TLSv1.2") &&
             gostx_tls_version_id(p.s) == GOSTX_TLS_VERSION_1_2 &&
             !strcmp(gostx_tls_suite(p.c), names12[s]) && !strcmp(gostx_tls_suite(p.s), names12[s]) &&
             gostx_tls_group(p.c) == NULL && gostx_tls_scheme(p.c) == NULL;
        ok = ok && (gostx_tls_peer_chain(p.s, NULL) == (size_t)cc);
        ok = ok && transfer(&p, p.c, p.s, data, k == 0 ? sizeof data : 3000) == 0 &&
             transfer(&p, p.s, p.c, data + 1, 5000) == 0 && closes(&p);
        CHECK(ok, "TLS 1.2 %s, server key %d, client certificate %d: %s / %s", suites12[s], k, cc,
              gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-",
              gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
        pair_free(&p);
      }
}

/* 1-byte transport chunks, and handshake records of 5 bytes: every
 * message fragmented, WANT_* at every byte. */
static void test_chunks(void) {
  for (int s = 0; s < 3; s++) {
    pair p;
    pair12(&p, &keys[s], 1, s);
    with_client_cert(&p, &keys[4]);
    gostx__tls_config_test(p.ccfg)->frag = 5;
    gostx__tls_config_test(p.scfg)->frag = 5;
    pair_start(&p);
    uint8_t data[40000];
    memset(data, 0xA5, sizeof data);
    CHECK(pair_handshake(&p) == 0 && transfer(&p, p.c, p.s, data, sizeof data) == 0,
          "TLS 1.2 %s in 1-byte chunks, 5-byte handshake records", suites12[s]);
    pair_free(&p);
  }
}

/* The client's ClientHello, its supported_versions {0x0304, 0x0303} made
 * {0x0303, 0x0303}: a server that takes both answers 1.2 with the
 * sentinel, which the client (that offered 1.3) refuses. */
static void drop13(void *user, uint8_t *msg, size_t *len, size_t cap) {
  static const uint8_t sv[] = {0x00, 0x2b, 0x00, 0x05, 0x04, 0x03, 0x04, 0x03, 0x03};
  (void)user, (void)cap;
  if (msg[0] != GOSTX__HS_CLIENT_HELLO) return;
  for (size_t i = 0; i + sizeof sv <= *len; i++)
    if (!memcmp(msg + i, sv, sizeof sv)) msg[i + 6] = 3;
}

typedef struct mut {
  int type;   /* the message changed */
  int how;    /* 0: new type; 1: flip body byte at; 2: truncate; 3: append a byte; 4: flip from the end */
  int arg;
} mut;
static void mutate(void *user, uint8_t *msg, size_t *len, size_t cap);
static int alert_of(gostx_tls *x);

static void test_versions(void) {
  /* Default both sides: TLS 1.3. */
  pair p;
  pair_init(&p, &keys[0], 0);
  pair_start(&p);
  CHECK(pair_handshake(&p) == 0 && !strcmp(gostx_tls_version(p.c), "TLSv1.3") &&
            gostx_tls_version_id(p.c) == GOSTX_TLS_VERSION_1_3,
        "both versions on both sides: TLS 1.3");
  pair_free(&p);
  /* A 1.2-only server, a default client: TLS 1.2, no sentinel. */
  pair_init(&p, &keys[1], 0);
  CHECK_RC(gostx_tls_config_set_versions(p.scfg, 0x0303, 0x0303), 0, "1.2 only");
  pair_start(&p);
  CHECK(pair_handshake(&p) == 0 && !strcmp(gostx_tls_version(p.c), "TLSv1.2") &&
            memcmp(p.c->server_random + 24, "DOWNGRD", 7) != 0 &&
            !strcmp(gostx_tls_suite(p.c), names12[0]),
        "a 1.2-only server: TLS 1.2 with the first 1.2 suite (%s)",
        gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-");
  pair_free(&p);
  /* A 1.2-only client, a default server: TLS 1.2, the sentinel written. */
  pair_init(&p, &keys[2], 0);
  CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_suites(p.scfg, "KUZNYECHIK_MGM_L:28147_CNT_IMIT:MAGMA_CTR_OMAC"), 0,
           "suites");
  pair_start(&p);
  CHECK(pair_handshake(&p) == 0 && !strcmp(gostx_tls_version(p.s), "TLSv1.2") &&
            !memcmp(p.c->server_random + 24, "DOWNGRD\001", 8) &&
            !strcmp(gostx_tls_suite(p.s), names12[2]),
        "a 1.2-only client: TLS 1.2, the server's preference, DOWNGRD 01 in its random");
  pair_free(&p);
  /* A server whose list has only 1.2 suites speaks 1.2 to a client that
   * offers both, without the sentinel (it could not have spoken 1.3). */
  pair_init(&p, &keys[3], 0);
  CHECK_RC(gostx_tls_config_set_suites(p.scfg, "MAGMA_CTR_OMAC"), 0, "suites");
  pair_start(&p);
  CHECK(pair_handshake(&p) == 0 && !strcmp(gostx_tls_version(p.c), "TLSv1.2") &&
            memcmp(p.c->server_random + 24, "DOWNGRD", 7) != 0,
        "a server with 1.2 suites only: TLS 1.2, no sentinel (%s)",
        gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-");
  pair_free(&p);
  /* The sentinel refused by a client that offered 1.3. */
  pair_init(&p, &keys[0], 0);
  gostx__tls_config_test(p.ccfg)->mutate = drop13;
  pair_start(&p);
  (void)pair_handshake(&p);
  int sent = 0;
  CHECK(p.crc < 0 && gostx_tls_alert(p.c, &sent) == GOSTX__ALERT_ILLEGAL_PARAMETER && sent &&
            p.s->state != GOSTX__ST_CONNECTED,
        "the downgrade sentinel refused: illegal_parameter (%s)",
        gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-");
  pair_free(&p);
  /* A 1.3-only server and a 1.2-only client: protocol_version. */
  pair_init(&p, &keys[0], 0);
  CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_versions(p.scfg, 0x0304, 0x0304), 0, "1.3 only");
  pair_start(&p);
  (void)pair_handshake(&p);
  CHECK(p.src < 0 && gostx_tls_alert(p.s, &sent) == GOSTX__ALERT_PROTOCOL_VERSION && sent,
        "a 1.2-only client at a 1.3-only server: protocol_version");
  pair_free(&p);
  /* A 1.2-only client and a server whose list has no 1.2 suite. */
  pair_init(&p, &keys[0], 0);
  CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_suites(p.scfg, "KUZNYECHIK_MGM_L"), 0, "suites");
  pair_start(&p);
  (void)pair_handshake(&p);
  CHECK(p.src < 0 && gostx_tls_alert(p.s, &sent) == GOSTX__ALERT_HANDSHAKE_FAILURE && sent,
        "no 1.2 suite in common: handshake_failure");
  pair_free(&p);
  /* A client config without a suite of its versions cannot start. */
  pair_init(&p, &keys[0], 0);
  CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
  CHECK_RC(gostx_tls_config_set_suites(p.ccfg, "MAGMA_MGM_S"), 0, "suites");
  pair_start(&p);
  CHECK(gostx_tls_handshake(p.c) == GOSTX_EINVAL && p.c2s.len == 0,
        "a 1.2-only client with only 1.3 suites: nothing sent");
  pair_free(&p);
  /* ALPN under TLS 1.2 (RFC 7301: the answer in the ServerHello): from a
   * 1.2-only client and from one that offers both; none in common:
   * no_application_protocol. */
  for (int both = 0; both < 2; both++) {
    pair_init(&p, &keys[0], 0);
    CHECK_RC(gostx_tls_config_set_versions(p.scfg, 0x0303, 0x0303), 0, "1.2 only");
    if (!both) CHECK_RC(gostx_tls_config_set_versions(p.ccfg, 0x0303, 0x0303), 0, "1.2 only");
    CHECK_RC(gostx_tls_config_set_alpn(p.ccfg, "h2,http/1.1"), 0, "alpn");
    CHECK_RC(gostx_tls_config_set_alpn(p.scfg, "http/1.1,h2"), 0, "alpn");
    pair_start(&p);
    CHECK(pair_handshake(&p) == 0 && !strcmp(gostx_tls_version(p.c), "TLSv1.2") &&
              gostx_tls_alpn(p.c) && !strcmp(gostx_tls_alpn(p.c), "http/1.1") &&
              gostx_tls_alpn(p.s) && !strcmp(gostx_tls_alpn(p.s), "http/1.1"),
          "TLS 1.2 ALPN (client offering %s): the server's preference", both ? "both" : "1.2");
    pair_free(&p);
  }
  pair12(&p, &keys[0], 0, 1);
  CHECK_RC(gostx_tls_config_set_alpn(p.ccfg, "h2"), 0, "alpn");
  CHECK_RC(gostx_tls_config_set_alpn(p.scfg, "http/1.1"), 0, "alpn");
  pair_start(&p);
  CHECK(pair_handshake(&p) < 0 && alert_of(p.s) == GOSTX__ALERT_NO_APPLICATION_PROTOCOL,
        "TLS 1.2 ALPN without a name in common: no_application_protocol");
  pair_free(&p);
  /* A ServerHello's ALPN the client did not offer, or not one name. */
  pair12(&p, &keys[0], 0, 1);
  CHECK_RC(gostx_tls_config_set_alpn(p.ccfg, "h2"), 0, "alpn");
  CHECK_RC(gostx_tls_config_set_alpn(p.scfg, "h2"), 0, "alpn");
  mut m = {GOSTX__HS_SERVER_HELLO, 4, 0};
  gostx__tls_config_test(p.scfg)->mutate = mutate;
  gostx__tls_config_test(p.scfg)->mutate_user = &m;
  pair_start(&p);
  CHECK(pair_handshake(&p) < 0 && alert_of(p.c) == GOSTX__ALERT_ILLEGAL_PARAMETER,
        "TLS 1.2 ALPN answer not offered: illegal_parameter");
  pair_free(&p);
  /* The key log: CLIENT_RANDOM with the 48-byte master secret. */
  pair12(&p, &keys[0], 0, 0);
  gostx_tls_config_set_keylog(p.ccfg, keylog_line, NULL);
  pair_start(&p);
  keylog_seen[0] = 0;
  CHECK(pair_handshake(&p) == 0 && !strncmp(keylog_seen, "CLIENT_RANDOM ", 14) &&
            strlen(keylog_seen) == 14 + 64 + 1 + 96,
        "TLS 1.2 key log line: %s", keylog_seen);
  pair_free(&p);
}

/* ---------------- refusals ---------------- */

static int alert_of(gostx_tls *x) {
  int sent = 0;
  int a = gostx_tls_alert(x, &sent);
  return sent ? a : -1;
}

/* A bit of the header's version (arg < 5) or of the body (never the
 * length: a longer record only makes the reader wait). */
static void flip(uint8_t *rec, size_t len, size_t arg) {
  rec[arg < 5 ? arg : 5 + (arg - 5) % (len - 5)] ^= 0x10;
}

/* A bit flipped in each record of the handshake, each direction, each
 * suite: refused, the victim never connected (but for the hellos' record
 * version, which is ignored). Client to server: CH,
 * Certificate, CKE, CertificateVerify, CCS, Finished; server to client: SH,
 * Certificate, CertificateRequest, ServerHelloDone, CCS, Finished. */
static void test_flips(void) {
  int bad = 0, runs = 0;
  for (int s = 0; s < 3; s++)
    for (int dir = 0; dir < 2; dir++)
      for (int which = 0; which < 6; which++)
        for (size_t at = 0; at < 2; at++) {
          pair p;
          pair12(&p, &keys[s], 0, s);
          with_client_cert(&p, &keys[4 + s]);
          pair_start(&p);
          pipe_buf *w = dir == 0 ? &p.c2s : &p.s2c;
          w->tamper = which;
          w->tamper_fn = flip;
          w->tamper_arg = at ? 5 + 13 * (size_t)which + (size_t)s : 2; /* the version, or a byte after the header */
          (void)pair_handshake(&p);
          if (w->tampered && which == 0 && at == 0) {
            /* the hellos' record version, before a version is taken: ignored
             * (RFC 8446 5.1) */
            runs++;
            if (p.crc != 0 || p.src != 0) {
              bad++;
              fprintf(stderr, "hello record version flipped, suite %d dir %d: client %d server %d\n",
                      s, dir, p.crc, p.src);
            }
          } else if (w->tampered) {
            runs++;
            gostx_tls *victim = dir == 0 ? p.s : p.c;
            /* Refused, or (a flipped message length) both still waiting for
             * bytes that never come: never connected either way. */
            int stalled = want(p.crc) && want(p.src);
            if (!(p.crc < 0 || p.src < 0 || stalled) || victim->state == GOSTX__ST_CONNECTED) {
              bad++;
              fprintf(stderr, "flip suite %d dir %d record %d: client %d server %d\n", s, dir,
                      which, p.crc, p.src);
            }
          }
          pair_free(&p);
        }
  CHECK(bad == 0 && runs == 72, "a flipped bit in any TLS 1.2 handshake record is refused (%d runs)",
        runs);
  /* Application data: a flipped bit, bad_record_mac, nothing delivered. */
  for (int s = 0; s < 3; s++) {
    pair p;
    pair12(&p, &keys[0], 0, s);
    pair_start(&p);
    CHECK_RC(pair_handshake(&p), 0, "handshake");
    p.c2s.tamper = p.c2s.nrec;
    p.c2s.tamper_fn = flip;
    p.c2s.tamper_arg = 9;
    size_t put = 0, got = 0;
    uint8_t b[64];
    int wrc = gostx_tls_write(p.c, "attack at dawn", 14, &put);
    int rrc = gostx_tls_read(p.s, b, sizeof b, &got);
    CHECK(wrc == 0 && rrc < 0 && got == 0 && alert_of(p.s) == GOSTX__ALERT_BAD_RECORD_MAC,
          "%s: a flipped data record: bad_record_mac, nothing delivered", suites12[s]);
    pair_free(&p);
  }
}

static void mutate(void *user, uint8_t *msg, size_t *len, size_t cap) {
  const mut *m = user;
  if (msg[0] != m->type) return;
  size_t body = *len - 4;
  switch (m->how) {
    case 0: msg[0] = (uint8_t)m->arg; break;
    case 1: msg[4 + (size_t)m->arg] ^= 1; break;
    case 2: body--; break;
    case 3: if (*len < cap) msg[4 + body++] = 0; break;
    case 4: msg[*len - 1 - (size_t)m->arg] ^= 1; break;
    case 5: /* a byte after the message, in its record; the header unchanged */
      if (*len < cap) msg[(*len)++] = (uint8_t)m->arg;
      return;
  }
  *len = 4 + body;
  msg[1] = (uint8_t)(body >> 16), msg[2] = (uint8_t)(body >> 8), msg[3] = (uint8_t)body;
}

/* The sender (by_server or the client) changes one of its messages; the
 * other side must refuse it with alert, and not connect. */
static void expect_mutated(int by_server, int s, int cert, mut m, int alert, const char *what) {
  pair p;
  pair12(&p, &keys[s == 2 ? 4 : 0], 0, s);
  if (cert) with_client_cert(&p, &keys[1]);
  gostx__tls_test_hooks *t = gostx__tls_config_test(by_server ? p.scfg : p.ccfg);
  t->mutate = mutate;
  t->mutate_user = &m;
  pair_start(&p);
  (void)pair_handshake(&p);
  gostx_tls *victim = by_server ? p.c : p.s;
  CHECK(alert_of(victim) == alert && victim->state != GOSTX__ST_CONNECTED,
        "%s (%s): alert %d, want %d: %s", what, suites12[s], alert_of(victim), alert,
        gostx_tls_error(victim) ? gostx_tls_error(victim) : "-");
  pair_free(&p);
}

static void test_mutated(void) {
  enum { CH = 1, SH = 2, CERT = 11, CR = 13, SHD = 14, CV = 15, CKE = 16, FIN = 20 };
  for (int s = 0; s < 3; s++) {
    mut m;
    m = (mut){FIN, 1, 0};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_DECRYPT_ERROR, "the client's Finished wrong");
    expect_mutated(1, s, 0, m, GOSTX__ALERT_DECRYPT_ERROR, "the server's Finished wrong");
    m = (mut){FIN, 2, 0};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_DECODE_ERROR, "a short Finished");
    /* fuzz_tls_handshake's find: the genuine Finished, then a byte of a
     * next handshake message in the same record, was taken */
    m = (mut){FIN, 5, 0xff};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "a byte after the server's Finished");
    expect_mutated(0, s, 0, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "a byte after the client's Finished");
    m = (mut){CKE, 0, CV};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "CertificateVerify for CKE");
    m = (mut){CERT, 0, CKE};
    expect_mutated(0, s, 1, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "CKE for the client's Certificate");
    m = (mut){SHD, 0, FIN};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "Finished for ServerHelloDone");
    m = (mut){CERT, 0, SHD};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "ServerHelloDone for Certificate");
    m = (mut){CR, 0, SH};
    expect_mutated(1, s, 1, m, GOSTX__ALERT_UNEXPECTED_MESSAGE, "ServerHello for CertificateRequest");
    m = (mut){SHD, 3, 0};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_DECODE_ERROR, "ServerHelloDone not empty");
    m = (mut){CR, 2, 0};
    expect_mutated(1, s, 1, m, GOSTX__ALERT_DECODE_ERROR, "a truncated CertificateRequest");
    m = (mut){CKE, 2, 0};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_DECODE_ERROR, "a truncated ClientKeyExchange");
    m = (mut){CKE, 3, 0};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_DECODE_ERROR, "ClientKeyExchange with a byte more");
    /* The ephemeral point's y changed: off the curve (GostKeyTransport ends
     * with it; the blob's ukm follows it). */
    m = (mut){CKE, 4, s == 2 ? 10 + 3 : 3};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_ILLEGAL_PARAMETER, "an invalid point in ClientKeyExchange");
    /* The exported key changed: the transport's MAC fails. */
    m = (mut){CKE, 1, s == 2 ? 12 : 6};
    expect_mutated(0, s, 0, m, GOSTX__ALERT_DECRYPT_ERROR, "the exported PMS changed");
    m = (mut){CV, 4, 0};
    expect_mutated(0, s, 1, m, GOSTX__ALERT_DECRYPT_ERROR, "a bad CertificateVerify");
    m = (mut){CV, 1, 1};
    expect_mutated(0, s, 1, m, GOSTX__ALERT_ILLEGAL_PARAMETER, "CertificateVerify of another algorithm");
    m = (mut){SH, 1, 2 + 32 + 1 + 1};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_ILLEGAL_PARAMETER, "a suite not offered");
    m = (mut){SH, 1, 2 + 32 + 1 + 2};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression not null");
    m = (mut){SH, 1, 1};
    expect_mutated(1, s, 0, m, GOSTX__ALERT_PROTOCOL_VERSION, "ServerHello version 0x0302");
  }
  mut m = (mut){CERT, 1, 4};
  expect_mutated(0, 0, 1, m, GOSTX__ALERT_DECODE_ERROR, "a malformed client Certificate");
  /* Unexpected messages in every state: each message either side sends
   * (with a CertificateRequest and a client certificate) given each other
   * handshake type the state does not take: unexpected_message. */
  static const uint8_t types[] = {0, 1, 2, 4, 11, 13, 14, 15, 16, 20, 24};
  static const struct {
    int by_server, type;
    uint8_t takes[2];
  } sent[] = {{0, CH, {CH, CH}},     {0, CERT, {CERT, CERT}}, {0, CKE, {CKE, CKE}},
              {0, CV, {CV, CV}},     {0, FIN, {FIN, FIN}},    {1, SH, {SH, SH}},
              {1, CERT, {CERT, CERT}}, {1, CR, {CR, SHD}},    {1, SHD, {SHD, SHD}},
              {1, FIN, {FIN, FIN}}};
  int wrong = 0, runs = 0;
  for (size_t i = 0; i < sizeof sent / sizeof sent[0]; i++)
    for (size_t t = 0; t < sizeof types; t++) {
      if (types[t] == sent[i].takes[0] || types[t] == sent[i].takes[1]) continue;
      pair q;
      pair12(&q, &keys[0], 0, (int)(t % 3));
      with_client_cert(&q, &keys[1]);
      mut mm = {sent[i].type, 0, types[t]};
      gostx__tls_test_hooks *th = gostx__tls_config_test(sent[i].by_server ? q.scfg : q.ccfg);
      th->mutate = mutate;
      th->mutate_user = &mm;
      pair_start(&q);
      (void)pair_handshake(&q);
      gostx_tls *victim = sent[i].by_server ? q.c : q.s;
      runs++;
      if (alert_of(victim) != GOSTX__ALERT_UNEXPECTED_MESSAGE || victim->state == GOSTX__ST_CONNECTED) {
        wrong++;
        fprintf(stderr, "type %d for %d (by the %s): alert %d\n", types[t], sent[i].type,
                sent[i].by_server ? "server" : "client", alert_of(victim));
      }
      pair_free(&q);
    }
  CHECK(wrong == 0 && runs == 99, "every unexpected message in every state: unexpected_message (%d runs)",
        runs);
  /* An ephemeral key on another curve than the server's key (the client
   * believes the server's key is keys[1]'s): illegal_parameter. */
  pair p;
  for (int s = 0; s < 3; s++) {
    pair12(&p, &keys[0], 0, s);
    pin(p.ccfg, &keys[1]);
    pair_start(&p);
    CHECK(pair_handshake(&p) < 0 && alert_of(p.s) == GOSTX__ALERT_ILLEGAL_PARAMETER &&
              p.s->state != GOSTX__ST_CONNECTED,
          "%s: an ephemeral key on another curve: illegal_parameter (%s)", suites12[s],
          gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
    pair_free(&p);
  }
  /* No client certificate where one is required: handshake_failure. */
  pair12(&p, &keys[0], 0, 0);
  gostx_tls_config_set_verify(p.scfg, GOSTX_TLS_VERIFY_REQUIRE);
  pin(p.scfg, &keys[1]);
  pair_start(&p);
  CHECK(pair_handshake(&p) < 0 && alert_of(p.s) == GOSTX__ALERT_HANDSHAKE_FAILURE &&
            p.s->state != GOSTX__ST_CONNECTED,
        "a required client certificate not sent: handshake_failure");
  pair_free(&p);
  /* Optional (PEER): the handshake completes without one. */
  pair12(&p, &keys[0], 0, 1);
  gostx_tls_config_set_verify(p.scfg, GOSTX_TLS_VERIFY_PEER);
  pin(p.scfg, &keys[1]);
  pair_start(&p);
  CHECK(pair_handshake(&p) == 0 && gostx_tls_peer_chain(p.s, NULL) == 0,
        "an optional client certificate not sent: taken");
  pair_free(&p);
}

/* Raw records to a TLS 1.2 server that sent its flight (WAIT_CKE), or to
 * a connected client or server. */
static void expect_raw(int after, int to_server, const uint8_t *rec, size_t n, int alert,
                       const char *what) {
  pair p;
  pair12(&p, &keys[0], 0, 0);
  pair_start(&p);
  if (after) {
    CHECK_RC(pair_handshake(&p), 0, "handshake");
  } else {
    int r1 = gostx_tls_handshake(p.c);
    int r2 = gostx_tls_handshake(p.s);
    (void)r1, (void)r2;
    p.c2s.len = p.s2c.len = p.c2s.scan = p.s2c.scan = 0;
  }
  gostx_tls *x = to_server ? p.s : p.c;
  pipe_buf *in = to_server ? &p.c2s : &p.s2c;
  memcpy(in->b, rec, n);
  in->len = in->scan = n;
  size_t got = 0;
  uint8_t b[64];
  int rc = after ? gostx_tls_read(x, b, sizeof b, &got) : gostx_tls_handshake(x);
  CHECK(rc < 0 && got == 0 && alert_of(x) == alert, "%s: rc %d alert %d (want %d): %s", what, rc,
        alert_of(x), alert, gostx_tls_error(x) ? gostx_tls_error(x) : "-");
  pair_free(&p);
}

static void test_records(void) {
  static const uint8_t ccs[] = {20, 3, 3, 0, 1, 1}, app[] = {23, 3, 3, 0, 1, 0x41},
                       ver[] = {22, 3, 2, 0, 4, 16, 0, 0, 0}, empty[] = {22, 3, 3, 0, 0},
                       ch[] = {22, 3, 3, 0, 4, 1, 0, 0, 0}, big[] = {23, 3, 3, 0x48, 0x01};
  expect_raw(0, 1, ccs, sizeof ccs, GOSTX__ALERT_UNEXPECTED_MESSAGE, "CCS before ClientKeyExchange");
  expect_raw(0, 1, app, sizeof app, GOSTX__ALERT_UNEXPECTED_MESSAGE, "data before the keys");
  expect_raw(0, 1, ver, sizeof ver, GOSTX__ALERT_PROTOCOL_VERSION, "record version 0x0302");
  expect_raw(0, 1, empty, sizeof empty, GOSTX__ALERT_UNEXPECTED_MESSAGE, "an empty handshake record");
  expect_raw(0, 1, ch, sizeof ch, GOSTX__ALERT_UNEXPECTED_MESSAGE, "a second ClientHello in the handshake");
  expect_raw(0, 1, big, sizeof big, GOSTX__ALERT_RECORD_OVERFLOW, "an oversized record");
  static const uint8_t huge[] = {22, 3, 3, 0, 4, 16, 0xFF, 0xFF, 0xFF},
                       split[] = {22, 3, 3, 0, 5, 16, 0, 0, 10, 1, 20, 3, 3, 0, 1, 1};
  expect_raw(0, 1, huge, sizeof huge, GOSTX__ALERT_DECODE_ERROR, "an oversized handshake message");
  expect_raw(0, 1, split, sizeof split, GOSTX__ALERT_UNEXPECTED_MESSAGE,
             "a CCS inside a fragmented handshake message");
  expect_raw(1, 1, ccs, sizeof ccs, GOSTX__ALERT_BAD_RECORD_MAC, "a plaintext CCS after the handshake");
  expect_raw(1, 0, app, sizeof app, GOSTX__ALERT_BAD_RECORD_MAC, "a record that is not sealed");
  expect_raw(1, 0, big, sizeof big, GOSTX__ALERT_RECORD_OVERFLOW, "an oversized record (connected)");
  /* A truncated record then EOF: the connection ends, nothing delivered. */
  uint8_t trunc[] = {23, 3, 3, 0, 40, 1, 2, 3};
  pair p;
  pair12(&p, &keys[0], 0, 0);
  pair_start(&p);
  CHECK_RC(pair_handshake(&p), 0, "handshake");
  memcpy(p.s2c.b, trunc, sizeof trunc);
  p.s2c.len = p.s2c.scan = sizeof trunc;
  p.s2c.eof = 1;
  size_t got = 0;
  uint8_t b[64];
  CHECK(gostx_tls_read(p.c, b, sizeof b, &got) == GOSTX_EIO && got == 0,
        "a truncated record at EOF: an error, nothing delivered");
  pair_free(&p);
}

/* Renegotiation after the handshake, asked by either side: refused with
 * no_renegotiation; KeyUpdate does not exist in TLS 1.2. */
static void test_renegotiation(void) {
  static const uint8_t hello_request[4] = {0, 0, 0, 0}, client_hello[4] = {1, 0, 0, 0};
  for (int side = 0; side < 2; side++) {
    pair p;
    pair12(&p, &keys[0], 0, side);
    pair_start(&p);
    CHECK_RC(pair_handshake(&p), 0, "handshake");
    gostx_tls *asker = side ? p.c : p.s, *victim = side ? p.s : p.c;
    CHECK_RC(gostx__tls_queue_record(asker, GOSTX__CT_HANDSHAKE, side ? client_hello : hello_request,
                                     4, 0x0303), 0, "queued");
    CHECK_RC(gostx__tls_flush(asker), 0, "flushed");
    size_t got = 0;
    uint8_t b[16];
    int rc = gostx_tls_read(victim, b, sizeof b, &got);
    CHECK(rc < 0 && got == 0 && alert_of(victim) == GOSTX__ALERT_NO_RENEGOTIATION,
          "%s after the handshake: no_renegotiation", side ? "a ClientHello" : "a HelloRequest");
    CHECK_RC(gostx_tls_key_update(asker, 0), GOSTX_ESTATE, "no KeyUpdate in TLS 1.2");
    pair_free(&p);
  }
  /* A sealed ChangeCipherSpec after the handshake: unexpected_message. */
  pair p;
  pair12(&p, &keys[0], 0, 2);
  pair_start(&p);
  CHECK_RC(pair_handshake(&p), 0, "handshake");
  static const uint8_t one = 1;
  CHECK_RC(gostx__tls_queue_record(p.s, GOSTX__CT_CCS, &one, 1, 0x0303), 0, "queued");
  CHECK_RC(gostx__tls_flush(p.s), 0, "flushed");
  size_t got = 0;
  uint8_t b[16];
  CHECK(gostx_tls_read(p.c, b, sizeof b, &got) < 0 && got == 0 &&
            alert_of(p.c) == GOSTX__ALERT_UNEXPECTED_MESSAGE,
        "a sealed ChangeCipherSpec after the handshake: unexpected_message");
  pair_free(&p);
}

/* ---------------- hand-made ClientHellos ---------------- */

enum { NO_EMS = 1, RENEG_FULL = 2, NO_SIGS = 4, SIGS_512 = 8, COMP = 16, SCSV = 32, NO_RENEG = 64 };

static size_t hello12(uint8_t *out, unsigned legacy, int flags) {
  uint8_t *m = out + 5, *p = m + 4;
  *p++ = (uint8_t)(legacy >> 8), *p++ = (uint8_t)legacy;
  memset(p, 0x33, 32), p += 32;
  *p++ = 0;
  *p++ = 0, *p++ = (flags & SCSV) ? 4 : 2, *p++ = 0xC1, *p++ = 0x00;
  if (flags & SCSV) *p++ = 0x00, *p++ = 0xFF;
  if (flags & COMP) *p++ = 2, *p++ = 1, *p++ = 0;
  else *p++ = 1, *p++ = 0;
  uint8_t *ext = p;
  p += 2;
  if (!(flags & NO_SIGS)) {
    *p++ = 0, *p++ = 13, *p++ = 0, *p++ = 4, *p++ = 0, *p++ = 2, *p++ = 8;
    *p++ = (flags & SIGS_512) ? 0x41 : 0x40;
  }
  if (!(flags & NO_RENEG)) {
    *p++ = 0xFF, *p++ = 1, *p++ = 0, *p++ = (flags & RENEG_FULL) ? 2 : 1;
    *p++ = (flags & RENEG_FULL) ? 1 : 0;
    if (flags & RENEG_FULL) *p++ = 7;
  }
  if (!(flags & NO_EMS)) *p++ = 0, *p++ = 23, *p++ = 0, *p++ = 0;
  size_t elen = (size_t)(p - ext - 2);
  ext[0] = (uint8_t)(elen >> 8), ext[1] = (uint8_t)elen;
  size_t body = (size_t)(p - m - 4);
  m[0] = 1, m[1] = 0, m[2] = (uint8_t)(body >> 8), m[3] = (uint8_t)body;
  out[0] = 22, out[1] = 3, out[2] = 1, out[3] = (uint8_t)((body + 4) >> 8), out[4] = (uint8_t)(body + 4);
  return 5 + 4 + body;
}

/* The server's answer to a hand-made ClientHello: its alert (-1 when it
 * took it), and whether its ServerHello carries renegotiation_info. */
static int feed_hello(const uint8_t *rec, size_t n, int *reneg) {
  pair p;
  pair_init(&p, &keys[0], 0);
  pair_start(&p);
  memcpy(p.c2s.b, rec, n);
  p.c2s.len = p.c2s.scan = n;
  int rc = gostx_tls_handshake(p.s);
  int a = rc == GOSTX_TLS_WANT_READ ? -1 : alert_of(p.s);
  static const uint8_t ri[] = {0xFF, 0x01, 0x00, 0x01, 0x00};
  *reneg = 0;
  for (size_t i = 0; a < 0 && i + sizeof ri <= p.s2c.len; i++)
    if (!memcmp(p.s2c.b + i, ri, sizeof ri)) *reneg = 1;
  if (a < 0 && (rc != GOSTX_TLS_WANT_READ || !p.s->v12 || p.s->state != GOSTX__ST12_WAIT_CKE)) a = -2;
  pair_free(&p);
  return a;
}

static void test_hellos(void) {
  uint8_t rec[512];
  int reneg;
  size_t n = hello12(rec, 0x0303, 0);
  CHECK(feed_hello(rec, n, &reneg) == -1 && reneg, "a TLS 1.2 ClientHello: taken, renegotiation_info answered");
  n = hello12(rec, 0x0303, NO_RENEG | SCSV);
  CHECK(feed_hello(rec, n, &reneg) == -1 && reneg, "the renegotiation SCSV: renegotiation_info answered");
  n = hello12(rec, 0x0303, NO_RENEG);
  CHECK(feed_hello(rec, n, &reneg) == -1 && !reneg, "neither: no renegotiation_info");
  static const struct {
    unsigned legacy;
    int flags, alert;
    const char *what;
  } bad[] = {
      {0x0303, NO_EMS, GOSTX__ALERT_HANDSHAKE_FAILURE, "no extended_master_secret"},
      {0x0303, RENEG_FULL, GOSTX__ALERT_HANDSHAKE_FAILURE, "renegotiation_info not empty"},
      {0x0303, NO_SIGS, GOSTX__ALERT_HANDSHAKE_FAILURE, "no signature_algorithms"},
      {0x0303, SIGS_512, GOSTX__ALERT_HANDSHAKE_FAILURE, "signature_algorithms without our key's"},
      {0x0303, COMP, GOSTX__ALERT_ILLEGAL_PARAMETER, "compression other than null"},
      {0x0302, 0, GOSTX__ALERT_PROTOCOL_VERSION, "client_version TLS 1.1"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    n = hello12(rec, bad[i].legacy, bad[i].flags);
    int a = feed_hello(rec, n, &reneg);
    CHECK(a == bad[i].alert, "ClientHello with %s: alert %d (want %d)", bad[i].what, a, bad[i].alert);
  }
}

/* ---------------- RFC 9189 Appendix A.1.3 ---------------- */

typedef struct stream {
  uint8_t b[8192];
  size_t len;
} stream;

typedef struct cap_end {
  end e; /* first: the pipe's end */
  stream *log;
} cap_end;

static ssize_t cap_read(void *user, uint8_t *buf, size_t len) { return pipe_read(user, buf, len); }

/* Writes to the pipe, and keeps every byte written. */
static ssize_t cap_write(void *user, const uint8_t *buf, size_t len) {
  cap_end *ce = user;
  ssize_t n = pipe_write(&ce->e, buf, len);
  if (n > 0 && ce->log->len + (size_t)n <= sizeof ce->log->b) {
    memcpy(ce->log->b + ce->log->len, buf, (size_t)n);
    ce->log->len += (size_t)n;
  }
  return n;
}

static gostx_gost3410_curve curve_of_oid(const char *oid) {
  if (!strcmp(oid, "1.2.643.2.2.35.1")) return GOSTX_GOST3410_256_B; /* CryptoPro-A */
  if (!strcmp(oid, "1.2.643.7.1.2.1.1.1")) return GOSTX_GOST3410_256_A;
  if (!strcmp(oid, "1.2.643.7.1.2.1.2.3")) return GOSTX_GOST3410_512_C;
  if (!strcmp(oid, "1.2.643.7.1.2.1.2.1")) return GOSTX_GOST3410_512_A;
  return (gostx_gost3410_curve)0;
}

/* A key of curve: priv (the printed scalar) set on cfg with the chain taken
 * from the printed Certificate message (carried as it is), and pinned on
 * the peer's config. */
static void rfc_identity(gostx_tls_config *cfg, gostx_tls_config *peer, gostx_gost3410_curve curve,
                         const uint8_t *priv, const uint8_t *cert_msg, size_t cert_len) {
  size_t l = gostx_gost3410_size(curve);
  keypair k = {curve, {0}, {0}};
  memcpy(k.priv, priv, l);
  CHECK_RC(gostx_gost3410_public_key(curve, priv, l, k.pub, 2 * l), 0, "the RFC's key");
  const uint8_t *der[1] = {cert_msg + 10};
  size_t len[1] = {cert_len - 10}; /* header, the list's length, the entry's */
  gostx__tls_config_test(cfg)->raw_chain = 1;
  CHECK_RC(gostx_tls_config_set_chain(cfg, der, len, 1), 0, "the RFC's certificate");
  CHECK_RC(tk_tls_set_key(cfg, curve, priv, l), 0, "the RFC's key");
  pin(peer, &k);
}

static void replay(const json *h) {
  const char *section = tv_str(h, "section");
  const json *vs = json_get(h, "values");
  /* What the RFC prints, in one pass: [n][side] by name; records per side. */
  uint8_t *ch = NULL, *sh = NULL, *cert[2] = {NULL, NULL}, *ds = NULL, *dc = NULL, *deph = NULL,
          *pms = NULL, *k = NULL, *data[2] = {NULL, NULL};
  size_t ch_len = 0, sh_len = 0, cert_len[2] = {0, 0}, data_len[2] = {0, 0}, n;
  static stream want[2], got[2];
  want[0].len = want[1].len = got[0].len = got[1].len = 0;
  for (size_t i = 0; i < json_len(vs); i++) {
    const json *v = json_at(vs, i), *sd = json_get(v, "side");
    const char *name = tv_str(v, "name");
    int server = json_type_of(sd) == JSON_STR && !strcmp(json_str(sd), "server");
    uint8_t *b = tv_hex(v, json_get(v, "hex") ? "hex" : "int", &n);
    uint8_t **keep = NULL;
    size_t *keep_len = &n;
    if (!strcmp(name, "Server private key d_s")) keep = &ds;
    else if (!strcmp(name, "Client private key d_c")) keep = &dc;
    else if (!strcmp(name, "ClientHello message")) keep = &ch, keep_len = &ch_len;
    else if (!strcmp(name, "ServerHello message")) keep = &sh, keep_len = &sh_len;
    else if (!strcmp(name, "Certificate message")) keep = &cert[server], keep_len = &cert_len[server];
    else if (!strcmp(name, "Random d_eph value")) keep = &deph;
    else if (!server && (!strcmp(name, "PMS") || !strcmp(name, "PMS value"))) keep = &pms;
    else if (!strcmp(name, "Random value k used in signature generation")) keep = &k;
    else if (!strcmp(name, "Application data")) keep = &data[server], keep_len = &data_len[server];
    else if (!strcmp(name, "Record layer message") && want[server].len + n <= sizeof want[server].b) {
      memcpy(want[server].b + want[server].len, b, n);
      want[server].len += n;
    }
    if (keep && !*keep) {
      *keep = b;
      *keep_len = n;
    } else {
      free(b);
    }
  }
  int client_cert = cert[0] != NULL;
  CHECK(ch && sh && cert[1] && ds && deph && pms && data[0] && data[1] && (!client_cert || (dc && k)),
        "%s: every value the replay needs is printed", section);
  if (!(ch && sh && cert[1] && ds && deph && pms && data[0] && data[1] && (!client_cert || (dc && k))))
    return;
  pair p;
  pair_init(&p, &keys[0], 0);
  gostx_tls_config *cc = p.ccfg, *sc = gostx_tls_config_new(GOSTX_TLS_SERVER);
  gostx_tls_config_free(p.scfg);
  p.scfg = sc;
  gostx__tls_test_hooks *ct = gostx__tls_config_test(cc), *st = gostx__tls_config_test(sc);
  CHECK_RC(gostx_tls_config_set_versions(cc, 0x0303, 0x0303), 0, "1.2");
  CHECK_RC(gostx_tls_config_set_versions(sc, 0x0303, 0x0303), 0, "1.2");
  /* The RFC's client offers C100 then C101 (A.2.2: C102 alone); its server
   * takes the suite of the example. A.2.2 is without extended_master_secret. */
  unsigned id = (unsigned)strtoul(tv_str(h, "suite"), NULL, 16);
  CHECK_RC(gostx_tls_config_set_suites(cc, id == 0xC102 ? "28147_CNT_IMIT"
                                                        : "KUZNYECHIK_CTR_OMAC:MAGMA_CTR_OMAC"),
           0, "suites");
  CHECK_RC(gostx_tls_config_set_suites(sc, id == 0xC100   ? "KUZNYECHIK_CTR_OMAC"
                                           : id == 0xC101 ? "MAGMA_CTR_OMAC"
                                                          : "28147_CNT_IMIT"),
           0, "suite");
  ct->sig512_first = id == 0xC102;
  ct->no_ems = st->no_ems = json_type_of(json_get(h, "extended_master_secret")) == JSON_BOOL &&
                            json_num(json_get(h, "extended_master_secret")) == 0;
  rfc_identity(sc, cc, curve_of_oid(tv_str(h, "server_curve_oid")), ds, cert[1], cert_len[1]);
  if (client_cert) {
    rfc_identity(cc, sc, curve_of_oid(tv_str(h, "client_curve_oid")), dc, cert[0], cert_len[0]);
    gostx_tls_config_set_verify(sc, GOSTX_TLS_VERIFY_REQUIRE);
    ct->sign_k = k;
  }
  ct->random = ch + 6;
  st->random = sh + 6;
  st->sid12 = sh + 39;
  st->sid12_len = sh[38];
  ct->eph_priv = deph;
  ct->pms = pms;
  p.c = gostx_tls_new(cc);
  p.s = gostx_tls_new(sc);
  cap_end ce = {p.ce, &got[0]}, se = {p.se, &got[1]};
  gostx_tls_set_io(p.c, cap_read, cap_write, &ce);
  gostx_tls_set_io(p.s, cap_read, cap_write, &se);
  int ok = pair_handshake(&p) == 0;
  CHECK(ok, "%s: the handshake (%s / %s)", section, gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-",
        gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
  uint8_t buf[64];
  size_t put = 0, in = 0;
  ok = ok && gostx_tls_write(p.c, data[0], data_len[0], &put) == 0 &&
       gostx_tls_read(p.s, buf, sizeof buf, &in) == 0 && in == data_len[0] &&
       gostx_tls_write(p.s, data[1], data_len[1], &put) == 0 &&
       gostx_tls_read(p.c, buf, sizeof buf, &in) == 0 && in == data_len[1] &&
       gostx_tls_close(p.c) == 0 && gostx_tls_close(p.s) == 0;
  CHECK(ok, "%s: data both ways and close_notify", section);
  for (int side = 0; side < 2; side++)
    for (size_t i = 0; getenv("TLS_DEBUG") && i < got[side].len && i < want[side].len; i++)
      if (got[side].b[i] != want[side].b[i]) {
        fprintf(stderr, "%s side %d: first difference at %zu\n", section, side, i);
        break;
      }
  for (int side = 0; side < 2; side++)
    CHECK(got[side].len == want[side].len && !memcmp(got[side].b, want[side].b, want[side].len),
          "%s: every record the %s writes, as printed (%zu bytes, want %zu)", section,
          side ? "server" : "client", got[side].len, want[side].len);
  pair_free(&p);
  free(ch), free(sh), free(cert[0]), free(cert[1]), free(ds), free(dc), free(deph), free(pms);
  free(k), free(data[0]), free(data[1]);
}

static void test_rfc9189(void) {
  json *f = tv_load("tls12-rfc9189.json");
  const json *hs = json_get(f, "handshakes");
  int replayed = 0;
  for (size_t i = 0; i < json_len(hs); i++) replay(json_at(hs, i)), replayed++;
  CHECK(replayed == 3, "A.1.3.1, A.1.3.2 and A.2.2 replayed");
  json_free(f);
}

int main(void) {
  t_rand_init();
  make_keys();
  test_matrix();
  test_chunks();
  test_versions();
  test_flips();
  test_mutated();
  test_records();
  test_renegotiation();
  test_hellos();
  test_rfc9189();
  return t_done();
}
