/* RFC 9367 Appendix A.1 replayed through our client and server: with the
 * example's randoms, ephemeral keys, signing key and nonce k injected
 * through lib/tls's test hooks, every record each side writes is the RFC's
 * byte for byte (the ClientHello and ServerHello records, EncryptedExtensions,
 * Certificate, CertificateVerify and both Finished records, the first
 * application data record), every secret is the RFC's, the ECDHE shared
 * secret is the RFC's from either side, and the client takes the example's
 * NewSessionTicket record.
 *
 * Sources: tests/vectors/tls13-rfc9367.json (read from the RFC's text by
 * tests/vectors/gen/tls13-gost/rfc9367.py: values, records and messages)
 * and tests/vectors/tls13-rfc9367-sigkey.json (the server's signing key,
 * which the RFC does not print: derived from its k, sgn and transcript hash
 * by rfc9367_sigkey.py, checked against the certificate's key).
 *
 * A.2 (an external PSK with HelloRetryRequest) through our server (see
 * replay_a2) and through our client (replay_a2_client: with the test hook
 * psk_only_hello our client's hellos are the RFC's, no
 * signature_algorithms and no key share in the first). */
#include <errno.h>
#include <stdlib.h>

#include "gost3410/ecdh.h"
#include "testutil.h"
#include "key_compat.h"
#include "tls/conn.h"

static const json *ex;

static uint8_t *value(const char *name, size_t *len) {
  const json *vals = json_get(ex, "values");
  for (size_t i = 0; i < json_len(vals); i++)
    if (!strcmp(tv_str(json_at(vals, i), "name"), name)) return tv_hex(json_at(vals, i), "hex", len);
  fprintf(stderr, "no value %s\n", name);
  exit(1);
}

/* The n-th message dump of name (0 first). */
static uint8_t *message(const char *name, int n, size_t *len) {
  const json *msgs = json_get(ex, "messages");
  for (size_t i = 0; i < json_len(msgs); i++)
    if (!strcmp(tv_str(json_at(msgs, i), "name"), name) && n-- == 0)
      return tv_hex(json_at(msgs, i), "hex", len);
  fprintf(stderr, "no message %s\n", name);
  exit(1);
}

/* The whole ciphertext of the record of key at seq. */
static uint8_t *record(const char *key, long long seq, size_t *len) {
  const json *recs = json_get(ex, "records");
  for (size_t i = 0; i < json_len(recs); i++) {
    const json *r = json_at(recs, i);
    if (strcmp(tv_str(r, "key"), key) || tv_int(r, "seq") != seq) continue;
    const json *frags = json_get(r, "ciphertext");
    if (json_len(frags) != 1) break;
    return hex_alloc(json_str(json_at(json_at(frags, 0), 1)), len);
  }
  fprintf(stderr, "no whole record %s %lld\n", key, seq);
  exit(1);
}

static void reverse(uint8_t *out, const uint8_t *in, size_t n) {
  for (size_t i = 0; i < n; i++) out[i] = in[n - 1 - i];
}

typedef struct pipe_buf {
  uint8_t b[1 << 16];
  size_t len;
} pipe_buf;

static ssize_t rd(void *user, uint8_t *buf, size_t len) {
  pipe_buf *p = ((pipe_buf **)user)[0];
  if (!p->len) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < p->len ? len : p->len;
  memcpy(buf, p->b, n);
  memmove(p->b, p->b + n, p->len - n);
  p->len -= n;
  return (ssize_t)n;
}

static ssize_t wr(void *user, const uint8_t *buf, size_t len) {
  pipe_buf *p = ((pipe_buf **)user)[1];
  memcpy(p->b + p->len, buf, len);
  p->len += len;
  return (ssize_t)len;
}

/* The next record of p (whole) compared with want, then dropped into to. */
static void expect_record(pipe_buf *p, const uint8_t *want, size_t want_len, pipe_buf *to,
                          const char *what) {
  CHECK(p->len >= want_len, "%s: %zu bytes on the wire, want %zu", what, p->len, want_len);
  if (p->len < want_len) return;
  size_t rl = 5 + ((size_t)p->b[3] << 8 | p->b[4]);
  CHECK(rl == want_len, "%s: record of %zu bytes, want %zu", what, rl, want_len);
  CHECK_BYTES(p->b, want, want_len, what);
  memcpy(to->b + to->len, p->b, rl);
  to->len += rl;
  memmove(p->b, p->b + rl, p->len - rl);
  p->len -= rl;
}

