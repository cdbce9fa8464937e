/* Messages outside an IKE SA (lib/ike/outside.c, RFC 7296 1.5, 2.21.4):
 * a restarted responder's INVALID_IKE_SPI answer to the request of an
 * initiator that still holds the old SA, what is never answered (responses,
 * IKE_SA_INIT, unprotected messages: no loops), the INVALID_SPI notice of
 * ESP under an unknown SPI, the reader of both, and that neither changes
 * anything in the established engine that receives it (2.21.4). */
#include "ike/engine.h"
#include "ike_pair.h"
#include "testutil.h"

enum { CAP = GOSTX_IKE_MSG_MAX };

static gostx_ike_conf ci, cr;
static gostx_ike_engine I, R;
static uint8_t bi[CAP], br[CAP];
static size_t li, lr;

static void establish(void) {
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  CHECK_RC(ike_engine_fresh(&I, &ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(&R, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_start(&I, 0, bi, CAP, &li), GOSTX_OK, "IKE_SA_INIT");
  for (int k = 0; k < 4 && li; k++) {
    lr = 0;
    gostx__ike_input(&R, bi, li, 0, br, CAP, &lr);
    li = 0;
    if (lr) gostx__ike_input(&I, br, lr, 0, bi, CAP, &li);
  }
  CHECK(I.state == GOSTX_IKE_S_ESTABLISHED && R.state == GOSTX_IKE_S_ESTABLISHED,
        "established");
}

/* msg into e, which must drop it and stay as it was (2.21.4) */
static void changes_nothing(const uint8_t *msg, size_t len, const char *what) {
  static gostx_ike_engine before;
  uint8_t out[CAP];
  size_t out_len = 0;
  before = I;
  CHECK(gostx__ike_input(&I, msg, len, 5000, out, CAP, &out_len) != GOSTX_OK && !out_len,
        "%s: dropped, nothing sent", what);
  CHECK(I.state == before.state && I.pend == before.pend && I.req_id == before.req_id &&
            I.tries == before.tries && I.next_tx_ms == before.next_tx_ms &&
            I.last_heard_ms == before.last_heard_ms && !I.ev.flags &&
            !memcmp(&I.child, &before.child, sizeof I.child),
        "%s: the established SA unchanged", what);
}

/* I's DPD request to an R that restarted (knows no SA): the answer */
static void invalid_ike_spi(void) {
  establish();
  CHECK_RC(gostx__ike_dpd(&I, 1000, bi, CAP, &li), GOSTX_OK, "DPD request");
  uint8_t ans[CAP];
  size_t n = 0;
  CHECK_RC(gostx__ike_invalid_ike_spi(bi, li, ans, CAP, &n), 1, "an encrypted request: answered");
  gostx_ike_hdr req, h;
  gostx_ike_chain c;
  gostx_ike_notify nt;
  CHECK_RC(gostx__ike_hdr_read(bi, li, &req), GOSTX_OK, "the request reads");
  CHECK_RC(gostx__ike_msg_read(ans, n, &h, &c, NULL), GOSTX_OK, "the answer reads");
  CHECK(!memcmp(h.spi_i, I.spi_i, 8) && !memcmp(h.spi_r, I.spi_r, 8), "the same SPIs");
  CHECK(h.exchange == GOSTX_IKE_INFORMATIONAL && h.msg_id == req.msg_id,
        "exchange and Message ID copied");
  CHECK(h.flags == GOSTX_IKE_FLAG_R && req.flags == GOSTX_IKE_FLAG_I,
        "Response set; I clear (the request was the original initiator's)");
  CHECK(h.version == GOSTX_IKE_VERSION && c.n == 1 && c.p[0].type == GOSTX_IKE_PT_NOTIFY,
        "one payload, a Notify, unprotected");
  CHECK(gostx__ike_notify_read(c.p[0].body, c.p[0].len, &nt) == GOSTX_OK && nt.type == 4 &&
            !nt.proto && !nt.spi_len && !nt.data_len,
        "INVALID_IKE_SPI, no data");
  uint32_t spi = 1;
  CHECK_RC(gostx__ike_outside_hint(ans, n, &h, &spi), GOSTX_IKE_HINT_IKE_SPI,
           "read back as the INVALID_IKE_SPI hint");
  CHECK(spi == 0 && !memcmp(h.spi_i, I.spi_i, 8), "its SPIs for the caller to match");
  changes_nothing(ans, n, "INVALID_IKE_SPI into the initiator");
  /* R's own request (I flag clear) gets I set in the answer */
  lr = 0;
  CHECK_RC(gostx__ike_dpd(&R, 1000, br, CAP, &lr), GOSTX_OK, "the responder's DPD");
  CHECK_RC(gostx__ike_invalid_ike_spi(br, lr, ans, CAP, &n), 1, "answered");
  CHECK_RC(gostx__ike_hdr_read(ans, n, &h), GOSTX_OK, "reads");
  CHECK(h.flags == (GOSTX_IKE_FLAG_R | GOSTX_IKE_FLAG_I), "Response and I set");
  CHECK_RC(gostx__ike_invalid_ike_spi(bi, li, ans, 35, &n), GOSTX_ELEN, "no room: ELEN");
  CHECK_RC(gostx__ike_invalid_ike_spi(NULL, li, ans, CAP, &n), GOSTX_EINVAL, "NULL: EINVAL");
}

/* what must never be answered: responses (2.21.4), IKE_SA_INIT (a new SA),
 * unprotected messages (1.5: the notice itself; no loop), bad headers */
static void not_answered(void) {
  establish();
  uint8_t m[CAP], ans[CAP];
  size_t n = 1;
  CHECK_RC(gostx__ike_dpd(&I, 1000, bi, CAP, &li), GOSTX_OK, "DPD request");
  memcpy(m, bi, li);
  m[19] |= GOSTX_IKE_FLAG_R;
  CHECK(gostx__ike_invalid_ike_spi(m, li, ans, CAP, &n) == 0 && !n, "a response: not answered");
  CHECK_RC(gostx__ike_invalid_ike_spi(bi, li - 1, ans, CAP, &n), 0, "truncated: not answered");
  memcpy(m, bi, li);
  m[17] = 0x30;
  CHECK_RC(gostx__ike_invalid_ike_spi(m, li, ans, CAP, &n), 0, "major version 3: not answered");
  memcpy(m, bi, li);
  m[18] = 40;
  CHECK_RC(gostx__ike_invalid_ike_spi(m, li, ans, CAP, &n), 0,
           "an unknown exchange: not answered");
  static gostx_ike_engine fresh;
  CHECK_RC(ike_engine_fresh(&fresh, &ci), GOSTX_OK, "a new initiator");
  CHECK_RC(gostx__ike_start(&fresh, 0, m, CAP, &n), GOSTX_OK, "its IKE_SA_INIT");
  const size_t init_len = n;
  CHECK_RC(gostx__ike_invalid_ike_spi(m, init_len, ans, CAP, &n), 0, "IKE_SA_INIT: not answered");
  m[18] = GOSTX_IKE_INFORMATIONAL; /* an unprotected request (first payload SA) */
  CHECK_RC(gostx__ike_invalid_ike_spi(m, init_len, ans, CAP, &n), 0,
           "an unprotected INFORMATIONAL: not answered");
  gostx__ike_engine_clear(&fresh);
  CHECK_RC(gostx__ike_invalid_spi(0x12345678, m, CAP, &n), GOSTX_OK, "an INVALID_SPI notice");
  CHECK_RC(gostx__ike_invalid_ike_spi(m, n, ans, CAP, &n), 0, "the notice: not answered");
}

/* the INVALID_SPI notice of ESP under an SPI not known (1.5) */
static void invalid_spi(void) {
  establish();
  uint8_t m[CAP];
  size_t n = 0;
  gostx_ike_hdr h;
  uint32_t spi = 0;
  CHECK_RC(gostx__ike_invalid_spi(0xc0ffee01, m, CAP, &n), GOSTX_OK, "written");
  CHECK_RC(gostx__ike_hdr_read(m, n, &h), GOSTX_OK, "reads");
  static const uint8_t zero[8];
  CHECK(!memcmp(h.spi_i, zero, 8) && !memcmp(h.spi_r, zero, 8) && !h.msg_id &&
            h.exchange == GOSTX_IKE_INFORMATIONAL && h.flags == GOSTX_IKE_FLAG_I,
        "zero SPIs, INFORMATIONAL, I set, R clear");
  CHECK_RC(gostx__ike_outside_hint(m, n, &h, &spi), GOSTX_IKE_HINT_ESP_SPI, "read as a hint");
  CHECK(spi == 0xc0ffee01, "the SPI it names");
  changes_nothing(m, n, "INVALID_SPI into the initiator");
  m[n - 1] = 0; /* other data, same length: still a hint, of another SPI */
  CHECK(gostx__ike_outside_hint(m, n, &h, &spi) == GOSTX_IKE_HINT_ESP_SPI && spi == 0xc0ffee00,
        "the SPI read from the data");
  CHECK_RC(gostx__ike_invalid_spi(0, m, 39, &n), GOSTX_ELEN, "no room: ELEN");
}

/* what the reader takes for no hint */
static void no_hint(void) {
  establish();
  uint8_t m[CAP];
  size_t n = 0;
  gostx_ike_hdr h;
  uint32_t spi = 0;
  CHECK_RC(gostx__ike_dpd(&I, 1000, bi, CAP, &li), GOSTX_OK, "DPD request");
  CHECK_RC(gostx__ike_outside_hint(bi, li, &h, &spi), 0, "a protected message: none");
  CHECK_RC(gostx__ike_invalid_ike_spi(bi, li, m, CAP, &n), 1, "an answer");
  m[19] &= (uint8_t)~GOSTX_IKE_FLAG_R;
  CHECK_RC(gostx__ike_outside_hint(m, n, &h, &spi), 0, "INVALID_IKE_SPI in a request: none");
  CHECK_RC(gostx__ike_outside_hint(m, n - 1, &h, &spi), 0, "truncated: none");
  CHECK_RC(gostx__ike_invalid_spi(7, m, CAP, &n), GOSTX_OK, "a notice");
  m[19] |= GOSTX_IKE_FLAG_R;
  CHECK_RC(gostx__ike_outside_hint(m, n, &h, &spi), 0, "INVALID_SPI in a response: none");
  m[19] &= (uint8_t)~GOSTX_IKE_FLAG_R;
  m[18] = GOSTX_IKE_CREATE_CHILD_SA;
  CHECK_RC(gostx__ike_outside_hint(m, n, &h, &spi), 0, "INVALID_SPI outside INFORMATIONAL: none");
  m[18] = GOSTX_IKE_INFORMATIONAL;
  m[27]--; /* the data cut to 3 octets: the message's length, */
  m[31]--; /* the Notify's */
  CHECK_RC(gostx__ike_outside_hint(m, n - 1, &h, &spi), 0, "INVALID_SPI of 3 octets: none");
  CHECK_RC(gostx__ike_outside_hint(NULL, n, &h, &spi), GOSTX_EINVAL, "NULL: EINVAL");
}

int main(void) {
  invalid_ike_spi();
  not_answered();
  invalid_spi();
  no_hint();
  gostx__ike_engine_clear(&I);
  gostx__ike_engine_clear(&R);
  return t_done();
}
