/* lib/tls's version fields, our client against our server over memory
 * pipes (tests/support/tls_pair.h), both versions:
 *  - the ClientHello's legacy_version: with supported_versions it plays no
 *    part (RFC 8446 4.2.1: 0x0301..0x0305 get TLS 1.3), but 0x0300 or
 *    below is refused with protocol_version, nothing sent before the alert
 *    (RFC 8446 D.5; TLS 1.3 and 1.2 alike);
 *  - a record's legacy_record_version: a ClientHello's may be anything
 *    (RFC 8446 5.1, RFC 5246 E.1); a protected TLS 1.3 record's is only
 *    additional data (RFC 8446 5.2), so another fails the tag:
 *    bad_record_mac, either side; once TLS 1.2 is taken every record
 *    carries 0x0303 (RFC 5246 6.2.1), another is protocol_version. */
#include "testutil.h"
#include "tls/conn.h"

#include "tls_pair.h"

/* The ClientHello's legacy_version (the mutate hook) and a record's
 * legacy_record_version (a tamper of one record). */
static void set_hello_version(void *user, uint8_t *msg, size_t *len, size_t cap) {
  (void)len, (void)cap;
  unsigned v = *(const unsigned *)user;
  if (msg[0] != GOSTX__HS_CLIENT_HELLO) return;
  msg[4] = (uint8_t)(v >> 8), msg[5] = (uint8_t)v;
}

static void set_record_version(uint8_t *rec, size_t len, size_t v) {
  (void)len;
  rec[1] = (uint8_t)(v >> 8), rec[2] = (uint8_t)v;
}

static const char *err(const gostx_tls *c) {
  return gostx_tls_error(c) ? gostx_tls_error(c) : "-";
}

/* A pair taking version only (0: both), its ClientHello's legacy_version
 * v; handshaken. */
static int hello_version_run(pair *p, unsigned version, unsigned v) {
  pair_only_version = version;
  pair_init(p, &keys[0], 0);
  pair_only_version = 0;
  gostx__tls_test_hooks *t = gostx__tls_config_test(p->ccfg);
  t->mutate = set_hello_version;
  t->mutate_user = &v;
  pair_start(p);
  return pair_handshake(p);
}

static void test_hello_versions(void) {
  static const unsigned taken[] = {0x0301, 0x0302, 0x0304, 0x0305};
  for (size_t i = 0; i < 4; i++) {
    pair p;
    int rc = hello_version_run(&p, 0, taken[i]);
    CHECK(rc == 0 && gostx_tls_version_id(p.s) == GOSTX_TLS_VERSION_1_3,
          "ClientHello legacy_version 0x%04x with supported_versions {1.3, 1.2}: TLS 1.3 (%s)",
          taken[i], err(p.s));
    pair_free(&p);
  }
  static const unsigned refused[] = {0x0300, 0x0200, 0x0002, 0x0000};
  static const unsigned only[] = {0, GOSTX_TLS_VERSION_1_3, GOSTX_TLS_VERSION_1_2};
  for (size_t k = 0; k < 3; k++)
    for (size_t i = 0; i < 4; i++) {
      pair p;
      int rc = hello_version_run(&p, only[k], refused[i]);
      int sent = 0, alert = gostx_tls_alert(p.s, &sent), csent = 1;
      int calert = gostx_tls_alert(p.c, &csent);
      /* the server's whole output one record: the alert the client got */
      CHECK(rc < 0 && alert == GOSTX__ALERT_PROTOCOL_VERSION && sent && p.s2c.nrec == 1 &&
                calert == alert && !csent,
            "taking 0x%04x: ClientHello legacy_version 0x%04x refused with protocol_version alone "
            "(alert %d, %d records out: %s)",
            only[k], refused[i], alert, p.s2c.nrec, err(p.s));
      pair_free(&p);
    }
}

