/* libFuzzer harness: the TLS 1.3 and TLS 1.2 handshakes (lib/tls) on
 * untrusted messages, client side and server side. Three modes:
 *
 *  - mutated peer (byte 0 bit 0 clear): our client and our server run
 *    against each other in-process and the fuzzer changes the handshake
 *    messages one side sends (every message and extension: ClientHello,
 *    ServerHello/HelloRetryRequest, EncryptedExtensions, CertificateRequest,
 *    Certificate, CertificateVerify, Finished) before that side puts them in
 *    its transcript and seals them (lib/tls's mutate test hook), so the
 *    other side parses them under genuine keys, deep in its state machine;
 *  - resumption (bit 0 clear, bit 7 set): first an unchanged TLS 1.3
 *    handshake whose client takes the server's tickets (the server seals
 *    them under a fixed ticket key) and exports its session
 *    (gostx_tls_get_session); then a second pair, its client offering
 *    that session (gostx_tls_set_session: pre_shared_key, the res binder),
 *    whose messages change as in the mutated-peer mode; after its
 *    handshake the client reads the (changed) NewSessionTickets;
 *  - raw (bit 0 set): the fuzzer's bytes are the transport stream a fresh
 *    server (bit 1 clear) or client (bit 1 set, after its ClientHello)
 *    reads: records and plaintext hellos of any shape; with bit 7 set
 *    they are instead session bytes for gostx_tls_set_session on a fresh
 *    client which, if they are taken, shakes hands with our server
 *    (unchanged): the offer of any session contents, and the server's
 *    ticket opening of any identity.
 *
 * Asserts (abort on the first violation): nothing crashes or reads or
 * writes out of bounds (ASan); a changed CertificateVerify or Finished is
 * never accepted; a side that completes its handshake agrees
 * with its peer on the suite, the group and both application secrets
 * (in the mutated mode nothing can complete otherwise: the Finished
 * messages cover the transcript); in the raw mode nothing completes (no
 * peer holds the keys) and no application data is released. Resumption:
 * the first handshake completes and yields a session; when both complete,
 * both or neither report a resumed session, and a resumed client saw no
 * certificate; a server never resumes from a changed ClientHello (its
 * binder covers it); a ClientHello changed only in its binder is refused
 * with decrypt_error (the ticket opens, the binder does not verify); a
 * server that requires client certificates never resumes a session whose
 * client showed none; NewSessionTickets left unchanged give the client a
 * new session. Session bytes: a session taken yields a ClientHello that
 * carries its ticket, if it is offered at all.
 *
 * Input (mutated mode): byte 0: bit 1 which side's messages change (0 the
 * server's, 1 the client's), bit 2 client certificates, bits 3-4 the suite,
 * bit 5 an external PSK on both sides (psk_dhe_ke: the binders, the
 * server's selected_identity, the certificate-less flight; in the raw mode
 * the server holds it; in the resumption mode only the second server
 * does, so the client offers the ticket), bit 6 TLS 1.2 on both sides
 * (bits 3-4 mod 3 the RFC 9189 suite; the messages ClientHello,
 * ServerHello, Certificate, CertificateRequest, ServerHelloDone,
 * ClientKeyExchange, CertificateVerify, Finished; in the raw mode a TLS
 * 1.2 peer; in the resumption mode instead: the second server requires
 * client certificates, whatever bit 2 gave the first), bit 7 the
 * resumption mode (with bit 0: session bytes);
 * byte 1: the group (mod 7), byte 2: the server key's curve (mod 7); then
 * operations of 5 bytes: message index (the n-th message that side sends),
 * kind, position (2, big-endian), value. Kind mod 4: 0 XOR value at the
 * position (mod length), 1 cut the message to position (mod length + 1), 2
 * insert value at the position, 3 replace from the position on by the next
 * value bytes of the input. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls/conn.h"
#define FUZZ_NAME "fuzz_tls_handshake"
#include "fuzz_check.h"

typedef struct buf {
  uint8_t b[1 << 17];
  size_t len;
} buf;

typedef struct end {
  buf *in, *out;
} end;

static ssize_t rd(void *user, uint8_t *p, size_t len) {
  end *e = user;
  if (!e->in->len) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < e->in->len ? len : e->in->len;
  memcpy(p, e->in->b, n);
  memmove(e->in->b, e->in->b + n, e->in->len - n);
  e->in->len -= n;
  return (ssize_t)n;
}

static ssize_t wr(void *user, const uint8_t *p, size_t len) {
  end *e = user;
  size_t room = sizeof e->out->b - e->out->len;
  if (!room) {
    errno = EAGAIN;
    return -1;
  }
  size_t n = len < room ? len : room;
  memcpy(e->out->b + e->out->len, p, n);
  e->out->len += n;
  return (ssize_t)n;
}

typedef struct ops {
  const uint8_t *p;
  size_t n;
  int next;         /* the index of the next message this side sends */
  int auth_changed; /* a CertificateVerify or Finished was changed */
  int ch_changed;   /* the last ClientHello was changed ... */
  int binder_only;  /* ... in its last 32 bytes alone (the binder) */
  int nst_changed;  /* a NewSessionTicket was changed */
} ops;

