/* The IKEv2 exchange engine (lib/ike/engine.c, auth.c, cookie.c): two
 * engines talk in memory through IKE_SA_INIT and IKE_AUTH, by PSK and by
 * certificates, under both transforms and both groups, and their Child SA
 * keys agree; then each refusal (wrong PSK, wrong ID, no GOST transform, a
 * KE off the curve, truncated, replayed and misaddressed messages), the
 * COOKIE and INVALID_KE_PAYLOAD retries, retransmission and the response
 * cache. */
#include <stdlib.h>

#include "ike/engine.h"
#include "ike/engine_int.h"
#include "ike_pair.h"
#include "ike_pki.h"
#include "testutil.h"

enum { CAP = GOSTX_IKE_MSG_MAX };

static uint8_t bi[CAP], br[CAP];
static size_t li, lr;

/* Messages between i and r at now_ms until neither has anything to say. */
static void converse_at(gostx_ike_engine *i, gostx_ike_engine *r, int64_t now_ms) {
  for (int round = 0; round < 8 && li; round++) {
    lr = 0;
    gostx__ike_input(r, bi, li, now_ms, br, CAP, &lr);
    li = 0;
    if (lr) gostx__ike_input(i, br, lr, now_ms, bi, CAP, &li);
  }
}

static void converse(gostx_ike_engine *i, gostx_ike_engine *r) { converse_at(i, r, 0); }

/* Fresh engines of ci and cr, and the initiator's request at now_ms in
 * bi/li: where every exchange here begins. */
static void request_at(gostx_ike_engine *i, gostx_ike_engine *r, const gostx_ike_conf *ci,
                       const gostx_ike_conf *cr, int64_t now_ms) {
  CHECK_RC(ike_engine_fresh(i, ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(r, cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_start(i, now_ms, bi, CAP, &li), GOSTX_OK, "IKE_SA_INIT request");
}

/* request_at, then the messages between them, at now_ms. */
static void handshake_at(gostx_ike_engine *i, gostx_ike_engine *r, const gostx_ike_conf *ci,
                         const gostx_ike_conf *cr, int64_t now_ms) {
  request_at(i, r, ci, cr, now_ms);
  converse_at(i, r, now_ms);
}

static void handshake(gostx_ike_engine *i, gostx_ike_engine *r, const gostx_ike_conf *ci,
                      const gostx_ike_conf *cr) {
  handshake_at(i, r, ci, cr, 0);
}

static void keys_agree(const gostx_ike_engine *i, const gostx_ike_engine *r, const char *what) {
  const gostx_ike_child *a = &i->child, *b = &r->child;
  CHECK(i->state == GOSTX_IKE_S_ESTABLISHED && r->state == GOSTX_IKE_S_ESTABLISHED,
        "%s: both established (%d %d, errors %u %u)", what, i->state, r->state, i->error,
        r->error);
  CHECK(a->valid && b->valid, "%s: both have the Child SA", what);
  CHECK(a->key_len == gostx__ike_encr_key_len(i->cf->encr) && a->key_len == b->key_len,
        "%s: key length", what);
  CHECK(!memcmp(a->key_out, b->key_in, a->key_len) && !memcmp(a->key_in, b->key_out, a->key_len),
        "%s: the keys agree", what);
  CHECK(memcmp(a->key_in, a->key_out, a->key_len), "%s: one key per direction", what);
  CHECK(a->spi_out == b->spi_in && a->spi_in == b->spi_out && a->spi_in != a->spi_out,
        "%s: the SPIs agree", what);
}

static void psk_established(void) {
  static const uint16_t encr[2] = {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                                   GOSTX_IKE_ENCR_MAGMA_MGM_KTREE};
  static const uint16_t group[2] = {GOSTX_IKE_KE_GOST3410_2012_512, GOSTX_IKE_KE_GOST3410_2012_256};
  for (int a = 0; a < 2; a++)
    for (int g = 0; g < 2; g++) {
      gostx_ike_conf ci, cr;
      static gostx_ike_engine i, r;
      ike_psk_pair(&ci, &cr, encr[a], group[g]);
      handshake(&i, &r, &ci, &cr);
      keys_agree(&i, &r, "PSK");
      CHECK(i.group == group[g], "the group offered is used");
      /* KEYMAT as RFC 7296 2.17 splits it, recomputed from the SA's keys */
      uint8_t km[88];
      CHECK_RC(gostx__ike_keymat(i.k.sk_d, NULL, 0, i.ni, i.ni_len, i.nr, i.nr_len, km,
                                 2 * i.child.key_len),
               GOSTX_OK, "KEYMAT");
      CHECK_BYTES(i.child.key_out, km, i.child.key_len, "initiator-to-responder first");
      gostx__ike_engine_clear(&i);
      gostx__ike_engine_clear(&r);
    }
}

/* The responder's verdict on a PSK exchange changed by edit. */
static void refused_auth(void (*edit)(gostx_ike_conf *ci, gostx_ike_conf *cr), const char *what,
                         const char *why) {
  static uint8_t other_psk[32] = "another shared key";
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  edit(&ci, &cr);
  (void)other_psk;
  handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "%s: the responder refuses (%d %u)", what, r.state, r.error);
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "%s: the initiator reads AUTHENTICATION_FAILED (%d %u)", what, i.state, i.error);
  CHECK(!r.child.valid && !i.child.valid, "%s: nothing installed", what);
  /* the daemon's log line names the check that refused */
  CHECK(r.why && !strcmp(r.why, why), "%s: why '%s'", what, r.why ? r.why : "(none)");
}

static void wrong_psk(gostx_ike_conf *ci, gostx_ike_conf *cr) {
  static uint8_t other[32] = "another shared key";
  (void)cr;
  ci->psk = other;
}
static void wrong_id(gostx_ike_conf *ci, gostx_ike_conf *cr) {
  static const uint8_t other[] = "IKE-Intruder";
  (void)cr;
  ci->id = other;
  ci->id_len = sizeof other - 1;
}
static void wrong_id_type(gostx_ike_conf *ci, gostx_ike_conf *cr) {
  (void)cr;
  ci->id_type = GOSTX_IKE_ID_RFC822_ADDR;
}

/* The initiator's response check: the responder presents an ID other than
 * the one the initiator wants. */
static void responder_wrong_id(void) {
  static const uint8_t other[] = "IKE-Impostor";
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  ci.peer_id = other;
  ci.peer_id_len = sizeof other - 1;
  handshake(&i, &r, &ci, &cr);
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "the initiator refuses the responder's ID (%d %u)", i.state, i.error);
  CHECK(!i.child.valid, "the initiator installs nothing");
  CHECK(i.why && !strcmp(i.why, "the peer's ID is not the one configured"),
        "the initiator says why: '%s'", i.why ? i.why : "(none)");
}

/* The offset of the transform (type, id) in message m's SA payload. */
static size_t transform_at(const uint8_t *m, size_t len, uint8_t type, uint16_t id) {
  for (size_t o = GOSTX_IKE_HDR_LEN; o + 8 <= len; o++)
    if (m[o] == type && m[o + 1] == 0 && m[o + 2] == id >> 8 && m[o + 3] == (id & 0xff) &&
        (m[o - 4] == 0 || m[o - 4] == 3))
      return o;
  return 0;
}

/* A PSK pair set up and the initiator's first request in bi. */
static void start_pair(gostx_ike_engine *i, gostx_ike_engine *r, gostx_ike_conf *ci,
                       gostx_ike_conf *cr, uint16_t encr, uint16_t group) {
  ike_psk_pair(ci, cr, encr, group);
  request_at(i, r, ci, cr, 0);
}

/* The responder's answer to the initiator's first request after edit. */
static void init_refusal(void (*edit)(uint8_t *m, size_t *len), uint16_t want, const char *what) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  start_pair(&i, &r, &ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
             GOSTX_IKE_KE_GOST3410_2012_512);
  edit(bi, &li);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, what);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == want, "%s: the responder gives up (%u)",
        what, r.error);
  CHECK(gostx__ike_msg_read(br, lr, &h, &c, NULL) == GOSTX_OK && c.n == 1 &&
            c.p[0].type == GOSTX_IKE_PT_NOTIFY &&
            gostx__ike_notify_read(c.p[0].body, c.p[0].len, &n) == GOSTX_OK && n.type == want,
        "%s: the notify %u alone", what, want);
  CHECK(h.flags == GOSTX_IKE_FLAG_R && !memcmp(h.spi_i, i.spi_i, 8), "%s: a response", what);
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, what);
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && i.error == want && li == 0,
        "%s: the initiator notes it and waits on (RFC 7296 2.21.1)", what);
  for (int64_t t = 1000000; i.state != GOSTX_IKE_S_FAILED && t < 10000000; t += 1000000)
    CHECK_RC(gostx__ike_timer(&i, t, bi, CAP, &li), GOSTX_OK, "timer");
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.error == want,
        "%s: and gives up with it when its tries run out", what);
}

static void encr_aes_gcm(uint8_t *m, size_t *len) {
  size_t o = transform_at(m, *len, GOSTX_IKE_TT_ENCR, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE);
  CHECK(o, "the ENCR transform found");
  m[o + 3] = 20; /* ENCR_AES_GCM_16 */
}
static void prf_sha256(uint8_t *m, size_t *len) {
  size_t o = transform_at(m, *len, GOSTX_IKE_TT_PRF, GOSTX_IKE_PRF_HMAC_STREEBOG_512);
  CHECK(o, "the PRF transform found");
  m[o + 3] = 5; /* PRF_HMAC_SHA2_256 */
}
/* The KE data's last octet: y moves off the curve. */
static void ke_off_curve(uint8_t *m, size_t *len) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  CHECK_RC(gostx__ike_msg_read(m, *len, &h, &c, NULL), GOSTX_OK, "request reads");
  const gostx_ike_payload *ke = gostx__ike_find(&c, GOSTX_IKE_PT_KE);
  CHECK(ke != NULL, "KE");
  if (ke) m[ke->body - m + ke->len - 1] ^= 1;
}

/* ---- NAT detection (RFC 7296 2.23) ---- */

static gostx_ike_addr addr4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port) {
  gostx_ike_addr x = {{a, b, c, d}, 4, port};
  return x;
}

/* A PSK pair where the initiator sends from i_from to i_to and the
 * responder sees the datagrams come from r_from to r_to. */