static void test_record_versions(void) {
  static const unsigned record_versions[] = {0x0300, 0x0302, 0x0304, 0x0000, 0xFFFF};
  for (unsigned version = GOSTX_TLS_VERSION_1_2; version <= GOSTX_TLS_VERSION_1_3; version++)
    for (size_t i = 0; i < 5; i++) {
      pair p;
      pair_only_version = version;
      pair_init(&p, &keys[0], 0);
      pair_only_version = 0;
      p.c2s.tamper_fn = set_record_version; /* record 0: the ClientHello's */
      p.c2s.tamper_arg = record_versions[i];
      pair_start(&p);
      int rc = pair_handshake(&p);
      CHECK(rc == 0 && p.c2s.tampered && gostx_tls_version_id(p.s) == version,
            "TLS 0x%04x: a ClientHello record of version 0x%04zx taken (%s)", version,
            p.c2s.tamper_arg, err(p.s));
      pair_free(&p);
    }
}

/* A protected record's version changed on its way: the client's Finished
 * (TLS 1.3: after ClientHello and CCS; TLS 1.2: after ClientHello,
 * ClientKeyExchange and CCS) to the server, the server's
 * EncryptedExtensions (after ServerHello and CCS) to the client, and
 * application data once connected. want: the victim's alert. */
static void expect_protected(unsigned version, int to_server, int which, int after, unsigned v,
                             int want, const char *what) {
  pair p;
  pair_only_version = version;
  pair_init(&p, &keys[0], 0);
  pair_only_version = 0;
  pair_start(&p);
  pipe_buf *w = to_server ? &p.c2s : &p.s2c;
  gostx_tls *victim = to_server ? p.s : p.c, *from = to_server ? p.c : p.s;
  uint8_t got[16];
  size_t n = 0, put = 0;
  int rc = 0;
  if (after) {
    rc = pair_handshake(&p);
    w->tamper = w->nrec;
    w->tamper_fn = set_record_version;
    w->tamper_arg = v;
    if (rc == 0) rc = gostx_tls_write(from, (const uint8_t *)"data", 4, &put);
    if (rc == 0) rc = gostx_tls_read(victim, got, sizeof got, &n);
  } else {
    w->tamper = which;
    w->tamper_fn = set_record_version;
    w->tamper_arg = v;
    rc = pair_handshake(&p);
  }
  int sent = 0, alert = gostx_tls_alert(victim, &sent);
  CHECK(w->tampered && rc != 0 && alert == want && sent && n == 0,
        "TLS 0x%04x: %s of version 0x%04x: alert %d (want %d): %s", version, what, v, alert, want,
        err(victim));
  pair_free(&p);
}

static void test_protected_versions(void) {
  static const struct {
    unsigned version;
    int to_server, which, after, alert;
    const char *what;
  } cases[] = {
      {GOSTX_TLS_VERSION_1_3, 1, 2, 0, GOSTX__ALERT_BAD_RECORD_MAC, "the client's Finished"},
      {GOSTX_TLS_VERSION_1_3, 0, 2, 0, GOSTX__ALERT_BAD_RECORD_MAC, "the server's EncryptedExtensions"},
      {GOSTX_TLS_VERSION_1_3, 1, 0, 1, GOSTX__ALERT_BAD_RECORD_MAC, "application data to the server"},
      {GOSTX_TLS_VERSION_1_3, 0, 0, 1, GOSTX__ALERT_BAD_RECORD_MAC, "application data to the client"},
      {GOSTX_TLS_VERSION_1_2, 1, 3, 0, GOSTX__ALERT_PROTOCOL_VERSION, "the client's Finished"},
      {GOSTX_TLS_VERSION_1_2, 0, 0, 1, GOSTX__ALERT_PROTOCOL_VERSION, "application data to the client"},
  };
  static const unsigned vs[] = {0x0301, 0x0304, 0x0000};
  for (size_t i = 0; i < 3; i++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
      expect_protected(cases[k].version, cases[k].to_server, cases[k].which, cases[k].after, vs[i],
                       cases[k].alert, cases[k].what);
}

int main(void) {
  t_rand_init();
  make_keys();
  test_hello_versions();
  test_record_versions();
  test_protected_versions();
  return t_done();
}
