/* IKE fragmentation (RFC 7383) in lib/ike/frag.c beyond RFC 9385 A.2.1's
 * four fragments (test_ike): the round trip at many sizes and thresholds,
 * fragments arriving in every kind of order, and each rule of 2.5 and 2.6
 * by which a fragment is dropped, the set going on without it. */
#include "ike/ike.h"
#include "testutil.h"

static gostx_ike_sk sk_k, sk_m; /* Kuznyechik (ICV 12), Magma (ICV 8) */
static uint8_t inside[8192];
static uint8_t frags[GOSTX_IKE_FRAG_MAX][1600];
static size_t frag_len[GOSTX_IKE_FRAG_MAX];

static void keys(void) {
  uint8_t k[44];
  for (size_t i = 0; i < sizeof k; i++) k[i] = (uint8_t)(0x31 * i + 7);
  CHECK_RC(gostx__ike_sk_init(&sk_k, GOSTX_IKE_ENCR_KUZNYECHIK_MGM_KTREE, k, 44), GOSTX_OK, "K");
  CHECK_RC(gostx__ike_sk_init(&sk_m, GOSTX_IKE_ENCR_MAGMA_MGM_KTREE, k, 36), GOSTX_OK, "M");
  for (size_t i = 0; i < sizeof inside; i++) inside[i] = (uint8_t)(i * 131 + (i >> 8));
}

static gostx_ike_hdr hdr(uint32_t msg_id) {
  gostx_ike_hdr h = {0};
  for (int i = 0; i < 8; i++) h.spi_i[i] = (uint8_t)(i + 1), h.spi_r[i] = (uint8_t)(0xa0 + i);
  h.version = GOSTX_IKE_VERSION;
  h.exchange = GOSTX_IKE_AUTH;
  h.flags = GOSTX_IKE_FLAG_I;
  h.msg_id = msg_id;
  return h;
}

/* inside[0..len) cut at max_len: the fragments into frags[], their count. */
static uint16_t cut(const gostx_ike_sk *sk, const gostx_ike_hdr *h, size_t len, size_t max_len) {
  uint16_t total = 0;
  CHECK(gostx__ike_frag_total(sk, len, max_len, &total) == GOSTX_OK, "count at %zu", max_len);
  for (uint16_t i = 1; i <= total; i++)
    CHECK(gostx__ike_frag_seal(sk, 100 + i, h, GOSTX_IKE_PT_IDI, inside, len, max_len, i,
                               frags[i - 1], sizeof frags[0], &frag_len[i - 1]) == GOSTX_OK,
          "fragment %u of %u", i, total);
  return total;
}

/* The fragments offered in order (a permutation of 0..total-1): complete
 * exactly at the last, the inside back whole. */
static void rejoin(const gostx_ike_sk *sk, uint16_t total, const int *order, size_t len,
                   const char *what) {
  static uint8_t held[8192], out[8192];
  gostx_ike_reasm r;
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  int done = 0, ok = 1;
  for (uint16_t k = 0; k < total; k++) {
    ok &= gostx__ike_reasm_add(&r, sk, frags[order[k]], frag_len[order[k]], &done) == GOSTX_OK;
    ok &= done == (k + 1 == total);
  }
  gostx_ike_hdr h;
  uint8_t first = 0;
  size_t ol = 0;
  ok &= gostx__ike_reasm_take(&r, &h, &first, out, sizeof out, &ol) == GOSTX_OK;
  ok &= ol == len && !memcmp(out, inside, len) && first == GOSTX_IKE_PT_IDI;
  ok &= h.next == GOSTX_IKE_PT_SK && h.length == 28 + 4 + 8 + len + 1 + sk->icv_len;
  CHECK(ok, "%s: %zu octets in %u fragments rejoined", what, len, total);
}