static void addressed_pair(gostx_ike_engine *i, gostx_ike_engine *r, gostx_ike_conf *ci,
                           gostx_ike_conf *cr, const gostx_ike_addr *i_from,
                           const gostx_ike_addr *i_to, const gostx_ike_addr *r_from,
                           const gostx_ike_addr *r_to) {
  ike_psk_pair(ci, cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  CHECK_RC(ike_engine_fresh(i, ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(r, cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_engine_addrs(i, i_from, i_to), GOSTX_OK, "initiator's addresses");
  CHECK_RC(gostx__ike_engine_addrs(r, r_to, r_from), GOSTX_OK, "responder's addresses");
  CHECK_RC(gostx__ike_start(i, 0, bi, CAP, &li), GOSTX_OK, "request");
}

/* A PSK exchange where the initiator sends from i_from to i_to and the
 * responder sees it come from r_from to r_to (a NAT between them when they
 * differ); the NAT results of each side against want. */
static void nat_case(gostx_ike_addr i_from, gostx_ike_addr i_to, gostx_ike_addr r_from,
                     gostx_ike_addr r_to, int i_local, int i_peer, const char *what) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  addressed_pair(&i, &r, &ci, &cr, &i_from, &i_to, &r_from, &r_to);
  converse(&i, &r);
  keys_agree(&i, &r, what);
  CHECK(i.nat_detection && r.nat_detection, "%s: both saw NAT detection", what);
  /* a NAT in front of the initiator is one in front of the responder's peer */
  CHECK(i.nat_local == i_local && r.nat_peer == i_local, "%s: NAT before the initiator (%d %d)",
        what, i.nat_local, r.nat_peer);
  CHECK(i.nat_peer == i_peer && r.nat_local == i_peer, "%s: NAT before the responder (%d %d)",
        what, i.nat_peer, r.nat_local);
}

static void nat_detection(void) {
  const gostx_ike_addr home = addr4(192, 168, 1, 10, 500), gw = addr4(198, 51, 100, 7, 500);
  const gostx_ike_addr outside = addr4(203, 0, 113, 5, 4321), inside = addr4(10, 0, 0, 2, 500);
  nat_case(home, gw, home, gw, 0, 0, "no NAT");
  nat_case(home, gw, outside, gw, 1, 0, "the initiator behind a NAT");
  nat_case(home, gw, home, inside, 0, 1, "the responder behind a NAT (a port forward)");
  nat_case(home, gw, outside, inside, 1, 1, "both behind NATs");
  gostx_ike_addr a6 = {{0x20, 0x01, 0x0d, 0xb8, [15] = 1}, 16, 500}, b6 = a6;
  b6.ip[15] = 2;
  nat_case(a6, b6, a6, b6, 0, 0, "IPv6, no NAT");
  gostx_ike_addr moved = a6;
  moved.port = 1024; /* only the port rewritten */
  nat_case(a6, b6, moved, b6, 1, 0, "IPv6, the initiator's port rewritten");
  /* without addresses nothing is sent, and nothing is concluded */
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "no addresses");
  CHECK(!i.nat_detection && !r.nat_detection && !i.nat_local && !r.nat_peer,
        "no addresses: no NAT detection");
  gostx_ike_addr bad = home;
  bad.ip_len = 5;
  CHECK_RC(gostx__ike_engine_addrs(&i, &bad, &gw), GOSTX_EINVAL, "an address of 5 octets");
  CHECK_RC(gostx__ike_engine_addrs(&i, &home, &a6), GOSTX_EINVAL, "IPv4 to IPv6");
}

/* SHA-1(SPIi | SPIr | 2001:db8::1 | 4500), hashlib's answer. */
static void nat_hash_ipv6(void) {
  static const uint8_t spi_i[8] = {1, 2, 3, 4, 5, 6, 7, 8},
                       spi_r[8] = {0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18};
  uint8_t want[20], got[20];
  gostx_ike_addr a = {{0x20, 0x01, 0x0d, 0xb8, [15] = 1}, 16, 4500};
  hex_decode("1ee24423bf8f59515e0265c6d0f08be3d038f7e5", want, sizeof want);
  gostx__ike_nat_hash(spi_i, spi_r, &a, got);
  CHECK_BYTES(got, want, 20, "NAT detection hash over IPv6 (hashlib)");
}

/* Payload p of message m (len) one octet shorter: its last octet gone,
 * its length and the header's patched. */
static void cut_last_octet(uint8_t *m, size_t *len, const gostx_ike_payload *p) {
  uint8_t *g = (uint8_t *)p->body - 4; /* its generic header */
  const size_t at = (size_t)(g - m), plen = 4 + p->len;
  memmove(g + plen - 1, g + plen, *len - at - plen);
  *len -= 1;
  g[3]--; /* lengths are big-endian: borrow from the high octet */
  if (g[3] == 0xff) g[2]--;
  if (--m[27] == 0xff) m[26]--;
}

/* A request whose NAT_DETECTION_SOURCE_IP hash is 19 octets. */
static void nat_short_hash(uint8_t *m, size_t *len) {
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  CHECK_RC(gostx__ike_msg_read(m, *len, &h, &c, NULL), GOSTX_OK, "request reads");
  for (size_t k = 0; k < c.n; k++)
    if (c.p[k].type == GOSTX_IKE_PT_NOTIFY &&
        gostx__ike_notify_read(c.p[k].body, c.p[k].len, &n) == GOSTX_OK &&
        n.type == GOSTX_IKE_N_NAT_DETECTION_SOURCE_IP) {
      cut_last_octet(m, len, &c.p[k]);
      return;
    }
  CHECK(0, "NAT_DETECTION_SOURCE_IP in the request");
}

/* A NAT notify whose hash is not 20 octets: INVALID_SYNTAX from the
 * responder, and a response carrying one is dropped by the initiator. */
static void nat_malformed(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  const gostx_ike_addr a = addr4(192, 0, 2, 1, 500), b = addr4(192, 0, 2, 2, 500);
  addressed_pair(&i, &r, &ci, &cr, &a, &b, &a, &b);
  uint8_t good[CAP];
  const size_t good_len = li;
  memcpy(good, bi, li);
  nat_short_hash(bi, &li);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "a short NAT hash");
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_INVALID_SYNTAX,
        "a short NAT hash: INVALID_SYNTAX (%u)", r.error);
  CHECK_RC(ike_engine_fresh(&r, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_engine_addrs(&r, &b, &a), GOSTX_OK, "addresses");
  CHECK_RC(gostx__ike_input(&r, good, good_len, 0, br, CAP, &lr), GOSTX_OK, "the request");
  nat_short_hash(br, &lr);
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_EFORMAT,
           "a response with a short NAT hash dropped");
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && li == 0, "the initiator waits on");
}

/* An initiator offering both ENCR (as RFC 9385 A.1.1's) takes the one a
 * Magma-only responder chose, for the IKE SA and the Child SA; a response
 * naming an ENCR it did not offer is dropped. */
static void encr_offer(void) {
  static const uint16_t both[2] = {GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                                   GOSTX_IKE_ENCR_MAGMA_MGM_KTREE};
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  ci.encr = GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE;
  ci.encr_offer = both;
  ci.n_encr_offer = 2;
  handshake(&i, &r, &ci, &cr);
  CHECK(i.state == GOSTX_IKE_S_ESTABLISHED && i.encr == GOSTX_IKE_ENCR_MAGMA_MGM_KTREE &&
            i.child.encr == GOSTX_IKE_ENCR_MAGMA_MGM_KTREE && i.child.key_len == 36,
        "the responder's choice taken (%d %u)", i.state, i.encr);
  ci.n_encr_offer = 1; /* Kuznyechik alone offered: the responder refuses */
  handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_NO_PROPOSAL_CHOSEN,
        "an offer without the responder's ENCR");
  /* a response naming Magma to an offer of Kuznyechik alone: dropped */
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  request_at(&i, &r, &ci, &cr, 0);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "response");
  size_t o = transform_at(br, lr, GOSTX_IKE_TT_ENCR, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE);
  CHECK(o, "the ENCR transform found");
  br[o + 3] = GOSTX_IKE_ENCR_MAGMA_MGM_KTREE;
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_EFORMAT,
           "an ENCR not offered: dropped");
  static const uint16_t aes[1] = {20};
  ci.encr_offer = aes;
  ci.n_encr_offer = 1;
  CHECK_RC(ike_engine_fresh(&i, &ci), GOSTX_EINVAL, "an offer of an ENCR not implemented");
}

/* Where IKEV2_FRAGMENTATION_SUPPORTED's payload length field is in m: its
 * Protocol ID at + 2, the type's low octet at + 5. */
static size_t frag_notify_at(const uint8_t *m, size_t len) {
  static const uint8_t frag_notify[6] = {0, 8, 0, 0, 0x40, 0x2e}; /* length, proto, SPI, 16430 */
  size_t o = GOSTX_IKE_HDR_LEN;
  while (o + 6 <= len && memcmp(m + o, frag_notify, 6)) o++;
  CHECK(o + 6 <= len, "IKEV2_FRAGMENTATION_SUPPORTED found");
  return o + 6 <= len ? o : 0;
}

/* IKEV2_FRAGMENTATION_SUPPORTED naming protocol IKE: 2.3 of RFC 7383
 * wants protocol 0. */
static void frag_notify_with_protocol(uint8_t *m, size_t *len) {
  m[frag_notify_at(m, *len) + 2] = GOSTX_IKE_PROTO_IKE;
}

static void refusals_in_init(void) {
  init_refusal(frag_notify_with_protocol, GOSTX_IKE_N_INVALID_SYNTAX,
               "FRAGMENTATION_SUPPORTED with a protocol");
  init_refusal(encr_aes_gcm, GOSTX_IKE_N_NO_PROPOSAL_CHOSEN, "no GOST encryption");
  init_refusal(prf_sha256, GOSTX_IKE_N_NO_PROPOSAL_CHOSEN, "no GOST PRF");
  init_refusal(ke_off_curve, GOSTX_IKE_N_INVALID_SYNTAX, "KE off the curve");
}

/* A responder wanting the other group: INVALID_KE_PAYLOAD names it, the
 * initiator retries with it (RFC 7296 1.2), as in RFC 9385 A.2.1. */
static void invalid_ke_retry(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r, r2;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  cr.group = GOSTX_IKE_KE_GOST3410_2012_256;
  request_at(&i, &r, &ci, &cr, 0);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "answered");
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_INVALID_KE_PAYLOAD,
        "INVALID_KE_PAYLOAD (%u)", r.error);
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "read");
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && li && i.group == GOSTX_IKE_KE_GOST3410_2012_256,
        "the initiator retries with the group named");
  CHECK_RC(ike_engine_fresh(&r2, &cr), GOSTX_OK, "a fresh responder");
  converse(&i, &r2);
  keys_agree(&i, &r2, "after INVALID_KE_PAYLOAD");
}

/* One IPv4 range a.b.c.0-255, any protocol and port. */
static gostx_ike_ts_set net24(uint8_t a, uint8_t b, uint8_t c) {
  gostx_ike_ts_set s = {1, {{GOSTX_IKE_TS_IPV4, 0, 0, 65535, {a, b, c, 0}, {a, b, c, 255}}}};
  return s;
}

/* The responder's selectors, when configured, are what it answers when
 * they lie within the initiator's; else TS_UNACCEPTABLE: the IKE SA
 * stands, no Child SA on either side (RFC 7296 2.9, 2.21.2). */
static void traffic_selectors(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  cr.tsi = net24(10, 0, 0);
  cr.tsr = net24(10, 1, 0);
  handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "narrowed to the responder's selectors");
  ci.tsi = net24(192, 168, 0);
  handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_ESTABLISHED && i.state == GOSTX_IKE_S_ESTABLISHED,
        "TS_UNACCEPTABLE: the IKE SA stands (%d %d)", i.state, r.state);
  CHECK(!i.child.valid && !r.child.valid && i.error == GOSTX_IKE_N_TS_UNACCEPTABLE,
        "TS_UNACCEPTABLE: no Child SA (%u)", i.error);
  /* a TSi of its own only (a gateway's IKEv2 site: its remote_ts): TSi
   * narrowed to it, TSr taken as the initiator asked, both sides agreeing */
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  ci.tsr = net24(10, 7, 0);
  cr.tsi = net24(10, 0, 0);
  memset(&cr.tsr, 0, sizeof cr.tsr);
  handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "TSi narrowed, TSr as asked");
  const gostx_ike_ts_set *sets[4] = {&i.ts_i, &r.ts_i, &i.ts_r, &r.ts_r};
  for (int k = 0; k < 4; k++) {
    const gostx_ike_ts *want = k < 2 ? &cr.tsi.ts[0] : &ci.tsr.ts[0], *got = &sets[k]->ts[0];
    CHECK(sets[k]->n == 1 && !memcmp(got->start, want->start, 4) &&
              !memcmp(got->end, want->end, 4),
          "selectors %d: %u.%u.%u.%u-%u.%u.%u.%u", k, got->start[0], got->start[1],
          got->start[2], got->start[3], got->end[0], got->end[1], got->end[2], got->end[3]);
  }
  ci.tsi = net24(192, 168, 0); /* not holding the responder's TSi: refused */
  handshake(&i, &r, &ci, &cr);
  CHECK(!i.child.valid && i.error == GOSTX_IKE_N_TS_UNACCEPTABLE,
        "TSi outside: TS_UNACCEPTABLE (%u)", i.error);
}

/* ---- certificates (RFC 7427 method 14 with RFC 9385's signatures) ---- */

static pki_key root_key, key256, key512, other_root_key, other_key, inter_key;
static pki_cert root, leaf256, leaf512, other_root, other_leaf, server_leaf, inter, chain_leaf;
static const uint8_t fqdn_i[] = "gw-i.example.test", fqdn_r[] = "gw-r.example.test";

