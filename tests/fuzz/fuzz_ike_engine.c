/* libFuzzer harness: the IKEv2 exchange engine (lib/ike/engine.c, auth.c,
 * cookie.c, and after IKE_AUTH xchg.c, child.c, ikesa.c, info.c) meeting
 * untrusted datagrams.
 *
 * Input: byte 0 picks the target, the rest is as below.
 *  - 0: datagrams (each after its 2-octet big-endian length) to the cookie
 *    gate under load and to a fresh PSK responder, one after the other;
 *  - 1: the inside of an IKE_AUTH request, its first payload's type in
 *    byte 1, sealed under the SK_ei of an exchange set up once (a real
 *    initiator's IKE_SA_INIT) and given to that responder: the parser and
 *    the checks after the ICV;
 *  - 2: datagrams to that initiator waiting for its IKE_SA_INIT response;
 *  - 3 (+ 16: each fragment twice): byte 1 x 8 the fragment size, byte 2
 *    the fragment to start from, byte 3 the first payload's type, then an
 *    IKE_AUTH inside, cut into fragments (RFC 7383) sealed under that SK_ei
 *    and given to that responder in turn: the engine's reassembly.
 *  - 4: an established pair (set up once): the inside of a CREATE_CHILD_SA
 *    or INFORMATIONAL message, byte 2 its first payload's type, sealed
 *    under the peer's key with the Message ID expected. Byte 1: bit 0 to
 *    the initiator (else the responder), bit 1 CREATE_CHILD_SA (else
 *    INFORMATIONAL), bits 2-3 what the receiver has out first (0 nothing,
 *    1 a Child SA rekey, PFS when bit 4, 2 an IKE SA rekey, 3 DPD), bit 5
 *    sent as the answer to it (else as the peer's request).
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - the return values are the documented ones, what comes out fits;
 *  - nothing is established and no Child SA comes out: no input here
 *    carries an AUTH made with the PSK over this exchange's messages;
 *  - established (3): the engine stays ESTABLISHED or DELETED, a new Child
 *    SA comes out whole, and the Child SAs it holds have distinct SPIs.
 * Seeds (tests/fuzz/make_seeds.py): RFC 9385 A.1.1's and A.2.1's
 * IKE_SA_INIT messages, A.1.1's IKE_AUTH request inside, whole and in
 * fragments, and the insides of A.1.2-A.1.4's and A.2.3's CREATE_CHILD_SA
 * and INFORMATIONAL messages. */
#include <stdlib.h>
#include <string.h>

#include "ike/engine.h"

#define ASSERT(c)      \
  do {                 \
    if (!(c)) abort(); \
  } while (0)

enum { CAP = GOSTX_IKE_MSG_MAX };

static const uint8_t psk[32] = "the fuzzer's shared key";
/* RFC 9385 A.1's IDs, so that its IKE_AUTH inside (a seed) passes the ID check */
static const uint8_t id_i[] = "IKE-Initiator", id_r[] = "IKE-Responder";
static gostx_ike_conf ci, cr;
static gostx_ike_engine init_sent, resp_ready; /* the states the targets start from */
static gostx_ike_engine est_i, est_r;          /* an established pair */

static void conf(void) {
  gostx_ike_conf *c[2] = {&ci, &cr};
  for (int k = 0; k < 2; k++) {
    memset(c[k], 0, sizeof *c[k]);
    c[k]->role = k ? GOSTX_IKE_RESPONDER : GOSTX_IKE_INITIATOR;
    c[k]->encr = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE;
    c[k]->group = GOSTX_IKE_KE_GOST3410_2012_512;
    c[k]->auth = GOSTX_IKE_AUTH_PSK;
    c[k]->psk = psk;
    c[k]->psk_len = sizeof psk;
    c[k]->id_type = c[k]->peer_id_type = GOSTX_IKE_ID_FQDN;
    c[k]->id = k ? id_r : id_i;
    c[k]->id_len = sizeof id_i - 1; /* both IDs 13 octets */
    c[k]->peer_id = k ? id_i : id_r;
    c[k]->peer_id_len = sizeof id_i - 1;
  }
  /* the initiator asks for everything, the responder echoes: a Child SA */
  const gostx_ike_ts any = {GOSTX_IKE_TS_IPV4, 0, 0, 65535, {0}, {255, 255, 255, 255}};
  ci.tsi.n = ci.tsr.n = 1;
  ci.tsi.ts[0] = ci.tsr.ts[0] = any;
}