/* Every size class against many thresholds; in order, reversed, and shuffled. */
static void round_trips(void) {
  static const size_t sizes[] = {0, 1, 2, 100, 491, 492, 983, 1798, 2999, 4096, 8000};
  static const size_t thresholds[] = {58, 61, 64, 200, 544, 576, 1232, 1280, 1500};
  uint32_t seed = 1;
  for (int m = 0; m < 2; m++) {
    const gostx_ike_sk *sk = m ? &sk_m : &sk_k;
    const gostx_ike_hdr h = hdr(1);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
      for (size_t ti = 0; ti < sizeof thresholds / sizeof *thresholds; ti++) {
        const size_t len = sizes[si], max = thresholds[ti];
        const size_t room = max - (28 + 4 + 4 + 8 + 1 + sk->icv_len);
        const size_t need = len ? (len + room - 1) / room : 1;
        uint16_t total = 0;
        int rc = gostx__ike_frag_total(sk, len, max, &total);
        if (need > GOSTX_IKE_FRAG_MAX) {
          CHECK(rc == GOSTX_ELEN, "%zu octets at %zu: over %d fragments", len, max,
                GOSTX_IKE_FRAG_MAX);
          continue;
        }
        CHECK(rc == GOSTX_OK && total == need, "%zu at %zu: %u fragments, want %zu", len, max,
              total, need);
        total = cut(sk, &h, len, max);
        int full = 1;
        for (uint16_t i = 0; i < total; i++)
          full &= i + 1 < total ? frag_len[i] == max : frag_len[i] <= max;
        CHECK(full, "%zu at %zu: every fragment but the last exactly the threshold", len, max);
        int order[GOSTX_IKE_FRAG_MAX];
        for (int i = 0; i < total; i++) order[i] = i;
        rejoin(sk, total, order, len, "in order");
        for (int i = 0; i < total; i++) order[i] = total - 1 - i;
        rejoin(sk, total, order, len, "reversed");
        for (int i = total - 1; i > 0; i--) { /* Fisher-Yates under a fixed LCG */
          seed = seed * 1103515245u + 12345u;
          const int j = (int)((seed >> 16) % (uint32_t)(i + 1)), t = order[i];
          order[i] = order[j];
          order[j] = t;
        }
        rejoin(sk, total, order, len, "shuffled");
      }
  }
  uint16_t t;
  CHECK_RC(gostx__ike_frag_total(&sk_k, 10, 28 + 4 + 4 + 8 + 1 + 12, &t), GOSTX_ELEN,
           "a threshold with no room for content");
}

/* Writes the 16-bit field at off of fragment i (before the ICV is checked,
 * so the refusal is the rule's, not the ICV's). */
static void put16(int i, size_t off, uint16_t v) {
  frags[i][off] = (uint8_t)(v >> 8);
  frags[i][off + 1] = (uint8_t)v;
}

/* Fragment 3 of a message under header h (valid, its ICV good): refused
 * as not of r's set. */
static void not_of_the_set(gostx_ike_reasm *r, const gostx_ike_hdr *h, size_t len,
                           const char *what) {
  uint8_t m[1600];
  size_t ml = 0;
  int done = 0;
  CHECK_RC(gostx__ike_frag_seal(&sk_k, 7, h, GOSTX_IKE_PT_IDI, inside, len, 576, 3, m, sizeof m,
                                &ml),
           GOSTX_OK, "the other message's fragment");
  CHECK_RC(gostx__ike_reasm_add(r, &sk_k, m, ml, &done), GOSTX_EFORMAT, what);
}

enum { NUM_AT = 32, TOTAL_AT = 34 }; /* in a fragment message: header 28, SKF generic 4 */