static void pki(void) {
  static const char *const ca[] = {"basicConstraints=critical,CA:TRUE",
                                   "keyUsage=critical,keyCertSign,cRLSign", NULL};
  static const char *const ext_i[] = {"keyUsage=digitalSignature",
                                      "subjectAltName=DNS:gw-i.example.test", NULL};
  static const char *const ext_r[] = {"keyUsage=digitalSignature",
                                      "subjectAltName=DNS:gw-r.example.test", NULL};
  pki_make(&root, &root_key, GOSTX_GOST3410_512_C, "/CN=IKE Engine Root/O=gostx/C=RU", ca, NULL,
           NULL);
  pki_make(&leaf256, &key256, GOSTX_GOST3410_256_A, "/CN=gw-i/O=gostx/C=RU", ext_i, &root, &root_key);
  pki_make(&leaf512, &key512, GOSTX_GOST3410_512_A, "/CN=gw-r/O=gostx/C=RU", ext_r, &root, &root_key);
  pki_make(&other_root, &other_root_key, GOSTX_GOST3410_256_B, "/CN=Another Root/O=gostx/C=RU", ca,
           NULL, NULL);
  pki_make(&other_leaf, &other_key, GOSTX_GOST3410_256_A, "/CN=gw-i/O=gostx/C=RU", ext_i,
           &other_root, &other_root_key);
  static const char *const ext_server[] = {"keyUsage=digitalSignature",
                                           "subjectAltName=DNS:gw-i.example.test",
                                           "extendedKeyUsage=serverAuth,clientAuth", NULL};
  pki_make_cert(&server_leaf, "/CN=gw-i/O=gostx/C=RU", &key256, ext_server, &root, &root_key);
  /* a chain for fragmentation: the 256-bit key's leaf under an intermediate */
  pki_make(&inter, &inter_key, GOSTX_GOST3410_512_A, "/CN=IKE Engine Intermediate/O=gostx/C=RU",
           ca, &root, &root_key);
  pki_make_cert(&chain_leaf, "/CN=gw-i/O=gostx/C=RU", &key256, ext_i, &inter, &inter_key);
}

typedef struct cert_side {
  const uint8_t *der[1];
  size_t len[1];
} cert_side;

static void use_cert(gostx_ike_conf *c, cert_side *s, const pki_key *k, const pki_cert *leaf,
                     const gostx_x509_store *st) {
  s->der[0] = leaf->der;
  s->len[0] = leaf->len;
  c->auth = GOSTX_IKE_AUTH_DIGITAL_SIGNATURE;
  c->psk = NULL;
  c->psk_len = 0;
  c->key = &k->k;
  c->certs = s->der;
  c->cert_lens = s->len;
  c->n_certs = 1;
  c->store = st;
}

/* A certificate pair: the initiator signs with a 256-bit key, the
 * responder with a 512-bit one; now in the certificates' lifetime. */
static void cert_pair(gostx_ike_conf *ci, gostx_ike_conf *cr, cert_side *si, cert_side *sr,
                      const gostx_x509_store *st) {
  ike_psk_pair(ci, cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  use_cert(ci, si, &key256, &leaf256, st);
  use_cert(cr, sr, &key512, &leaf512, st);
  ci->id = cr->peer_id = fqdn_i;
  ci->id_len = cr->peer_id_len = sizeof fqdn_i - 1;
  cr->id = ci->peer_id = fqdn_r;
  cr->id_len = ci->peer_id_len = sizeof fqdn_r - 1;
}

/* A handshake an hour into the test PKI's certificates' validity. */
static void cert_handshake(gostx_ike_engine *i, gostx_ike_engine *r, const gostx_ike_conf *ci,
                           const gostx_ike_conf *cr) {
  handshake_at(i, r, ci, cr, (IKE_PKI_T0 + 3600) * 1000);
}

static void certificates(void) {
  gostx_x509_store *st = gostx_x509_store_new(), *st_other = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  CHECK_RC(gostx_x509_store_add_der(st_other, other_root.der, other_root.len), GOSTX_OK,
           "other root anchored");
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  cert_pair(&ci, &cr, &si, &sr, st);
  cert_handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "certificates 256/512");
  /* the initiator's certificate from another CA */
  cert_pair(&ci, &cr, &si, &sr, st);
  use_cert(&ci, &si, &other_key, &other_leaf, st);
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED &&
            !r.child.valid,
        "a certificate from another CA: AUTHENTICATION_FAILED (%d %u)", r.state, r.error);
  CHECK(r.why && !strcmp(r.why, gostx_x509_status_name(GOSTX_X509_UNKNOWN_CA)),
        "another CA: why '%s'", r.why ? r.why : "(none)");
  CHECK(r.peer_cert == GOSTX_X509_UNKNOWN_CA, "the reason kept: %s",
        gostx_x509_status_name(r.peer_cert));
  /* an extendedKeyUsage without id-kp-ipsecIKE or any (RFC 4945 5.1.3.12) */
  cert_pair(&ci, &cr, &si, &sr, st);
  use_cert(&ci, &si, &key256, &server_leaf, st);
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED &&
            r.peer_cert == GOSTX_X509_EXT_KEY_USAGE && !r.child.valid && !i.child.valid,
        "EKU serverAuth, clientAuth: AUTHENTICATION_FAILED (%d %u, %s)", r.state, r.error,
        gostx_x509_status_name(r.peer_cert));
  /* the responder's certificate checked against a store without its CA */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.store = st_other;
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(i.state == GOSTX_IKE_S_FAILED && !i.child.valid && i.peer_cert == GOSTX_X509_UNKNOWN_CA,
        "the responder's chain refused by the initiator (%d, %s)", i.state,
        gostx_x509_status_name(i.peer_cert));
  /* an ID the certificate does not name */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.id = cr.peer_id = fqdn_r;
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "an ID the certificate does not name (%d %u)", r.state, r.error);
  /* the certificate right, the AUTH signed by another key */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.key = &other_key.k;
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "an AUTH signed by another key (%d %u)", r.state, r.error);
  /* expired at the time passed in */
  cert_pair(&ci, &cr, &si, &sr, st);
  const int64_t late = (IKE_PKI_T1 + 1) * 1000;
  request_at(&i, &r, &ci, &cr, late);
  CHECK_RC(gostx__ike_input(&r, bi, li, late, br, CAP, &lr), GOSTX_OK, "IKE_SA_INIT");
  CHECK_RC(gostx__ike_input(&i, br, lr, late, bi, CAP, &li), GOSTX_OK, "IKE_AUTH request");
  CHECK_RC(gostx__ike_input(&r, bi, li, late, br, CAP, &lr), GOSTX_OK, "IKE_AUTH");
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED,
        "an expired certificate refused");
  gostx_x509_store_free(st);
  gostx_x509_store_free(st_other);
}

/* ---- revocation of the peer's path (revoke.c) ---- */

/* A CRL of root's from IKE_PKI_T0 to next_update listing revoked[n] */
static void root_crl(const pki_cert *const *revoked, size_t n, int64_t next_update, uint8_t *der,
                     size_t cap, gostx_x509_crl *crl) {
  pki_make_crl(&root, &root_key, revoked, n, next_update, der, cap, crl);
}

/* note names leaf as revoked: its serial (as printed in hex here) and the
 * reason */
static int names_revoked(const char *note, const pki_cert *leaf) {
  char serial[48] = "serial 0x";
  for (size_t k = 0; k < leaf->c.serial_len; k++)
    snprintf(serial + strlen(serial), sizeof serial - strlen(serial), "%02X", leaf->c.serial[k]);
  return strstr(note, "keyCompromise") && strstr(note, serial);
}

/* e refused the peer's certificate leaf as revoked, and its note says
 * which. */
static void refused_revoked(const gostx_ike_engine *e, const pki_cert *leaf, const char *what) {
  CHECK(e->state == GOSTX_IKE_S_FAILED && !e->child.valid && e->peer_cert == GOSTX_X509_REVOKED,
        "%s: refused as revoked (%d, %s)", what, e->state, gostx_x509_status_name(e->peer_cert));
  CHECK(names_revoked(e->cert_note, leaf), "%s: the note names it: '%s'", what, e->cert_note);
}

/* An IKE SA up (i, r over ci, cr), then other CRLs: each side's peer
 * looked up again in them (gostx__ike_peer_recheck), the path as at
 * IKE_AUTH, the CRLs at a later time. */
static void recheck_established(const gostx_ike_engine *i, const gostx_ike_engine *r,
                                gostx_ike_conf *ci, gostx_ike_conf *cr,
                                const gostx_x509_crl *the_i, const gostx_x509_crl *the_r,
                                const gostx_x509_crl *stale) {
  const int64_t later = IKE_PKI_T0 + 7200;
  char note[GOSTX_IKE_NOTE_MAX];
  cr->revocation.crls = the_r; /* the responder's own certificate, not its peer's */
  CHECK(gostx__ike_peer_recheck(r, later, note) == GOSTX_X509_OK && !note[0],
        "again, a CRL revoking another: the SA stands ('%s')", note);
  cr->revocation.crls = the_i;
  CHECK(gostx__ike_peer_recheck(r, later, note) == GOSTX_X509_REVOKED &&
            names_revoked(note, &leaf256),
        "again, the initiator revoked: the responder says so ('%s')", note);
  ci->revocation.crls = the_r;
  CHECK(gostx__ike_peer_recheck(i, later, note) == GOSTX_X509_REVOKED &&
            names_revoked(note, &leaf512),
        "again, the responder revoked: the initiator says so ('%s')", note);
  cr->revocation.crls = stale;
  CHECK(gostx__ike_peer_recheck(r, later, note) == GOSTX_X509_CRL_EXPIRED &&
            strstr(note, "require"),
        "again, only a stale CRL: no status under require ('%s')", note);
  cr->revocation.policy = GOSTX_IKE_REVOCATION_WARN;
  CHECK(gostx__ike_peer_recheck(r, later, note) == GOSTX_X509_OK && strstr(note, "warn"),
        "again, only a stale CRL: a note under warn ('%s')", note);
}

static void revocation(void) {
  static uint8_t der[4][4096];
  gostx_x509_crl none, the_i, the_r, stale;
  const pki_cert *of_i[] = {&leaf256}, *of_r[] = {&leaf512};
  const int64_t day = IKE_PKI_T0 + 86400;
  root_crl(NULL, 0, day, der[0], sizeof der[0], &none);
  root_crl(of_i, 1, day, der[1], sizeof der[1], &the_i);
  root_crl(of_r, 1, day, der[2], sizeof der[2], &the_r);
  root_crl(NULL, 0, IKE_PKI_T0 + 60, der[3], sizeof der[3], &stale); /* the handshake: an hour in */
  gostx_x509_store *st = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  const gostx_ike_revocation req = {&none, 1, GOSTX_IKE_REVOCATION_REQUIRE};
  /* neither listed: both through, no note */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.revocation = cr.revocation = req;
  cert_handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "require, a CRL listing neither");
  CHECK(!i.cert_note[0] && !r.cert_note[0], "no note ('%s' '%s')", i.cert_note, r.cert_note);
  recheck_established(&i, &r, &ci, &cr, &the_i, &the_r, &stale);
  /* the initiator's certificate revoked: the responder refuses it */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.revocation = cr.revocation = req;
  cr.revocation.crls = &the_i;
  cert_handshake(&i, &r, &ci, &cr);
  CHECK(r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED && !i.child.valid,
        "a revoked initiator: AUTHENTICATION_FAILED (%u)", r.error);
  refused_revoked(&r, &leaf256, "a revoked initiator");
  /* the responder's revoked: the initiator refuses it */
  cert_pair(&ci, &cr, &si, &sr, st);
  ci.revocation = cr.revocation = req;
  ci.revocation.crls = &the_r;
  cert_handshake(&i, &r, &ci, &cr);
  refused_revoked(&i, &leaf512, "a revoked responder");
  /* revoked under warn too; off consults nothing */
  cert_pair(&ci, &cr, &si, &sr, st);
  cr.revocation = (gostx_ike_revocation){&the_i, 1, GOSTX_IKE_REVOCATION_WARN};
  cert_handshake(&i, &r, &ci, &cr);
  refused_revoked(&r, &leaf256, "warn, a revoked initiator");
  cert_pair(&ci, &cr, &si, &sr, st);
  cr.revocation = (gostx_ike_revocation){&the_i, 1, GOSTX_IKE_REVOCATION_OFF};
  cert_handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "revocation off");
  /* no status (no CRL of the root, a stale one): require refuses, warn
   * takes it with a note naming why */
  const struct {
    const gostx_x509_crl *crls;
    size_t n;
    gostx_x509_status why;
  } no_status[] = {{NULL, 0, GOSTX_X509_CRL_UNAVAILABLE}, {&stale, 1, GOSTX_X509_CRL_EXPIRED}};
  for (size_t k = 0; k < 2; k++) {
    cert_pair(&ci, &cr, &si, &sr, st);
    cr.revocation = (gostx_ike_revocation){no_status[k].crls, no_status[k].n,
                                           GOSTX_IKE_REVOCATION_REQUIRE};
    cert_handshake(&i, &r, &ci, &cr);
    CHECK(r.state == GOSTX_IKE_S_FAILED && r.peer_cert == no_status[k].why &&
              strstr(r.cert_note, "no revocation status") && strstr(r.cert_note, "require"),
          "require, %s: refused (%s; '%s')", gostx_x509_status_name(no_status[k].why),
          gostx_x509_status_name(r.peer_cert), r.cert_note);
    cert_pair(&ci, &cr, &si, &sr, st);
    cr.revocation = (gostx_ike_revocation){no_status[k].crls, no_status[k].n,
                                           GOSTX_IKE_REVOCATION_WARN};
    cert_handshake(&i, &r, &ci, &cr);
    keys_agree(&i, &r, "warn without a status");
    CHECK(strstr(r.cert_note, gostx_x509_status_name(no_status[k].why)) &&
              strstr(r.cert_note, "warn"),
          "warn, %s: the note says it: '%s'", gostx_x509_status_name(no_status[k].why),
          r.cert_note);
  }
  gostx_x509_store_free(st);
}