/* The next record of p compared with the RFC's fragments of the record of
 * key at seq (the RFC elides the middle of long records), then dropped. */
static void expect_fragments(pipe_buf *p, const char *key, long long seq, const char *what) {
  const json *recs = json_get(ex, "records");
  for (size_t i = 0; i < json_len(recs); i++) {
    const json *r = json_at(recs, i);
    if (strcmp(tv_str(r, "key"), key) || tv_int(r, "seq") != seq) continue;
    CHECK(p->len >= 5, "%s: a record", what);
    if (p->len < 5) return;
    size_t rl = 5 + ((size_t)p->b[3] << 8 | p->b[4]);
    const json *frags = json_get(r, "ciphertext");
    for (size_t f = 0; f < json_len(frags); f++) {
      size_t off = (size_t)json_num(json_at(json_at(frags, f), 0)), n;
      uint8_t *want = hex_alloc(json_str(json_at(json_at(frags, f), 1)), &n);
      CHECK(off + n <= rl && rl <= p->len, "%s: fragment at %zu inside the record", what, off);
      if (off + n <= rl && rl <= p->len) CHECK_BYTES(p->b + off, want, n, what);
      free(want);
    }
    if (rl > p->len) rl = p->len;
    memmove(p->b, p->b + rl, p->len - rl);
    p->len -= rl;
    return;
  }
  fprintf(stderr, "no record %s %lld\n", key, seq);
  exit(1);
}

/* Bytes of the RFC's dump onto to (what the peer sent). */
static void feed(pipe_buf *to, uint8_t *bytes, size_t n) {
  memcpy(to->b + to->len, bytes, n);
  to->len += n;
  free(bytes);
}

static void expect_secret(const gostx_tls *c, const char *which, const char *name) {
  size_t n;
  uint8_t *want = value(name, &n);
  CHECK(n == 32, "%s: 32 bytes", name);
  CHECK_BYTES(gostx__tls_secret(c, which), want, 32, name);
  free(want);
}

/* A.2's configuration of role: the external PSK "ePSK", MAGMA_MGM_L,
 * groups, and through the test hooks the side's random (the RFC's 0x01 or
 * 0x82 bytes) and ephemeral key (d_C^res or d_S^res, into priv_be); random
 * and priv_be live as long as the config. */
static gostx_tls_config *a2_config(gostx_tls_role role, const char *groups, uint8_t random[32],
                                   uint8_t priv_be[32]) {
  int client = role == GOSTX_TLS_CLIENT;
  size_t n, pn;
  uint8_t *psk = value("ePSK", &pn), *d = value(client ? "d_C^res" : "d_S^res", &n);
  CHECK(n == 32 && pn == 32, "ePSK and d^res: 32 bytes");
  reverse(priv_be, d, 32);
  memset(random, client ? 0x01 : 0x82, 32);
  gostx_tls_config *cfg = gostx_tls_config_new(role);
  if (!client) /* the example's server sends no NewSessionTicket */
    CHECK_RC(gostx_tls_config_set_tickets(cfg, 0, 0), 0, "no tickets");
  CHECK_RC(gostx_tls_config_set_psk(cfg, (const uint8_t *)"ePSK", 4, psk, 32), 0, "PSK");
  CHECK_RC(gostx_tls_config_set_suites(cfg, "MAGMA_MGM_L"), 0, "suite");
  CHECK_RC(gostx_tls_config_set_groups(cfg, groups), 0, "groups");
  gostx__tls_test_hooks *t = gostx__tls_config_test(cfg);
  t->random = random;
  t->eph_priv = priv_be;
  free(psk), free(d);
  return cfg;
}

/* A.2's ClientHello1 record (127 bytes of message): the RFC's dump of it
 * (and of its record) has 16 bytes more than its length says, the line
 * "0A 07 0B 07 0C 07 0D 07 0E 07 0F 00 2B 00 03 02" spliced in after
 * supported_versions (tests/vectors/tls13-rfc9367.json's misprints);
 * rebuilt from Truncate(ClientHello1) and the binder, both printed, with
 * the header of a 127-byte record, and checked to be the dump without the
 * splice. */