static uint8_t before[1 << 16];

static void mutate(void *user, uint8_t *msg, size_t *len, size_t cap) {
  ops *o = user;
  int idx = o->next++;
  size_t len0 = *len < sizeof before ? *len : sizeof before;
  memcpy(before, msg, len0);
  const uint8_t *p = o->p;
  size_t n = o->n;
  while (n >= 5) {
    int at = p[0], kind = p[1] & 3;
    size_t pos = (size_t)p[2] << 8 | p[3];
    uint8_t val = p[4];
    p += 5;
    n -= 5;
    size_t take = kind == 3 ? (val < n ? val : n) : 0;
    if (at == idx) {
      if (kind == 0 && *len) {
        msg[pos % *len] ^= val;
      } else if (kind == 1) {
        *len = pos % (*len + 1);
      } else if (kind == 2 && *len < cap) {
        pos %= *len + 1;
        memmove(msg + pos + 1, msg + pos, *len - pos);
        msg[pos] = val;
        (*len)++;
      } else if (kind == 3) {
        pos %= *len + 1;
        if (pos + take <= cap) {
          memcpy(msg + pos, p, take);
          *len = pos + take;
        }
      }
    }
    p += take;
    n -= take;
  }
  int changed = *len != len0 || memcmp(before, msg, len0);
  if ((before[0] == GOSTX__HS_CERTIFICATE_VERIFY || before[0] == GOSTX__HS_FINISHED) && changed)
    o->auth_changed = 1;
  if (before[0] == GOSTX__HS_CLIENT_HELLO) {
    o->ch_changed = changed;
    o->binder_only = changed && *len == len0 && len0 > 32 && !memcmp(before, msg, len0 - 32);
  }
  if (before[0] == GOSTX__HS_NEW_SESSION_TICKET && changed) o->nst_changed = 1;
}

static struct {
  gostx_gost3410_curve curve;
  uint8_t priv[64], pub[128];
} keys[7];
static const uint8_t fake_der[] = {0x30, 0x03, 0x02, 0x01, 0x01};
static const uint8_t rnd[32] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
                                7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
static uint8_t eph[64], sign_k[64];
static buf c2s, s2c;

static void init(void) {
  static int done;
  if (done) return;
  done = 1;
  memset(eph, 0x11, sizeof eph);
  memset(sign_k, 0x22, sizeof sign_k);
  for (int i = 0; i < 7; i++) {
    keys[i].curve = gostx__tls_scheme_curve(0x0709 + (unsigned)i);
    size_t l = gostx_gost3410_size(keys[i].curve);
    memset(keys[i].priv, 0x05 + i, l);
    if (gostx_gost3410_public_key(keys[i].curve, keys[i].priv, l, keys[i].pub, 2 * l)) bug("key");
  }
}

static void identity(gostx_tls_config *cfg, int k) {
  const uint8_t *der = fake_der;
  size_t len = sizeof fake_der;
  gostx__tls_config_test(cfg)->raw_chain = 1;
  gostx_gost3410_key key;
  if (gostx_tls_config_set_chain(cfg, &der, &len, 1) ||
      gostx_gost3410_key_set_private(&key, keys[k].curve, keys[k].priv,
                                     gostx_gost3410_size(keys[k].curve), NULL) ||
      gostx_tls_config_set_key(cfg, &key))
    bug("identity");
}