/* ---- SIGNATURE_HASH_ALGORITHMS (RFC 7427 4) ---- */

/* The SIGNATURE_HASH_ALGORITHMS the engine wrote in msg rewritten, in msg
 * and in the sender's copy keep (m1 or m2, what its AUTH covers): type the
 * notify's type, a and b the two hash identifiers it lists. */
static void rewrite_hashes(uint8_t *msg, size_t len, uint8_t *keep, uint16_t type, uint8_t a,
                           uint8_t b) {
  static const uint8_t written[8] = {0, 0, 0x40, 0x2f, 0, GOSTX_IKE_HASH_STREEBOG_256,
                                     0, GOSTX_IKE_HASH_STREEBOG_512};
  for (size_t o = 0; o + 8 <= len; o++)
    if (!memcmp(msg + o, written, 8)) {
      uint8_t *const m[2] = {msg + o, keep + o};
      for (int k = 0; k < 2; k++) {
        m[k][2] = (uint8_t)(type >> 8);
        m[k][3] = (uint8_t)type;
        m[k][5] = a;
        m[k][7] = b;
      }
      return;
    }
  CHECK(0, "SIGNATURE_HASH_ALGORITHMS found");
}

/* A certificate exchange (the initiator signs with Streebog-256, the
 * responder with -512) where the initiator's request (of_initiator) or the
 * responder's answer announces type listing a and b. */
static void announced(gostx_ike_engine *i, gostx_ike_engine *r, int of_initiator, uint16_t type,
                      uint8_t a, uint8_t b) {
  static gostx_ike_conf ci, cr;
  static cert_side si, sr;
  static gostx_x509_store *st;
  if (!st) {
    st = gostx_x509_store_new();
    CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  }
  const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;
  cert_pair(&ci, &cr, &si, &sr, st);
  request_at(i, r, &ci, &cr, now_ms);
  if (of_initiator) rewrite_hashes(bi, li, i->m1, type, a, b);
  lr = 0;
  gostx__ike_input(r, bi, li, now_ms, br, CAP, &lr);
  if (!of_initiator) rewrite_hashes(br, lr, r->m2, type, a, b);
  for (int round = 0; round < 4 && lr; round++) {
    li = 0;
    gostx__ike_input(i, br, lr, now_ms, bi, CAP, &li);
    lr = 0;
    if (li) gostx__ike_input(r, bi, li, now_ms, br, CAP, &lr);
  }
}

static void hash_algorithms(void) {
  const uint16_t sha = GOSTX_IKE_N_SIGNATURE_HASH_ALGORITHMS;
  static gostx_ike_engine i, r;
  /* a list with our hash among others: we sign with it */
  announced(&i, &r, 0, sha, 2 /* SHA2_256 */, GOSTX_IKE_HASH_STREEBOG_256);
  keys_agree(&i, &r, "the responder lists SHA2-256 and Streebog-256");
  announced(&i, &r, 1, sha, GOSTX_IKE_HASH_STREEBOG_512, 5 /* SHA2_512 */);
  keys_agree(&i, &r, "the initiator lists Streebog-512 and SHA2-512");
  /* not announced (another status type in its place): signed as before */
  announced(&i, &r, 0, sha + 1, GOSTX_IKE_HASH_STREEBOG_512, GOSTX_IKE_HASH_STREEBOG_512);
  keys_agree(&i, &r, "no SIGNATURE_HASH_ALGORITHMS");
  /* the responder takes only Streebog-512: the 256-bit initiator cannot
   * sign for it and stops before its IKE_AUTH, saying why */
  announced(&i, &r, 0, sha, GOSTX_IKE_HASH_STREEBOG_512, GOSTX_IKE_HASH_STREEBOG_512);
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.why && strstr(i.why, "SIGNATURE_HASH_ALGORITHMS") &&
            !i.child.valid && r.state == GOSTX_IKE_S_INIT_DONE,
        "a list without Streebog-256: the initiator fails (%d, %s), nothing sent", i.state,
        i.why ? i.why : "no reason");
  /* the initiator takes only Streebog-256: the 512-bit responder refuses */
  announced(&i, &r, 1, sha, GOSTX_IKE_HASH_STREEBOG_256, 2);
  CHECK(r.state == GOSTX_IKE_S_FAILED && r.error == GOSTX_IKE_N_AUTHENTICATION_FAILED &&
            r.why && strstr(r.why, "SIGNATURE_HASH_ALGORITHMS") && !r.child.valid,
        "a list without Streebog-512: the responder refuses (%d %u, %s)", r.state, r.error,
        r.why ? r.why : "no reason");
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.error == GOSTX_IKE_N_AUTHENTICATION_FAILED &&
            !i.child.valid,
        "and the initiator reads AUTHENTICATION_FAILED (%d %u)", i.state, i.error);
  /* the reader: 16-bit identifiers, protocol 0, no SPI */
  static const uint8_t list[5] = {0, 6, 0, 7, 0};
  const struct {
    uint8_t proto;
    size_t len;
    int want;
    uint32_t mask;
  } cases[] = {{0, 4, 1, 1u << 6 | 1u << 7}, {0, 2, 1, 1u << 6}, {0, 5, GOSTX_EFORMAT, 0},
               {0, 0, GOSTX_EFORMAT, 0}, {1, 4, GOSTX_EFORMAT, 0}};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint8_t buf[64];
    gostx_ike_writer w;
    gostx_ike_chain c;
    uint32_t mask = 0;
    const gostx_ike_notify n = {cases[k].proto, 0, sha, NULL, list, cases[k].len};
    gostx__ike_w_inner(&w, buf, sizeof buf);
    gostx__ike_w_notify(&w, &n);
    CHECK_RC(gostx__ike_chain_read(w.first, buf, w.len, &c, NULL), GOSTX_OK, "the notify reads");
    const int got = gostx__ike_sig_hashes(&c, &mask);
    CHECK(got == cases[k].want && mask == cases[k].mask, "hash list %zu: %d %#x", k, got, mask);
  }
}

/* ---- fragmentation (RFC 7383) ---- */

/* The messages of out[0..len) (one, or fragments back to back): their
 * count, each at most max octets (0: no bound) and each an SKF message
 * when skf (an SK one otherwise). */
static size_t messages(const uint8_t *out, size_t len, size_t max, int skf, const char *what) {
  size_t at = 0, n, count = 0;
  while ((n = gostx__ike_out_next(out, len, &at)) != 0) {
    const uint8_t *m = out + at - n;
    CHECK(!max || n <= max, "%s: message %zu of %zu octets", what, count + 1, n);
    CHECK(m[16] == (skf ? GOSTX_IKE_PT_SKF : GOSTX_IKE_PT_SK), "%s: message %zu is %s", what,
          count + 1, skf ? "SKF" : "SK");
    count++;
  }
  CHECK(at == len, "%s: the messages fill what came out", what);
  return count;
}

/* Each message of out into e (in reverse order when reverse); what e
 * answers gathered in ans. */
static void deliver(gostx_ike_engine *e, const uint8_t *out, size_t len, int64_t now_ms,
                    int reverse, uint8_t *ans, size_t *ans_len) {
  size_t at = 0, n, off[GOSTX_IKE_FRAG_MAX], lens[GOSTX_IKE_FRAG_MAX], count = 0;
  while (count < GOSTX_IKE_FRAG_MAX && (n = gostx__ike_out_next(out, len, &at)) != 0) {
    off[count] = at - n;
    lens[count++] = n;
  }
  *ans_len = 0;
  for (size_t k = 0; k < count; k++) {
    const size_t j = reverse ? count - 1 - k : k;
    size_t got = 0;
    gostx__ike_input(e, out + off[j], lens[j], now_ms, ans + *ans_len, CAP - *ans_len, &got);
    *ans_len += got;
  }
}

/* request_at, the responder's answer, and the initiator's IKE_AUTH request
 * (its fragments, if any) in req at now_ms. */
static void auth_request_at(gostx_ike_engine *i, gostx_ike_engine *r, const gostx_ike_conf *ci,
                            const gostx_ike_conf *cr, int64_t now_ms, uint8_t *req,
                            size_t *req_len) {
  request_at(i, r, ci, cr, now_ms);
  deliver(r, bi, li, now_ms, 0, br, &lr);
  deliver(i, br, lr, now_ms, 0, req, req_len);
}

/* A certificate pair whose initiator sends the chain der/len (a leaf and
 * its intermediate: an IKE_AUTH past 544 octets), both fragmenting at 544
 * (RFC 9385 A.2.1's bound). */
static void chain_pair_544(gostx_ike_conf *ci, gostx_ike_conf *cr, cert_side *si, cert_side *sr,
                           const gostx_x509_store *st, const uint8_t *const *der,
                           const size_t *len) {
  cert_pair(ci, cr, si, sr, st);
  ci->certs = der;
  ci->cert_lens = len;
  ci->n_certs = 2;
  ci->frag_size = cr->frag_size = 544;
}

/* A peer that did not announce IKEV2_FRAGMENTATION_SUPPORTED (RFC 7383
 * 2.3): the responder's notify renamed (in its answer and its copy, m2),
 * the initiator sends its chain whole however small frag_size is; and
 * fragments offered to a responder whose peer did not announce them are
 * dropped. */
static void fragmentation_not_announced(const gostx_x509_store *st, const uint8_t *const *der,
                                        const size_t *len) {
  static uint8_t req[CAP], resp[CAP];
  size_t req_len, resp_len;
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;
  chain_pair_544(&ci, &cr, &si, &sr, st, der, len);
  request_at(&i, &r, &ci, &cr, now_ms);
  deliver(&r, bi, li, now_ms, 0, br, &lr);
  const size_t o = frag_notify_at(br, lr);
  br[o + 5] = r.m2[o + 5] = 0x33; /* 16435: a status type nobody reads */
  deliver(&i, br, lr, now_ms, 0, req, &req_len);
  CHECK(!i.peer_frag && messages(req, req_len, 0, 0, "not announced") == 1 && req_len > 544,
        "not announced: the request goes whole (%zu octets)", req_len);
  /* the other way: the initiator fragments, the responder has not seen
   * its notify (as if it had not sent one) and drops the fragments */
  request_at(&i, &r, &ci, &cr, now_ms);
  deliver(&r, bi, li, now_ms, 0, br, &lr);
  r.peer_frag = 0;
  deliver(&i, br, lr, now_ms, 0, req, &req_len);
  CHECK(messages(req, req_len, 544, 1, "announced") > 1, "the initiator fragments");
  deliver(&r, req, req_len, now_ms, 0, resp, &resp_len);
  CHECK(r.state == GOSTX_IKE_S_INIT_DONE && resp_len == 0,
        "fragments from a peer that did not announce them dropped (%d)", r.state);
}

/* The messages of out with index in [from, to) into e at now_ms; what e
 * answers in ans. */
static void deliver_some(gostx_ike_engine *e, const uint8_t *out, size_t len, size_t from,
                         size_t to, int64_t now_ms, uint8_t *ans, size_t *ans_len) {
  size_t at = 0, n, k = 0;
  *ans_len = 0;
  while ((n = gostx__ike_out_next(out, len, &at)) != 0 && k < to) {
    size_t got = 0;
    if (k++ >= from)
      gostx__ike_input(e, out + at - n, n, now_ms, ans + *ans_len, CAP - *ans_len, &got);
    *ans_len += got;
  }
}

/* RFC 7383 2.6: fragments of a message not whole within the timeout are
 * discarded (the responder acts as if no request came), whether the last
 * fragment comes too late or the timer finds the set first; the
 * retransmitted request then joins afresh. */