#define A2_CH1_RECORD (5 + 92 + 3 + 32)
static uint8_t *a2_client_hello1(void) {
  size_t tl, bl, dl;
  uint8_t *trunc = value("Truncate(ClientHello1)", &tl), *binder = value("binder", &bl);
  CHECK(tl == 92 && bl == 32 && trunc[3] == 0x7b, "Truncate(ClientHello1) and binder");
  static const uint8_t hdr[5] = {0x16, 0x03, 0x01, 0x00, 0x7f}, binders[3] = {0x00, 0x21, 0x20};
  uint8_t *ch1 = malloc(A2_CH1_RECORD);
  memcpy(ch1, hdr, 5);
  memcpy(ch1 + 5, trunc, tl);
  memcpy(ch1 + 5 + tl, binders, 3);
  memcpy(ch1 + 5 + tl + 3, binder, bl);
  uint8_t *dump = message("Record layer", 0, &dl);
  const size_t at = 5 + 4 + 2 + 32 + 1 + 4 + 2 + 2 + 10 + 7; /* after supported_versions */
  CHECK(dl == A2_CH1_RECORD + 16 && !memcmp(dump, ch1, at) &&
            !memcmp(dump + at + 16, ch1 + at, A2_CH1_RECORD - at),
        "the RFC's ClientHello1 record is ours with 16 bytes spliced in after supported_versions");
  free(trunc), free(binder), free(dump);
  return ch1;
}

/* The client's and the server's record keys and IVs now: the RFC's, by
 * the names of its values (phase "hs" or "ap"). */
static void expect_keys(const gostx_tls *c, const char *phase) {
  char name[32];
  const gostx__tls_record *recs[2] = {&c->wrec.s.r13, &c->rrec.s.r13};
  for (int i = 0; i < 2; i++) {
    const char *side = (i == 0) == (c->role == GOSTX_TLS_CLIENT) ? "client" : "server";
    size_t n;
    snprintf(name, sizeof name, "%s_write_key_%s", side, phase);
    uint8_t *want = value(name, &n);
    CHECK(n == 32, "%s: 32 bytes", name);
    CHECK_BYTES(recs[i]->key, want, 32, name);
    free(want);
    snprintf(name, sizeof name, "%s_write_iv_%s", side, phase);
    want = value(name, &n);
    CHECK(n == 8, "%s: 8 bytes", name);
    CHECK_BYTES(recs[i]->iv, want, 8, name);
    free(want);
  }
}

/* A.2 through our client (the test hook psk_only_hello: the RFC's hellos):
 * both ClientHello records are the RFC's byte for byte (the first as the
 * RFC's values rebuild it, see a2_client_hello1), so are both binders in
 * them; the RFC's HelloRetryRequest, ServerHello, EncryptedExtensions and
 * Finished records are taken; every secret, key and IV is the RFC's; the
 * client's Finished and close_notify records are the RFC's; the server's
 * 130 application data records (sealed under SATS here, the RFC prints the
 * middle of none of them: the printed parts of 0, 1, 128 and 129 are
 * compared) open to 1024 zero bytes each, and its close_notify record
 * (seq 130) ends the stream. */