static void pin(gostx_tls_config *cfg, int k) {
  gostx__tls_test_hooks *t = gostx__tls_config_test(cfg);
  t->pin_curve = keys[k].curve;
  memcpy(t->pin_pub, keys[k].pub, 2 * gostx_gost3410_size(keys[k].curve));
}

static int want(int rc) { return rc == GOSTX_TLS_WANT_READ || rc == GOSTX_TLS_WANT_WRITE; }

static const char *const suites[4] = {"KUZNYECHIK_MGM_L", "MAGMA_MGM_L", "KUZNYECHIK_MGM_S",
                                      "MAGMA_MGM_S"};
static const char *const suites12[3] = {"KUZNYECHIK_CTR_OMAC", "MAGMA_CTR_OMAC", "28147_CNT_IMIT"};
static const char *const groups[7] = {"GC256A", "GC256B", "GC256C", "GC256D",
                                      "GC512A", "GC512B", "GC512C"};

/* The resumption and session modes: the server's ticket key, both sides'
 * clock (the session's received time in the session seeds) and the name
 * the client asks for (a session is offered only to its server name). */
static const uint8_t ticket_key[32] = {0x7c, 0x1d, 0x5e};
#define NOW 1900000000u
static const char host[] = "a.example";

enum { PLAIN, FIRST, SECOND, SESSION }; /* what configure sets up */

/* Both sides' configurations as byte 0's bits 2-6 and bytes 1-2 say. */
static void configure(gostx_tls_config *cc, gostx_tls_config *sc, const uint8_t *data, int mode) {
  int k = data[2] % 7;
  gostx_tls_config_set_verify(cc, GOSTX_TLS_VERIFY_NONE);
  pin(cc, k);
  identity(sc, k);
  gostx__tls_test_hooks *ct = gostx__tls_config_test(cc), *st = gostx__tls_config_test(sc);
  ct->random = st->random = rnd;
  ct->eph_priv = st->eph_priv = eph;
  st->sign_k = ct->sign_k = sign_k;
  if ((data[0] & 4) || (mode == SECOND && (data[0] & 64))) {
    gostx_tls_config_set_verify(sc, GOSTX_TLS_VERIFY_REQUIRE);
    identity(cc, (k + 1) % 7);
    pin(sc, (k + 1) % 7);
  }
  static const uint8_t psk_key[32] = {0x5a};
  if ((data[0] & 32) && mode != FIRST &&
      ((mode != SECOND && gostx_tls_config_set_psk(cc, (const uint8_t *)"fuzz", 4, psk_key, 32)) ||
       gostx_tls_config_set_psk(sc, (const uint8_t *)"fuzz", 4, psk_key, 32)))
    bug("psk");
  int v12 = (mode == PLAIN || mode == SESSION) && (data[0] >> 6 & 1);
  if (v12 && (gostx_tls_config_set_versions(cc, 0x0303, 0x0303) ||
              gostx_tls_config_set_versions(sc, 0x0303, 0x0303)))
    bug("versions");
  if (gostx_tls_config_set_suites(cc, v12 ? suites12[(data[0] >> 3 & 3) % 3]
                                          : suites[data[0] >> 3 & 3]) ||
      gostx_tls_config_set_groups(cc, groups[data[1] % 7]) ||
      gostx_tls_config_set_groups(sc, "GC256A,GC256B,GC256C,GC256D,GC512A,GC512B,GC512C"))
    bug("config");
  if (mode != PLAIN) {
    if (gostx_tls_config_set_ticket_key(sc, ticket_key, sizeof ticket_key)) bug("ticket key");
    ct->now = st->now = NOW;
  }
}

static gostx_tls *open_end(gostx_tls_config *cfg, end *e, int named) {
  gostx_tls *t = gostx_tls_new(cfg);
  if (!t || (named && gostx_tls_set_servername(t, host))) bug("new");
  gostx_tls_set_io(t, rd, wr, e);
  return t;
}