static void fragments_time_out(const gostx_x509_store *st, const uint8_t *const *der,
                               const size_t *len) {
  static uint8_t req[CAP], resp[CAP];
  size_t req_len, resp_len;
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  const int64_t t0 = (IKE_PKI_T0 + 3600) * 1000;
  chain_pair_544(&ci, &cr, &si, &sr, st, der, len);
  const int64_t timeout = gostx__ike_reasm_timeout_ms(&cr);
  CHECK(timeout == 15500, "the default reassembly timeout: 0.5 + 1 + 2 + 4 + 8 s (%lld ms)",
        (long long)timeout);
  /* 0: the last fragment a millisecond in time; 1: too late; 2: too
   * late, and the timer found the set first */
  for (int c = 0; c < 3; c++) {
    const char *what = c == 0 ? "in time" : c == 1 ? "late" : "late, timer";
    auth_request_at(&i, &r, &ci, &cr, t0, req, &req_len);
    const size_t n = messages(req, req_len, 544, 1, what);
    CHECK(n > 2, "%s: the request in %zu fragments", what, n);
    deliver_some(&r, req, req_len, 0, n - 1, t0, resp, &resp_len);
    CHECK(r.reasm.have == n - 1 && resp_len == 0, "%s: %zu fragments held", what, n - 1);
    const int64_t last = c == 0 ? t0 + timeout - 1 : t0 + timeout;
    if (c == 2) {
      CHECK_RC(gostx__ike_timer(&r, last - 1, br, CAP, &lr), GOSTX_OK, "timer");
      CHECK(r.reasm.have == n - 1, "the timer keeps a set in its time");
      CHECK_RC(gostx__ike_timer(&r, last, br, CAP, &lr), GOSTX_OK, "timer");
      CHECK(r.reasm.have == 0 && lr == 0, "the timer discards a set whose time is up");
    }
    deliver_some(&r, req, req_len, n - 1, n, last, resp, &resp_len);
    if (c == 0) {
      CHECK(r.state == GOSTX_IKE_S_ESTABLISHED && resp_len > 0,
            "the last fragment %lld ms after the first: taken", (long long)(last - t0));
    } else {
      CHECK(r.state == GOSTX_IKE_S_INIT_DONE && resp_len == 0 && r.reasm.have == 1,
            "%s: the last fragment %lld ms after the first: not joined to them", what,
            (long long)(last - t0));
      /* the retransmitted request: a new set, whole */
      deliver(&r, req, req_len, last, 0, resp, &resp_len);
      CHECK(r.state == GOSTX_IKE_S_ESTABLISHED && resp_len > 0,
            "%s: the retransmitted request taken", what);
    }
    deliver(&i, resp, resp_len, last, 0, bi, &li);
    keys_agree(&i, &r, what);
  }
}

static void fragmentation(void) {
  gostx_x509_store *st = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  const uint8_t *chain_der[2] = {chain_leaf.der, inter.der};
  const size_t chain_len[2] = {chain_leaf.len, inter.len};
  const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;
  static uint8_t req[CAP], resp[CAP];
  size_t req_len, resp_len;
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  for (int frag = 1; frag >= 0; frag--) {
    cert_pair(&ci, &cr, &si, &sr, st);
    ci.certs = chain_der; /* the leaf and its intermediate */
    ci.cert_lens = chain_len;
    ci.n_certs = 2;
    ci.frag_size = cr.frag_size = frag ? 544 : 0;
    const char *what = frag ? "fragmented at 544" : "not fragmented";
    auth_request_at(&i, &r, &ci, &cr, now_ms, req, &req_len);
    const size_t n_req = messages(req, req_len, ci.frag_size, frag, what);
    CHECK(frag ? n_req > 2 : n_req == 1 && req_len > 544, "%s: the request in %zu message(s)",
          what, n_req);
    /* a retransmission sends every fragment again */
    CHECK_RC(gostx__ike_timer(&i, now_ms + 100000, bi, CAP, &li), GOSTX_OK, "timer");
    CHECK(li == req_len && !memcmp(bi, req, li), "%s: the whole request again", what);
    /* the fragments rejoined in reverse order */
    deliver(&r, req, req_len, now_ms, frag, resp, &resp_len);
    CHECK(r.state == GOSTX_IKE_S_ESTABLISHED, "%s: the responder takes the request (%d %u)", what,
          r.state, r.error);
    const size_t n_resp = messages(resp, resp_len, cr.frag_size, frag, what);
    CHECK(frag ? n_resp > 1 : n_resp == 1, "%s: the response in %zu message(s)", what, n_resp);
    if (frag) {
      /* a fragment of the request again: fragment 1 brings back the whole
       * response, the others nothing (RFC 7383 2.6.1) */
      size_t at = 0, n1 = gostx__ike_out_next(req, req_len, &at);
      size_t n2 = gostx__ike_out_next(req, req_len, &at);
      deliver(&r, req + n1, n2, now_ms, 0, br, &lr);
      CHECK(lr == 0, "%s: fragment 2 again: no answer", what);
      deliver(&r, req, n1, now_ms, 0, br, &lr);
      CHECK(lr == resp_len && !memcmp(br, resp, lr), "%s: fragment 1 again: the response", what);
    }
    deliver(&i, resp, resp_len, now_ms, 0, bi, &li);
    keys_agree(&i, &r, what);
  }
  fragmentation_not_announced(st, chain_der, chain_len);
  fragments_time_out(st, chain_der, chain_len);
  /* a PSK exchange under the bound: whole */
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  ci.frag_size = cr.frag_size = 544;
  auth_request_at(&i, &r, &ci, &cr, 0, req, &req_len);
  CHECK(messages(req, req_len, 544, 0, "PSK") == 1, "PSK: its IKE_AUTH under 544 goes whole");
  deliver(&r, req, req_len, 0, 0, resp, &resp_len);
  deliver(&i, resp, resp_len, 0, 0, bi, &li);
  keys_agree(&i, &r, "PSK under 544");
  gostx_x509_store_free(st);
}

/* ---- COOKIE (RFC 7296 2.6) ---- */

/* CERTREQ (RFC 7296 3.7): each side names its anchors, the peer counts them;
 * a list that is not whole SHA-1 hashes is refused. */
static void certreq(void) {
  gostx_x509_store *st = gostx_x509_store_new(), *two = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  CHECK_RC(gostx_x509_store_add_der(two, root.der, root.len), GOSTX_OK, "root anchored");
  CHECK_RC(gostx_x509_store_add_der(two, other_root.der, other_root.len), GOSTX_OK, "another");
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  cert_side si, sr;
  cert_pair(&ci, &cr, &si, &sr, st);
  cr.store = two;
  cert_handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "CERTREQ both ways");
  CHECK(i.peer_cas == 2 && r.peer_cas == 1, "the CAs each CERTREQ named (%zu %zu)", i.peer_cas,
        r.peer_cas);
  uint8_t h[20];
  gostx_x509_cert rc;
  CHECK(gostx_x509_parse(root.der, root.len, &rc, NULL) == GOSTX_OK, "root parses");
  gostx__ike_ca_hash(rc.spki, rc.spki_len, h);
  /* the responder's CERTREQ in its IKE_SA_INIT, one octet short: dropped */
  cert_pair(&ci, &cr, &si, &sr, st);
  const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;
  request_at(&i, &r, &ci, &cr, now_ms);
  CHECK_RC(gostx__ike_input(&r, bi, li, now_ms, br, CAP, &lr), GOSTX_OK, "response");
  gostx_ike_hdr hd;
  gostx_ike_chain c;
  const uint8_t *cas;
  size_t n;
  CHECK_RC(gostx__ike_msg_read(br, lr, &hd, &c, NULL), GOSTX_OK, "response reads");
  const gostx_ike_payload *p = gostx__ike_find(&c, GOSTX_IKE_PT_CERTREQ);
  CHECK(p && gostx__ike_certreq_read(p->body, p->len, &cas, &n) == GOSTX_OK && n == 1 &&
            !memcmp(cas, h, 20),
        "the responder's CERTREQ: SHA-1 of its root's SubjectPublicKeyInfo");
  if (p) cut_last_octet(br, &lr, p);
  CHECK_RC(gostx__ike_input(&i, br, lr, now_ms, bi, CAP, &li), GOSTX_EFORMAT,
           "a CERTREQ of 19 octets dropped");
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && li == 0, "the initiator waits on");
  /* the reader on its own */
  uint8_t body[1 + 41] = {GOSTX_IKE_CERT_X509_SIG};
  CHECK(gostx__ike_certreq_read(body, 41, &cas, &n) == GOSTX_OK && n == 2, "two hashes");
  CHECK_RC(gostx__ike_certreq_read(body, 42, &cas, &n), GOSTX_EFORMAT, "a hash and one octet");
  CHECK_RC(gostx__ike_certreq_read(body, 20, &cas, &n), GOSTX_EFORMAT, "19 octets");
  CHECK_RC(gostx__ike_certreq_read(body, 1, &cas, &n), GOSTX_EFORMAT, "no hash");
  body[0] = 12; /* Hash and URL of X.509 certificate */
  CHECK_RC(gostx__ike_certreq_read(body, 21, &cas, &n), GOSTX_EUNSUP, "another encoding");
  /* without signatures nothing asks for certificates */
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  ci.store = cr.store = st;
  handshake(&i, &r, &ci, &cr);
  keys_agree(&i, &r, "PSK with a store");
  CHECK(!i.peer_cas && !r.peer_cas, "PSK: no CERTREQ");
  gostx_x509_store_free(st);
  gostx_x509_store_free(two);
}

static void cookies(void) {
  static const uint8_t secret[32] = "the responder's cookie secret";
  static const uint8_t ip[4] = {192, 0, 2, 1}, ip2[4] = {192, 0, 2, 2};
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_notify n;
  start_pair(&i, &r, &ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
             GOSTX_IKE_KE_GOST3410_2012_512);
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 9, 10, bi, li, ip, 4, br, CAP, &lr), GOSTX_OK,
           "below the threshold: no cookie");
  CHECK(lr == 0, "nothing to send");
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 10, 10, bi, li, ip, 4, br, CAP, &lr), 1,
           "under load: a cookie");
  CHECK(gostx__ike_msg_read(br, lr, &h, &c, NULL) == GOSTX_OK && c.n == 1 &&
            gostx__ike_notify_read(c.p[0].body, c.p[0].len, &n) == GOSTX_OK &&
            n.type == GOSTX_IKE_N_COOKIE && n.data_len == 33 && h.flags == GOSTX_IKE_FLAG_R,
        "the response is one COOKIE notify");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "the initiator reads it");
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && li, "and retries");
  CHECK(gostx__ike_msg_read(bi, li, &h, &c, NULL) == GOSTX_OK && c.p[0].type == GOSTX_IKE_PT_NOTIFY,
        "with the cookie first");
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 10, 10, bi, li, ip2, 4, br, CAP, &lr), 1,
           "the cookie from another address: a new cookie");
  CHECK_RC(gostx__ike_cookie_gate(secret, 2, 10, 10, bi, li, ip, 4, br, CAP, &lr), 1,
           "the cookie of an old secret: a new cookie");
  uint8_t forged[CAP];
  memcpy(forged, bi, li);
  forged[GOSTX_IKE_HDR_LEN + 8 + 5] ^= 1; /* in the cookie */
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 10, 10, forged, li, ip, 4, br, CAP, &lr), 1,
           "an altered cookie: a new cookie");
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 10, 10, bi, li, ip, 4, br, CAP, &lr), GOSTX_OK,
           "the cookie back from its address: go on");
  converse(&i, &r); /* r has seen nothing before the request with the cookie */
  keys_agree(&i, &r, "after a COOKIE");
  CHECK_RC(gostx__ike_cookie_gate(secret, 1, 10, 10, bi, 20, ip, 4, br, CAP, &lr),
           GOSTX_EFORMAT, "a truncated request dropped");
}

/* ---- the strict state machine, retransmission and the response cache ---- */