static void replay_a2_client(void) {
  size_t n;
  uint8_t dc_be[32], c_random[32];
  gostx_tls_config *ccfg = a2_config(GOSTX_TLS_CLIENT, "GC256B,GC512C", c_random, dc_be);
  gostx__tls_test_hooks *ct = gostx__tls_config_test(ccfg);
  ct->no_compat = 1;
  ct->psk_only_hello = 1;
  static pipe_buf c2s, to_client, sink;
  c2s.len = to_client.len = sink.len = 0;
  pipe_buf *cio[2] = {&to_client, &c2s};
  gostx_tls *c = gostx_tls_new(ccfg);
  gostx_tls_set_io(c, rd, wr, cio);

  CHECK_RC(gostx_tls_handshake(c), GOSTX_TLS_WANT_READ, "client: ClientHello1 out");
  uint8_t *want = a2_client_hello1();
  expect_record(&c2s, want, A2_CH1_RECORD, &sink, "the ClientHello1 record (its binder)");
  free(want);
  want = message("Record layer", 1, &n);
  feed(&to_client, want, n); /* HelloRetryRequest */
  int rc = gostx_tls_handshake(c);
  CHECK(rc == GOSTX_TLS_WANT_READ, "client: ClientHello2 out: %d %s", rc,
        gostx_tls_error(c) ? gostx_tls_error(c) : "-");
  want = message("Record layer", 2, &n);
  expect_record(&c2s, want, n, &sink, "the ClientHello2 record (its key share and binder)");
  free(want);
  CHECK(c2s.len == 0, "no CCS (no session id)");
  want = message("Record layer", 3, &n);
  feed(&to_client, want, n); /* ServerHello */
  want = record("server_write_key_hs", 0, &n);
  feed(&to_client, want, n); /* EncryptedExtensions */
  CHECK_RC(gostx_tls_handshake(c), GOSTX_TLS_WANT_READ, "client: the server's Finished awaited");
  CHECK(c->psk, "the server took the PSK");
  expect_secret(c, "hs", "HandshakeSecret");
  expect_secret(c, "s hs", "SHTS");
  expect_secret(c, "c hs", "CHTS");
  expect_keys(c, "hs");
  want = record("server_write_key_hs", 1, &n);
  feed(&to_client, want, n); /* Finished */
  CHECK_RC(gostx_tls_handshake(c), 0, "client: handshake complete");
  want = record("client_write_key_hs", 0, &n);
  expect_record(&c2s, want, n, &sink, "the client Finished record");
  free(want);
  expect_secret(c, "s ap", "SATS");
  expect_keys(c, "ap");
  CHECK(!strcmp(gostx_tls_suite(c), "TLS_GOSTR341112_256_WITH_MAGMA_MGM_L") &&
            !strcmp(gostx_tls_group(c), "GC256B"),
        "the example's suite and group");

  /* The server's records, sealed here under SATS, compared where printed. */
  size_t sl;
  uint8_t *sats = value("SATS", &sl);
  static gostx__tls_record srv;
  CHECK_RC(gostx__tls_record_init(&srv, 0xc104, sats), 0, "the server's write keys from SATS");
  static const uint8_t zeros[1024];
  static pipe_buf one;
  for (long long seq = 0; seq < 130; seq++) {
    size_t rl;
    CHECK_RC(gostx__tls_record_seal(&srv, 0x17, zeros, sizeof zeros, 0, one.b, sizeof one.b, &rl), 0,
             "a server record");
    memcpy(to_client.b + to_client.len, one.b, rl);
    to_client.len += rl;
    one.len = rl;
    if (seq < 2 || seq >= 128) expect_fragments(&one, "server_write_key_ap", seq, "an application data record");
    uint8_t got[1024];
    size_t gl;
    CHECK_RC(gostx_tls_read(c, got, sizeof got, &gl), 0, "1024 bytes of application data");
    CHECK(gl == sizeof got && !memcmp(got, zeros, gl), "1024 zero bytes (record %lld)", seq);
  }
  gostx__tls_record_clear(&srv);
  want = record("server_write_key_ap", 130, &n);
  feed(&to_client, want, n);
  uint8_t got[16];
  size_t gl;
  CHECK_RC(gostx_tls_read(c, got, sizeof got, &gl), GOSTX_TLS_CLOSED, "the server's close_notify");
  CHECK_RC(gostx_tls_close(c), 0, "close_notify");
  want = record("client_write_key_ap", 0, &n);
  expect_record(&c2s, want, n, &sink, "the client's close_notify record");
  free(want);
  gostx_tls_free(c);
  gostx_tls_config_free(ccfg);
  free(sats);
}

/* A.2: our server against the RFC's client, an external PSK (identity
 * "ePSK") with psk_dhe_ke on MAGMA_MGM_L: the first ClientHello carries no
 * key share, so the server asks for GC256B by HelloRetryRequest; both
 * ClientHellos' binders must verify; HRR, ServerHello, EncryptedExtensions
 * and Finished records are the RFC's byte for byte, as are every secret,
 * the application data records 0, 1, 128 and 129 (1024 zero bytes each:
 * TLSTREE's re-keying at 128) and the close_notify. */