/* Both sides' handshakes, turn about, until neither can go on. */
static void drive(gostx_tls *c, gostx_tls *s, int *crc, int *src) {
  for (int i = 0; i < 64 && (want(*crc) || want(*src)); i++) {
    if (want(*crc)) *crc = gostx_tls_handshake(c);
    if (want(*src)) *src = gostx_tls_handshake(s);
    if (want(*crc) && want(*src) && !c2s.len && !s2c.len) break;
  }
}

/* What a side that completed must agree on with its peer. */
static void agree(gostx_tls *c, gostx_tls *s, int crc, int src, int v12) {
  if (crc != 0 && src != 0) return;
  /* Completed: both sides hold the same keys (what either completes
   * with, the other one derived: the transcript both saw). */
  if (strcmp(gostx_tls_suite(c), gostx_tls_suite(s)) || (!v12 && c->group != s->group))
    bug("completed with different suites or groups");
  if (crc == 0 && src == 0 && !v12 &&
      (memcmp(c->c_ap, s->c_ap, 32) || memcmp(c->s_ap, s->s_ap, 32)))
    bug("completed with different secrets");
  if (crc == 0 && src == 0 && v12 &&
      (!c->v12 || !s->v12 || memcmp(c->wrec.s.r12.key, s->rrec.s.r12.key, 32) ||
       memcmp(c->wrec.s.r12.mac_key, s->rrec.s.r12.mac_key, 32) ||
       memcmp(c->rrec.s.r12.key, s->wrec.s.r12.key, 32)))
    bug("TLS 1.2 completed with different keys");
  uint8_t b[16];
  size_t put, got;
  if (crc == 0 && src == 0 && gostx_tls_write(c, "ping", 4, &put) == 0 &&
      gostx_tls_read(s, b, sizeof b, &got) == 0 && (got != 4 || memcmp(b, "ping", 4)))
    bug("data changed on the way");
}

/* Resumed or not, both agree, and a resumed client took no certificate. */
static void agree_resumed(gostx_tls *c, gostx_tls *s, int crc, int src) {
  if (crc == 0 && src == 0 && gostx_tls_session_reused(c) != gostx_tls_session_reused(s))
    bug("one side resumed, the other did not");
  if (crc == 0 && gostx_tls_session_reused(c) &&
      (!c->psk || c->have_peer_key || gostx_tls_peer_chain(c, NULL)))
    bug("a resumed client took a certificate");
  if (src == 0 && s->resumed && !s->psk) bug("a server resumed without a PSK");
}

/* The resumption mode's first handshake, unchanged: its session. */
static size_t first_session(const uint8_t *data, uint8_t *sess, size_t cap) {
  gostx_tls_config *cc = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  gostx_tls_config *sc = gostx_tls_config_new(GOSTX_TLS_SERVER);
  configure(cc, sc, data, FIRST);
  c2s.len = s2c.len = 0;
  end ce = {&s2c, &c2s}, se = {&c2s, &s2c};
  gostx_tls *c = open_end(cc, &ce, 1), *s = open_end(sc, &se, 0);
  int crc = GOSTX_TLS_WANT_READ, src = GOSTX_TLS_WANT_READ;
  drive(c, s, &crc, &src);
  if (crc || src) bug("the unchanged first handshake failed");
  uint8_t b[16];
  size_t got = 0, len = 0;
  if (gostx_tls_read(c, b, sizeof b, &got) != GOSTX_TLS_WANT_READ ||
      gostx_tls_get_session(c, sess, cap, &len) != GOSTX_OK)
    bug("no session from the first handshake");
  gostx_tls_free(c);
  gostx_tls_free(s);
  gostx_tls_config_free(cc);
  gostx_tls_config_free(sc);
  return len;
}