/* i and r through IKE_SA_INIT; the IKE_AUTH request in bi. */
static void to_auth(gostx_ike_engine *i, gostx_ike_engine *r, gostx_ike_conf *ci,
                    gostx_ike_conf *cr) {
  start_pair(i, r, ci, cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  CHECK_RC(gostx__ike_input(r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "IKE_SA_INIT");
  CHECK_RC(gostx__ike_input(i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "IKE_AUTH request");
  CHECK(i->state == GOSTX_IKE_S_AUTH_SENT && r->state == GOSTX_IKE_S_INIT_DONE, "at IKE_AUTH");
}

/* msg (len) edited, fed to e: dropped with want, e unchanged. */
static void dropped(gostx_ike_engine *e, const uint8_t *msg, size_t len, size_t at, uint8_t x,
                    int want, const char *what) {
  static uint8_t m[CAP], out[CAP];
  static gostx_ike_engine before;
  size_t out_len = 1;
  memcpy(m, msg, len);
  if (at < len) m[at] ^= x;
  before = *e;
  CHECK_RC(gostx__ike_input(e, m, len, 0, out, CAP, &out_len), want, what);
  CHECK(out_len == 0 && !memcmp(&before, e, sizeof before), "%s: nothing sent or changed", what);
}

static void strict(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  to_auth(&i, &r, &ci, &cr);
  dropped(&r, bi, li - 1, CAP, 0, GOSTX_EFORMAT, "IKE_AUTH truncated");
  dropped(&r, bi, li, 8, 1, GOSTX_ESTATE, "another SPIr");
  dropped(&r, bi, li, 0, 1, GOSTX_ESTATE, "another SPIi");
  dropped(&r, bi, li, 23, 1, GOSTX_ESTATE, "Message ID 0");
  dropped(&r, bi, li, 23, 3, GOSTX_ESTATE, "Message ID 2");
  dropped(&r, bi, li, 18, 1, GOSTX_ESTATE, "exchange CREATE_CHILD_SA");
  dropped(&r, bi, li, 19, GOSTX_IKE_FLAG_R, GOSTX_ESTATE, "the R flag");
  dropped(&r, bi, li, li - 1, 1, GOSTX_EAUTH, "the ICV");
  dropped(&r, bi, li, li - 20, 1, GOSTX_EAUTH, "the ciphertext");
  dropped(&i, bi, li, CAP, 0, GOSTX_ESTATE, "the initiator's own request");
  static gostx_ike_engine fresh;
  CHECK_RC(ike_engine_fresh(&fresh, &cr), GOSTX_OK, "a fresh responder");
  dropped(&fresh, bi, li, CAP, 0, GOSTX_ESTATE, "IKE_AUTH before IKE_SA_INIT");
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "the request itself");
  CHECK(r.state == GOSTX_IKE_S_ESTABLISHED, "the responder established");
  dropped(&i, br, lr, lr - 1, 1, GOSTX_EAUTH, "the response's ICV");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "the response");
  keys_agree(&i, &r, "after the drops");
  dropped(&i, br, lr, CAP, 0, GOSTX_ESTATE, "the response replayed to the initiator");
}
/* Unauthenticated answers to IKE_SA_INIT do not end the initiator's
 * exchange (RFC 7296 2.21.1): a response whose KE is off the curve is
 * dropped with nothing changed, a forged error notify is noted, and the
 * genuine response after them still establishes. */
static void forged_init_responses(void) {
  static uint8_t forged[CAP], err_msg[CAP];
  static gostx_ike_engine before;
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  size_t fl, el;
  start_pair(&i, &r, &ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
             GOSTX_IKE_KE_GOST3410_2012_512);
  memcpy(forged, bi, li);
  fl = li;
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "the genuine response");
  /* the forged error: what a responder refusing this request would send */
  encr_aes_gcm(forged, &fl);
  static gostx_ike_engine r2;
  CHECK_RC(ike_engine_fresh(&r2, &cr), GOSTX_OK, "a refusing responder");
  CHECK_RC(gostx__ike_input(&r2, forged, fl, 0, err_msg, CAP, &el), GOSTX_OK, "refusal");
  memcpy(forged, br, lr);
  fl = lr;
  ke_off_curve(forged, &fl);
  before = i;
  CHECK_RC(gostx__ike_input(&i, forged, fl, 0, bi, CAP, &li), GOSTX_EFORMAT,
           "a response with its KE off the curve dropped");
  CHECK(li == 0 && !memcmp(&before, &i, sizeof i), "and nothing changed");
  CHECK_RC(gostx__ike_input(&i, err_msg, el, 0, bi, CAP, &li), GOSTX_OK, "a forged error");
  CHECK(i.state == GOSTX_IKE_S_INIT_SENT && i.error == GOSTX_IKE_N_NO_PROPOSAL_CHOSEN,
        "noted, the exchange goes on");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "the genuine response");
  converse(&i, &r);
  keys_agree(&i, &r, "after forged answers");
  CHECK(i.error == 0, "the forged error forgotten");
}

/* The initiator's IKE_AUTH request in bi opened under the responder's keys,
 * its ESP proposal's SPI set to spi, sealed again. */
static void reseal_with_esp_spi(const gostx_ike_engine *r, uint32_t spi) {
  static uint8_t plain[CAP];
  gostx_ike_hdr h;
  gostx_ike_chain c;
  gostx_ike_sk sk;
  uint8_t first;
  size_t pl;
  uint64_t iv;
  CHECK_RC(gostx__ike_sk_open(&r->sk_in, bi, li, &h, &first, plain, CAP, &pl, &iv), GOSTX_OK,
           "the request opens");
  CHECK_RC(gostx__ike_chain_read(first, plain, pl, &c, NULL), GOSTX_OK, "its inside reads");
  const gostx_ike_payload *sa = gostx__ike_find(&c, GOSTX_IKE_PT_SA);
  CHECK(sa && sa->len > 12 && sa->body[6] == 4, "an ESP proposal with a 4-octet SPI");
  if (!sa) return;
  uint8_t *at = plain + (sa->body - plain) + 8; /* after the proposal's header */
  for (int k = 0; k < 4; k++) at[k] = (uint8_t)(spi >> (24 - 8 * k));
  CHECK_RC(gostx__ike_sk_init(&sk, r->cf->encr, r->k.sk_ei, r->k.enc_len), GOSTX_OK, "SK_ei");
  CHECK_RC(gostx__ike_sk_seal(&sk, iv, &h, first, plain, pl, bi, CAP, &li), GOSTX_OK, "sealed");
  gostx__ike_sk_clear(&sk);
}

/* An ESP SPI in the reserved 0-255 (RFC 4303 2.1): no Child SA. */
static void reserved_esp_spi(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  to_auth(&i, &r, &ci, &cr);
  reseal_with_esp_spi(&r, 255);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "IKE_AUTH");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "its response");
  CHECK(r.state == GOSTX_IKE_S_ESTABLISHED && !r.child.valid && !i.child.valid &&
            i.error == GOSTX_IKE_N_NO_PROPOSAL_CHOSEN,
        "SPI 255: NO_PROPOSAL_CHOSEN, no Child SA (%d %u)", r.state, i.error);
  to_auth(&i, &r, &ci, &cr);
  reseal_with_esp_spi(&r, 256);
  i.esp_spi = 256; /* as if the initiator had drawn it */
  converse(&i, &r);
  keys_agree(&i, &r, "SPI 256");
  CHECK(r.child.spi_out == 256, "the SPI the initiator chose");
}

/* The responder answers a request it has answered with the same bytes and
 * changes nothing (RFC 7296 2.1). */
static void answered_from_cache(gostx_ike_engine *r, const uint8_t *req, size_t len,
                                const uint8_t *resp, size_t resp_len, const char *what) {
  static gostx_ike_engine before;
  static uint8_t out[CAP];
  size_t out_len = 0;
  before = *r;
  CHECK_RC(gostx__ike_input(r, req, len, 0, out, CAP, &out_len), GOSTX_OK, what);
  CHECK(out_len == resp_len && !memcmp(out, resp, resp_len), "%s: the cached response", what);
  CHECK(!memcmp(&before, r, sizeof before), "%s: nothing processed again", what);
}

static void retransmission(void) {
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  uint8_t first[CAP], again[CAP], resp[CAP];
  size_t first_len, again_len, resp_len;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  ci.rto_ms = 500;
  ci.max_tries = 3;
  CHECK_RC(ike_engine_fresh(&i, &ci), GOSTX_OK, "initiator");
  CHECK_RC(ike_engine_fresh(&r, &cr), GOSTX_OK, "responder");
  CHECK_RC(gostx__ike_start(&i, 1000, first, CAP, &first_len), GOSTX_OK, "request");
  CHECK_RC(gostx__ike_timer(&i, 1499, again, CAP, &again_len), GOSTX_OK, "timer");
  CHECK(again_len == 0, "nothing before the timeout");
  CHECK_RC(gostx__ike_timer(&i, 1500, again, CAP, &again_len), GOSTX_OK, "timer");
  CHECK(again_len == first_len && !memcmp(again, first, first_len), "the same request again");
  size_t none = 1;
  CHECK_RC(gostx__ike_timer(&i, 2499, resp, CAP, &none), GOSTX_OK, "timer");
  CHECK(none == 0, "the timeout doubled");
  /* the responder answers the first copy, then the second from its cache */
  CHECK_RC(gostx__ike_input(&r, first, first_len, 0, resp, CAP, &resp_len), GOSTX_OK, "answered");
  answered_from_cache(&r, again, again_len, resp, resp_len, "IKE_SA_INIT retransmitted");
  CHECK_RC(gostx__ike_input(&i, resp, resp_len, 2000, first, CAP, &first_len), GOSTX_OK,
           "IKE_AUTH request");
  CHECK_RC(gostx__ike_timer(&i, 2500, again, CAP, &again_len), GOSTX_OK, "timer");
  CHECK(again_len == first_len && !memcmp(again, first, first_len),
        "the IKE_AUTH request again on its own timer");
  CHECK_RC(gostx__ike_input(&r, first, first_len, 0, resp, CAP, &resp_len), GOSTX_OK, "IKE_AUTH");
  answered_from_cache(&r, again, again_len, resp, resp_len, "IKE_AUTH retransmitted");
  answered_from_cache(&r, first, first_len, resp, resp_len, "IKE_AUTH replayed");
  CHECK_RC(gostx__ike_input(&i, resp, resp_len, 0, bi, CAP, &li), GOSTX_OK, "response");
  keys_agree(&i, &r, "with retransmissions");
  CHECK_RC(gostx__ike_timer(&i, 100000, again, CAP, &again_len), GOSTX_OK, "timer");
  CHECK(again_len == 0, "nothing to retransmit once established");
  /* a responder that never answers: max_tries sends, then FAILED */
  CHECK_RC(ike_engine_fresh(&i, &ci), GOSTX_OK, "initiator");
  CHECK_RC(gostx__ike_start(&i, 0, first, CAP, &first_len), GOSTX_OK, "request");
  int64_t t = 0;
  size_t sends = 1;
  for (int k = 0; k < 10 && i.state != GOSTX_IKE_S_FAILED; k++) {
    t += 100000;
    CHECK_RC(gostx__ike_timer(&i, t, again, CAP, &again_len), GOSTX_OK, "timer");
    sends += again_len != 0;
  }
  CHECK(i.state == GOSTX_IKE_S_FAILED && i.error == 0 && sends == 3,
        "given up after 3 sends (%zu)", sends);
}

/* The IKE_AUTH request in bi opened under r's keys: its inside in plain
 * (*pl octets) and c; *iv, *h and *first for reseal. */
static void open_request(const gostx_ike_engine *r, uint8_t *plain, size_t *pl, gostx_ike_chain *c,
                         gostx_ike_hdr *h, uint8_t *first, uint64_t *iv) {
  CHECK_RC(gostx__ike_sk_open(&r->sk_in, bi, li, h, first, plain, CAP, pl, iv), GOSTX_OK,
           "the request opens");
  CHECK_RC(gostx__ike_chain_read(*first, plain, *pl, c, NULL), GOSTX_OK, "its inside reads");
}

/* The INITIAL_CONTACT notifies of c: their count; *after_auth when the
 * first comes right after AUTH (RFC 9385 A.1.1's place). */
static int contacts(const gostx_ike_chain *c, int *after_auth) {
  int n = 0;
  *after_auth = 0;
  for (size_t k = 0; k < c->n; k++) {
    gostx_ike_notify nt;
    if (c->p[k].type != GOSTX_IKE_PT_NOTIFY ||
        gostx__ike_notify_read(c->p[k].body, c->p[k].len, &nt) != GOSTX_OK ||
        nt.type != GOSTX_IKE_N_INITIAL_CONTACT)
      continue;
    if (!n++) *after_auth = k > 0 && c->p[k - 1].type == GOSTX_IKE_PT_AUTH;
  }
  return n;
}