/* The rules, each dropping one fragment while the set completes after. */
static void refusals(void) {
  static uint8_t held[8192], out[8192];
  const gostx_ike_hdr h = hdr(1);
  gostx_ike_reasm r;
  int done = 0;
  gostx_ike_hdr oh;
  uint8_t first;
  size_t ol;
  const size_t len = 1500;
  const uint16_t total = cut(&sk_k, &h, len, 576); /* 3 */
  CHECK(total == 3, "three fragments");
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  CHECK_RC(gostx__ike_reasm_take(&r, &oh, &first, out, sizeof out, &ol), GOSTX_ESTATE,
           "nothing to take");
  uint8_t other[1600];
  size_t other_len;
  gostx_ike_hdr h2 = hdr(2);
  CHECK_RC(gostx__ike_frag_seal(&sk_k, 7, &h2, GOSTX_IKE_PT_IDI, inside, len, 576, 3, other,
                                sizeof other, &other_len),
           GOSTX_OK, "message 2's fragment");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, other, other_len, &done), GOSTX_EFORMAT,
           "another Message ID than the set's, first");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1], &done), GOSTX_OK, "#2");
  CHECK_RC(gostx__ike_reasm_take(&r, &oh, &first, out, sizeof out, &ol), GOSTX_ESTATE,
           "incomplete: nothing to take");
  /* 2.6: the numbers */
  put16(2, NUM_AT, 0);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_EFORMAT,
           "Fragment Number 0");
  put16(2, NUM_AT, 4);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_EFORMAT,
           "Fragment Number above Total Fragments");
  put16(2, NUM_AT, 3);
  put16(2, TOTAL_AT, 0);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_EFORMAT,
           "Total Fragments 0");
  put16(2, TOTAL_AT, GOSTX_IKE_FRAG_MAX + 1);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_ELEN,
           "Total Fragments above the bound");
  put16(2, TOTAL_AT, 3);
  /* 2.5: Next Payload 0 after the first */
  frags[2][28] = GOSTX_IKE_PT_IDI;
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_EFORMAT,
           "a Next Payload in fragment 3");
  frags[2][28] = 0;
  /* 2.6: a replay of a held fragment, before its ICV is even looked at */
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1], &done), GOSTX_ESTATE,
           "fragment 2 again");
  /* 2.6: the ICV */
  frags[2][frag_len[2] - 1] ^= 0x80;
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_EAUTH,
           "a forged fragment");
  frags[2][frag_len[2] - 1] ^= 0x80;
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_m, frags[2], frag_len[2], &done), GOSTX_EAUTH,
           "a fragment under another key");
  /* the set's identity: Message ID, exchange, flags */
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, other, other_len, &done), GOSTX_EFORMAT,
           "another Message ID");
  h2 = hdr(1);
  h2.flags = GOSTX_IKE_FLAG_R;
  not_of_the_set(&r, &h2, len, "the response flag in a request's set");
  h2.flags = GOSTX_IKE_FLAG_I;
  h2.exchange = GOSTX_IKE_CREATE_CHILD_SA;
  not_of_the_set(&r, &h2, len, "another exchange in the set");
  /* 2.6: a smaller Total Fragments than the set's (an older probe) */
  CHECK_RC(gostx__ike_frag_seal(&sk_k, 7, &h, GOSTX_IKE_PT_IDI, inside, len, 1280, 1, other,
                                sizeof other, &other_len),
           GOSTX_OK, "a fragment of two");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, other, other_len, &done), GOSTX_EFORMAT,
           "Total Fragments below the set's");
  /* 2.5.3: a payload before SKF (no exchange defines one) */
  static const uint8_t notify[] = {0, 0, 0, 8, 0, 0, 0x40, 0x2e};
  uint8_t pre[1700];
  memcpy(pre, frags[2], 28);
  pre[16] = GOSTX_IKE_PT_NOTIFY;
  memcpy(pre + 28, notify, sizeof notify);
  pre[28] = GOSTX_IKE_PT_SKF;
  memcpy(pre + 36, frags[2] + 28, frag_len[2] - 28);
  const size_t pre_len = frag_len[2] + 8;
  pre[24] = (uint8_t)(pre_len >> 24), pre[25] = (uint8_t)(pre_len >> 16);
  pre[26] = (uint8_t)(pre_len >> 8), pre[27] = (uint8_t)pre_len;
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, pre, pre_len, &done), GOSTX_EFORMAT,
           "a payload before SKF");
  pre[16] = 200; /* an unknown payload, not critical: skipped by the chain, refused here */
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, pre, pre_len, &done), GOSTX_EFORMAT,
           "an unknown payload before SKF");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1] - 1, &done), GOSTX_ELEN,
           "a truncated fragment");
  /* after every refusal the set still completes */
  CHECK(r.have == 1 && r.total == 3, "nothing stored by the refusals");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_OK, "#3");
  CHECK(!done, "two of three");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[0], frag_len[0], &done), GOSTX_OK, "#1");
  CHECK(done, "three of three");
  CHECK(gostx__ike_reasm_take(&r, &oh, &first, out, sizeof out, &ol) == GOSTX_OK && ol == len &&
            !memcmp(out, inside, len),
        "the set completes after the refusals");
  CHECK(r.have == 0 && r.total == 0 && r.used == 0, "take resets the set");
}

/* 2.5.2: a valid fragment of a set with more fragments (a smaller threshold)
 * starts over: what was held goes, the new set completes alone. A forged
 * one does not. */