/* Once: an initiator with its request out, a responder that answered it. */
static void setup(void) {
  static uint8_t a[CAP], b[CAP];
  size_t al, bl;
  conf();
  ASSERT(gostx__ike_engine_init(&init_sent, &ci) == GOSTX_OK);
  ASSERT(gostx__ike_engine_init(&resp_ready, &cr) == GOSTX_OK);
  ASSERT(gostx__ike_start(&init_sent, 0, a, CAP, &al) == GOSTX_OK);
  ASSERT(gostx__ike_input(&resp_ready, a, al, 0, b, CAP, &bl) == GOSTX_OK && bl);
  ASSERT(resp_ready.state == GOSTX_IKE_S_INIT_DONE);
  /* the pair: the same exchange carried on to ESTABLISHED */
  ASSERT(gostx__ike_engine_copy(&est_i, &init_sent) == GOSTX_OK &&
         gostx__ike_engine_copy(&est_r, &resp_ready) == GOSTX_OK);
  ASSERT(gostx__ike_input(&est_i, b, bl, 0, a, CAP, &al) == GOSTX_OK && al);
  ASSERT(gostx__ike_input(&est_r, a, al, 0, b, CAP, &bl) == GOSTX_OK && bl);
  ASSERT(gostx__ike_input(&est_i, b, bl, 0, a, CAP, &al) == GOSTX_OK);
  ASSERT(est_i.state == GOSTX_IKE_S_ESTABLISHED && est_r.state == GOSTX_IKE_S_ESTABLISHED &&
         est_i.child.valid && est_r.child.valid);
  /* the Child SA as RFC 9385 A.1.3's request names it (REKEY_SA's SPI, the
   * selectors), so that its seed reaches the rekey itself */
  const gostx_ike_ts tsi = {GOSTX_IKE_TS_IPV4, 0, 0, 65535, {10, 1, 1, 2}, {10, 1, 1, 2}};
  const gostx_ike_ts tsr = {GOSTX_IKE_TS_IPV4, 0, 0, 65535, {10, 0, 0, 0}, {10, 0, 0, 255}};
  est_i.child.spi_in = est_r.child.spi_out = 0x0ade5fcd;
  est_i.ts_i.n = est_i.ts_r.n = est_r.ts_i.n = est_r.ts_r.n = 1;
  est_i.ts_i.ts[0] = est_r.ts_i.ts[0] = tsi;
  est_i.ts_r.ts[0] = est_r.ts_r.ts[0] = tsr;
}

static int documented(int rc) {
  return rc == GOSTX_OK || rc == GOSTX_ESTATE || rc == GOSTX_EFORMAT || rc == GOSTX_EAUTH;
}

static void unauthenticated(const gostx_ike_engine *e, int rc, size_t out_len) {
  ASSERT(documented(rc) && out_len <= CAP);
  ASSERT(e->state != GOSTX_IKE_S_ESTABLISHED && !e->child.valid);
}

/* Datagrams (2-octet length each) to e; to the cookie gate too when gate. */
static void datagrams(gostx_ike_engine *e, const uint8_t *p, size_t n, int gate) {
  static const uint8_t secret[32] = "fuzz", ip[4] = {192, 0, 2, 1};
  static uint8_t out[CAP];
  while (n >= 2) {
    size_t l = (size_t)p[0] << 8 | p[1], out_len = 0;
    p += 2, n -= 2;
    if (l > n) l = n;
    if (gate) {
      int rc = gostx__ike_cookie_gate(secret, 1, 1, 1, p, l, ip, 4, out, CAP, &out_len);
      ASSERT(rc == GOSTX_OK || rc == 1 || rc == GOSTX_EFORMAT);
      ASSERT(rc == 1 ? out_len > GOSTX_IKE_HDR_LEN : out_len == 0);
    }
    int rc = gostx__ike_input(e, p, l, 0, out, CAP, &out_len);
    unauthenticated(e, rc, out_len);
    p += l, n -= l;
  }
}

