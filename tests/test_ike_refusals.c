/* What the IKEv2 engine (lib/ike) refuses before it reads a request's
 * contents, two PSK engines in memory (tests/support/ike_pair.c):
 *  - a payload of a type it does not know with the critical bit set (RFC
 *    7296 2.5): the request refused whole with UNSUPPORTED_CRITICAL_PAYLOAD,
 *    its one octet of data the payload's type: in IKE_SA_INIT an
 *    unprotected response (nothing kept, no key exchange; the cookie gate
 *    lets it through to say so), in IKE_AUTH a protected one (no IKE SA),
 *    in a request over the established SA a protected one (the SA stands);
 *    without the critical bit the payload is skipped;
 *  - an IKE_SA_INIT request whose SPIi is zero (3.1: it MUST NOT be):
 *    dropped, nothing sent or changed, by the engine and the cookie gate. */
#include "ike/engine.h"
#include "ike/engine_int.h"
#include "ike_pair.h"
#include "testutil.h"

enum { CAP = GOSTX_IKE_MSG_MAX, UNKNOWN = 99 };

static gostx_ike_conf ci, cr;
static gostx_ike_engine I, R;
static uint8_t bi[CAP], br[CAP], plain[CAP];
static size_t li, lr;

/* A fresh pair, the initiator's IKE_SA_INIT request in bi. */
static void start(void) {
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  CHECK_RC(ike_engine_fresh(&I, &ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(&R, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_start(&I, 0, bi, CAP, &li), GOSTX_OK, "IKE_SA_INIT request");
}

/* A payload of type (the critical bit when crit, four octets of body)
 * after the last of the chain at p (*len octets, the first's type in
 * *first). */
static void append_payload(uint8_t *first, uint8_t *p, size_t *len, uint8_t type, int crit) {
  uint8_t *link = first;
  size_t at = 0;
  while (*link && at + 4 <= *len) {
    link = p + at;
    at += (size_t)p[at + 2] << 8 | p[at + 3];
  }
  *link = type;
  uint8_t *g = p + *len;
  g[0] = 0, g[1] = crit ? 0x80 : 0, g[2] = 0, g[3] = 8;
  memset(g + 4, 0xab, 4);
  *len += 8;
}

/* The same for an unprotected message m: its header's Length follows. */
static void append_to_message(uint8_t *m, size_t *len, uint8_t type, int crit) {
  size_t chain = *len - GOSTX_IKE_HDR_LEN;
  append_payload(m + 16, m + GOSTX_IKE_HDR_LEN, &chain, type, crit);
  *len = GOSTX_IKE_HDR_LEN + chain;
  m[24] = (uint8_t)(*len >> 24), m[25] = (uint8_t)(*len >> 16);
  m[26] = (uint8_t)(*len >> 8), m[27] = (uint8_t)*len;
}

/* c (read from a response) is one notify: UNSUPPORTED_CRITICAL_PAYLOAD
 * naming UNKNOWN. */
static int names_unknown(const gostx_ike_chain *c) {
  gostx_ike_notify n;
  return c->n == 1 && c->p[0].type == GOSTX_IKE_PT_NOTIFY &&
         gostx__ike_notify_read(c->p[0].body, c->p[0].len, &n) == GOSTX_OK &&
         n.type == GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD && !n.proto && !n.spi_len &&
         n.data_len == 1 && n.data[0] == UNKNOWN;
}

static void init_critical(void) {
  static const uint8_t zero[8];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  start();
  append_to_message(bi, &li, UNKNOWN, 1);
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_OK,
           "IKE_SA_INIT with an unknown critical payload: answered");
  CHECK(R.state == GOSTX_IKE_S_FAILED && R.error == GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD,
        "the responder refuses it (state %d, %u)", R.state, R.error);
  CHECK(lr && gostx__ike_msg_read(br, lr, &h, &c, NULL) == GOSTX_OK && names_unknown(&c),
        "an unprotected UNSUPPORTED_CRITICAL_PAYLOAD naming type %d alone", UNKNOWN);
  CHECK(h.exchange == GOSTX_IKE_SA_INIT && h.flags == GOSTX_IKE_FLAG_R && !h.msg_id &&
            !memcmp(h.spi_i, I.spi_i, 8) && !memcmp(h.spi_r, zero, 8),
        "the IKE_SA_INIT response: the request's SPIi, SPIr 0");
  CHECK_RC(gostx__ike_input(&I, br, lr, 0, bi, CAP, &li), GOSTX_OK, "the initiator reads it");
  CHECK(I.state == GOSTX_IKE_S_INIT_SENT && I.error == GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD,
        "and notes it (unprotected: its request goes on, 2.21.1)");
  gostx__ike_engine_clear(&I);
  gostx__ike_engine_clear(&R);
  /* the critical bit clear: skipped, the exchange goes on */
  start();
  append_to_message(bi, &li, UNKNOWN, 0);
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_OK, "not critical: answered");
  CHECK(R.state == GOSTX_IKE_S_INIT_DONE, "not critical: skipped, the exchange goes on");
  /* the cookie gate, under load, leaves the refusal to the engine */
  static const uint8_t secret[32] = {1}, ip[4] = {192, 0, 2, 1};
  start();
  append_to_message(bi, &li, UNKNOWN, 1);
  lr = 1;
  CHECK(gostx__ike_cookie_gate(secret, 1, 100, 10, bi, li, ip, 4, br, CAP, &lr) == GOSTX_OK &&
            !lr,
        "the cookie gate: no COOKIE asked, the engine refuses it");
}