static void newer_set(void) {
  static uint8_t held[8192], out[8192], big[2][1600];
  size_t big_len[2];
  const gostx_ike_hdr h = hdr(1);
  const size_t len = 1000;
  gostx_ike_reasm r;
  int done = 0;
  CHECK(cut(&sk_k, &h, len, 1280) == 1, "one fragment at 1280");
  memcpy(big[0], frags[0], frag_len[0]);
  big_len[0] = frag_len[0];
  CHECK(cut(&sk_k, &h, len, 576) == 2, "two at 576");
  memcpy(big[1], frags[0], frag_len[0]);
  big_len[1] = frag_len[0];
  const uint16_t total = cut(&sk_k, &h, len, 300);
  CHECK(total > 2, "more at 300");
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, big[1], big_len[1], &done), GOSTX_OK, "1 of 2");
  frags[1][frag_len[1] - 1] ^= 1;
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1], &done), GOSTX_EAUTH,
           "a forged fragment of a larger set");
  frags[1][frag_len[1] - 1] ^= 1;
  CHECK(r.total == 2 && r.have == 1, "the set as it was");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1], &done), GOSTX_OK,
           "a fragment of a larger set");
  CHECK(r.total == total && r.have == 1, "started over with it");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, big[0], big_len[0], &done), GOSTX_EFORMAT,
           "the one-fragment set is older now");
  for (uint16_t i = 0; i < total; i++)
    if (i != 1)
      CHECK(gostx__ike_reasm_add(&r, &sk_k, frags[i], frag_len[i], &done) == GOSTX_OK, "#%u",
            i + 1);
  gostx_ike_hdr oh;
  uint8_t first;
  size_t ol;
  CHECK(done && gostx__ike_reasm_take(&r, &oh, &first, out, sizeof out, &ol) == GOSTX_OK &&
            ol == len && !memcmp(out, inside, len),
        "the newer set rejoined without the older's octets");
}

/* Memory: the caller's buffer bounds what is held; a fragment that does not
 * fit is dropped and what is held stays; reset wipes it. */
static void bounded(void) {
  static uint8_t held[1200], out[8192];
  const gostx_ike_hdr h = hdr(1);
  const size_t len = 1500;
  gostx_ike_reasm r;
  int done = 0;
  CHECK(cut(&sk_k, &h, len, 576) == 3, "three fragments");
  gostx__ike_reasm_init(&r, held, sizeof held, 1);
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[0], frag_len[0], &done), GOSTX_OK, "#1");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[1], frag_len[1], &done), GOSTX_OK, "#2");
  CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[2], frag_len[2], &done), GOSTX_ELEN,
           "no room for #3");
  CHECK(r.have == 2 && r.used <= sizeof held, "what is held stays");
  gostx_ike_hdr oh;
  uint8_t first;
  size_t ol;
  CHECK_RC(gostx__ike_reasm_take(&r, &oh, &first, out, sizeof out, &ol), GOSTX_ESTATE, "incomplete");
  gostx__ike_reasm_reset(&r);
  int zero = 1;
  for (size_t i = 0; i < sizeof held; i++) zero &= held[i] == 0;
  CHECK(zero && r.have == 0 && r.used == 0, "reset wipes the held content");
  /* a take into too small a buffer keeps the set */
  static uint8_t held2[8192];
  gostx__ike_reasm_init(&r, held2, sizeof held2, 1);
  for (int i = 0; i < 3; i++) CHECK_RC(gostx__ike_reasm_add(&r, &sk_k, frags[i], frag_len[i], &done), GOSTX_OK, "#");
  CHECK_RC(gostx__ike_reasm_take(&r, &oh, &first, out, len - 1, &ol), GOSTX_ELEN, "small out");
  CHECK_RC(gostx__ike_reasm_take(&r, &oh, &first, out, len, &ol), GOSTX_OK, "then taken");
}

/* IKEV2_FRAGMENTATION_SUPPORTED (2.3): written, found; absent; malformed. */
static void negotiation(void) {
  uint8_t buf[256], nonce[32] = {1};
  gostx_ike_chain c;
  for (int variant = 0; variant < 4; variant++) {
    gostx_ike_writer w;
    gostx__ike_w_inner(&w, buf, sizeof buf);
    gostx__ike_w_raw(&w, GOSTX_IKE_PT_NONCE, nonce, sizeof nonce);
    gostx_ike_notify n = {0, 0, GOSTX_IKE_N_FRAGMENTATION_SUPPORTED, NULL, NULL, 0};
    if (variant == 0) gostx__ike_w_frag_supported(&w);
    if (variant == 2) n.data = nonce, n.data_len = 1;
    if (variant == 3) n.proto = GOSTX_IKE_PROTO_IKE;
    if (variant >= 2) gostx__ike_w_notify(&w, &n);
    CHECK_RC(gostx__ike_chain_read(w.first, buf, w.len, &c, NULL), GOSTX_OK, "chain");
    static const int want[] = {1, 0, GOSTX_EFORMAT, GOSTX_EFORMAT};
    CHECK(gostx__ike_frag_supported(&c) == want[variant], "IKEV2_FRAGMENTATION_SUPPORTED %s",
          (const char *[]){"present", "absent", "with data", "with a protocol"}[variant]);
  }
}

int main(void) {
  keys();
  negotiation();
  round_trips();
  refusals();
  newer_set();
  bounded();
  gostx__ike_sk_clear(&sk_k);
  gostx__ike_sk_clear(&sk_m);
  return t_done();
}