/* The header and SK_ei of the initiator's IKE_AUTH request to r. */
static void request_keys(const gostx_ike_engine *r, gostx_ike_hdr *h, gostx_ike_sk *sk_ei) {
  ASSERT(gostx__ike_sk_init(sk_ei, r->cf->encr, r->k.sk_ei, r->k.enc_len) == GOSTX_OK);
  memset(h, 0, sizeof *h);
  memcpy(h->spi_i, r->spi_i, 8);
  memcpy(h->spi_r, r->spi_r, 8);
  h->version = GOSTX_IKE_VERSION;
  h->exchange = GOSTX_IKE_AUTH;
  h->flags = GOSTX_IKE_FLAG_I;
  h->msg_id = 1;
}

/* e (static: all zeros or an earlier fork) a copy of one of the states the
 * targets start from, its buffers its own (an engine's are on the heap). */
static void fork_of(gostx_ike_engine *e, const gostx_ike_engine *from) {
  gostx__ike_engine_clear(e);
  ASSERT(gostx__ike_engine_copy(e, from) == GOSTX_OK);
}

/* The inside sealed as the initiator's IKE_AUTH request, to the responder. */
static void auth_inside(uint8_t first, const uint8_t *inner, size_t len) {
  static gostx_ike_engine r;
  static uint8_t msg[CAP + 256], out[CAP];
  size_t msg_len, out_len = 0;
  gostx_ike_sk sk_ei;
  gostx_ike_hdr h;
  fork_of(&r, &resp_ready);
  request_keys(&r, &h, &sk_ei);
  int rc = gostx__ike_sk_seal(&sk_ei, 1, &h, first, inner, len, msg, sizeof msg, &msg_len);
  gostx__ike_sk_clear(&sk_ei);
  if (rc != GOSTX_OK) return;
  rc = gostx__ike_input(&r, msg, msg_len, 0, out, CAP, &out_len);
  unauthenticated(&r, rc, out_len);
}

/* The inside cut into IKE_AUTH fragments (RFC 7383) of at most max octets,
 * each sealed under SK_ei as auth_inside seals, given to the responder
 * from fragment start on (wrapping round), each fragment twice when twice:
 * the engine's reassembly (fragio.c) and what it hands on when whole. */
static void auth_fragments(size_t max, unsigned start, int twice, uint8_t first,
                           const uint8_t *inner, size_t len) {
  static gostx_ike_engine r;
  static uint8_t msg[CAP + 256], out[CAP];
  gostx_ike_sk sk_ei;
  gostx_ike_hdr h;
  uint16_t total;
  fork_of(&r, &resp_ready);
  ASSERT(r.peer_frag); /* the initiator's IKE_SA_INIT announced it */
  request_keys(&r, &h, &sk_ei);
  if (gostx__ike_frag_total(&sk_ei, len, max, &total) == GOSTX_OK)
    for (unsigned k = 0; k < total * (twice ? 2u : 1u); k++) {
      const uint16_t num = (uint16_t)((start + k / (twice ? 2 : 1)) % total + 1);
      size_t msg_len, out_len = 0;
      if (gostx__ike_frag_seal(&sk_ei, num, &h, first, inner, len, max, num, msg, sizeof msg,
                               &msg_len) != GOSTX_OK)
        break;
      int rc = gostx__ike_input(&r, msg, msg_len, 0, out, CAP, &out_len);
      unauthenticated(&r, rc, out_len);
    }
  gostx__ike_sk_clear(&sk_ei);
}

