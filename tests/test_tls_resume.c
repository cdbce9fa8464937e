/* TLS 1.3 session resumption by ticket (lib/tls/ticket.c): our client and
 * server in-process over memory pipes (tests/support/tls_pair.h).
 *
 * Resumed: every suite (a session of one suite resumed under each other),
 * with HelloRetryRequest, with 1-byte transport chunks; no certificate and
 * no signature, a fresh key exchange, data both ways, and new tickets on
 * the resumed connection that resume in turn. Passed over (a full
 * handshake instead, the chain as ever): another server's ticket key, a
 * ticket changed by a bit, past its lifetime (the client's clock and the
 * server's), another server name, tickets turned off, an external PSK
 * set. Refused: a binder under a wrong PSK (decrypt_error), a flipped bit
 * in a NewSessionTicket record (bad_record_mac), a NewSessionTicket over 7
 * days (illegal_parameter) or malformed (decode_error); session bytes that
 * are not a session (GOSTX_EFORMAT), calls out of turn. Where client
 * certificates are required, only a session whose client showed one is
 * resumed. */
#include <stdlib.h>

#include "testutil.h"
#include "tls/conn.h"

#include "tls_pair.h"

static const char *const suites[4] = {"KUZNYECHIK_MGM_L", "MAGMA_MGM_L", "KUZNYECHIK_MGM_S",
                                      "MAGMA_MGM_S"};
static uint8_t tkey[32];

/* A pair whose server seals tickets under tkey, the client naming host. */
static void start(pair *p, const char *host, size_t chunk) {
  pair_init(p, &keys[0], chunk);
  CHECK_RC(gostx_tls_config_set_ticket_key(p->scfg, tkey, sizeof tkey), 0, "ticket key");
  pair_start(p);
  if (host) CHECK_RC(gostx_tls_set_servername(p->c, host), 0, "servername");
}

/* The client reads what the server sent after the handshake (its tickets). */
static void take_tickets(pair *p) {
  uint8_t b[16];
  size_t n = 0;
  CHECK_RC(gostx_tls_read(p->c, b, sizeof b, &n), GOSTX_TLS_WANT_READ, "the tickets taken");
}

/* A full handshake; its session into sess. */
static size_t full(const char *host, const char *suite, uint8_t *sess, size_t cap) {
  pair p;
  start(&p, host, 0);
  if (suite) CHECK_RC(gostx_tls_config_set_suites(p.ccfg, suite), 0, "suite");
  CHECK(pair_handshake(&p) == 0, "full handshake");
  CHECK(!gostx_tls_session_reused(p.c) && !gostx_tls_session_reused(p.s) && p.c->have_peer_key,
        "a full handshake: the server's key");
  take_tickets(&p);
  size_t len = 0;
  CHECK_RC(gostx_tls_get_session(p.c, sess, cap, &len), 0, "session");
  pair_free(&p);
  return len;
}

/* A handshake offering sess: 1 resumed (both sides agree), 0 full; -1 failed. */
static int resume(pair *p, const char *host, const uint8_t *sess, size_t len) {
  CHECK_RC(gostx_tls_set_session(p->c, sess, len), 0, "set_session");
  (void)host;
  if (pair_handshake(p) != 0) return -1;
  int r = gostx_tls_session_reused(p->c);
  CHECK(r == gostx_tls_session_reused(p->s), "both sides agree on resumption");
  return r;
}