/* INITIAL_CONTACT (RFC 7296 3.10.1): sent by an initiator told to, after
 * AUTH, empty with protocol 0; the responder notes it once the request
 * authenticates (peer_initial_contact), and not without it; one that
 * names ESP or carries data is INVALID_SYNTAX, nothing established. */
static void initial_contact(void) {
  static uint8_t plain[CAP];
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  gostx_ike_chain c;
  gostx_ike_hdr h;
  uint8_t first;
  size_t pl;
  uint64_t iv;
  int after;
  for (int ic = 0; ic < 2; ic++) {
    start_pair(&i, &r, &ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
    ci.initial_contact = ic; /* read when the IKE_AUTH request is written */
    cr.initial_contact = 1;  /* an initiator's notify: the responder sends none */
    CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "IKE_SA_INIT");
    CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "IKE_AUTH request");
    open_request(&r, plain, &pl, &c, &h, &first, &iv);
    const int n = contacts(&c, &after);
    CHECK(n == ic && (!ic || after), "initial_contact %d: %d INITIAL_CONTACT in the request%s",
          ic, n, ic ? (after ? ", after AUTH" : ", not after AUTH") : "");
    CHECK(r.peer_initial_contact == 0, "nothing noted before the request authenticates");
    converse(&i, &r);
    keys_agree(&i, &r, ic ? "with INITIAL_CONTACT" : "without INITIAL_CONTACT");
    CHECK(r.peer_initial_contact == ic && i.peer_initial_contact == 0,
          "initial_contact %d: the responder notes %u, the initiator %u", ic,
          r.peer_initial_contact, i.peer_initial_contact);
  }
  /* protocol ESP (3) in place of 0, the request sealed again */
  start_pair(&i, &r, &ci, &cr, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_256);
  ci.initial_contact = 1;
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "IKE_SA_INIT");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "IKE_AUTH request");
  open_request(&r, plain, &pl, &c, &h, &first, &iv);
  for (size_t k = 0; k < c.n; k++)
    if (c.p[k].type == GOSTX_IKE_PT_NOTIFY && c.p[k].len >= 4 &&
        (c.p[k].body[2] << 8 | c.p[k].body[3]) == GOSTX_IKE_N_INITIAL_CONTACT)
      plain[c.p[k].body - plain] = 3;
  gostx_ike_sk sk;
  CHECK_RC(gostx__ike_sk_init(&sk, r.cf->encr, r.k.sk_ei, r.k.enc_len), GOSTX_OK, "SK_ei");
  CHECK_RC(gostx__ike_sk_seal(&sk, iv, &h, first, plain, pl, bi, CAP, &li), GOSTX_OK, "sealed");
  gostx__ike_sk_clear(&sk);
  CHECK_RC(gostx__ike_input(&r, bi, li, 0, br, CAP, &lr), GOSTX_OK, "the edited request");
  CHECK_RC(gostx__ike_input(&i, br, lr, 0, bi, CAP, &li), GOSTX_OK, "its answer");
  CHECK(r.state == GOSTX_IKE_S_FAILED && !r.child.valid && !i.child.valid &&
            i.error == GOSTX_IKE_N_INVALID_SYNTAX && !r.peer_initial_contact,
        "INITIAL_CONTACT for ESP: INVALID_SYNTAX, nothing established (%d %u)", r.state,
        i.error);
}

/* ---- a gateway's responder (issue 81): the conf chosen by the peer's
 * IDi (three sites by PSK, remote users by certificate under a pattern),
 * remote users given inner addresses from a pool by CP ---- */

enum { SITES = 3, USERS = 6, POOL_CAP = 5, PEERS = SITES + USERS + 1 };
static const char ra_suffix[] = ".branch.example.ru", ra_pattern[] = "*.branch.example.ru";

typedef struct gateway {
  gostx_ike_conf entry, site[SITES], ra; /* entry: IKE_SA_INIT's, and pick */
  char site_id[SITES][32];
  uint8_t site_psk[SITES][32];
  gostx_ike_pool pool;
  gostx_ike_lease slots[16];
  unsigned picks, assigned;
} gateway;

/* The gateway's choice by ID: a site's own conf, or the remote-access
 * template for an ID its pattern matches (its CA then vouches for it). */
static const gostx_ike_conf *gw_pick(void *ctx, uint8_t type, const uint8_t *id, size_t len) {
  gateway *g = ctx;
  g->picks++;
  for (int k = 0; k < SITES; k++)
    if (type == GOSTX_IKE_ID_FQDN && len == strlen(g->site_id[k]) &&
        !memcmp(id, g->site_id[k], len))
      return &g->site[k];
  return gostx__ike_id_match(ra_pattern, type, id, len) ? &g->ra : NULL;
}

/* A DER Name (short lengths only) of the RDNs in spec: "ARC:VALUE" each,
 * ';' between RDNs, '+' between the AVAs of one; tag the values' string
 * type. Its length. */
static size_t dn_der(const char *spec, uint8_t tag, uint8_t *out) {
  uint8_t body[200];
  size_t n = 0;
  for (const char *p = spec; *p;) {
    uint8_t set[100];
    size_t m = 0;
    for (;;) {
      const int arc = atoi(p);
      const char *v = strchr(p, ':') + 1, *e = v + strcspn(v, "+;");
      const size_t vl = (size_t)(e - v);
      const uint8_t ava[] = {0x30, (uint8_t)(7 + vl), 0x06, 3, 0x55, 0x04, (uint8_t)arc, tag,
                             (uint8_t)vl};
      memcpy(set + m, ava, sizeof ava);
      memcpy(set + m + sizeof ava, v, vl);
      m += sizeof ava + vl;
      p = e;
      if (*p != '+') break;
      p++;
    }
    body[n++] = 0x31;
    body[n++] = (uint8_t)m;
    memcpy(body + n, set, m);
    n += m;
    if (*p == ';') p++;
  }
  out[0] = 0x30;
  out[1] = (uint8_t)n;
  memcpy(out + 2, body, n);
  return n + 2;
}

/* DN patterns ("CN=*.branch.example.ru", "O=Bank, CN=*.branch...")
 * against DER Names walked as DER: every AVA of each named type must
 * match, none missing; the other string types, malformed Names and a
 * pattern's unknown attribute match nothing. */
static void dn_patterns(void) {
  static const struct {
    const char *pattern, *name;
    uint8_t tag;
    int match;
  } t[] = {
      {"CN=*.branch.example.ru", "6:RU;10:Bank;3:u1.branch.example.ru", 0x0c, 1},
      {"CN=*.branch.example.ru", "6:RU;10:Bank;3:u1.branch.example.ru", 0x13, 1},
      {"cn=*.BRANCH.example.ru", "3:u1.branch.example.ru", 0x16, 1},
      {"CN=*.branch.example.ru", "3:u1.branch.example.ru", 0x1e /* BMPString */, 0},
      {"CN=*.branch.example.ru", "6:RU;10:Bank;3:branch.example.ru", 0x0c, 0},
      {"CN=*.branch.example.ru", "6:RU;10:Bank", 0x0c, 0},
      {"CN=*.branch.example.ru", "10:u1.branch.example.ru", 0x0c, 0},
      /* a second CN (or one beside it in the same RDN) must match too */
      {"CN=*.branch.example.ru", "3:u1.branch.example.ru;3:evil.example.ru", 0x0c, 0},
      {"CN=*.branch.example.ru", "3:u1.branch.example.ru+3:evil.example.ru", 0x0c, 0},
      {"CN=*.branch.example.ru", "3:u1.branch.example.ru+11:Sales", 0x0c, 1},
      {"O=Bank, CN=*.branch.example.ru", "6:RU;10:Bank;3:u1.branch.example.ru", 0x0c, 1},
      {"O=Bank,CN=*.branch.example.ru", "6:RU;10:Bank;3:u1.branch.example.ru", 0x0c, 1},
      {"O=Bank, CN=*.branch.example.ru", "6:RU;10:Other;3:u1.branch.example.ru", 0x0c, 0},
      {"C=RU, O=Big Bank, OU=*", "6:RU;10:Big Bank;11:Ops;3:x", 0x13, 1},
      {"XX=RU", "6:RU", 0x0c, 0},
      {"CN=", "3:x", 0x0c, 0},
      {"=x", "3:x", 0x0c, 0},
  };
  uint8_t der[256];
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    const size_t n = dn_der(t[k].name, t[k].tag, der);
    CHECK(gostx__ike_id_match(t[k].pattern, GOSTX_IKE_ID_DER_ASN1_DN, der, n) == t[k].match,
          "DN pattern %s, Name %s (tag 0x%02x): %s", t[k].pattern, t[k].name, t[k].tag,
          t[k].match ? "a match" : "none");
  }
  /* the same Name, whole, as another ID type: none; then cut or with
   * trailing octets, or an empty RDN, at any length: none */
  size_t n = dn_der("6:RU;3:u1.branch.example.ru", 0x0c, der);
  CHECK(!gostx__ike_id_match("CN=*.branch.example.ru", GOSTX_IKE_ID_FQDN, der, n),
        "a DN pattern against an FQDN ID");
  int cut = 0;
  for (size_t l = 1; l < n; l++) cut += gostx__ike_id_match("CN=*", GOSTX_IKE_ID_DER_ASN1_DN, der, l);
  CHECK(cut == 0, "a Name cut short matches nothing (%d did)", cut);
  der[n] = 0;
  CHECK(!gostx__ike_id_match("CN=*", GOSTX_IKE_ID_DER_ASN1_DN, der, n + 1), "trailing octets");
  static const uint8_t empty_rdn[] = {0x30, 0x02, 0x31, 0x00};
  CHECK(!gostx__ike_id_match("CN=*", GOSTX_IKE_ID_DER_ASN1_DN, empty_rdn, sizeof empty_rdn),
        "an empty RDN");
}