static int contains(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k) {
  for (size_t i = 0; i + k <= n; i++)
    if (!memcmp(hay + i, needle, k)) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init();
  if (size < 3) return 0;
  int raw = data[0] & 1, resume = !raw && (data[0] & 128), session = raw && (data[0] & 128);
  static uint8_t sess[sizeof(gostx__tls_session) + 64];
  size_t sess_len = resume ? first_session(data, sess, sizeof sess) : 0;
  c2s.len = s2c.len = 0;
  gostx_tls_config *cc = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  gostx_tls_config *sc = gostx_tls_config_new(GOSTX_TLS_SERVER);
  configure(cc, sc, data, resume ? SECOND : session ? SESSION : PLAIN);
  int v12 = !resume && (data[0] >> 6 & 1);
  ops o = {data + 3, size - 3, 0, 0, 0, 0, 0};
  if (!raw) {
    gostx__tls_test_hooks *m = gostx__tls_config_test(data[0] & 2 ? cc : sc);
    m->mutate = mutate;
    m->mutate_user = &o;
  }
  end ce = {&s2c, &c2s}, se = {&c2s, &s2c};
  gostx_tls *c = open_end(cc, &ce, resume || session), *s = open_end(sc, &se, 0);
  int crc = GOSTX_TLS_WANT_READ, src = GOSTX_TLS_WANT_READ;
  if (session) {
    /* Any session bytes: those taken shape the ClientHello's offer, and
     * the server opens (or not) whatever ticket they carry. */
    if (gostx_tls_set_session(c, data + 3, size - 3) == GOSTX_OK) {
      crc = gostx_tls_handshake(c);
      if (crc != GOSTX_TLS_WANT_READ) bug("a session taken broke the ClientHello");
      if (c->cl->offer.ticket_len && !contains(c2s.b, c2s.len, c->cl->offer.ticket, c->cl->offer.ticket_len))
        bug("the ClientHello lacks the ticket offered");
      drive(c, s, &crc, &src);
      agree(c, s, crc, src, v12);
      agree_resumed(c, s, crc, src);
    }
  } else if (raw) {
    gostx_tls *v = data[0] & 2 ? c : s;
    if (v == c) {
      crc = gostx_tls_handshake(c);
      c2s.len = 0;
    }
    buf *in = v == c ? &s2c : &c2s;
    size_t n = size - 3 < sizeof in->b ? size - 3 : sizeof in->b;
    memcpy(in->b, data + 3, n);
    in->len = n;
    int rc = gostx_tls_handshake(v);
    uint8_t b[64];
    size_t got = 0;
    if (rc == 0) bug("raw bytes completed a handshake");
    if (gostx_tls_read(v, b, sizeof b, &got) == 0 || got) bug("raw bytes released data");
  } else {
    if (resume && gostx_tls_set_session(c, sess, sess_len) != GOSTX_OK)
      bug("our own session refused");
    drive(c, s, &crc, &src);
    int victim_done = data[0] & 2 ? src == 0 : crc == 0;
    if (victim_done && o.auth_changed) bug("a changed CertificateVerify or Finished was accepted");
    agree(c, s, crc, src, v12);
    if (resume) {
      agree_resumed(c, s, crc, src);
      /* The second server opens the ticket unless it requires a client
       * certificate the first handshake did not see. */
      int opens = !(data[0] & 64) || (data[0] & 4);
      if (src == 0 && s->resumed && !opens)
        bug("resumed a session without the client certificate required");
      if (src == 0 && s->resumed && o.ch_changed) bug("resumed from a changed ClientHello");
      if (o.binder_only && opens && c->cl->offer.ticket_len &&
          (src == 0 || gostx_tls_alert(s, NULL) != GOSTX__ALERT_DECRYPT_ERROR))
        bug("a changed binder was not refused with decrypt_error");
      /* The client takes the NewSessionTickets that follow the handshake. */
      uint8_t b[16];
      size_t got = 0;
      if (crc == 0 && src == 0) {
        int rrc = gostx_tls_read(c, b, sizeof b, &got);
        if (!o.nst_changed && s->tickets_sent && (rrc != GOSTX_TLS_WANT_READ || !c->cl->got.ticket_len))
          bug("unchanged NewSessionTickets not taken");
      }
    }
  }
  gostx_tls_free(c);
  gostx_tls_free(s);
  gostx_tls_config_free(cc);
  gostx_tls_config_free(sc);
  return 0;
}