static void replay_a2(const json *file) {
  ex = json_at(json_get(file, "examples"), 1);
  CHECK(!strcmp(tv_str(ex, "example"), "A.2") && !strcmp(tv_str(ex, "suite"), "0xc104"),
        "A.2: MAGMA_MGM_L");
  size_t n;
  uint8_t ds_be[32], s_random[32];
  gostx_tls_config *scfg = a2_config(GOSTX_TLS_SERVER, "GC256B", s_random, ds_be);
  static pipe_buf s2c, to_server, sink;
  s2c.len = to_server.len = sink.len = 0;
  pipe_buf *sio[2] = {&to_server, &s2c};
  gostx_tls *s = gostx_tls_new(scfg);
  gostx_tls_set_io(s, rd, wr, sio);
  int rc;

  feed(&to_server, a2_client_hello1(), A2_CH1_RECORD);
  rc = gostx_tls_handshake(s);
  CHECK(rc == GOSTX_TLS_WANT_READ, "server: HelloRetryRequest out: %d %s", rc,
        gostx_tls_error(s) ? gostx_tls_error(s) : "-");
  uint8_t *want = message("Record layer", 1, &n);
  expect_record(&s2c, want, n, &sink, "the HelloRetryRequest record");
  free(want);
  want = message("Record layer", 2, &n);
  feed(&to_server, want, n); /* ClientHello2 */
  rc = gostx_tls_handshake(s);
  CHECK(rc == GOSTX_TLS_WANT_READ, "server: its flight out: %d %s", rc,
        gostx_tls_error(s) ? gostx_tls_error(s) : "-");
  CHECK(s->psk && s->psk_index == 0, "the PSK taken");
  want = message("Record layer", 3, &n);
  expect_record(&s2c, want, n, &sink, "the ServerHello record");
  free(want);
  for (int i = 0; i < 2; i++) {
    want = record("server_write_key_hs", i, &n);
    expect_record(&s2c, want, n, &sink, i ? "the server Finished record" : "the EncryptedExtensions record");
    free(want);
  }
  CHECK(s2c.len == 0, "no Certificate, no CertificateVerify");
  expect_secret(s, "hs", "HandshakeSecret");
  expect_secret(s, "s hs", "SHTS");
  expect_secret(s, "c hs", "CHTS");
  expect_secret(s, "master", "MainSecret");
  expect_secret(s, "s ap", "SATS");
  want = record("client_write_key_hs", 0, &n);
  feed(&to_server, want, n);
  CHECK_RC(gostx_tls_handshake(s), 0, "server: the client's Finished verifies");
  static const uint8_t zeros[1024];
  for (long long seq = 0; seq < 130; seq++) {
    size_t put;
    CHECK_RC(gostx_tls_write(s, zeros, sizeof zeros, &put), 0, "1024 zero bytes");
    if (seq < 2 || seq >= 128) expect_fragments(&s2c, "server_write_key_ap", seq, "an application data record");
    else s2c.len = 0;
  }
  CHECK_RC(gostx_tls_close(s), 0, "close_notify");
  want = record("server_write_key_ap", 130, &n);
  expect_record(&s2c, want, n, &sink, "the server's close_notify record");
  free(want);
  want = record("client_write_key_ap", 0, &n);
  feed(&to_server, want, n);
  uint8_t got[16];
  size_t gl;
  CHECK_RC(gostx_tls_read(s, got, sizeof got, &gl), GOSTX_TLS_CLOSED, "the client's close_notify");
  gostx_tls_free(s);
  gostx_tls_config_free(scfg);
}