/* gostx__ike_id_match's rules, one case each. */
static void id_patterns(void) {
  static const struct {
    const char *pattern, *id;
    uint8_t type;
    int match;
  } t[] = {
      {"*.branch.example.ru", "u1.branch.example.ru", GOSTX_IKE_ID_FQDN, 1},
      {"*.branch.example.ru", "a.b.Branch.EXAMPLE.ru", GOSTX_IKE_ID_FQDN, 1},
      {"*.branch.example.ru", ".branch.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"*.branch.example.ru", "branch.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"*.branch.example.ru", "u1.branch.example.ru.evil", GOSTX_IKE_ID_FQDN, 0},
      {"*.branch.example.ru", "u1xbranch.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"*.branch.example.ru", "u1.branch.example.ru", GOSTX_IKE_ID_DER_ASN1_DN, 0},
      {"*.branch.example.ru", "u1.branch.example.ru", 11 /* ID_KEY_ID */, 0},
      {"*.branch.example.ru", "u 1.branch.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"*@example.ru", "anna@example.ru", GOSTX_IKE_ID_RFC822_ADDR, 1},
      {"*@example.ru", "@example.ru", GOSTX_IKE_ID_RFC822_ADDR, 0},
      {"site1.example.ru", "SITE1.example.ru", GOSTX_IKE_ID_FQDN, 1},
      {"site1.example.ru", "site11.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"*", "anything.at.all", GOSTX_IKE_ID_FQDN, 1},
      {"u*.branch.example.ru", "u1.branch.example.ru", GOSTX_IKE_ID_FQDN, 0},
      {"**.example.ru", "a.example.ru", GOSTX_IKE_ID_FQDN, 0},
  };
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++)
    CHECK(gostx__ike_id_match(t[k].pattern, t[k].type, (const uint8_t *)t[k].id,
                              strlen(t[k].id)) == t[k].match,
          "pattern %s, ID %s (type %u): %s", t[k].pattern, t[k].id, t[k].type,
          t[k].match ? "a match" : "none");
  CHECK(!gostx__ike_id_match("*", GOSTX_IKE_ID_FQDN, (const uint8_t *)"x", 0), "an empty ID");
  dn_patterns();
}

static int gw_assign(void *ctx, uint8_t type, const uint8_t *id, size_t len,
                     const gostx_ike_cp *req, gostx_ike_cp *reply) {
  gateway *g = ctx;
  uint8_t key[1 + 256], addr[4];
  (void)req;
  key[0] = type; /* the identity the pool keys by: type and data */
  memcpy(key + 1, id, len);
  int rc = gostx__ike_pool_lease(&g->pool, key, 1 + len, NULL, addr);
  if (rc == GOSTX_OK) rc = gostx__ike_cp_add(reply, GOSTX_IKE_CA_INTERNAL_IP4_ADDRESS, addr, 4);
  g->assigned += rc == GOSTX_OK;
  return rc;
}

static void gateway_responder(void) {
  static gateway g;
  static gostx_ike_conf ci[PEERS];
  static gostx_ike_engine i[PEERS], r[PEERS];
  static pki_cert user[USERS + 1];
  static char user_dns[USERS + 1][64], user_id[USERS + 1][40];
  static const char *user_ext[USERS + 1][3];
  static cert_side si[PEERS], sr;
  static const uint8_t net[4] = {10, 77, 0, 0};
  gostx_x509_store *st = gostx_x509_store_new();
  gostx_ike_conf unused;
  const int64_t now_ms = (IKE_PKI_T0 + 3600) * 1000;
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  memset(&g, 0, sizeof g);
  CHECK_RC(gostx__ike_pool_init(&g.pool, net, 4, 24, g.slots, 16, POOL_CAP), GOSTX_OK, "pool");
  /* the remote-access template: certificates under root, any ID it picks */
  cert_pair(&unused, &g.ra, &si[0], &sr, st);
  g.ra.peer_id = NULL;
  g.ra.peer_id_len = 0;
  g.ra.cp_assign = gw_assign;
  g.ra.ctx = &g;
  g.entry = g.ra;
  g.entry.pick = gw_pick;
  for (int k = 0; k < SITES; k++) { /* sites: each its own PSK and ID */
    snprintf(g.site_id[k], sizeof g.site_id[k], "site%d.example.ru", k + 1);
    memset(g.site_psk[k], 'a' + k, sizeof g.site_psk[k]);
    ike_psk_pair(&ci[k], &g.site[k], GOSTX_IKE_ENCR_MAGMA_MGM_KTREE,
                 GOSTX_IKE_KE_GOST3410_2012_256);
    g.site[k].psk = ci[k].psk = g.site_psk[k];
    g.site[k].psk_len = ci[k].psk_len = sizeof g.site_psk[k];
    g.site[k].peer_id = ci[k].id = (const uint8_t *)g.site_id[k];
    g.site[k].peer_id_len = ci[k].id_len = strlen(g.site_id[k]);
    ci[k].peer_id = g.ra.id; /* the gateway's own ID is the template's */
    ci[k].peer_id_len = g.ra.id_len;
    g.site[k].id = g.ra.id;
    g.site[k].id_len = g.ra.id_len;
  }
  /* remote users u1..u6 under the pattern, one outside it (all under root) */
  for (int u = 0; u <= USERS; u++) {
    const int c = SITES + u;
    if (u < USERS) snprintf(user_id[u], sizeof user_id[u], "u%d%s", u + 1, ra_suffix);
    else snprintf(user_id[u], sizeof user_id[u], "mallory.example.ru");
    snprintf(user_dns[u], sizeof user_dns[u], "subjectAltName=DNS:%s", user_id[u]);
    user_ext[u][0] = "keyUsage=digitalSignature";
    user_ext[u][1] = user_dns[u];
    pki_make_cert(&user[u], "/CN=remote user/O=gostx/C=RU", &key256, user_ext[u], &root,
                  &root_key);
    cert_pair(&ci[c], &unused, &si[c], &sr, st);
    si[c].der[0] = user[u].der;
    si[c].len[0] = user[u].len;
    ci[c].id = (const uint8_t *)user_id[u];
    ci[c].id_len = strlen(user_id[u]);
    ci[c].peer_id = g.ra.id;
    ci[c].peer_id_len = g.ra.id_len;
    ci[c].cp_request = 1;
  }
  /* all at once: each round every exchange one step on */
  size_t len[PEERS];
  static uint8_t msg[PEERS][CAP];
  for (int c = 0; c < PEERS; c++) {
    CHECK(ike_engine_fresh(&i[c], &ci[c]) == GOSTX_OK &&
              ike_engine_fresh(&r[c], &g.entry) == GOSTX_OK &&
              gostx__ike_start(&i[c], now_ms, msg[c], CAP, &len[c]) == GOSTX_OK,
          "client %d and its gateway SA started", c);
  }
  for (int round = 0; round < 4; round++) {
    for (int c = 0; c < PEERS; c++) {
      size_t n = 0;
      if (len[c]) gostx__ike_input(&r[c], msg[c], len[c], now_ms, br, CAP, &n);
      len[c] = 0;
      if (n) gostx__ike_input(&i[c], br, n, now_ms, msg[c], CAP, &len[c]);
    }
  }
  for (int k = 0; k < SITES; k++) {
    keys_agree(&i[k], &r[k], g.site_id[k]);
    CHECK(r[k].cf == &g.site[k] && !r[k].inner_ip_len && !i[k].inner_ip_len,
          "%s: its own conf, no inner address asked", g.site_id[k]);
  }
  for (int u = 0; u < POOL_CAP; u++) {
    const int c = SITES + u;
    keys_agree(&i[c], &r[c], user_id[u]);
    CHECK(r[c].cf == &g.ra && i[c].inner_ip_len == 4 && r[c].inner_ip_len == 4 &&
              !memcmp(i[c].inner_ip, r[c].inner_ip, 4) && !memcmp(i[c].inner_ip, net, 3),
          "%s: an address of the pool by CP", user_id[u]);
    for (int side = 0; side < 2; side++) {
      const gostx_ike_ts_set *t = side ? &i[c].ts_i : &r[c].ts_i;
      CHECK(t->n == 1 && t->ts[0].type == GOSTX_IKE_TS_IPV4 &&
                !memcmp(t->ts[0].start, i[c].inner_ip, 4) &&
                !memcmp(t->ts[0].end, i[c].inner_ip, 4),
            "%s: TSi narrowed to it (%s)", user_id[u], side ? "client" : "gateway");
    }
    for (int v = 0; v < u; v++)
      CHECK(memcmp(i[c].inner_ip, i[SITES + v].inner_ip, 4), "%s and %s: distinct addresses",
            user_id[u], user_id[v]);
  }
  /* the sixth: the pool's cap reached, the IKE SA without a Child SA */
  const int six = SITES + POOL_CAP;
  CHECK(i[six].state == GOSTX_IKE_S_ESTABLISHED && !i[six].child.valid &&
            i[six].error == GOSTX_IKE_N_INTERNAL_ADDRESS_FAILURE && !r[six].child.valid &&
            !i[six].inner_ip_len,
        "past the pool's cap: INTERNAL_ADDRESS_FAILURE, no Child SA (%d %u)", i[six].state,
        i[six].error);
  const int out = SITES + USERS; /* under root, its ID outside the pattern */
  CHECK(r[out].state == GOSTX_IKE_S_FAILED && r[out].error == GOSTX_IKE_N_AUTHENTICATION_FAILED &&
            i[out].state == GOSTX_IKE_S_FAILED && r[out].why &&
            !strcmp(r[out].why, "no peer is configured for the peer's ID"),
        "an ID outside the pattern: refused (%s)", r[out].why ? r[out].why : "(none)");
  CHECK(g.assigned == POOL_CAP && g.pool.held == POOL_CAP && g.picks == PEERS,
        "a lease per remote user taken, none for the refused (%u %u)", g.assigned, g.pool.held);
  for (int c = 0; c < PEERS; c++) {
    gostx__ike_engine_clear(&i[c]);
    gostx__ike_engine_clear(&r[c]);
  }
  gostx_x509_store_free(st);
}

/* Issue 81's budget: an established peer of a gateway (its IKE SA and
 * Child SA pair) costs at most 16 KiB. */
enum { PEER_BUDGET = 16 * 1024 };

/* What one established side holds: its struct and its heap buffers (the
 * other side cleared first, the buffers counted as lib/ike allocates). */
static size_t held_by(gostx_ike_engine *keep, gostx_ike_engine *drop, size_t base) {
  gostx__ike_engine_clear(drop);
  return sizeof *keep + gostx__ike_heap_bytes() - base;
}

/* The handshake's buffers (the IKE_SA_INIT messages, the initiator's
 * IKE_AUTH request) go once it ends; the responder keeps just its last
 * answer, and an exchange's request buffer goes with its answer. */
static void held_once_established(void) {
  gostx_x509_store *st = gostx_x509_store_new();
  CHECK_RC(gostx_x509_store_add_der(st, root.der, root.len), GOSTX_OK, "root anchored");
  for (int sig = 0; sig < 2; sig++)
    for (int side = 0; side < 2; side++) {
      const char *what = sig ? "certificates" : "PSK";
      const size_t base = gostx__ike_heap_bytes();
      gostx_ike_conf ci, cr;
      static gostx_ike_engine i, r;
      cert_side si, sr;
      if (sig) {
        cert_pair(&ci, &cr, &si, &sr, st);
        cert_handshake(&i, &r, &ci, &cr);
      } else {
        ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE,
                     GOSTX_IKE_KE_GOST3410_2012_512);
        handshake(&i, &r, &ci, &cr);
      }
      keys_agree(&i, &r, what);
      const size_t held = side ? held_by(&i, &r, base) : held_by(&r, &i, base);
      printf("# %s, %s: %zu octets held once established (struct %zu)\n", what,
             side ? "initiator" : "responder", held, sizeof i);
      CHECK(held <= PEER_BUDGET, "%s %s: %zu octets held, at most %d", what,
            side ? "initiator" : "responder", held, PEER_BUDGET);
      CHECK(!i.m1 && !i.m2 && !r.m1 && !r.m2 && !i.reasm_buf && !r.reasm_buf && !i.req &&
                !r.req && (side ? !i.tx : r.tx != NULL),
            "%s: only the responder's answer is left of the handshake", what);
      gostx__ike_engine_clear(side ? &i : &r);
      CHECK(gostx__ike_heap_bytes() == base, "%s: all of it freed", what);
    }
  /* a liveness exchange: its request's buffer freed on the answer, the
   * answer cached (and resent for the request again, RFC 7296 2.1) */
  const size_t base = gostx__ike_heap_bytes();
  gostx_ike_conf ci, cr;
  static gostx_ike_engine i, r;
  uint8_t req[CAP], ans[CAP], again[CAP];
  size_t req_len, ans_len, again_len;
  ike_psk_pair(&ci, &cr, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, GOSTX_IKE_KE_GOST3410_2012_512);
  handshake(&i, &r, &ci, &cr);
  const size_t before = gostx__ike_heap_bytes();
  CHECK_RC(gostx__ike_dpd(&i, 0, req, CAP, &req_len), GOSTX_OK, "DPD request");
  CHECK(i.req && i.req_len == req_len, "the request kept while out, sized to fit");
  CHECK_RC(gostx__ike_input(&r, req, req_len, 0, ans, CAP, &ans_len), GOSTX_OK, "DPD answered");
  CHECK(r.tx_len == ans_len && !memcmp(r.tx, ans, ans_len), "the answer cached, sized to fit");
  CHECK_RC(gostx__ike_input(&r, req, req_len, 0, again, CAP, &again_len), GOSTX_OK,
           "DPD request again");
  CHECK(again_len == ans_len && !memcmp(again, ans, ans_len), "the same answer again");
  CHECK_RC(gostx__ike_input(&i, ans, ans_len, 0, again, CAP, &again_len), GOSTX_OK, "DPD answer");
  CHECK((i.ev.flags & GOSTX_IKE_EV_ALIVE) && !i.req && i.pend == GOSTX_IKE_X_NONE,
        "answered: the request's buffer freed");
  CHECK(gostx__ike_heap_bytes() < before, "the IKE_AUTH answer's buffer gave way to the smaller one");
  gostx__ike_engine_clear(&i);
  gostx__ike_engine_clear(&r);
  CHECK(gostx__ike_heap_bytes() == base, "both freed");
  gostx_x509_store_free(st);
}

int main(void) {
  psk_established();
  refused_auth(wrong_psk, "wrong PSK", "the peer's AUTH does not verify (another PSK)");
  refused_auth(wrong_id, "wrong IDi", "the peer's ID is not the one configured");
  refused_auth(wrong_id_type, "wrong IDi type", "the peer's ID is not the one configured");
  responder_wrong_id();
  refusals_in_init();
  nat_detection();
  nat_hash_ipv6();
  nat_malformed();
  invalid_ke_retry();
  encr_offer();
  traffic_selectors();
  pki();
  certificates();
  revocation();
  certreq();
  hash_algorithms();
  fragmentation();
  cookies();
  strict();
  retransmission();
  forged_init_responses();
  reserved_esp_spi();
  initial_contact();
  held_once_established();
  id_patterns();
  gateway_responder();
  return t_done();
}