static void test_resumed(void) {
  uint8_t sess[2048], next[2048];
  static const uint8_t msg[] = "the quick brown fox resumes over the lazy handshake";
  for (int from = 0; from < 4; from++) {
    size_t len = full("a.example", suites[from], sess, sizeof sess);
    for (int to = 0; to < 4; to++) {
      pair p;
      start(&p, "a.example", 0);
      CHECK_RC(gostx_tls_config_set_suites(p.ccfg, suites[to]), 0, "suite");
      CHECK(resume(&p, "a.example", sess, len) == 1, "%s resumed under %s: %s / %s", suites[from],
            suites[to], gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-",
            gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
      CHECK(p.c->psk && !p.c->have_peer_key && !gostx_tls_scheme(p.c) &&
                gostx_tls_peer_chain(p.c, NULL) == 0 && strstr(gostx_tls_suite(p.c), suites[to]),
            "resumed: no certificate, no signature, the suite asked for");
      CHECK(transfer(&p, p.c, p.s, msg, sizeof msg) == 0 && transfer(&p, p.s, p.c, msg, 20) == 0,
            "resumed: data both ways");
      /* the resumed connection's own ticket resumes too */
      size_t nl = 0;
      CHECK_RC(gostx_tls_get_session(p.c, next, sizeof next, &nl), 0, "a ticket from the resumed connection");
      CHECK(nl != len || memcmp(next, sess, len), "a new ticket, not the old one");
      pair_free(&p);
      start(&p, "a.example", 0);
      CHECK(resume(&p, "a.example", next, nl) == 1, "the resumed connection's ticket resumes");
      pair_free(&p);
    }
  }
  /* Every byte in 1-byte chunks, and with HelloRetryRequest (the second
   * ClientHello's binder over the restarted transcript). */
  size_t len = full("a.example", NULL, sess, sizeof sess);
  pair p;
  start(&p, "a.example", 1);
  CHECK(resume(&p, "a.example", sess, len) == 1, "resumed in 1-byte chunks");
  pair_free(&p);
  start(&p, "a.example", 0);
  CHECK_RC(gostx_tls_config_set_groups(p.ccfg, "GC256B:GC512A"), 0, "groups");
  CHECK_RC(gostx_tls_config_set_groups(p.scfg, "GC512A"), 0, "groups");
  CHECK(resume(&p, "a.example", sess, len) == 1 && p.c->hrr && !strcmp(gostx_tls_group(p.c), "GC512A"),
        "resumed with HelloRetryRequest: %s", gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
  pair_free(&p);
  /* no server name at all, on both handshakes */
  len = full(NULL, NULL, sess, sizeof sess);
  start(&p, NULL, 0);
  CHECK(resume(&p, NULL, sess, len) == 1, "resumed without a server name");
  pair_free(&p);
}

/* A full handshake where sess is offered (or not), the chain verified. */
static void expect_full(const uint8_t *sess, size_t len, const char *host, void (*tweak)(pair *),
                        const char *what) {
  pair p;
  start(&p, host, 0);
  if (tweak) tweak(&p);
  CHECK(resume(&p, host, sess, len) == 0 && p.c->have_peer_key && gostx_tls_scheme(p.c),
        "%s: a full handshake (%s / %s)", what, gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-",
        gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
  pair_free(&p);
}

static void other_key(pair *p) {
  uint8_t k[32];
  memcpy(k, tkey, 32);
  k[0] ^= 1;
  CHECK_RC(gostx_tls_config_set_ticket_key(p->scfg, k, 32), 0, "another key");
}
static void no_tickets(pair *p) { CHECK_RC(gostx_tls_config_set_tickets(p->scfg, 0, 0), 0, "off"); }
/* 7201 s after the ticket by one side's clock, at once by the other's */
static void server_later(pair *p) {
  gostx__tls_config_test(p->scfg)->now = 1900000000 + 7201;
  gostx__tls_config_test(p->ccfg)->now = 1900000000;
}
static void client_later(pair *p) {
  gostx__tls_config_test(p->ccfg)->now = 1900000000 + 7201;
  gostx__tls_config_test(p->scfg)->now = 1900000000;
}
static void both_now(pair *p) {
  gostx__tls_config_test(p->scfg)->now = 1900000000;
  gostx__tls_config_test(p->ccfg)->now = 1900000000;
}
static void external_psk(pair *p) {
  static const uint8_t k[32] = {1};
  CHECK_RC(gostx_tls_config_set_psk(p->ccfg, (const uint8_t *)"other", 5, k, 32), 0, "psk");
}

/* Offsets in the session bytes (ticket.c): the PSK at 22, the name's
 * length at 54, then the name, the ticket's length and the ticket. */
static void test_passed_over(void) {
  uint8_t sess[2048], bad[2048];
  size_t len = full("a.example", NULL, sess, sizeof sess);
  expect_full(sess, len, "a.example", other_key, "another server's ticket key");
  expect_full(sess, len, "a.example", no_tickets, "tickets off at the server");
  expect_full(sess, len, "a.example", external_psk, "an external PSK set (it goes first)");
  expect_full(sess, len, "b.example", NULL, "another server name (not offered)");
  /* the session's name changed so that the client offers it for b.example:
   * the server's ticket says a.example */
  memcpy(bad, sess, len);
  size_t nl = sess[54];
  CHECK(nl == 9, "the name's length");
  memcpy(bad + 55, "b", 1);
  expect_full(bad, len, "b.example", NULL, "a ticket for another server name");
  /* a bit of the ticket changed */
  for (size_t at = 57 + nl; at < len; at += 13) {
    memcpy(bad, sess, len);
    bad[at] ^= 0x10;
    expect_full(bad, len, "a.example", NULL, "a changed ticket");
  }
  /* lifetimes: issued at a fixed time, resumed 7201 s later (lifetime
   * 7200) by the server's clock (the client offers it) and the client's
   * (the client does not) */
  pair p;
  start(&p, "a.example", 0);
  both_now(&p);
  CHECK(pair_handshake(&p) == 0, "handshake");
  take_tickets(&p);
  CHECK_RC(gostx_tls_get_session(p.c, sess, sizeof sess, &len), 0, "session");
  pair_free(&p);
  start(&p, "a.example", 0);
  both_now(&p);
  CHECK(resume(&p, "a.example", sess, len) == 1, "within its lifetime: resumed");
  pair_free(&p);
  expect_full(sess, len, "a.example", server_later, "past its lifetime by the server's clock");
  expect_full(sess, len, "a.example", client_later, "past its lifetime by the client's clock");
}

/* A server that requires client certificates resumes only a session
 * whose client showed one (the ticket says so): a session of a server
 * that asked for none gets a full handshake, the certificate asked. */
static void require_cert(pair *p) {
  gostx_tls_config_set_verify(p->scfg, GOSTX_TLS_VERIFY_REQUIRE);
  set_identity(p->ccfg, &keys[1]);
  pin(p->scfg, &keys[1]);
}

static void test_client_certs(void) {
  uint8_t sess[2048];
  size_t len = 0;
  pair p;
  start(&p, "a.example", 0);
  require_cert(&p);
  CHECK(pair_handshake(&p) == 0 && p.s->have_peer_key && p.s->client_auth, "a client certificate");
  take_tickets(&p);
  CHECK_RC(gostx_tls_get_session(p.c, sess, sizeof sess, &len), 0, "session");
  pair_free(&p);
  start(&p, "a.example", 0);
  require_cert(&p);
  CHECK(resume(&p, "a.example", sess, len) == 1 && p.s->client_auth && !p.s->have_peer_key,
        "a session whose client showed a certificate: resumed where one is required");
  pair_free(&p);
  len = full("a.example", NULL, sess, sizeof sess); /* no certificate asked */
  start(&p, "a.example", 0);
  require_cert(&p);
  CHECK(resume(&p, "a.example", sess, len) == 0 && p.s->have_peer_key && p.s->client_auth,
        "a session without a client certificate: a full handshake where one is required");
  pair_free(&p);
}

static void test_refused(void) {
  uint8_t sess[2048], bad[2048];
  size_t len = full("a.example", NULL, sess, sizeof sess);
  /* the PSK changed: the ticket opens, the binder does not verify */
  memcpy(bad, sess, len);
  bad[22] ^= 1;
  pair p;
  start(&p, "a.example", 0);
  int sent = 0;
  CHECK(resume(&p, "a.example", bad, len) == -1 &&
            gostx_tls_alert(p.s, &sent) == GOSTX__ALERT_DECRYPT_ERROR && sent &&
            strstr(gostx_tls_error(p.s), "binder"),
        "a wrong PSK: decrypt_error (%s)", gostx_tls_error(p.s) ? gostx_tls_error(p.s) : "-");
  pair_free(&p);

  /* a flipped bit in a NewSessionTicket record: bad_record_mac */
  start(&p, "a.example", 0);
  CHECK(pair_handshake(&p) == 0, "handshake");
  CHECK(p.s2c.len > 40, "the tickets are queued");
  p.s2c.b[30] ^= 4;
  uint8_t b[16];
  size_t n = 0;
  CHECK(gostx_tls_read(p.c, b, sizeof b, &n) == GOSTX_EAUTH &&
            gostx_tls_alert(p.c, &sent) == GOSTX__ALERT_BAD_RECORD_MAC && sent,
        "a flipped NewSessionTicket: bad_record_mac");
  CHECK(gostx_tls_get_session(p.c, sess, sizeof sess, &n) == GOSTX_ESTATE, "no session kept");
  pair_free(&p);

  /* NewSessionTicket messages of our making under the server's key */
  static const struct {
    uint8_t msg[40];
    size_t len;
    int alert;
    const char *what;
  } nst[] = {
      {{4, 0, 0, 14, 0, 9, 0x3a, 0x81, 0, 0, 0, 0, 0, 0, 1, 0xaa, 0, 0}, 18,
       GOSTX__ALERT_ILLEGAL_PARAMETER, "a lifetime over 7 days"},
      {{4, 0, 0, 12, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xaa}, 16, GOSTX__ALERT_DECODE_ERROR,
       "no extensions field"},
      {{4, 0, 0, 13, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 17, GOSTX__ALERT_DECODE_ERROR,
       "an empty ticket"},
      {{4, 0, 0, 16, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xaa, 0, 2, 0, 0}, 20,
       GOSTX__ALERT_DECODE_ERROR, "an extension cut short"},
  };
  for (size_t i = 0; i < sizeof nst / sizeof *nst; i++) {
    pair_tickets = 0;
    start(&p, "a.example", 0);
    pair_tickets = 2;
    CHECK(pair_handshake(&p) == 0, "handshake");
    size_t got = 0;
    CHECK_RC(gostx__tls_record_seal(&p.s->wrec.s.r13, 22, nst[i].msg, nst[i].len, 0, p.s2c.b, p.s2c.cap, &got),
             0, "seal");
    p.s2c.len = got;
    CHECK(gostx_tls_read(p.c, b, sizeof b, &n) < 0 && gostx_tls_alert(p.c, &sent) == nst[i].alert && sent,
          "NewSessionTicket with %s: alert %d (%s)", nst[i].what, nst[i].alert,
          gostx_tls_error(p.c) ? gostx_tls_error(p.c) : "-");
    pair_free(&p);
  }
  /* lifetime 0: taken, not kept */
  {
    static const uint8_t zero[] = {4, 0, 0, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xaa, 0, 0};
    pair_tickets = 0;
    start(&p, "a.example", 0);
    pair_tickets = 2;
    CHECK(pair_handshake(&p) == 0, "handshake");
    size_t got = 0;
    CHECK_RC(gostx__tls_record_seal(&p.s->wrec.s.r13, 22, zero, sizeof zero, 0, p.s2c.b, p.s2c.cap, &got), 0,
             "seal");
    p.s2c.len = got;
    take_tickets(&p);
    CHECK(gostx_tls_get_session(p.c, sess, sizeof sess, &n) == GOSTX_ESTATE,
          "a ticket of lifetime 0: not kept");
    pair_free(&p);
  }
}

static void test_api(void) {
  uint8_t sess[2048];
  size_t len = full("a.example", NULL, sess, sizeof sess), need = 0;
  pair p;
  start(&p, "a.example", 0);
  CHECK_RC(gostx_tls_get_session(p.c, sess, sizeof sess, &need), GOSTX_ESTATE, "no ticket yet");
  CHECK_RC(gostx_tls_get_session(p.s, sess, sizeof sess, &need), GOSTX_ESTATE, "a server has none");
  CHECK_RC(gostx_tls_set_session(p.s, sess, len), GOSTX_ESTATE, "set_session on a server");
  CHECK_RC(gostx_tls_set_session(p.c, sess, len - 1), GOSTX_EFORMAT, "a session cut short");
  CHECK_RC(gostx_tls_set_session(p.c, (const uint8_t *)"GXS2", 4), GOSTX_EFORMAT, "not a session");
  uint8_t bad[2048];
  memcpy(bad, sess, len);
  bad[4] = 0xc1, bad[5] = 0x00; /* a TLS 1.2 suite */
  CHECK_RC(gostx_tls_set_session(p.c, bad, len), GOSTX_EFORMAT, "a session of a TLS 1.2 suite");
  memcpy(bad, sess, len);
  bad[55] = ' ';
  CHECK_RC(gostx_tls_set_session(p.c, bad, len), GOSTX_EFORMAT, "a session with a bad name");
  CHECK(pair_handshake(&p) == 0, "handshake");
  take_tickets(&p);
  CHECK_RC(gostx_tls_get_session(p.c, sess, 10, &need), GOSTX_ELEN, "a short buffer");
  CHECK(need == len, "the length needed: %zu", need);
  CHECK_RC(gostx_tls_set_session(p.c, sess, len), GOSTX_ESTATE, "set_session after the handshake");
  pair_free(&p);
  pair_init(&p, &keys[0], 0);
  CHECK_RC(gostx_tls_config_set_tickets(p.scfg, 9, 7200), GOSTX_EINVAL, "9 tickets");
  CHECK_RC(gostx_tls_config_set_tickets(p.scfg, 1, 604801), GOSTX_EINVAL, "a lifetime over 7 days");
  CHECK_RC(gostx_tls_config_set_tickets(p.ccfg, 1, 60), GOSTX_EINVAL, "tickets on a client config");
  CHECK_RC(gostx_tls_config_set_ticket_key(p.scfg, tkey, 31), GOSTX_ELEN, "a 31-byte key");
  pair_free(&p);
}

int main(void) {
  t_rand_init();
  make_keys();
  t_rand_bytes(tkey, sizeof tkey);
  pair_tickets = 2;
  test_resumed();
  test_passed_over();
  test_client_certs();
  test_refused();
  test_api();
  return t_done();
}