int main(void) {
  json *file = tv_load("tls13-rfc9367.json");
  json *keyfile = tv_load("tls13-rfc9367-sigkey.json");
  ex = json_at(json_get(file, "examples"), 0);
  CHECK(!strcmp(tv_str(ex, "example"), "A.1") && !strcmp(tv_str(ex, "suite"), "0xc105"),
        "A.1: KUZNYECHIK_MGM_S");

  /* ECDHE from both sides (RFC 9367 section 6.1.1), GC512C. */
  size_t n, m;
  uint8_t *d_c = value("d_C^res", &n), *q_s = value("Q_S^res", &m), *ecdhe = value("ECDHE", &m);
  uint8_t *d_s = value("d_S^res", &n), *q_c = value("Q_C^res", &m);
  uint8_t dc_be[64], ds_be[64], qs_be[128], qc_be[128], x[64];
  reverse(dc_be, d_c, 64);
  reverse(ds_be, d_s, 64);
  for (int h = 0; h < 2; h++) {
    reverse(qs_be + 64 * h, q_s + 64 * h, 64);
    reverse(qc_be + 64 * h, q_c + 64 * h, 64);
  }
  CHECK_RC(gostx__gost3410_ecdh(GOSTX_GOST3410_512_C, dc_be, 64, qs_be, 128, x, 64), 0, "client ECDHE");
  CHECK_BYTES(x, ecdhe, 64, "ECDHE (client: d_C^res, Q_S^res)");
  CHECK_RC(gostx__gost3410_ecdh(GOSTX_GOST3410_512_C, ds_be, 64, qc_be, 128, x, 64), 0, "server ECDHE");
  CHECK_BYTES(x, ecdhe, 64, "ECDHE (server: d_S^res, Q_C^res)");
  uint8_t pub[128];
  CHECK_RC(gostx_gost3410_public_key(GOSTX_GOST3410_512_C, dc_be, 64, pub, 128), 0, "Q_C");
  CHECK_BYTES(pub, qc_be, 128, "Q_C^res = d_C^res P");
  qs_be[127] ^= 1;
  CHECK_RC(gostx__gost3410_ecdh(GOSTX_GOST3410_512_C, dc_be, 64, qs_be, 128, x, 64), GOSTX_EINVAL,
           "ECDHE refuses a point off the curve");
  qs_be[127] ^= 1;

  /* The configs: the example's choices and the hooks' values. */
  static uint8_t c_random[32], s_random[32], k[32], d_sign[32];
  memset(c_random, 0x03, 32);
  memset(s_random, 0x83, 32);
  uint8_t *kv = value("k (random for signature algorithm)", &n);
  reverse(k, kv, 32);
  CHECK(hex_decode(tv_str(keyfile, "d_be"), d_sign, 32) == 32, "signing key");
  gostx_tls_config *ccfg = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  gostx_tls_config *scfg = gostx_tls_config_new(GOSTX_TLS_SERVER);
  CHECK_RC(gostx_tls_config_set_suites(ccfg, "KUZNYECHIK_MGM_S"), 0, "suite");
  CHECK_RC(gostx_tls_config_set_groups(ccfg, "GC512C"), 0, "group");
  gostx_tls_config_set_verify(ccfg, GOSTX_TLS_VERIFY_NONE);
  gostx__tls_test_hooks *ct = gostx__tls_config_test(ccfg), *st = gostx__tls_config_test(scfg);
  ct->random = c_random;
  ct->eph_priv = dc_be;
  ct->no_compat = 1;
  ct->psk_ke_hello = 1; /* the example's psk_key_exchange_modes: psk_ke */
  /* its server sends its NewSessionTicket after its first data, ours
   * would send tickets at once: ours sends none here, the client takes
   * the example's */
  CHECK_RC(gostx_tls_config_set_tickets(scfg, 0, 0), 0, "no tickets");
  /* The certificate says paramSetA, its key is on CryptoPro-A (256B) and
   * the example signs with gostr34102012_256b: the chain is carried as
   * the RFC prints it, the key pinned. */
  ct->pin_curve = GOSTX_GOST3410_256_B;
  CHECK(hex_decode(tv_str(keyfile, "pub_be"), ct->pin_pub, 64) == 64, "pinned key");
  st->random = s_random;
  st->eph_priv = ds_be;
  st->sign_k = k;
  st->raw_chain = 1;
  uint8_t *cert_msg = message("Certificate", 0, &n);
  size_t cert_len = (size_t)cert_msg[8] << 16 | (size_t)cert_msg[9] << 8 | cert_msg[10];
  const uint8_t *cert = cert_msg + 11;
  CHECK_RC(gostx_tls_config_set_chain(scfg, &cert, &cert_len, 1), 0, "chain");
  CHECK_RC(tk_tls_set_key(scfg, GOSTX_GOST3410_256_B, d_sign, 32), 0, "key");

  static pipe_buf c2s, s2c, to_client, to_server;
  pipe_buf *cio[2] = {&to_client, &c2s}, *sio[2] = {&to_server, &s2c};
  gostx_tls *c = gostx_tls_new(ccfg), *s = gostx_tls_new(scfg);
  gostx_tls_set_io(c, rd, wr, cio);
  gostx_tls_set_io(s, rd, wr, sio);

  /* ClientHello */
  CHECK_RC(gostx_tls_handshake(c), GOSTX_TLS_WANT_READ, "client: ClientHello out");
  uint8_t *want = message("Record layer", 0, &n);
  expect_record(&c2s, want, n, &to_server, "the ClientHello record");
  free(want);
  /* The server's flight */
  CHECK_RC(gostx_tls_handshake(s), GOSTX_TLS_WANT_READ, "server: its flight out");
  want = message("Record layer", 1, &n);
  expect_record(&s2c, want, n, &to_client, "the ServerHello record");
  free(want);
  CHECK_RC(gostx_tls_handshake(c), GOSTX_TLS_WANT_READ, "client: ServerHello in");
  expect_secret(c, "hs", "HandshakeSecret");
  expect_secret(s, "hs", "HandshakeSecret");
  expect_secret(c, "c hs", "CHTS");
  expect_secret(c, "s hs", "SHTS");
  expect_secret(s, "c hs", "CHTS");
  expect_secret(s, "s hs", "SHTS");
  static const char *const flight[4] = {"the EncryptedExtensions record", "the Certificate record",
                                        "the CertificateVerify record", "the server Finished record"};
  for (int i = 0; i < 4; i++) {
    want = record("server_write_key_hs", i, &n);
    expect_record(&s2c, want, n, &to_client, flight[i]);
    free(want);
  }
  CHECK(s2c.len == 0, "nothing more from the server (no CCS: no session id)");
  expect_secret(s, "master", "MainSecret");
  expect_secret(s, "s ap", "SATS");
  expect_secret(s, "c ap", "CATS");
  /* The client's Finished */
  CHECK_RC(gostx_tls_handshake(c), 0, "client: handshake complete");
  /* (the client's MainSecret is wiped once it is done: its application
   * secrets are compared) */
  expect_secret(c, "s ap", "SATS");
  expect_secret(c, "c ap", "CATS");
  want = record("client_write_key_hs", 0, &n);
  expect_record(&c2s, want, n, &to_server, "the client Finished record");
  free(want);
  CHECK_RC(gostx_tls_handshake(s), 0, "server: handshake complete");
  CHECK(!strcmp(gostx_tls_scheme(c), "gostr34102012_256b") && !strcmp(gostx_tls_group(s), "GC512C") &&
            !strcmp(gostx_tls_suite(c), "TLS_GOSTR341112_256_WITH_KUZNYECHIK_MGM_S"),
        "the example's scheme, group and suite");
  /* The server's first application data record, then the example's
   * NewSessionTicket, taken by the client. */
  static const char helo[] = "HELO gost.example.com\r\n";
  size_t put;
  CHECK_RC(gostx_tls_write(s, helo, sizeof helo - 1, &put), 0, "server writes");
  want = record("server_write_key_ap", 0, &n);
  expect_record(&s2c, want, n, &to_client, "the first application data record");
  free(want);
  want = record("server_write_key_ap", 1, &n);
  memcpy(to_client.b + to_client.len, want, n);
  to_client.len += n;
  free(want);
  uint8_t got[64];
  size_t gl;
  CHECK_RC(gostx_tls_read(c, got, sizeof got, &gl), 0, "client reads");
  CHECK(gl == sizeof helo - 1 && !memcmp(got, helo, gl), "HELO received");
  CHECK_RC(gostx_tls_read(c, got, sizeof got, &gl), GOSTX_TLS_WANT_READ,
           "the NewSessionTicket taken");
  CHECK(c->rrec.s.r13.seq == 2 && c->state == GOSTX__ST_CONNECTED, "two records read");
  /* kept as a session: the example's lifetime, age_add and ticket */
  uint8_t sess[256];
  size_t sl = 0;
  CHECK_RC(gostx_tls_get_session(c, sess, sizeof sess, &sl), 0, "the session kept");
  static const uint8_t head[14] = {'G', 'X', 'S', '1', 0xc1, 0x05, 0x00, 0x09,
                                   0x3a, 0x80, 0x86, 0x86, 0x86, 0x86};
  size_t nl = sl > 54 ? sess[54] : 0;
  int ticket_ok = sl == 55 + nl + 2 + 32 && sess[55 + nl] == 0 && sess[56 + nl] == 32;
  for (size_t i = 0; ticket_ok && i < 32; i++) ticket_ok = sess[57 + nl + i] == 0x88;
  CHECK(!memcmp(sess, head, sizeof head) && ticket_ok,
        "the session: suite 0xc105, lifetime 604800, age_add 0x86868686, the 32-byte ticket");

  gostx_tls_free(c);
  gostx_tls_free(s);
  gostx_tls_config_free(ccfg);
  gostx_tls_config_free(scfg);
  free(d_c), free(q_s), free(ecdhe), free(d_s), free(q_c), free(kv), free(cert_msg);
  replay_a2(file);
  replay_a2_client();
  json_free(file);
  json_free(keyfile);
  return t_done();
}