/* The IKE_AUTH request in bi opened under R's keys, a payload added to
 * its inside, sealed again as the initiator would. */
static void add_inside(uint8_t type, int crit) {
  gostx_ike_hdr h;
  uint8_t first;
  size_t pl;
  uint64_t iv;
  gostx_ike_sk sk;
  CHECK_RC(gostx__ike_sk_open(&R.sk_in, bi, li, &h, &first, plain, CAP, &pl, &iv), GOSTX_OK,
           "the request opens");
  append_payload(&first, plain, &pl, type, crit);
  CHECK_RC(gostx__ike_sk_init(&sk, R.encr, R.k.sk_ei, R.k.enc_len), GOSTX_OK, "SK_ei");
  CHECK_RC(gostx__ike_sk_seal(&sk, iv, &h, first, plain, pl, bi, CAP, &li), GOSTX_OK, "sealed");
  gostx__ike_sk_clear(&sk);
}

/* R's protected response in br opened under I's keys: 1 when it names the
 * unknown critical payload alone. */
static int protected_refusal(void) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  uint8_t first;
  size_t pl;
  uint64_t iv;
  return gostx__ike_sk_open(&I.sk_in, br, lr, &h, &first, plain, CAP, &pl, &iv) == GOSTX_OK &&
         (h.flags & GOSTX_IKE_FLAG_R) && gostx__ike_chain_read(first, plain, pl, &c, NULL) ==
                                             GOSTX_OK &&
         names_unknown(&c);
}

static void auth_critical(void) {
  start();
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_OK, "IKE_SA_INIT");
  CHECK_RC(gostx__ike_input(&I, br, lr, 0, bi, CAP, &li), GOSTX_OK, "IKE_AUTH request");
  add_inside(UNKNOWN, 1);
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_OK,
           "IKE_AUTH with an unknown critical payload: answered");
  CHECK(R.state == GOSTX_IKE_S_FAILED && R.error == GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD &&
            !R.child.valid,
        "the responder refuses it, no SA (state %d, %u)", R.state, R.error);
  CHECK(lr && protected_refusal(), "a protected UNSUPPORTED_CRITICAL_PAYLOAD naming type %d",
        UNKNOWN);
  CHECK_RC(gostx__ike_input(&I, br, lr, 0, bi, CAP, &li), GOSTX_OK, "the initiator reads it");
  CHECK(I.state == GOSTX_IKE_S_FAILED && I.error == GOSTX_IKE_N_UNSUPPORTED_CRITICAL_PAYLOAD &&
            !I.child.valid,
        "and fails with it (state %d, %u)", I.state, I.error);
  gostx__ike_engine_clear(&I);
  gostx__ike_engine_clear(&R);
}

static void established_critical(void) {
  start();
  for (int k = 0; k < 4 && li; k++) {
    lr = 0;
    gostx__ike_input(&R, bi, li, 0, br, CAP, &lr);
    li = 0;
    if (lr) gostx__ike_input(&I, br, lr, 0, bi, CAP, &li);
  }
  CHECK(I.state == GOSTX_IKE_S_ESTABLISHED && R.state == GOSTX_IKE_S_ESTABLISHED, "established");
  CHECK_RC(gostx__ike_dpd(&I, 1000, bi, CAP, &li), GOSTX_OK, "an INFORMATIONAL request");
  add_inside(UNKNOWN, 1);
  CHECK_RC(gostx__ike_input(&R, bi, li, 1000, br, CAP, &lr), GOSTX_OK,
           "with an unknown critical payload: answered");
  CHECK(lr && protected_refusal(), "a protected UNSUPPORTED_CRITICAL_PAYLOAD naming type %d",
        UNKNOWN);
  CHECK(R.state == GOSTX_IKE_S_ESTABLISHED && R.child.valid, "the SA stands");
  gostx__ike_engine_clear(&I);
  gostx__ike_engine_clear(&R);
}

static void zero_spi_i(void) {
  static gostx_ike_engine before;
  static const uint8_t secret[32] = {1}, ip[4] = {192, 0, 2, 1};
  start();
  memset(bi, 0, 8);
  before = R;
  lr = 1;
  CHECK_RC(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr), GOSTX_EFORMAT,
           "IKE_SA_INIT with SPIi 0: dropped");
  CHECK(!lr && !memcmp(&before, &R, sizeof R), "nothing sent or changed");
  for (size_t load = 0; load <= 100; load += 100) {
    lr = 1;
    CHECK(gostx__ike_cookie_gate(secret, 1, load, 10, bi, li, ip, 4, br, CAP, &lr) ==
                  GOSTX_EFORMAT &&
              !lr,
          "the cookie gate drops it (%zu half-open)", load);
  }
  bi[7] = 1; /* any other SPIi: answered */
  CHECK(gostx__ike_input(&R, bi, li, 0, br, CAP, &lr) == GOSTX_OK && lr &&
            R.state == GOSTX_IKE_S_INIT_DONE,
        "SPIi 1: answered");
  gostx__ike_engine_clear(&I);
  gostx__ike_engine_clear(&R);
}

int main(void) {
  init_critical();
  auth_critical();
  established_critical();
  zero_spi_i();
  return t_done();
}