/* What sel (byte 1 of target 4) has e send first. */
static void first_request(gostx_ike_engine *e, uint8_t sel) {
  static uint8_t out[CAP];
  size_t out_len = 0;
  const int what = sel >> 2 & 3;
  if (what == 1) ASSERT(gostx__ike_rekey_child(e, sel & 16, 0, out, CAP, &out_len) == GOSTX_OK);
  if (what == 2) ASSERT(gostx__ike_rekey_ike(e, 0, out, CAP, &out_len) == GOSTX_OK);
  if (what == 3) ASSERT(gostx__ike_dpd(e, 0, out, CAP, &out_len) == GOSTX_OK);
}

static int distinct(const gostx_ike_child *a, const gostx_ike_child *b) {
  return !a->valid || !b->valid || (a->spi_in != b->spi_in && a->spi_out != b->spi_out);
}

static void live_inside(uint8_t sel, uint8_t first, const uint8_t *inner, size_t len) {
  static gostx_ike_engine e;
  static uint8_t msg[CAP + 256], out[CAP];
  size_t msg_len, out_len = 0;
  const gostx_ike_engine *peer = sel & 1 ? &est_r : &est_i;
  gostx_ike_hdr h;
  fork_of(&e, sel & 1 ? &est_i : &est_r);
  first_request(&e, sel);
  const int answer = (sel >> 2 & 3) && (sel & 32);
  memset(&h, 0, sizeof h);
  memcpy(h.spi_i, e.spi_i, 8);
  memcpy(h.spi_r, e.spi_r, 8);
  h.version = GOSTX_IKE_VERSION;
  h.exchange = sel & 2 ? GOSTX_IKE_CREATE_CHILD_SA : GOSTX_IKE_INFORMATIONAL;
  h.flags = (uint8_t)((peer->orig_init ? GOSTX_IKE_FLAG_I : 0) | (answer ? GOSTX_IKE_FLAG_R : 0));
  h.msg_id = answer ? e.req_id : e.peer_req;
  if (gostx__ike_sk_seal(&peer->sk_out, 7, &h, first, inner, len, msg, sizeof msg, &msg_len))
    return;
  int rc = gostx__ike_input(&e, msg, msg_len, 0, out, CAP, &out_len);
  ASSERT(documented(rc) && out_len <= CAP);
  ASSERT(e.state == GOSTX_IKE_S_ESTABLISHED || e.state == GOSTX_IKE_S_DELETED);
  ASSERT(!(e.ev.flags & GOSTX_IKE_EV_CHILD_NEW) ||
         (e.ev.added.valid && e.ev.added.key_len == e.k.enc_len && e.ev.added.spi_in >= 256));
  ASSERT(distinct(&e.child, &e.old) && distinct(&e.child, &e.twin) && distinct(&e.old, &e.twin));
#ifdef FUZZ_IKE_REACH /* a build to see which seeds reach what */
  fprintf(stderr, "sel %02x rc %d ev %x state %d out %zu\n", sel, rc, e.ev.flags, e.state, out_len);
#endif
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  static gostx_ike_engine e;
  if (!ready) setup(), ready = 1;
  if (size < 2) return 0;
  if (data[0] == 0) {
    gostx__ike_engine_clear(&e); /* its buffers from the last input */
    ASSERT(gostx__ike_engine_init(&e, &cr) == GOSTX_OK);
    datagrams(&e, data + 1, size - 1, 1);
  } else if (data[0] == 1) {
    auth_inside(data[1], data + 2, size - 2);
  } else if (data[0] == 2) {
    fork_of(&e, &init_sent);
    datagrams(&e, data + 1, size - 1, 0);
  } else if ((data[0] & 0xf) == 3 && size >= 4) {
    /* byte 1: the fragment size / 8, byte 2 the first fragment given, byte
     * 3 the inside's first payload type; bit 4 of byte 0: each twice */
    auth_fragments((size_t)data[1] * 8, data[2], data[0] >> 4 & 1, data[3], data + 4, size - 4);
  } else if (data[0] == 4 && size >= 3) {
    live_inside(data[1], data[2], data + 3, size - 3);
  }
  return 0;
}
