/* libFuzzer harness: the IKEv2 exchange engine (lib/ike/engine.c, auth.c,
 * cookie.c) meeting untrusted datagrams.
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
 *
 * Asserts (abort on the first violation):
 *  - nothing crashes or reads or writes out of bounds (ASan);
 *  - the return values are the documented ones, what comes out fits;
 *  - nothing is established and no Child SA comes out: no input here
 *    carries an AUTH made with the PSK over this exchange's messages.
 * Seeds (tests/fuzz/make_seeds.py): RFC 9385 A.1.1's and A.2.1's
 * IKE_SA_INIT messages and A.1.1's IKE_AUTH request inside, whole and in
 * fragments. */
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

/* The inside sealed as the initiator's IKE_AUTH request, to the responder. */
static void auth_inside(uint8_t first, const uint8_t *inner, size_t len) {
  static gostx_ike_engine r;
  static uint8_t msg[CAP + 256], out[CAP];
  size_t msg_len, out_len = 0;
  gostx_ike_sk sk_ei;
  gostx_ike_hdr h;
  r = resp_ready;
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
  r = resp_ready;
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  static gostx_ike_engine e;
  if (!ready) setup(), ready = 1;
  if (size < 2) return 0;
  if (data[0] == 0) {
    ASSERT(gostx__ike_engine_init(&e, &cr) == GOSTX_OK);
    datagrams(&e, data + 1, size - 1, 1);
  } else if (data[0] == 1) {
    auth_inside(data[1], data + 2, size - 2);
  } else if (data[0] == 2) {
    e = init_sent;
    datagrams(&e, data + 1, size - 1, 0);
  } else if ((data[0] & 0xf) == 3 && size >= 4) {
    /* byte 1: the fragment size / 8, byte 2 the first fragment given, byte
     * 3 the inside's first payload type; bit 4 of byte 0: each twice */
    auth_fragments((size_t)data[1] * 8, data[2], data[0] >> 4 & 1, data[3], data + 4, size - 4);
  }
  return 0;
}
