/* libFuzzer harness: the TLS 1.3 and TLS 1.2 handshakes (lib/tls) on
 * untrusted messages, client side and server side. Two modes:
 *
 *  - mutated peer (byte 0 bit 0 clear): our client and our server run
 *    against each other in-process and the fuzzer changes the handshake
 *    messages one side sends (every message and extension: ClientHello,
 *    ServerHello/HelloRetryRequest, EncryptedExtensions, CertificateRequest,
 *    Certificate, CertificateVerify, Finished) before that side puts them in
 *    its transcript and seals them (lib/tls's mutate test hook), so the
 *    other side parses them under genuine keys, deep in its state machine;
 *  - raw (bit 0 set): the fuzzer's bytes are the transport stream a fresh
 *    server (bit 1 clear) or client (bit 1 set, after its ClientHello)
 *    reads: records and plaintext hellos of any shape.
 *
 * Asserts (abort on the first violation): nothing crashes or reads or
 * writes out of bounds (ASan); a changed CertificateVerify or Finished is
 * never accepted; a side that completes its handshake agrees
 * with its peer on the suite, the group and both application secrets
 * (in the mutated mode nothing can complete otherwise: the Finished
 * messages cover the transcript); in the raw mode nothing completes (no
 * peer holds the keys) and no application data is released.
 *
 * Input (mutated mode): byte 0: bit 1 which side's messages change (0 the
 * server's, 1 the client's), bit 2 client certificates, bits 3-4 the suite,
 * bit 5 an external PSK on both sides (psk_dhe_ke: the binders, the
 * server's selected_identity, the certificate-less flight; in the raw mode
 * the server holds it), bit 6 TLS 1.2 on both sides (bits 3-4 mod 3 the
 * RFC 9189 suite; the messages ClientHello, ServerHello, Certificate,
 * CertificateRequest, ServerHelloDone, ClientKeyExchange,
 * CertificateVerify, Finished; in the raw mode a TLS 1.2 peer);
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
  if ((before[0] == GOSTX__HS_CERTIFICATE_VERIFY || before[0] == GOSTX__HS_FINISHED) &&
      (*len != len0 || memcmp(before, msg, len0)))
    o->auth_changed = 1;
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

static void bug(const char *what) {
  fprintf(stderr, "fuzz_tls_handshake: %s\n", what);
  abort();
}

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
  if (gostx_tls_config_set_chain(cfg, &der, &len, 1) ||
      gostx_tls_config_set_key(cfg, keys[k].curve, keys[k].priv, gostx_gost3410_size(keys[k].curve)))
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  init();
  if (size < 3) return 0;
  c2s.len = s2c.len = 0;
  gostx_tls_config *cc = gostx_tls_config_new(GOSTX_TLS_CLIENT);
  gostx_tls_config *sc = gostx_tls_config_new(GOSTX_TLS_SERVER);
  int k = data[2] % 7;
  gostx_tls_config_set_verify(cc, GOSTX_TLS_VERIFY_NONE);
  pin(cc, k);
  identity(sc, k);
  gostx__tls_test_hooks *ct = gostx__tls_config_test(cc), *st = gostx__tls_config_test(sc);
  ct->random = st->random = rnd;
  ct->eph_priv = st->eph_priv = eph;
  st->sign_k = ct->sign_k = sign_k;
  if (data[0] & 4) {
    gostx_tls_config_set_verify(sc, GOSTX_TLS_VERIFY_REQUIRE);
    identity(cc, (k + 1) % 7);
    pin(sc, (k + 1) % 7);
  }
  static const uint8_t psk_key[32] = {0x5a};
  if ((data[0] & 32) && (gostx_tls_config_set_psk(cc, (const uint8_t *)"fuzz", 4, psk_key, 32) ||
                         gostx_tls_config_set_psk(sc, (const uint8_t *)"fuzz", 4, psk_key, 32)))
    bug("psk");
  int v12 = data[0] >> 6 & 1;
  if (v12 && (gostx_tls_config_set_versions(cc, 0x0303, 0x0303) ||
              gostx_tls_config_set_versions(sc, 0x0303, 0x0303)))
    bug("versions");
  if (gostx_tls_config_set_suites(cc, v12 ? suites12[(data[0] >> 3 & 3) % 3]
                                          : suites[data[0] >> 3 & 3]) ||
      gostx_tls_config_set_groups(cc, groups[data[1] % 7]) ||
      gostx_tls_config_set_groups(sc, "GC256A,GC256B,GC256C,GC256D,GC512A,GC512B,GC512C"))
    bug("config");
  ops o = {data + 3, size - 3, 0, 0};
  int raw = data[0] & 1;
  if (!raw) {
    gostx__tls_test_hooks *m = data[0] & 2 ? ct : st;
    m->mutate = mutate;
    m->mutate_user = &o;
  }
  gostx_tls *c = gostx_tls_new(cc), *s = gostx_tls_new(sc);
  if (!c || !s) bug("new");
  end ce = {&s2c, &c2s}, se = {&c2s, &s2c};
  gostx_tls_set_io(c, rd, wr, &ce);
  gostx_tls_set_io(s, rd, wr, &se);
  int crc = GOSTX_TLS_WANT_READ, src = GOSTX_TLS_WANT_READ;
  if (raw) {
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
    for (int i = 0; i < 64 && (want(crc) || want(src)); i++) {
      if (want(crc)) crc = gostx_tls_handshake(c);
      if (want(src)) src = gostx_tls_handshake(s);
      if (want(crc) && want(src) && !c2s.len && !s2c.len) break;
    }
    int victim_done = data[0] & 2 ? src == 0 : crc == 0;
    if (victim_done && o.auth_changed) bug("a changed CertificateVerify or Finished was accepted");
    if (crc == 0 || src == 0) {
      /* Completed: both sides hold the same keys (what either completes
       * with, the other one derived: the transcript both saw). */
      if (strcmp(gostx_tls_suite(c), gostx_tls_suite(s)) || (!v12 && c->group != s->group))
        bug("completed with different suites or groups");
      if (crc == 0 && src == 0 && !v12 &&
          (memcmp(c->c_ap, s->c_ap, 32) || memcmp(c->s_ap, s->s_ap, 32)))
        bug("completed with different secrets");
      if (crc == 0 && src == 0 && v12 &&
          (!c->v12 || !s->v12 || memcmp(c->wrec12.key, s->rrec12.key, 32) ||
           memcmp(c->wrec12.mac_key, s->rrec12.mac_key, 32) ||
           memcmp(c->rrec12.key, s->wrec12.key, 32)))
        bug("TLS 1.2 completed with different keys");
      uint8_t b[16];
      size_t put, got;
      if (crc == 0 && src == 0 && gostx_tls_write(c, "ping", 4, &put) == 0 &&
          gostx_tls_read(s, b, sizeof b, &got) == 0 && (got != 4 || memcmp(b, "ping", 4)))
        bug("data changed on the way");
    }
  }
  gostx_tls_free(c);
  gostx_tls_free(s);
  gostx_tls_config_free(cc);
  gostx_tls_config_free(sc);
  return 0;
}
